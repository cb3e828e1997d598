// Column pruning through UNNEST: its input keeps only the columns read above it and those the
// collection expression reads. Every input column is copied into each element's row, so a column
// dropped here (often the collection itself) is not copied n times, nor read from the source at all.
import type { Rex } from '../../core/rex.js'
import { inputsUsed, remapInputs } from '../../core/rex.js'
import type { LogicalPlan, Unnest } from '../logical/nodes.js'
import { narrow } from './join-projection-push-down.js'

/** A Project (optionally over a Filter) over an Unnest: the Unnest's input narrowed to what is read. */
export function pruneUnnestColumns(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Project') return undefined
  const filter = plan.input.kind === 'Filter' ? plan.input : undefined
  const unnest = (filter ?? plan).input
  if (unnest.kind !== 'Unnest') return undefined
  const width = unnest.input.fields.length
  const above = new Set<number>()
  for (const e of plan.exprs) inputsUsed(e, above)
  if (filter) inputsUsed(filter.condition, above)
  const used = new Set<number>([...above].filter(i => i < width))
  inputsUsed(unnest.collection, used)
  if (used.size === width) return undefined
  const keep = [...used].sort((a, b) => a - b)
  const map = new Map(keep.map((old, i) => [old, i]))
  const pruned: Unnest = {
    ...unnest,
    input: narrow(unnest.input, keep),
    collection: remapInputs(unnest.collection, i => map.get(i)!),
    fields: [...keep.map(i => unnest.fields[i]!), ...unnest.fields.slice(width)],
  }
  // Above the Unnest: the element's columns follow the kept input columns.
  const remap = (r: Rex): Rex => remapInputs(r, i => (i < width ? map.get(i)! : keep.length + i - width))
  const input: LogicalPlan = filter ? { ...filter, input: pruned, condition: remap(filter.condition), fields: pruned.fields } : pruned
  return { ...plan, input, exprs: plan.exprs.map(remap) }
}
