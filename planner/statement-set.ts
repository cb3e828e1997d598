// A statement set's INSERTs as one job. Each INSERT is planned as it would be alone; then every table
// they read more than once is read by one source, which reads every column any of them needs, and
// each reader gets its own column selection and pushed-down filter back on top of it, so the job
// reads each table once (as Flink reuses a source read by several sinks).
import type { Field } from '../common/types.js'
import { inputRef, substituteInputs } from '../core/rex.js'
import type * as ast from '../grammar/ast.js'
import type { WarningSink } from '../common/warnings.js'
import type { JobConfig } from '../common/config/index.js'
import type { Catalog, CatalogTable } from './catalog.js'
import { inputsOf, withInputs, type LogicalPlan, type Scan } from './logical/nodes.js'
import { planInsert } from './planner.js'

/** Plans the INSERTs of a statement set, sharing the sources they have in common. */
export function planStatementSet(set: ast.StatementSet, catalog: Catalog, config: JobConfig, warn?: WarningSink): LogicalPlan[] {
  return shareSources(set.inserts.map(stmt => planInsert(stmt, catalog, config, warn)))
}

/**
 * Replaces the scans of a table read more than once by one shared scan of the union of their
 * columns, with each scan's columns (and filter) as a projection (and filter) over it. A table with
 * dynamic options (another catalog object) is another source.
 */
export function shareSources(plans: readonly LogicalPlan[]): LogicalPlan[] {
  const byTable = new Map<CatalogTable, Scan[]>()
  const seen = new Set<LogicalPlan>()
  const collect = (plan: LogicalPlan): void => {
    if (seen.has(plan)) return
    seen.add(plan)
    if (plan.kind === 'Scan') {
      const list = byTable.get(plan.table)
      if (list) list.push(plan)
      else byTable.set(plan.table, [plan])
    }
    inputsOf(plan).forEach(collect)
  }
  plans.forEach(collect)

  const replaced = new Map<LogicalPlan, LogicalPlan>()
  for (const [table, scans] of byTable) {
    if (scans.length < 2) continue
    const columns = [...new Set(scans.flatMap(s => s.columns))].sort((a, b) => a - b)
    const fieldOf = new Map<number, Field>()
    for (const s of scans) s.columns.forEach((c, j) => fieldOf.set(c, s.fields[j]!))
    const fields = columns.map(c => fieldOf.get(c)!)
    const shared: Scan = { kind: 'Scan', table, alias: scans[0]!.alias, columns, fields, span: scans[0]!.span, shared: true }
    for (const s of scans) {
      // The scan's own columns, as references into the shared scan's.
      const refs = s.columns.map(c => {
        const at = columns.indexOf(c)
        return inputRef(at, fields[at]!.type)
      })
      const input: LogicalPlan = s.filter
        ? { kind: 'Filter', input: shared, condition: substituteInputs(s.filter, refs), fields, span: s.span }
        : shared
      replaced.set(s, { kind: 'Project', input, exprs: refs, fields: s.fields, span: s.span })
    }
  }
  if (replaced.size === 0) return [...plans]
  // Rewritten once per node, so a subtree two parents share stays shared.
  const rewrite = (plan: LogicalPlan): LogicalPlan => {
    const done = replaced.get(plan)
    if (done) return done
    const inputs = inputsOf(plan)
    const next = inputs.map(rewrite)
    const out = next.some((n, i) => n !== inputs[i]) ? withInputs(plan, next) : plan
    replaced.set(plan, out)
    return out
  }
  return plans.map(rewrite)
}
