// Column pruning: a scan under a projection reads only the columns the projection (and filters) use.
import type { Rex } from '../../core/rex.js'
import { inputsUsed, remapInputs } from '../../core/rex.js'
import type { LogicalPlan, Scan } from '../logical/nodes.js'

export function pruneScanColumns(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Project') return undefined
  let filter: Extract<LogicalPlan, { kind: 'Filter' }> | undefined
  let scan: Scan
  if (plan.input.kind === 'Scan') scan = plan.input
  else if (plan.input.kind === 'Filter' && plan.input.input.kind === 'Scan') {
    filter = plan.input
    scan = plan.input.input
  } else return undefined

  const used = new Set<number>()
  for (const e of plan.exprs) inputsUsed(e, used)
  if (filter) inputsUsed(filter.condition, used)
  if (scan.filter) inputsUsed(scan.filter, used)
  if (used.size === scan.columns.length) return undefined
  const keep = [...used].sort((a, b) => a - b)
  const map = new Map(keep.map((old, i) => [old, i]))
  const remap = (r: Rex): Rex => remapInputs(r, i => map.get(i)!)
  const narrowed: Scan = {
    ...scan,
    columns: keep.map(i => scan.columns[i]!),
    fields: keep.map(i => scan.fields[i]!),
    filter: scan.filter ? remap(scan.filter) : undefined,
  }
  const input: LogicalPlan = filter
    ? { ...filter, input: narrowed, condition: remap(filter.condition), fields: narrowed.fields }
    : narrowed
  return { ...plan, input, exprs: plan.exprs.map(remap) }
}
