// A per-key counter: each payment's running count and total for its card, flagged once the total passes `threshold`.
import { defineProcessFunction, valueState } from 'weir'

interface Totals {
  n: number
  total: number
}

export default defineProcessFunction({
  input: { card_id: 'STRING', amount: 'DOUBLE' },
  output: { n: 'BIGINT', total: 'DOUBLE', flagged: 'BOOLEAN' },
  args: { threshold: 'DOUBLE' },
  state: { totals: valueState<Totals>('totals', { ttl: '1 d' }) },
  process(row, ctx) {
    const was = ctx.state.totals.value() ?? { n: 0, total: 0 }
    const now = { n: was.n + 1, total: was.total + (row.amount ?? 0) }
    ctx.state.totals.update(now)
    ctx.emit({ n: now.n, total: now.total, flagged: now.total > (ctx.args.threshold ?? Infinity) })
  },
})
