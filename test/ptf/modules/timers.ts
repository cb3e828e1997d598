// Per card, the payments of each 10-second bucket, emitted when the watermark passes the bucket's end
// (an event-time timer), and a list of the bucket's amounts kept until then (ListState).
import { type Context, defineProcessFunction, listState, valueState } from 'weir'

const output = { bucket_end: 'TIMESTAMP(3)', payments: 'INT', total: 'DOUBLE' } as const
const state = { amounts: listState<number>('amounts'), end: valueState<number>('end') }

function close(ctx: Context<typeof output, typeof state, {}>): void {
  const end = ctx.state.end.value()
  if (end === undefined) return
  const amounts = ctx.state.amounts.get()
  ctx.emit({ bucket_end: end, payments: amounts.length, total: amounts.reduce((a, b) => a + b, 0) })
  ctx.state.amounts.clear()
  ctx.state.end.clear()
  ctx.timers.deleteEventTime(end)
}

export default defineProcessFunction({
  input: { amount: 'DOUBLE', ts: 'TIMESTAMP(3)' },
  output,
  state,
  process(row, ctx) {
    const end = Math.floor(row.ts! / 10_000) * 10_000 + 10_000
    if (ctx.state.end.value() !== end) close(ctx)
    if (ctx.state.end.value() === undefined) {
      ctx.state.end.update(end)
      ctx.timers.registerEventTime(end)
    }
    ctx.state.amounts.add(row.amount ?? 0)
  },
  onTimer(ts, ctx) {
    if (ctx.state.end.value() === ts) close(ctx)
  },
})
