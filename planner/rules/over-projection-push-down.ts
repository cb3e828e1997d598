// Column pruning through an OVER aggregate: its input keeps only the columns read above it and
// those its partition keys, ORDER BY and calls (arguments, FILTERs, LAG's value and default) read. The OVER operator holds
// rows in state (those waiting for the watermark, and those its frames still need), so every column
// dropped here is a column not stored or serialized per row.
import type { AggCall } from '../../core/aggregates.js'
import type { Rex } from '../../core/rex.js'
import { inputsUsed, remapInputs } from '../../core/rex.js'
import type { LogicalPlan } from '../logical/nodes.js'
import type { Over } from '../logical/over.js'
import { narrow } from './join-projection-push-down.js'

/** A Project (optionally over a Filter) over an Over: the Over's input narrowed to what is read. */
export function pruneOverColumns(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Project') return undefined
  const filter = plan.input.kind === 'Filter' ? plan.input : undefined
  const over = (filter ?? plan).input
  if (over.kind !== 'Over') return undefined
  const width = over.input.fields.length
  const above = new Set<number>()
  for (const e of plan.exprs) inputsUsed(e, above)
  if (filter) inputsUsed(filter.condition, above)
  const used = new Set<number>([...above].filter(i => i < width))
  for (const k of over.partitionKeys) used.add(k)
  for (const k of over.orderKeys) used.add(k.index)
  for (const c of over.calls) {
    if (c.agg?.arg != null) used.add(c.agg.arg)
    if (c.agg?.filter != null) used.add(c.agg.filter)
    // PERCENTILE's frequency.
    if (c.agg?.valueArg !== undefined) used.add(c.agg.valueArg)
    // A user aggregate's further arguments (`arg` is its first).
    for (const a of c.agg?.args ?? []) used.add(a)
    if (c.lag !== undefined) used.add(c.lag.arg)
    if (c.lag?.default != null) used.add(c.lag.default)
  }
  if (used.size === width) return undefined
  const keep = [...used].sort((a, b) => a - b)
  const map = new Map(keep.map((old, i) => [old, i]))
  const col = (i: number): number => map.get(i)!
  const agg = (a: AggCall): AggCall => ({ ...a, arg: a.arg === null ? null : col(a.arg), filter: a.filter === null ? null : col(a.filter),
    ...(a.args !== undefined ? { args: a.args.map(col) } : {}), ...(a.valueArg !== undefined ? { valueArg: col(a.valueArg) } : {}) })
  const pruned: Over = {
    ...over,
    input: narrow(over.input, keep),
    partitionKeys: over.partitionKeys.map(col),
    orderKeys: over.orderKeys.map(k => ({ ...k, index: col(k.index) })),
    calls: over.calls.map(c =>
      c.agg !== undefined
        ? { ...c, agg: agg(c.agg) }
        : c.lag !== undefined
        ? { ...c, lag: { ...c.lag, arg: col(c.lag.arg), default: c.lag.default === null ? null : col(c.lag.default) } }
        : c
    ),
    fields: [...keep.map(i => over.fields[i]!), ...over.fields.slice(width)],
  }
  // Above the Over: its own columns follow the kept input columns.
  const remap = (r: Rex): Rex => remapInputs(r, i => (i < width ? col(i) : keep.length + i - width))
  const input: LogicalPlan = filter ? { ...filter, input: pruned, condition: remap(filter.condition), fields: pruned.fields } : pruned
  return { ...plan, input, exprs: plan.exprs.map(remap) }
}
