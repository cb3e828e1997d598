// The physical spec of an OVER aggregate: `f(…) OVER (PARTITION BY … ORDER BY time frame)` computed
// for every input row in time order, appended to the row. Plain data, part of the job graph.
import type { AggCall } from './aggregates.js'
import type { TimeDomain } from './windows.js'

/**
 * How far a frame reaches back from the current row: `preceding` rows (ROWS) or milliseconds
 * (RANGE, peers of the current row included); null for UNBOUNDED PRECEDING. Frames end at the
 * current row.
 *
 * @example ROWS BETWEEN 10 PRECEDING AND CURRENT ROW → { unit: 'ROWS', preceding: 10 }
 */
export interface OverFrameSpec {
  readonly unit: 'ROWS' | 'RANGE'
  readonly preceding: number | null
}

/**
 * One call: an aggregate over its frame; ROW_NUMBER (the row's position in its partition, in time
 * order), RANK (1 + the rows before its peers), DENSE_RANK (1 + the peer groups before it); or LAG.
 */
export type OverAggCallSpec =
  | { readonly fn: 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK'; readonly name: string }
  | OverLagSpec
  | { readonly fn: AggCall['fn']; readonly agg: AggCall; readonly frame: OverFrameSpec }

/** An aggregate over its frame (not a rank nor LAG). */
export type OverAggregateCall = Extract<OverAggCallSpec, { readonly agg: AggCall }>

export function isFrameCall(c: OverAggCallSpec): c is OverAggregateCall {
  return 'agg' in c
}

/** A call as a signature, EXPLAIN and messages show it apart from its aggregate: `RANK()`, `LAG($1, 2, $3)`. */
export function describeRowCall(c: Exclude<OverAggCallSpec, OverAggregateCall>, column: (i: number) => string): string {
  if (c.fn !== 'LAG') return `${c.fn}()`
  return `LAG(${column(c.arg)}, ${c.offset}${c.default !== null ? `, ${column(c.default)}` : ''})`
}

/**
 * `LAG(arg, offset, default)`: the value of input column `arg` in the row `offset` rows before the
 * current one in its partition (0: the current row), or input column `default` of the current row
 * (null: NULL) when the partition has fewer rows before it. Peers (rows at one time) count in
 * arrival order.
 *
 * @example LAG(price, 2) → { fn: 'LAG', arg: 1, offset: 2, default: null, name: 'prev2' }
 */
export interface OverLagSpec {
  readonly fn: 'LAG'
  readonly arg: number
  readonly offset: number
  readonly default: number | null
  readonly name: string
}

/**
 * Output row: the input row, then one column per call. Insert-only in and out. Event time: rows
 * wait in state until the watermark passes their timestamp (later rows are late: dropped and
 * counted); processing time: rows are computed when they arrive.
 */
export interface OverAggregateSpec {
  readonly kind: 'OverAggregate'
  readonly partitionKeys: readonly number[]
  /** Input column holding the ORDER BY time attribute. */
  readonly timeIndex: number
  readonly timeDomain: TimeDomain
  readonly calls: readonly OverAggCallSpec[]
}
