// Unique keys the planner knows for a plan's rows: a GROUP BY's keys, a table's PRIMARY KEY, a
// window aggregate's keys with its window, a deduplication's keys, a Top-N's partition keys with its
// row number, carried through projections, filters and joins. A
// join's state keeps one entry per unique key where its input has one.
import { assertNever } from '../common/assert.js'
import type { LogicalPlan } from './logical/nodes.js'
import { subqueryUniqueKey } from './subquery/traits.js'

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
      // A pair of rows is unique where each row is.
      const l = uniqueKeyOf(plan.left), r = uniqueKeyOf(plan.right)
      if (l === undefined || r === undefined) return undefined
      const lw = plan.left.fields.length
      return [...l, ...r.map(c => c + lw)]
    }
    case 'Over':
      // The input's columns come first, unchanged.
      return uniqueKeyOf(plan.input)
    case 'Deduplicate':
      return plan.keys
    case 'Sort':
      // The input's rows, each once (a sorted updating input is its final rows).
      return uniqueKeyOf(plan.input)
    case 'Rank':
      // ROW_NUMBER numbers each partition's rows apart; Top-1 keeps one row per partition.
      if (plan.fn === 'ROW_NUMBER' && plan.end === 1) return plan.partitionKeys
      if (plan.fn === 'ROW_NUMBER' && plan.outputRank) return [...plan.partitionKeys, plan.input.fields.length]
      return uniqueKeyOf(plan.input)
    case 'TemporalJoin':
      // One output row per probe row, and at most one version per probe row.
      return uniqueKeyOf(plan.left)
    case 'SemiJoin':
    case 'SetOp':
    case 'ScalarJoin':
    case 'MarkerJoin':
      return subqueryUniqueKey(plan, uniqueKeyOf)
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

/** The columns of a process function's output rows ([...PARTITION BY columns, ...output]) its upsert key names. */
export function processUpsertKey(partitionColumns: number, output: readonly { name: string }[], upsertKey: readonly string[]): number[] {
  return [...Array.from({ length: partitionColumns }, (_, i) => i), ...upsertKey.map(c => partitionColumns + output.findIndex(f => f.name === c))]
}
