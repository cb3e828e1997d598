// Lowering of the OVER family: Deduplicate and Rank nodes become their operator specs; an Over node
// that no rule turned into one is refused (OVER aggregates are not implemented yet, and a rank needs
// a filter on its result).
import { WeirError } from '../../common/errors.js'
import type { DeduplicateSpec, RankSpec } from '../../core/rank.js'
import type { Over } from '../logical/over.js'
import type { Deduplicate, Rank } from '../logical/rank.js'
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

/** The operator spec of a Deduplicate or Rank node. */
export function rankSpec(plan: Deduplicate | Rank, inputUpdating: boolean): DeduplicateSpec | RankSpec {
  if (plan.kind === 'Deduplicate') {
    return { kind: 'Deduplicate', keys: plan.keys, timeIndex: plan.timeIndex, timeDomain: plan.timeDomain, keepLast: plan.keepLast, ttlMs: plan.ttlMs }
  }
  return {
    kind: 'Rank',
    fn: plan.fn,
    partitionKeys: plan.partitionKeys,
    orderKeys: plan.orderKeys,
    start: plan.start,
    end: plan.end,
    outputRank: plan.outputRank,
    width: plan.input.fields.length,
    inputUpdating,
    // Window Top-N frees its state when the window fires; it needs no TTL.
    ttlMs: plan.window === undefined ? plan.ttlMs : 0,
    ...(plan.window !== undefined ? { window: plan.window } : {}),
  }
}
