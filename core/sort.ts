// ORDER BY and LIMIT as the planner binds them and the operators run them (planner/bind/order-limit.ts).
import type { OrderKey } from './rank.js'

/**
 * `ORDER BY … [LIMIT n]` over a bounded input (`atEnd`): rows are kept until the input ends, then
 * emitted once, sorted and cut to the limit, insert-only. `LIMIT n` without ORDER BY over an
 * insert-only input (`atEnd` false): the first n rows pass as they come, the rest are dropped. One
 * subtask; its state is checkpointed like any operator's.
 */
export interface SortSpec {
  readonly kind: 'Sort'
  readonly orderKeys: readonly OrderKey[]
  readonly limit: number | null
  readonly atEnd: boolean
  /** Columns of the input row (ties on the keys are ordered by every column, so a run is repeatable). */
  readonly width: number
  /** The input retracts rows: kept as a multiset rather than a list. */
  readonly inputUpdating: boolean
}
