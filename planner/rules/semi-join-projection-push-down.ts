// Column pruning through a semi or anti join (IN / EXISTS subqueries): its left input keeps only the
// columns read above the join and its keys; its right input only its keys (a semi join stores of
// the right no more than whether, or for NOT IN which values, it has). The left rows are held in
// state, so every column dropped is a column not stored, serialized or compared per row.
import { T } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { inputsUsed, literal, remapInputs } from '../../core/rex.js'
import type { LogicalPlan, SemiJoin } from '../logical/nodes.js'
import { narrow } from './join-projection-push-down.js'

/** A Project (optionally over a Filter) over a semi join: the left input narrowed to what is read. */
export function pruneSemiJoinLeft(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Project') return undefined
  const filter = plan.input.kind === 'Filter' ? plan.input : undefined
  const join = (filter ?? plan).input
  if (join.kind !== 'SemiJoin') return undefined
  const used = new Set<number>(join.leftKeys)
  for (const e of plan.exprs) inputsUsed(e, used)
  if (filter) inputsUsed(filter.condition, used)
  if (join.nullAware) used.add(join.nullAware.left)
  if (join.window) used.add(join.window.leftEnd)
  if (used.size === join.fields.length) return undefined
  const keep = [...used].sort((a, b) => a - b)
  const map = new Map(keep.map((old, i) => [old, i]))
  const remap = (r: Rex): Rex => remapInputs(r, i => map.get(i)!)
  const pruned: SemiJoin = {
    ...join,
    left: narrow(join.left, keep),
    leftKeys: join.leftKeys.map(k => map.get(k)!),
    ...(join.nullAware ? { nullAware: { ...join.nullAware, left: map.get(join.nullAware.left)! } } : {}),
    ...(join.window ? { window: { ...join.window, leftEnd: map.get(join.window.leftEnd)! } } : {}),
    fields: keep.map(i => join.fields[i]!),
  }
  const input: LogicalPlan = filter ? { ...filter, input: pruned, condition: remap(filter.condition), fields: pruned.fields } : pruned
  return { ...plan, input, exprs: plan.exprs.map(remap) }
}

const EXISTS = '$exists'

/** A semi join's right input narrowed to its keys; with none (an uncorrelated EXISTS), to one constant column. */
export function pruneSemiJoinRight(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'SemiJoin') return undefined
  const right = plan.right
  const used = new Set<number>(plan.rightKeys)
  if (plan.nullAware) used.add(plan.nullAware.right)
  if (plan.window) used.add(plan.window.rightEnd)
  if (used.size === 0) {
    // Already narrowed (the projection may since have merged into a scan: look at the columns, not the node).
    if (right.fields.length === 1 && right.fields[0]!.name === EXISTS) return undefined
    const exists = literal(true, T.boolean(false))
    const narrowed: LogicalPlan = { kind: 'Project', input: right, exprs: [exists], fields: [{ name: EXISTS, type: exists.type }], span: right.span }
    return { ...plan, right: narrowed }
  }
  if (used.size === right.fields.length) return undefined
  const keep = [...used].sort((a, b) => a - b)
  const map = new Map(keep.map((old, i) => [old, i]))
  return {
    ...plan,
    right: narrow(right, keep),
    rightKeys: plan.rightKeys.map(k => map.get(k)!),
    ...(plan.nullAware ? { nullAware: { ...plan.nullAware, right: map.get(plan.nullAware.right)! } } : {}),
    ...(plan.window ? { window: { ...plan.window, rightEnd: map.get(plan.window.rightEnd)! } } : {}),
  }
}
