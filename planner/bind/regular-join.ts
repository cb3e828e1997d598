// A regular join from a join's condition: the conjuncts `l = r` whose sides read one input each
// become the join key (an expression on either side is computed into a column first), the rest is
// the residual predicate. Without such a conjunct the join is refused: its state would have no key.
import type { Field } from '../../common/types.js'
import { isIntegral, sameType, withNullable, withoutTimeAttr, formatType } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputRef, inputsUsed, isNonDeterministic, remapInputs } from '../../core/rex.js'
import { castTo, commonType, resolveCall } from '../../expr/index.js'
import { containsMap } from '../../expr/nested-values.js'
import type { JoinType, LogicalPlan } from '../logical/nodes.js'
import type { JoinInputs, WrittenJoinType } from './join-binder.js'

export interface KeyPair {
  left: Rex
  /** Over the right input's own columns. */
  right: Rex
}

export function regularJoin(j: JoinInputs): LogicalPlan {
  const type: JoinType = j.join.joinType === 'CROSS' ? 'INNER' : j.join.joinType
  const lw = j.left.plan.fields.length
  const rw = j.right.plan.fields.length
  const pairs: KeyPair[] = []
  const residual: Rex[] = []
  for (const c of j.conjuncts) {
    const pair = equiPair(c, lw)
    if (pair === undefined) residual.push(c)
    else pairs.push(pair)
  }
  if (pairs.length === 0) throw noEquiCondition(j)
  // Keys compare by their stored encoding, so both sides of a pair must hold values of one type.
  for (const p of pairs) {
    const a = withoutTimeAttr(p.left.type), b = withoutTimeAttr(p.right.type)
    if (sameType(a, b) || (isIntegral(a) && isIntegral(b))) continue
    const common = commonType([a, b])
    if (common === null) {
      throw WeirError.plan(`the join condition compares ${formatType(a)} with ${formatType(b)}`, { span: j.join.on?.span ?? j.span, help: 'CAST one side' })
    }
    p.left = castTo(p.left, common, j.span)
    p.right = castTo(p.right, common, j.span)
  }
  const left = withKeyColumns(j.left.plan, pairs.map(p => p.left))
  const right = withKeyColumns(j.right.plan, pairs.map(p => p.right))
  const lx = left.plan.fields.length - lw
  const rx = right.plan.fields.length - rw
  // The residual was written over [left, right]; extra key columns sit after each side's own.
  const shifted = residual.map(r => remapInputs(r, i => (i < lw ? i : i + lx)))
  const fields = joinFields(left.plan.fields, right.plan.fields, j.join.joinType)
  const node: LogicalPlan = {
    kind: 'Join',
    joinType: type,
    left: left.plan,
    right: right.plan,
    leftKeys: left.keys,
    rightKeys: right.keys,
    residual: shifted.length > 0 ? shifted.reduce((a, b) => resolveCall('AND', [a, b])) : undefined,
    leftTtl: j.leftTtl,
    rightTtl: j.rightTtl,
    fields,
    span: j.span,
  }
  if (lx === 0 && rx === 0) return node
  // Drop the computed key columns again: the join's row is [left, right] as written.
  const keep = [...Array.from({ length: lw }, (_, i) => i), ...Array.from({ length: rw }, (_, i) => lw + lx + i)]
  return { kind: 'Project', input: node, exprs: keep.map(i => inputRef(i, fields[i]!.type)), fields: keep.map(i => fields[i]!), span: j.span }
}

/** `l = r` with l over the left input only and r over the right only (either way round). */
export function equiPair(c: Rex, lw: number): KeyPair | undefined {
  if (c.kind !== 'Call' || c.op !== '=' || c.args.length !== 2 || isNonDeterministic(c)) return undefined
  const [a, b] = c.args as [Rex, Rex]
  const side = (r: Rex): 'left' | 'right' | undefined => {
    const used = [...inputsUsed(r)]
    if (used.length === 0) return undefined
    if (used.every(i => i < lw)) return 'left'
    if (used.every(i => i >= lw)) return 'right'
    return undefined
  }
  const sa = side(a), sb = side(b)
  const toRight = (r: Rex) => remapInputs(r, i => i - lw)
  if (sa === 'left' && sb === 'right') return { left: a, right: toRight(b) }
  if (sa === 'right' && sb === 'left') return { left: b, right: toRight(a) }
  return undefined
}

/** The input with a column per key expression that is not a column already; the key columns. */
export function withKeyColumns(plan: LogicalPlan, keys: readonly Rex[]): { plan: LogicalPlan; keys: number[] } {
  const width = plan.fields.length
  const extra: Rex[] = []
  const indexes = keys.map(k => {
    // Keys meet by their encoding; MAP equality ignores entry order, so a key holding a MAP is canonicalized.
    if (containsMap(k.type)) k = resolveCall('MAP_KEY', [k], k.kind === 'Call' ? k.span : undefined)
    if (k.kind === 'Input') return k.index
    extra.push(k)
    return width + extra.length - 1
  })
  if (extra.length === 0) return { plan, keys: indexes }
  const exprs = [...plan.fields.map((f, i) => inputRef(i, f.type)), ...extra]
  const fields: Field[] = [...plan.fields, ...extra.map((e, i) => ({ name: `$join_key${i}`, type: withoutTimeAttr(e.type) }))]
  return { plan: { kind: 'Project', input: plan, exprs, fields, span: plan.span }, keys: indexes }
}

function noEquiCondition(j: JoinInputs): WeirError {
  const written = j.join.joinType === 'CROSS' ? 'this join' : `this ${j.join.joinType} JOIN`
  return WeirError.unsupported(
    `${written} has no equality condition between its two sides, so its state would have no key: every row of each side would have to be kept and compared with every row of the other, forever`,
    {
      span: j.join.on?.span ?? j.span,
      help: j.join.joinType === 'CROSS'
        ? 'equate a column of each side in WHERE (e.g. WHERE a.id = b.a_id) or write JOIN … ON a.id = b.a_id'
        : 'add a condition equating a column (or expression) of each side, e.g. ON a.id = b.a_id',
    },
  )
}

/** The output fields of a join of `left` and `right`: the NULL-supplying side's nullable, no time attributes. */
export function joinFields(left: readonly Field[], right: readonly Field[], type: WrittenJoinType): Field[] {
  const side = (fs: readonly Field[], nullable: boolean) =>
    fs.map(f => ({ name: f.name, type: withoutTimeAttr(nullable ? withNullable(f.type, true) : f.type) }))
  return [...side(left, type === 'RIGHT' || type === 'FULL'), ...side(right, type === 'LEFT' || type === 'FULL')]
}
