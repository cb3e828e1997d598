// Emits a '-D' without declaring a changelog: refused at run time.
import { defineProcessFunction } from 'weir'

export default defineProcessFunction({
  input: { amount: 'DOUBLE' },
  output: { amount: 'DOUBLE' },
  process(row, ctx) {
    ctx.emit({ amount: row.amount }, '-D')
  },
})
