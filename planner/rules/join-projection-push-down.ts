// Column pruning through a join: each input keeps only the columns the query reads above the join,
// its keys and its residual condition read. A join holds its inputs' rows in state, so every column
// dropped here is a column not stored, not serialized and not compared per row.
import type { Rex } from '../../core/rex.js'
import { inputRef, inputsUsed, remapInputs } from '../../core/rex.js'
import type { Join, LogicalPlan } from '../logical/nodes.js'

export function pruneJoinColumns(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Project') return undefined
  const filter = plan.input.kind === 'Filter' ? plan.input : undefined
  const join = (filter ?? plan).input
  if (join.kind !== 'Join') return undefined
  const used = new Set<number>()
  for (const e of plan.exprs) inputsUsed(e, used)
  if (filter) inputsUsed(filter.condition, used)
  if (join.residual) inputsUsed(join.residual, used)
  const lw = join.left.fields.length
  for (const k of join.leftKeys) used.add(k)
  for (const k of join.rightKeys) used.add(k + lw)
  // An interval or window join reads each side's time column.
  const time = join.time
  if (time !== undefined) {
    used.add(time.kind === 'interval' ? time.leftTime : time.leftEnd)
    used.add((time.kind === 'interval' ? time.rightTime : time.rightEnd) + lw)
  }
  if (used.size === join.fields.length) return undefined
  const keep = [...used].sort((a, b) => a - b)
  const leftKeep = keep.filter(i => i < lw)
  const rightKeep = keep.filter(i => i >= lw).map(i => i - lw)
  const map = new Map(keep.map((old, i) => [old, i]))
  const remap = (r: Rex): Rex => remapInputs(r, i => map.get(i)!)
  const leftMap = new Map(leftKeep.map((old, i) => [old, i]))
  const rightMap = new Map(rightKeep.map((old, i) => [old, i]))
  const pruned: Join = {
    ...join,
    left: narrow(join.left, leftKeep),
    right: narrow(join.right, rightKeep),
    leftKeys: join.leftKeys.map(k => leftMap.get(k)!),
    rightKeys: join.rightKeys.map(k => rightMap.get(k)!),
    residual: join.residual ? remap(join.residual) : undefined,
    time: time === undefined
      ? undefined
      : time.kind === 'interval'
      ? { ...time, leftTime: leftMap.get(time.leftTime)!, rightTime: rightMap.get(time.rightTime)! }
      : { ...time, leftEnd: leftMap.get(time.leftEnd)!, rightEnd: rightMap.get(time.rightEnd)! },
    fields: keep.map(i => join.fields[i]!),
  }
  const input: LogicalPlan = filter ? { ...filter, input: pruned, condition: remap(filter.condition), fields: pruned.fields } : pruned
  return { ...plan, input, exprs: plan.exprs.map(remap) }
}

/** `plan` with only the columns `keep` (all of them: the plan itself). */
export function narrow(plan: LogicalPlan, keep: readonly number[]): LogicalPlan {
  if (keep.length === plan.fields.length) return plan
  return { kind: 'Project', input: plan, exprs: keep.map(i => inputRef(i, plan.fields[i]!.type)), fields: keep.map(i => plan.fields[i]!), span: plan.span }
}
