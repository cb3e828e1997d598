// Writes state (a count and a map entry), registers a timer, deletes the timer at 10 and emits — then
// throws for a negative amount: with on-error 'skip', none of it may remain.
import { defineProcessFunction, mapState, valueState } from 'weir'

export default defineProcessFunction({
  input: { amount: 'DOUBLE' },
  output: { n: 'BIGINT', fired: 'BIGINT' },
  state: { n: valueState<{ n: number }>('n'), seen: mapState<string, number>('seen') },
  process(row, ctx) {
    const amount = row.amount ?? 0
    const was = ctx.state.n.value() ?? { n: 0 }
    was.n++ // mutates the stored object: the undo must have kept a copy
    ctx.state.n.update(was)
    ctx.state.seen.put(String(Math.abs(amount)), was.n)
    ctx.timers.registerEventTime(Math.round(Math.abs(amount)) * 10)
    if (amount < 0) ctx.timers.deleteEventTime(10)
    ctx.emit({ n: was.n, fired: null })
    if (amount < 0) throw new Error('negative amount')
  },
  onTimer(ts, ctx) {
    ctx.emit({ n: ctx.state.n.value()?.n ?? null, fired: ts })
  },
})
