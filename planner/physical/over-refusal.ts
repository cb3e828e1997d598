// What an Over node that no rule turned into a Deduplicate or Rank operator is told when lowered:
// OVER aggregates are not implemented yet, and a rank needs a filter on its result.
import { WeirError } from '../../common/errors.js'
import type { Over } from '../logical/over.js'
import { isRankFn } from '../logical/over.js'

export function unsupportedOver(plan: Over): WeirError {
  const agg = plan.calls.find(c => !isRankFn(c.fn))
  if (agg !== undefined) {
    return WeirError.unsupported(`OVER aggregates (${agg.fn} … OVER) are not supported yet`, {
      span: agg.span,
      help:
        "aggregate per window instead: FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR)) GROUP BY key, window_start, window_end",
    })
  }
  const call = plan.calls[0]!
  return WeirError.unsupported(`${call.fn}() is only supported under a filter on its result (a Top-N or a deduplication)`, {
    span: call.span,
    help:
      `select it in a subquery and filter in the outer query: SELECT * FROM (SELECT *, ${call.fn}() OVER (PARTITION BY … ORDER BY …) AS rn FROM t) WHERE rn <= 10`,
  })
}
