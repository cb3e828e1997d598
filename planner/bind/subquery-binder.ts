// Subqueries in expressions → joins. `x [NOT] IN (SELECT …)` and `[NOT] EXISTS (SELECT …)`, as
// conjuncts of WHERE, become semi / anti joins; elsewhere in WHERE or the SELECT list (under OR, in
// CASE) a marker join appends their truth value as a column (subquery-marker.ts), as does a
// row-valued `(a, b) NOT IN` whose columns may be NULL. A scalar `(SELECT …)` in WHERE or the SELECT
// list becomes a join with the subquery's single row. A correlated subquery (one naming outer
// columns) is decorrelated where its correlation is a set of equalities `outer expr = inner expr`
// AND-ed in its WHERE: those pairs become join keys; a correlated scalar subquery becomes the
// subquery grouped by its inner sides (when it aggregates), left-joined on them. Anything else is
// refused with what is supported.
import type * as ast from '../../grammar/ast.js'
import type { Span } from '../../common/span.js'
import type { Field } from '../../common/types.js'
import { withNullable, withoutTimeAttr } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputRef, inputsUsed, isNonDeterministic, remapInputs } from '../../core/rex.js'
import { compileScalar, resolveCall } from '../../expr/index.js'
import type { LogicalPlan, SideTtl } from '../logical/nodes.js'
import { Scope, type ScopeField } from './scope.js'
import { bindExpr, childrenOf, isAggregateCall, visitExpr } from './expr-binder.js'
import { withKeyColumns } from './regular-join.js'
import { windowSemiJoin } from './window-semi-join.js'
import { type BoundSubquery, comparable, withMarker } from './subquery-marker.js'
import type { BoundRelation } from './join-binder.js'
import type { JobConfig } from '../../common/config/index.js'
import { formatDuration } from '../../common/durations.js'

/** What the subquery binder needs of the query binder. */
export interface SubqueryHost {
  bindQuery(q: ast.Query): BoundRelation
  bindFrom(item: ast.FromItem): BoundRelation
  /** The state TTL of the joins it plans ('table.exec.state.ttl'). */
  readonly ttl: SideTtl
}

export { setOperation } from './set-operation.js'

export function subqueryHost(config: JobConfig, bindQuery: SubqueryHost['bindQuery'], bindFrom: SubqueryHost['bindFrom']): SubqueryHost {
  return { bindQuery, bindFrom, ttl: configTtl(config) }
}

/** The state TTL 'table.exec.state.ttl' sets. */
export function configTtl(config: JobConfig): SideTtl {
  const ms = config.stateTtlMs
  return { ms, source: ms > 0 ? `table.exec.state.ttl = '${formatDuration(ms)}'` : 'none' }
}

/**
 * `rel` filtered by the rest of WHERE (when `filterRest`: a join has taken it already), semi/anti
 * joined by WHERE's IN / EXISTS predicates, then filtered by its conjuncts with scalar subqueries.
 */
export function joinWhereSubqueries(
  rel: BoundRelation,
  where: SplitWhere,
  filterRest: boolean,
  host: SubqueryHost,
  bindCondition: (e: ast.Expr, scope: Scope) => Rex,
): BoundRelation {
  if (filterRest && where.rest !== undefined) {
    const condition = bindCondition(where.rest, rel.scope)
    rel = { plan: { kind: 'Filter', input: rel.plan, condition, fields: rel.plan.fields, span: where.rest.span }, scope: rel.scope }
  }
  for (const p of where.predicates) rel = semiJoin(rel, p, host)
  return filterWithScalars(rel, where.scalars, host, bindCondition)
}

/** An `IN` / `EXISTS` conjunct of WHERE, its NOTs folded in. */
interface Predicate {
  readonly sub: ast.SubqueryExpr
  readonly negated: boolean
}

/**
 * WHERE taken apart: conjuncts without subqueries, IN / EXISTS conjuncts, and conjuncts that read a
 * subquery's value (scalar subqueries; IN / EXISTS under OR, CASE, …).
 */
export interface SplitWhere {
  readonly rest?: ast.Expr
  readonly predicates: readonly Predicate[]
  readonly scalars: readonly ast.Expr[]
}

export function splitWhere(where: ast.Expr | undefined): SplitWhere {
  const rest: ast.Expr[] = []
  const predicates: Predicate[] = []
  const scalars: ast.Expr[] = []
  const visit = (c: ast.Expr): void => {
    if (c.kind === 'BinaryOp' && c.op === 'AND') {
      visit(c.left)
      visit(c.right)
      return
    }
    let e = c, negated = false
    while (e.kind === 'UnaryOp' && e.op === 'NOT') {
      negated = !negated
      e = e.operand
    }
    if (e.kind === 'SubqueryExpr' && e.form !== 'SCALAR') predicates.push({ sub: e, negated: negated !== e.negated })
    else if (subqueriesOf(c).length > 0) scalars.push(c)
    else rest.push(c)
  }
  if (where !== undefined) visit(where)
  // Without subqueries WHERE stays as written (its span is what messages point at).
  if (where !== undefined && predicates.length === 0 && scalars.length === 0) return { rest: where, predicates, scalars }
  const joined = rest.length === 0 ? undefined : rest.reduce((a, b): ast.Expr => ({ kind: 'BinaryOp', op: 'AND', left: a, right: b, span: a.span }))
  return { ...(joined === undefined ? {} : { rest: joined }), predicates, scalars }
}

/**
 * The subqueries of an expression (not those inside their queries), an operand's before the
 * subquery it is the operand of: the join of one reads the column of the other.
 */
function subqueriesOf(e: ast.Expr): ast.SubqueryExpr[] {
  const found: ast.SubqueryExpr[] = []
  const visit = (n: ast.Expr): void => {
    for (const c of childrenOf(n)) visit(c)
    if (n.kind === 'SubqueryExpr') found.push(n)
  }
  visit(e)
  return found
}

/** The subqueries of the SELECT list (scalar ones, and IN / EXISTS read as values). */
export function selectScalars(items: readonly ast.SelectItem[]): ast.Expr[] {
  return items.flatMap(i => (i.kind === 'ExprItem' ? subqueriesOf(i.expr) : []))
}

// ------------------------------------------------------------------ binding a subquery

/** Names resolve in the subquery first, then in the outer query: columns [...outer, ...inner]. */
class CorrelatedScope extends Scope {
  constructor(private readonly outer: Scope, private readonly inner: Scope) {
    super([...outer.fields, ...inner.fields])
  }

  override resolve(ref: ast.QualifiedName): number {
    try {
      return this.outer.fields.length + this.inner.resolve(ref)
    } catch (err) {
      try {
        return this.outer.resolve(ref)
      } catch {
        throw err
      }
    }
  }
}

/** The columns IN compares: `(a, b)` (a ROW) gives two, anything else one. */
function probesOf(operand: ast.Expr): readonly ast.Expr[] {
  return operand.kind === 'FunctionCall' && operand.name.value.toUpperCase() === 'ROW' && !operand.name.quoted ? operand.args : [operand]
}

function bindSubquery(sub: ast.SubqueryExpr, outer: Scope, host: SubqueryHost): BoundSubquery {
  let plain: BoundRelation
  try {
    plain = host.bindQuery(sub.query)
  } catch (err) {
    // A name the subquery cannot resolve may be the outer query's: try it as a correlated subquery.
    if (!(err instanceof WeirError) || sub.query.kind !== 'Select' || sub.query.from === undefined) throw err
    return bindCorrelated(sub, sub.query, outer, host, err)
  }
  if (sub.form !== 'EXISTS') checkWidth(sub, plain.plan.fields.length)
  return { plan: plain.plan, outerKeys: [], innerKeys: [] }
}

/** The subquery returns as many columns as IN compares (one for a scalar subquery). */
function checkWidth(sub: ast.SubqueryExpr, width: number): void {
  const want = sub.form === 'IN' ? probesOf(sub.operand!).length : 1
  if (width === want) return
  const what = sub.form === 'SCALAR' ? 'a scalar subquery needs exactly one' : want === 1 ? 'IN needs exactly one' : `the IN compares ${want}`
  throw WeirError.plan(`this subquery returns ${width} column${width === 1 ? '' : 's'}; ${what}`, {
    span: sub.query.span,
    help: want === 1 ? 'select a single column' : `select ${want} columns, one per value of the row on the left of IN`,
  })
}

const DECORRELATE_HELP =
  "Weir decorrelates a subquery whose conditions on the outer query are equalities 'inner expression = outer expression' AND-ed in its WHERE "
  + '(e.g. WHERE b.k = a.k AND b.s = a.s); move other conditions out of the subquery, or write the query as a JOIN'

function bindCorrelated(sub: ast.SubqueryExpr, sel: ast.Select, outer: Scope, host: SubqueryHost, original: WeirError): BoundSubquery {
  const inner = host.bindFrom(sel.from!)
  const ow = outer.fields.length
  const scope = new CorrelatedScope(outer, inner.scope)
  const filters: Rex[] = []
  const filterAsts: ast.Expr[] = []
  const outerKeys: Rex[] = []
  const innerExprs: Rex[] = []
  const innerAsts: ast.Expr[] = []
  for (const c of conjunctsOf(sel.where)) {
    const rex = bindExpr(c, { scope, clause: 'WHERE' })
    const used = [...inputsUsed(rex)]
    if (used.every(i => i >= ow)) {
      filters.push(remapInputs(rex, i => i - ow))
      filterAsts.push(c)
      continue
    }
    const pair = correlationPair(rex, ow)
    if (pair === undefined || c.kind !== 'BinaryOp') {
      throw WeirError.unsupported('this condition of a correlated subquery cannot be decorrelated', { span: c.span, help: DECORRELATE_HELP })
    }
    outerKeys.push(pair.outer)
    innerExprs.push(pair.inner)
    // The side of `=` the pair's inner expression was written on.
    innerAsts.push(pair.innerFirst ? c.left : c.right)
  }
  // Nothing in WHERE names the outer query: the name was missing for another reason.
  if (outerKeys.length === 0) throw original
  checkNoOuterColumns(sel, outer, inner.scope)
  if (sub.form === 'SCALAR') return correlatedScalar(sub, sel, { filterAsts, innerAsts, outerKeys }, host)
  const aggregates = sel.items.some(i => i.kind === 'ExprItem' && hasAggregate(i.expr))
  if (sel.groupBy !== undefined || sel.having !== undefined || sel.distinct || aggregates) {
    throw WeirError.unsupported('a correlated IN / EXISTS subquery with GROUP BY, HAVING, DISTINCT or an aggregate is not supported', {
      span: sub.query.span,
      help: DECORRELATE_HELP,
    })
  }
  let plan = inner.plan
  if (filters.length > 0) {
    plan = { kind: 'Filter', input: plan, condition: filters.reduce((a, b) => resolveCall('AND', [a, b])), fields: plan.fields, span: sel.span }
  }
  const values: Rex[] = []
  if (sub.form === 'IN') {
    if (sel.items.some(i => i.kind !== 'ExprItem')) checkWidth(sub, -1)
    checkWidth(sub, sel.items.length)
    for (const item of sel.items) values.push(bindExpr((item as ast.SelectItem & { kind: 'ExprItem' }).expr, { scope: inner.scope, clause: 'SELECT' }))
  }
  const exprs = [...values, ...innerExprs]
  const fields: Field[] = exprs.map((e, i) => ({ name: i < values.length ? (values.length === 1 ? 'value' : `value${i}`) : `$corr${i}`,
    type: withoutTimeAttr(e.type) })
  )
  plan = { kind: 'Project', input: plan, exprs, fields, span: sel.span }
  return { plan, outerKeys, innerKeys: innerExprs.map((_, i) => values.length + i) }
}

/**
 * A correlated scalar subquery: its SELECT with the correlation's inner sides as extra columns (and
 * GROUP BY keys when it aggregates), bound as a query of its own: one row per correlation key.
 */
function correlatedScalar(
  sub: ast.SubqueryExpr,
  sel: ast.Select,
  parts: { filterAsts: readonly ast.Expr[]; innerAsts: readonly ast.Expr[]; outerKeys: readonly Rex[] },
  host: SubqueryHost,
): BoundSubquery {
  const item = sel.items[0]
  if (sel.items.length !== 1 || item?.kind !== 'ExprItem') checkWidth(sub, sel.items[0]?.kind === 'ExprItem' ? sel.items.length : -1)
  if (sel.having !== undefined || sel.distinct) {
    throw WeirError.unsupported('a correlated scalar subquery with HAVING or DISTINCT is not supported', {
      span: sel.having?.span ?? sub.query.span,
      help: 'filter its groups in the outer query instead, or join with the subquery grouped by the correlated columns',
    })
  }
  const expr = (item as ast.SelectItem & { kind: 'ExprItem' }).expr
  const aggregates = hasAggregate(expr)
  const grouped = aggregates || sel.groupBy !== undefined
  const alias = (value: string): ast.Ident => ({ value, quoted: true, span: sel.span })
  const where = parts.filterAsts.length === 0
    ? undefined
    : parts.filterAsts.reduce((a, b): ast.Expr => ({ kind: 'BinaryOp', op: 'AND', left: a, right: b, span: a.span }))
  const rewritten: ast.Select = {
    ...sel,
    items: [
      { kind: 'ExprItem', expr, alias: alias('value'), span: expr.span },
      ...parts.innerAsts.map((e, i): ast.SelectItem => ({ kind: 'ExprItem', expr: e, alias: alias(`$corr${i}`), span: e.span })),
    ],
    ...(where === undefined ? { where: undefined } : { where }),
    ...(grouped ? { groupBy: [...(sel.groupBy ?? []), ...parts.innerAsts] } : {}),
    // The correlated columns group every grouping set (they follow the query's own GROUP BY expressions).
    ...(sel.groupingSets
      ? { groupingSets: { ...sel.groupingSets, sets: sel.groupingSets.sets.map(s => [...s, ...parts.innerAsts.map((_, i) => sel.groupBy!.length + i)]) } }
      : {}),
  }
  const plan = host.bindQuery(rewritten).plan
  // Over no rows an aggregate without GROUP BY still gives one row (COUNT 0, the others NULL).
  const empty = aggregates && sel.groupBy === undefined ? emptyGroupRow(plan, sub) : undefined
  return { plan, outerKeys: parts.outerKeys, innerKeys: parts.innerAsts.map((_, i) => 1 + i), ...(empty === undefined ? {} : { empty }) }
}

/**
 * The row a grouped subquery gives for a key without rows, as its aggregate without GROUP BY would:
 * its projections evaluated over COUNT = 0 and the other aggregates NULL.
 */
function emptyGroupRow(plan: LogicalPlan, sub: ast.SubqueryExpr): unknown[] {
  const projections: (readonly Rex[])[] = []
  let p = plan
  while (p.kind === 'Project') {
    projections.unshift(p.exprs)
    p = p.input
  }
  if (p.kind !== 'Aggregate') {
    throw WeirError.unsupported('this correlated scalar subquery cannot be decorrelated', {
      span: sub.span,
      help: 'join with the subquery grouped by the correlated columns instead, e.g. … LEFT JOIN (SELECT k, AVG(v) AS avg_v FROM t GROUP BY k) s ON s.k = a.k',
    })
  }
  let row: unknown[] = [...p.keys.map(() => null), ...p.aggs.map(a => (a.fn === 'COUNT' ? 0 : null))]
  for (const exprs of projections) {
    const input = row
    row = exprs.map(e => compileScalar(e)(input))
  }
  return row
}

/** The correlation is decorrelated from WHERE alone: a name of the outer query elsewhere is refused. */
function checkNoOuterColumns(sel: ast.Select, outer: Scope, inner: Scope): void {
  const clauses = [...sel.items.flatMap(i => (i.kind === 'ExprItem' ? [i.expr] : [])), ...(sel.groupBy ?? []), ...(sel.having ? [sel.having] : [])]
  for (const c of clauses) {
    visitExpr(c, n => {
      if (n.kind !== 'ColumnRef' || resolves(inner, n.name) || !resolves(outer, n.name)) return
      throw WeirError.unsupported("a correlated subquery may name the outer query's columns only in its WHERE", {
        span: n.span,
        help: 'compute with the outer column in the outer query, e.g. (SELECT MAX(p.price) FROM p WHERE p.k = o.k) + o.x',
      })
    })
  }
}

function resolves(scope: Scope, name: ast.QualifiedName): boolean {
  try {
    scope.resolve(name)
    return true
  } catch {
    return false
  }
}

function hasAggregate(e: ast.Expr): boolean {
  let found = false
  visitExpr(e, n => {
    if (isAggregateCall(n)) found = true
  })
  return found
}

function conjunctsOf(e: ast.Expr | undefined): ast.Expr[] {
  if (e === undefined) return []
  if (e.kind === 'BinaryOp' && e.op === 'AND') return [...conjunctsOf(e.left), ...conjunctsOf(e.right)]
  return [e]
}

/** `a = b` with one side over outer columns only and the other over inner ones only. */
function correlationPair(rex: Rex, ow: number): { outer: Rex; inner: Rex; innerFirst: boolean } | undefined {
  if (rex.kind !== 'Call' || rex.op !== '=' || rex.args.length !== 2 || isNonDeterministic(rex)) return undefined
  const side = (r: Rex): 'outer' | 'inner' | undefined => {
    const used = [...inputsUsed(r)]
    if (used.length === 0) return undefined
    if (used.every(i => i < ow)) return 'outer'
    return used.every(i => i >= ow) ? 'inner' : undefined
  }
  const [a, b] = rex.args as [Rex, Rex]
  const toInner = (r: Rex) => remapInputs(r, i => i - ow)
  if (side(a) === 'outer' && side(b) === 'inner') return { outer: a, inner: toInner(b), innerFirst: false }
  if (side(a) === 'inner' && side(b) === 'outer') return { outer: b, inner: toInner(a), innerFirst: true }
  return undefined
}

// ------------------------------------------------------------------ semi and anti joins

/**
 * `rel` filtered by an IN / EXISTS predicate: a semi join (anti join when negated). A row-valued NOT
 * IN with more than one column that may be NULL filters on a marker join's value instead.
 */
function semiJoin(rel: BoundRelation, p: Predicate, host: SubqueryHost): BoundRelation {
  const probes = p.sub.form === 'IN' ? probesOf(p.sub.operand!).map(e => bindExpr(e, { scope: rel.scope, clause: 'WHERE' })) : []
  const sub = bindSubquery(p.sub, rel.scope, host)
  const leftExprs = [...sub.outerKeys]
  const rightExprs: Rex[] = sub.innerKeys.map(c => inputRef(c, sub.plan.fields[c]!.type))
  // NOT IN is not TRUE where either side may be NULL and the subquery is not empty: such a pair
  // cannot be a key. One is compared within the key by the anti join; more need the marker join.
  const nullable = probes.map((x, i) => x.type.nullable || sub.plan.fields[i]!.type.nullable)
  const nullAware = p.negated ? nullable.filter(n => n).length : 0
  if (nullAware > 1) return filterOnMarker(rel, probes, sub, host, p.sub.span)
  const awareAt = nullAware === 1 ? nullable.indexOf(true) : -1
  // The values first, then the correlation (as the key columns read in EXPLAIN).
  for (let i = probes.length - 1; i >= 0; i--) {
    if (i === awareAt) continue
    leftExprs.unshift(probes[i]!)
    rightExprs.unshift(inputRef(i, sub.plan.fields[i]!.type))
  }
  if (awareAt >= 0) {
    leftExprs.unshift(probes[awareAt]!)
    rightExprs.unshift(inputRef(awareAt, sub.plan.fields[awareAt]!.type))
  }
  for (let i = 0; i < leftExprs.length; i++) {
    const [l, r] = comparable(leftExprs[i]!, rightExprs[i]!, p.sub.span)
    leftExprs[i] = l
    rightExprs[i] = r
  }
  const lw = rel.plan.fields.length
  const left = withKeyColumns(rel.plan, leftExprs)
  const right = withKeyColumns(sub.plan, rightExprs)
  const pairs = awareAt >= 0 ? 1 : 0
  const plan = windowSemiJoin({
    kind: 'SemiJoin',
    anti: p.negated,
    left: left.plan,
    right: right.plan,
    leftKeys: left.keys.slice(pairs),
    rightKeys: right.keys.slice(pairs),
    ...(awareAt >= 0 ? { nullAware: { left: left.keys[0]!, right: right.keys[0]! } } : {}),
    ttl: host.ttl,
    fields: left.plan.fields,
    span: p.sub.span,
  })
  return { plan: dropExtra(plan, lw), scope: rel.scope }
}

/** `rel` where a (row-valued) NOT IN is TRUE: where its marker is FALSE. */
function filterOnMarker(rel: BoundRelation, probes: readonly Rex[], sub: BoundSubquery, host: SubqueryHost, span: Span): BoundRelation {
  const marked = withMarker(rel.plan, probes, sub, host.ttl, span, '$marker')
  const marker = inputRef(rel.plan.fields.length, marked.fields[rel.plan.fields.length]!.type)
  const filtered: LogicalPlan = { kind: 'Filter', input: marked, condition: resolveCall('NOT', [marker]), fields: marked.fields, span }
  return { plan: dropExtra(filtered, rel.plan.fields.length), scope: rel.scope }
}

/** `plan` without the columns past `width` (computed keys). */
function dropExtra(plan: LogicalPlan, width: number): LogicalPlan {
  if (plan.fields.length === width) return plan
  const fields = plan.fields.slice(0, width)
  return { kind: 'Project', input: plan, exprs: fields.map((f, i) => inputRef(i, f.type)), fields, span: plan.span }
}

// ------------------------------------------------------------------ subqueries read as values

/**
 * `rel` joined with each subquery of `exprs`: a scalar subquery's value, or an IN / EXISTS
 * subquery's truth value (a marker join), is a hidden column of the scope, which the expression
 * binder reads where the subquery was written.
 */
export function withScalars(rel: BoundRelation, exprs: readonly ast.Expr[], host: SubqueryHost): BoundRelation {
  if (exprs.length === 0) return rel
  let plan = rel.plan
  const fields: ScopeField[] = [...rel.scope.fields]
  const columns = new Map<ast.Expr, number>(rel.scope.subqueries ?? [])
  for (const sub of exprs.flatMap(subqueriesOf)) {
    // Later subqueries' operands may read the columns of earlier ones.
    const scope = new Scope(fields, columns)
    const name = `$${sub.form === 'SCALAR' ? 'scalar' : 'marker'}${columns.size}`
    if (sub.form === 'SCALAR') plan = scalarJoin(plan, sub, scope, host, name)
    else {
      const probes = sub.form === 'IN' ? probesOf(sub.operand!).map(e => bindExpr(e, { scope, clause: 'WHERE' })) : []
      plan = withMarker(plan, probes, bindSubquery(sub, scope, host), host.ttl, sub.span, name)
    }
    columns.set(sub, fields.length)
    fields.push({ name, type: plan.fields[fields.length]!.type, hidden: true })
  }
  return { plan, scope: new Scope(fields, columns) }
}

/** `plan` with the value of scalar subquery `sub` appended (NULL, or its value over no rows, while it has none). */
function scalarJoin(plan: LogicalPlan, sub: ast.SubqueryExpr, scope: Scope, host: SubqueryHost, name: string): LogicalPlan {
  const bound = bindSubquery(sub, scope, host)
  const value = bound.plan.fields[0]!
  const type = withNullable(withoutTimeAttr(value.type), bound.empty?.[0] === undefined || bound.empty[0] === null || value.type.nullable)
  const at = sub.span.start
  const left = withKeyColumns(plan, bound.outerKeys)
  const rightKeys = bound.innerKeys
  const width = plan.fields.length
  const joined: LogicalPlan = {
    kind: 'ScalarJoin',
    left: left.plan,
    right: bound.plan,
    leftKeys: left.keys,
    rightKeys,
    ...(bound.empty === undefined ? {} : { empty: bound.empty }),
    label: `the scalar subquery at line ${at.line}, column ${at.column}`,
    ttl: host.ttl,
    fields: [
      ...left.plan.fields.map(f => ({ name: f.name, type: withoutTimeAttr(f.type) })),
      { name, type },
      ...bound.plan.fields.slice(1).map(f => ({ name: f.name, type: withNullable(withoutTimeAttr(f.type), true) })),
    ],
    span: sub.span,
  }
  if (joined.fields.length === width + 1) return joined
  // Without the computed keys and the subquery's correlation columns: [...plan's fields, value].
  const valueAt = left.plan.fields.length
  const exprs = [...plan.fields.map((f, i) => inputRef(i, withoutTimeAttr(f.type))), inputRef(valueAt, type)]
  return { kind: 'Project', input: joined, exprs, fields: [...joined.fields.slice(0, width), { name, type }], span: sub.span }
}

/** `rel` filtered by WHERE conjuncts reading subqueries' values; its columns stay as they were. */
function filterWithScalars(rel: BoundRelation, conjuncts: readonly ast.Expr[], host: SubqueryHost,
  bindCondition: (e: ast.Expr, scope: Scope) => Rex): BoundRelation
{
  if (conjuncts.length === 0) return rel
  const joined = withScalars(rel, conjuncts, host)
  const condition = conjuncts.map(c => bindCondition(c, joined.scope)).reduce((a, b) => resolveCall('AND', [a, b]))
  const filtered: LogicalPlan = { kind: 'Filter', input: joined.plan, condition, fields: joined.plan.fields, span: conjuncts[0]!.span }
  return { plan: dropExtra(filtered, rel.plan.fields.length), scope: rel.scope }
}
