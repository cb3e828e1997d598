// Deduplication and Top-N as the planner binds them and the operators run them: the logical plan's
// Deduplicate and Rank nodes and the job graph's specs hold the same values.
import type { TimeDomain } from './windows.js'

export type RankFn = 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK'

/** One ORDER BY key: an input column with its direction. */
export interface OrderKey {
  readonly index: number
  readonly descending: boolean
  /** SQL's default: NULLS FIRST for ASC, NULLS LAST for DESC (Flink's). */
  readonly nullsFirst: boolean
}

/**
 * `ROW_NUMBER() OVER (PARTITION BY keys ORDER BY time ASC|DESC) = 1`: the first or last row per key.
 * Output: the input row. Keep-first on processing time is insert-only; the others emit updates.
 */
export interface DeduplicateSpec {
  readonly kind: 'Deduplicate'
  readonly keys: readonly number[]
  readonly timeIndex: number
  readonly timeDomain: TimeDomain
  readonly keepLast: boolean
  /** State TTL in ms; 0 means state never expires. */
  readonly ttlMs: number
}

/**
 * Top-N: the rows of each partition whose rank is in [start, end]. Output: the input row, plus the
 * rank when `outputRank`. With `window`, rows are ranked per window and emitted once, insert-only,
 * when time passes the window's end (the window's end column is one of the partition keys).
 */
export interface RankSpec {
  readonly kind: 'Rank'
  readonly fn: RankFn
  readonly partitionKeys: readonly number[]
  readonly orderKeys: readonly OrderKey[]
  readonly start: number
  readonly end: number
  readonly outputRank: boolean
  /** Columns of the input row (the order compares every column after the ORDER BY keys). */
  readonly width: number
  /** The input retracts rows: every row is kept (not only the top), so a retraction can promote the next one. */
  readonly inputUpdating: boolean
  readonly ttlMs: number
  readonly window?: { readonly endIndex: number; readonly timeDomain: TimeDomain }
}
