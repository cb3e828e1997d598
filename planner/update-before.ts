// Who reads -U rows. An updating operator emits a -U (the old row) before each +U only for consumers
// that use it: stateful operators retract with it, changelog sinks write it. A sink that writes
// upserts by its PRIMARY KEY drops it (the +U replaces the old row under the same key), and so does a
// blackhole; stateless per-row operators between (projections, filters, unions) need it exactly
// when what they feed does. Skipping it halves an updating query's output on the way to such a sink
// (as Flink's ONLY_UPDATE_AFTER changelog mode).
//
// An upsert sink can drop -U rows only if the query's rows are unique by the sink's key, and no
// filter above the updates can drop a row's +U while its -U passes; otherwise a -U may retract a
// row under one key whose +U lands under another, or nowhere. Then an UpsertMaterialize operator goes
// in front of the sink (materializerKeys), and it needs the -U rows.
import { getConnector } from '../connectors/registry.js'
import { changelogOf } from './changelog.js'
import { inputsOf, type LogicalPlan, type Sink } from './logical/nodes.js'
import { writtenColumns } from './bind/table-fields.js'
import { uniqueKeyOf } from './unique-keys.js'
import { connectorOptions } from './catalog.js'

/**
 * For the sink plans of one job: whether each node's -U rows are read by any of its consumers
 * (true for a node it was not asked about).
 */
export function updateBeforeReaders(roots: readonly LogicalPlan[]): (plan: LogicalPlan) => boolean {
  const needed = new Map<LogicalPlan, boolean>()
  const visit = (plan: LogicalPlan, required: boolean): void => {
    const seen = needed.get(plan)
    // Visited already with at least this requirement: its inputs know.
    if (seen === true || (seen === false && !required)) return
    needed.set(plan, required)
    switch (plan.kind) {
      case 'Sink':
        visit(plan.input, sinkReadsUpdateBefore(plan))
        return
      case 'Project':
      case 'Expand':
      case 'Unnest':
      case 'Filter':
        visit(plan.input, required)
        return
      case 'Union':
        for (const input of plan.inputs) visit(input, required)
        return
      default:
        for (const input of inputsOf(plan)) visit(input, true)
    }
  }
  for (const root of roots) visit(root, true)
  return plan => needed.get(plan) ?? true
}

/**
 * The sink's key columns (indices into its rows) when an UpsertMaterialize must go in front of it:
 * an upsert sink with a PRIMARY KEY fed updates that are not known to be unique by that key.
 */
export function materializerKeys(sink: Sink): readonly number[] | undefined {
  const table = sink.table
  if (table === undefined || changelogOf(sink.input).mode !== 'updating') return undefined
  if (updateBeforeUse(table.options) !== 'upsert') return undefined
  const written = writtenColumns(table)
  const primaryKey = table.primaryKey.map(k => written.findIndex(c => c.name === k))
  if (primaryKey.length === 0 || primaryKey.some(i => i < 0)) return undefined
  const unique = uniqueKeyOf(sink.input)
  // Rows unique by some of the key's columns are unique by the key: each key has one live row —
  // unless a filter over the updates can drop a row's new value and keep its -U (HAVING MAX(x) < 10):
  // the key's row is then gone, which only the materializer can turn into a delete.
  if (unique !== undefined && unique.every(c => primaryKey.includes(c)) && !filtersUpdates(sink.input)) return undefined
  return primaryKey
}

/** A filter between the operators that make updates and the sink (through projections and unions). */
function filtersUpdates(plan: LogicalPlan): boolean {
  switch (plan.kind) {
    case 'Project':
    case 'Expand':
      return filtersUpdates(plan.input)
    case 'Filter':
    case 'Unnest':
      return changelogOf(plan.input).mode === 'updating' || filtersUpdates(plan.input)
    case 'Union':
      return plan.inputs.some(filtersUpdates)
    default:
      return false
  }
}

function sinkReadsUpdateBefore(sink: Sink): boolean {
  if (sink.table === undefined) return true // a SELECT's result view retracts with them
  const use = updateBeforeUse(sink.table.options)
  if (use === undefined) return true
  if (use === 'ignored') return false
  return materializerKeys(sink) !== undefined
}

function updateBeforeUse(tableOptions: Readonly<Record<string, string>>): 'upsert' | 'ignored' | undefined {
  const factory = getConnector(tableOptions['connector']!).sink
  if (factory?.updateBefore === undefined) return undefined
  return factory.updateBefore(connectorOptions(tableOptions))
}
