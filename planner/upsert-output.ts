// Who takes a process function's upsert rows as they are. A function declared changelog: 'upsert'
// emits the latest row per upsert key (+I/+U with no -U before it) and deletes by key (-D, whose other
// columns are not meant to be read). An upsert sink whose PRIMARY KEY is that key writes them as they
// come (upsert-kafka: keyed records and tombstones), and so do print (each change as it comes) and
// blackhole. Any other consumer — a GROUP BY, a join, a filter, a changelog or append sink, a SELECT's
// result — needs retractions: the planner puts a ChangelogNormalize (operators/upsert-materialize.ts
// with upsertInput, keyed by the upsert key) after the function, as Flink does after an upsert source.
import { getConnector } from '../connectors/registry.js'
import { connectorOptions } from './catalog.js'
import { writtenColumns } from './bind/table-fields.js'
import type { LogicalPlan, ProcessTable, Sink } from './logical/nodes.js'
import { inputsOf } from './logical/nodes.js'
import { uniqueKeyOf } from './unique-keys.js'

/** For the sink plans of one job: whether every consumer of `fn` (an upsert process function) takes its upsert rows as they are. */
export function upsertTakenAsIs(roots: readonly LogicalPlan[]): (fn: ProcessTable) => boolean {
  const refused = new Set<LogicalPlan>()
  const seen = new Set<LogicalPlan>()
  // `asIs`: the consumer of `plan` takes upsert rows (a projection passes them on to its own consumer).
  const visit = (plan: LogicalPlan, asIs: boolean): void => {
    if (asIs ? seen.has(plan) : refused.has(plan)) return
    seen.add(plan)
    if (!asIs) refused.add(plan)
    switch (plan.kind) {
      case 'Sink':
        visit(plan.input, sinkTakesUpserts(plan))
        return
      case 'Project':
        // Deletes by key pass a projection that keeps the key (the sink's check sees the key through it).
        visit(plan.input, asIs)
        return
      default:
        for (const input of inputsOf(plan)) visit(input, false)
    }
  }
  for (const root of roots) visit(root, true)
  return fn => !refused.has(fn)
}

function sinkTakesUpserts(sink: Sink): boolean {
  const table = sink.table
  if (table === undefined) return false // a SELECT's result view applies retractions
  const factory = getConnector(table.options['connector']!).sink
  if (factory?.upsertsAsTheyCome === true) return true
  const use = factory?.updateBefore?.(connectorOptions(table.options))
  if (use === 'ignored') return true
  if (use !== 'upsert') return false
  const written = writtenColumns(table)
  const primaryKey = table.primaryKey.map(k => written.findIndex(c => c.name === k))
  const unique = uniqueKeyOf(sink.input)
  // The same columns: a -D carries the key the sink deletes by, and each key has one row.
  return unique !== undefined && unique.length === primaryKey.length && unique.every(c => primaryKey.includes(c))
}
