// Each card's largest payment so far, as an updating row: the first as an insert, each larger one
// as a retraction of the previous best ('-U') and the new one ('+U').
import { defineProcessFunction, valueState } from 'weir'

export default defineProcessFunction({
  input: { amount: 'DOUBLE' },
  output: { best: 'DOUBLE' },
  changelog: 'retract',
  state: { best: valueState<number>('best') },
  process(row, ctx) {
    const amount = row.amount ?? 0
    const best = ctx.state.best.value()
    if (best !== undefined && amount <= best) return
    if (best !== undefined) ctx.emit({ best }, '-U')
    ctx.emit({ best: amount }, best === undefined ? '+I' : '+U')
    ctx.state.best.update(amount)
  },
})
