// Throws on a negative amount, to test how a handler's exception fails the job.
import { defineProcessFunction } from 'weir'

export default defineProcessFunction({
  input: { amount: 'DOUBLE' },
  output: { amount: 'DOUBLE' },
  process(row, ctx) {
    if ((row.amount ?? 0) < 0) throw new Error('negative amount')
    ctx.emit({ amount: row.amount })
  },
})
