// Counts each card's non-negative payments; a negative amount throws after emitting (the emitted row
// must be taken back when the row is skipped) and before the state write.
import { defineProcessFunction, valueState } from 'weir'

export default defineProcessFunction({
  input: { amount: 'DOUBLE' },
  output: { amount: 'DOUBLE', n: 'BIGINT' },
  state: { n: valueState<number>('n') },
  process(row, ctx) {
    const n = (ctx.state.n.value() ?? 0) + 1
    ctx.emit({ amount: row.amount, n })
    if ((row.amount ?? 0) < 0) throw new Error('negative amount')
    ctx.state.n.update(n)
  },
})
