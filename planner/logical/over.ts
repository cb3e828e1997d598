// The logical Over node: window function calls `f(…) OVER (PARTITION BY … ORDER BY … frame)` computed
// next to each input row. Rank rules turn an Over with one ROW_NUMBER/RANK/DENSE_RANK under a filter
// on its result into a Deduplicate or Rank node; OVER aggregates are lowered from it directly.
import type { Span } from '../../common/span.js'
import type { DataType, Field } from '../../common/types.js'
import type { AggCall } from '../../core/aggregates.js'
import type { TimeDomain } from '../../core/windows.js'
import type { OrderKey, RankFn } from '../../core/rank.js'
import type { LogicalPlan } from './nodes.js'

export type { OrderKey, RankFn } from '../../core/rank.js'
export const RANK_FUNCTIONS: ReadonlySet<string> = new Set<RankFn>(['ROW_NUMBER', 'RANK', 'DENSE_RANK'])

/** Functions that exist only with OVER: the ranks, LAG, and those refused on streams (LEAD, the distributions). */
export const OVER_ONLY_FUNCTIONS: ReadonlySet<string> = new Set([...RANK_FUNCTIONS, 'LAG', 'LEAD', 'CUME_DIST', 'PERCENT_RANK', 'NTILE'])

/**
 * One end of a frame. `offset` is a row count for ROWS, and milliseconds for a RANGE over a time
 * attribute (`INTERVAL '1' HOUR PRECEDING` → 3600000).
 */
export type FrameBoundSpec =
  | { readonly kind: 'UNBOUNDED_PRECEDING' }
  | { readonly kind: 'PRECEDING'; readonly offset: number }
  | { readonly kind: 'CURRENT_ROW' }
  | { readonly kind: 'FOLLOWING'; readonly offset: number }
  | { readonly kind: 'UNBOUNDED_FOLLOWING' }

/** `ROWS|RANGE BETWEEN lower AND upper`; `explicit` is false for the default frame SQL implies. */
export interface OverFrame {
  readonly unit: 'ROWS' | 'RANGE'
  readonly lower: FrameBoundSpec
  readonly upper: FrameBoundSpec
  readonly explicit: boolean
}

/** LAG's input columns (the value, and the default or null) and its constant offset. */
export interface LagArgs {
  readonly arg: number
  readonly offset: number
  readonly default: number | null
}

/**
 * A window function call. Aggregates (COUNT/SUM/MIN/MAX/AVG) carry their AggCall (argument and
 * FILTER are input columns); LAG its LagArgs; rank functions take no argument. Neither ranks nor
 * LAG have a frame of their own.
 */
export interface OverCall {
  readonly fn: RankFn | AggCall['fn'] | 'LAG'
  readonly agg?: AggCall
  readonly lag?: LagArgs
  readonly frame: OverFrame
  readonly type: DataType
  readonly name: string
  /** The call with its OVER clause, for messages. */
  readonly span: Span
}

/** Output: the input's columns, then one column per call. */
export interface Over {
  readonly kind: 'Over'
  readonly input: LogicalPlan
  readonly partitionKeys: readonly number[]
  readonly orderKeys: readonly OrderKey[]
  /** The time domain of the first ORDER BY key when it is a time attribute (event or processing time). */
  readonly orderTime?: TimeDomain
  readonly calls: readonly OverCall[]
  /** State TTL for the operators made from this node (dedup, Top-N); 0 = never expires. */
  readonly ttlMs: number
  readonly ttlSource: string
  readonly fields: readonly Field[]
  readonly span: Span
}

export function isRankFn(fn: OverCall['fn']): fn is RankFn {
  return RANK_FUNCTIONS.has(fn)
}

/** `ROWS BETWEEN 5 PRECEDING AND CURRENT ROW`, for EXPLAIN and messages. */
export function formatFrame(f: OverFrame): string {
  const bound = (b: FrameBoundSpec): string => {
    switch (b.kind) {
      case 'UNBOUNDED_PRECEDING':
        return 'UNBOUNDED PRECEDING'
      case 'UNBOUNDED_FOLLOWING':
        return 'UNBOUNDED FOLLOWING'
      case 'CURRENT_ROW':
        return 'CURRENT ROW'
      default:
        return `${f.unit === 'RANGE' ? `${b.offset} ms` : b.offset} ${b.kind}`
    }
  }
  return `${f.unit} BETWEEN ${bound(f.lower)} AND ${bound(f.upper)}`
}
