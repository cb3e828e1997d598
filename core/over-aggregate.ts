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

/** One call: an aggregate over its frame, or ROW_NUMBER (the row's position in its partition, in time order). */
export type OverAggCallSpec =
  | { readonly fn: 'ROW_NUMBER'; readonly name: string }
  | { readonly fn: AggCall['fn']; readonly agg: AggCall; readonly frame: OverFrameSpec }

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
