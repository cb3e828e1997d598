// Unique keys the planner knows for a plan's rows: a GROUP BY's keys, a table's PRIMARY KEY, a
// window aggregate's keys with its window, a deduplication's keys, a Top-N's partition keys with its
// row number, carried through projections, filters and joins. A
// join's state keeps one entry per unique key where its input has one, and an upsert sink takes
// rows as they come where they are unique by its key: both replace or delete a key's row as its
// changes arrive, so a key is known here only where its changes arrive in order. That holds where
// one subtask makes every change of a key value: an operator that makes the key (a GROUP BY is
// distributed by its keys), or one that passes its input's key on and is distributed by columns
// the key holds (Flink's upsert keys lose a key the same way). A join on a GROUP BY's count does
// not pass the GROUP BY's key on: a row leaves one count's subtask and reaches another's, and what
// the two emit for it may reach the next operator in either order.
import { assertNever } from '../common/assert.js'
import type { LogicalPlan } from './logical/nodes.js'
import { setOpUniqueKey } from './subquery/traits.js'

const cache = new WeakMap<LogicalPlan, readonly number[] | null>()

/** Columns whose values identify a row of `plan` among its live rows (`[]`: at most one row), or undefined if none is known. */
export function uniqueKeyOf(plan: LogicalPlan): readonly number[] | undefined {
  let hit = cache.get(plan)
  if (hit === undefined) {
    hit = infer(plan) ?? null
    cache.set(plan, hit)
  }
  return hit ?? undefined
}

function infer(plan: LogicalPlan): readonly number[] | undefined {
  switch (plan.kind) {
    case 'Scan': {
      // A declared PRIMARY KEY is trusted (NOT ENFORCED, as in Flink).
      const pk = plan.table.primaryKey
      if (pk.length === 0) return undefined
      const cols = pk.map(name => plan.fields.findIndex(f => f.name === name))
      return cols.every(c => c >= 0) ? cols : undefined
    }
    case 'Aggregate':
      return plan.keys.map((_, i) => i)
    case 'WindowAggregate': {
      const k = plan.keys.length, a = plan.aggs.length
      return [...plan.keys.map((_, i) => i), k + a, k + a + 1]
    }
    case 'Project': {
      const inner = uniqueKeyOf(plan.input)
      if (inner === undefined) return undefined
      const cols = inner.map(c => plan.exprs.findIndex(e => e.kind === 'Input' && e.index === c))
      return cols.every(c => c >= 0) ? cols : undefined
    }
    case 'Filter':
    case 'Sink':
      return uniqueKeyOf(plan.input)
    case 'Join': {
      // A pair of rows is unique where each row is (and each side's key holds its join keys).
      const l = ordered(uniqueKeyOf(plan.left), plan.leftKeys), r = ordered(uniqueKeyOf(plan.right), plan.rightKeys)
      if (l === undefined || r === undefined) return undefined
      const lw = plan.left.fields.length
      return [...l, ...r.map(c => c + lw)]
    }
    case 'Over':
      // The input's columns come first, unchanged.
      return ordered(uniqueKeyOf(plan.input), plan.partitionKeys)
    case 'Deduplicate':
      return plan.keys
    case 'Sort':
      // The input's rows, each once (a sorted updating input is its final rows).
      return uniqueKeyOf(plan.input)
    case 'Rank':
      // ROW_NUMBER numbers each partition's rows apart; Top-1 keeps one row per partition.
      if (plan.fn === 'ROW_NUMBER' && plan.end === 1) return plan.partitionKeys
      if (plan.fn === 'ROW_NUMBER' && plan.outputRank) return [...plan.partitionKeys, plan.input.fields.length]
      return ordered(uniqueKeyOf(plan.input), plan.partitionKeys)
    case 'TemporalJoin':
      // One output row per probe row, and at most one version per probe row.
      return ordered(uniqueKeyOf(plan.left), plan.leftKeys)
    case 'SemiJoin':
    case 'ScalarJoin':
    case 'MarkerJoin':
      // Left's rows as they are (at most once each).
      return ordered(uniqueKeyOf(plan.left), plan.leftKeys)
    case 'SetOp':
      return setOpUniqueKey(plan)
    case 'Values':
    case 'Expand':
    // An input row becomes several: its key is no longer unique.
    case 'Unnest':
    case 'WindowTvf':
    case 'Union':
      return undefined
    case 'ProcessTable':
      // A function may emit any number of rows per key, unless it emits the latest row per upsert key.
      return plan.fn.changelog === 'upsert' ? processUpsertKey(plan.keys.length, plan.fn.output, plan.fn.upsertKey) : undefined
    default:
      return assertNever(plan)
  }
}

/**
 * `key` where it holds every column of `distribution` (the columns an operator that passes the key on
 * is distributed by): each key value's changes then pass one of its subtasks, in order. Otherwise
 * none: changes of one key value leave different subtasks.
 */
function ordered(key: readonly number[] | undefined, distribution: readonly number[]): readonly number[] | undefined {
  return key !== undefined && distribution.every(c => key.includes(c)) ? key : undefined
}

/** The columns of a process function's output rows ([...PARTITION BY columns, ...output]) its upsert key names. */
export function processUpsertKey(partitionColumns: number, output: readonly { name: string }[], upsertKey: readonly string[]): number[] {
  return [...Array.from({ length: partitionColumns }, (_, i) => i), ...upsertKey.map(c => partitionColumns + output.findIndex(f => f.name === c))]
}
