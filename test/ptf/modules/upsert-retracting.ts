// An upsert function that emits a '-U' (refused: an upsert stream has none).
import { defineProcessFunction } from 'weir'

export default defineProcessFunction({
  input: { amount: 'DOUBLE' },
  output: { amount: 'DOUBLE' },
  changelog: 'upsert',
  upsertKey: [],
  process(row, ctx) {
    ctx.emit({ amount: row.amount }, '-U')
  },
})
