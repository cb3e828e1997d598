// ORDER BY and LIMIT as the planner binds them and the operators run them (planner/bind/order-limit.ts).
import type { OrderKey } from './rank.js'

/**
 * How a Sort emits (one subtask; its state is checkpointed like any operator's):
 * - 'end': `ORDER BY … [LIMIT n]` over a bounded input: rows are kept until the input ends, then
 *   emitted once, sorted and cut to the limit, insert-only;
 * - 'first': `LIMIT n` without ORDER BY over an insert-only input: the first n rows pass as they
 *   come, the rest are dropped;
 * - 'time': `ORDER BY rowtime [, …]` over a stream: each timestamp's rows come out when the
 *   watermark passes it, sorted by the other keys; rows behind the watermark are dropped and counted.
 */
export type SortEmit = 'end' | 'first' | 'time'

export interface SortSpec {
  readonly kind: 'Sort'
  readonly orderKeys: readonly OrderKey[]
  readonly limit: number | null
  readonly emit: SortEmit
  /** Columns of the input row (ties on the keys are ordered by every column, so a run is repeatable). */
  readonly width: number
  /** The input retracts rows: kept as a multiset rather than a list. */
  readonly inputUpdating: boolean
}
