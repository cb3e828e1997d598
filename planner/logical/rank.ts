// Logical nodes made by the rank rules from an Over node under a filter on its rank: Deduplicate
// (ROW_NUMBER ordered by a time attribute, rank 1) and Rank (Top-N, per window when partitioned by one).
import type { Span } from '../../common/span.js'
import type { Field } from '../../common/types.js'
import type { OrderKey, RankFn } from '../../core/rank.js'
import type { SortEmit } from '../../core/sort.js'
import type { TimeDomain } from '../../core/windows.js'
import type { LogicalPlan } from './nodes.js'

/** Output: the input's columns. */
export interface Deduplicate {
  readonly kind: 'Deduplicate'
  readonly input: LogicalPlan
  readonly keys: readonly number[]
  readonly timeIndex: number
  readonly timeDomain: TimeDomain
  readonly keepLast: boolean
  readonly ttlMs: number
  readonly ttlSource: string
  readonly fields: readonly Field[]
  readonly span: Span
}

/** Output: the input's columns, then the rank when `outputRank`. */
export interface Rank {
  readonly kind: 'Rank'
  readonly input: LogicalPlan
  readonly fn: RankFn
  readonly partitionKeys: readonly number[]
  readonly orderKeys: readonly OrderKey[]
  readonly start: number
  readonly end: number
  readonly outputRank: boolean
  /** Set when the partition keys hold a window's start and end: ranked per window, emitted at its end. */
  readonly window?: { readonly endIndex: number; readonly timeDomain: TimeDomain }
  readonly ttlMs: number
  readonly ttlSource: string
  readonly fields: readonly Field[]
  readonly span: Span
}

/** ORDER BY / LIMIT (core/sort.ts). Output: the input's columns. */
export interface Sort {
  readonly kind: 'Sort'
  readonly input: LogicalPlan
  readonly orderKeys: readonly OrderKey[]
  readonly limit: number | null
  readonly emit: SortEmit
  readonly fields: readonly Field[]
  readonly span: Span
}
