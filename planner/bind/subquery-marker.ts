// IN / EXISTS subqueries whose truth value an expression reads (under OR, in CASE, in the SELECT
// list, a row-valued NOT IN with NULLs): a marker join (operators/join/marker-join.ts) appends the
// predicate's value as a BOOLEAN column, which the expression binder reads where the subquery was
// written (NOT IN reads NOT of it, which three-valued logic makes right: NOT NULL is NULL).
import type { Span } from '../../common/span.js'
import type { Field } from '../../common/types.js'
import { formatType, isIntegral, sameType, T, withoutTimeAttr } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputRef } from '../../core/rex.js'
import { castTo, commonType } from '../../expr/index.js'
import type { LogicalPlan, SideTtl } from '../logical/nodes.js'
import { withKeyColumns } from './regular-join.js'

/** A subquery bound for a join: its plan, and per correlation pair the outer expression and the plan's column. */
export interface BoundSubquery {
  readonly plan: LogicalPlan
  /** Over the outer scope. */
  readonly outerKeys: readonly Rex[]
  /** Columns of `plan`, after its own (IN's values first). */
  readonly innerKeys: readonly number[]
  /** A correlated scalar subquery that aggregates: its row for a key without rows (COUNT's 0). */
  readonly empty?: readonly unknown[]
}

/**
 * `left` with the marker of a subquery appended: `probes` (IN's operand, one per column of a
 * row-valued IN; none for EXISTS) against the subquery's first columns. Pairs that are never NULL
 * become keys with the correlation's; the others are compared under SQL's NULL rules per key.
 */
export function withMarker(left: LogicalPlan, probes: readonly Rex[], sub: BoundSubquery, ttl: SideTtl, span: Span, name: string): LogicalPlan {
  const leftKeys: Rex[] = [], rightKeys: Rex[] = []
  const leftValues: Rex[] = [], rightValues: Rex[] = []
  const col = (c: number) => inputRef(c, sub.plan.fields[c]!.type)
  sub.outerKeys.forEach((o, i) => {
    const [l, r] = comparable(o, col(sub.innerKeys[i]!), span)
    leftKeys.push(l)
    rightKeys.push(r)
  })
  probes.forEach((p, i) => {
    const [l, r] = comparable(p, col(i), span)
    const never = !l.type.nullable && !r.type.nullable
    ;(never ? leftKeys : leftValues).push(l)
    ;(never ? rightKeys : rightValues).push(r)
  })
  const lk = withKeyColumns(left, [...leftKeys, ...leftValues])
  const rk = withKeyColumns(sub.plan, [...rightKeys, ...rightValues])
  const n = leftKeys.length
  const at = span.start
  const marker: Field = { name, type: T.boolean(leftValues.length > 0) }
  const join: LogicalPlan = {
    kind: 'MarkerJoin',
    left: lk.plan,
    right: rk.plan,
    leftKeys: lk.keys.slice(0, n),
    rightKeys: rk.keys.slice(0, n),
    leftValues: lk.keys.slice(n),
    rightValues: rk.keys.slice(n),
    label: `the subquery at line ${at.line}, column ${at.column}`,
    ttl,
    fields: [...lk.plan.fields.map(f => ({ name: f.name, type: withoutTimeAttr(f.type) })), marker],
    span,
  }
  // Without the computed key columns: [...left's fields, marker].
  const width = left.fields.length, extra = lk.plan.fields.length - width
  if (extra === 0) return join
  const exprs = [...left.fields.map((f, i) => inputRef(i, withoutTimeAttr(f.type))), inputRef(width + extra, marker.type)]
  return { kind: 'Project', input: join, exprs, fields: [...join.fields.slice(0, width), marker], span }
}

/** Both sides of a key pair as values of one type (keys compare by their stored encoding). */
export function comparable(l: Rex, r: Rex, span: Span): [Rex, Rex] {
  const a = withoutTimeAttr(l.type), b = withoutTimeAttr(r.type)
  if (sameType(a, b) || (isIntegral(a) && isIntegral(b))) return [l, r]
  const common = commonType([a, b])
  if (common === null) throw WeirError.plan(`the subquery compares ${formatType(a)} with ${formatType(b)}`, { span, help: 'CAST one side' })
  return [castTo(l, common, span), castTo(r, common, span)]
}
