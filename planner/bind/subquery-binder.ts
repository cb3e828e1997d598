// Subqueries in expressions → joins. `x [NOT] IN (SELECT …)` and `[NOT] EXISTS (SELECT …)`, as
// conjuncts of WHERE, become semi / anti joins; a scalar `(SELECT …)` in WHERE or the SELECT list
// becomes a join with the subquery's single row. A correlated subquery (one naming outer columns)
// is decorrelated where its correlation is a set of equalities `outer expr = inner expr` AND-ed in
// its WHERE: those pairs become join keys. Anything else is refused with what is supported.
import type * as ast from '../../grammar/ast.js'
import type { Span } from '../../common/span.js'
import type { Field } from '../../common/types.js'
import { formatType, isIntegral, sameType, withNullable, withoutTimeAttr } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputRef, inputsUsed, isNonDeterministic, remapInputs } from '../../core/rex.js'
import { castTo, commonType, resolveCall } from '../../expr/index.js'
import type { LogicalPlan, SideTtl } from '../logical/nodes.js'
import { Scope, type ScopeField } from './scope.js'
import { bindExpr, isAggregateCall, visitExpr } from './expr-binder.js'
import { withKeyColumns } from './regular-join.js'
import { windowSemiJoin } from './window-semi-join.js'
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

/** WHERE taken apart: conjuncts without subqueries, IN / EXISTS predicates, and conjuncts holding scalar subqueries. */
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
    else if (scalarSubqueriesOf(c).length > 0) scalars.push(c)
    else rest.push(c)
  }
  if (where !== undefined) visit(where)
  // Without subqueries WHERE stays as written (its span is what messages point at).
  if (where !== undefined && predicates.length === 0 && scalars.length === 0) return { rest: where, predicates, scalars }
  const joined = rest.length === 0 ? undefined : rest.reduce((a, b): ast.Expr => ({ kind: 'BinaryOp', op: 'AND', left: a, right: b, span: a.span }))
  return { ...(joined === undefined ? {} : { rest: joined }), predicates, scalars }
}

function scalarSubqueriesOf(e: ast.Expr): ast.SubqueryExpr[] {
  const found: ast.SubqueryExpr[] = []
  visitExpr(e, n => {
    if (n.kind === 'SubqueryExpr' && n.form === 'SCALAR') found.push(n)
  })
  return found
}

/** The scalar subqueries of the SELECT list. */
export function selectScalars(items: readonly ast.SelectItem[]): ast.Expr[] {
  return items.flatMap(i => (i.kind === 'ExprItem' ? scalarSubqueriesOf(i.expr) : []))
}

// ------------------------------------------------------------------ binding a subquery

/** A bound subquery: its plan, and per correlation pair the outer expression and the plan's column. */
interface BoundSubquery {
  readonly plan: LogicalPlan
  /** Over the outer scope. */
  readonly outerKeys: readonly Rex[]
  /** Columns of `plan`, after its own (IN's value first). */
  readonly innerKeys: readonly number[]
}

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

function bindSubquery(sub: ast.SubqueryExpr, outer: Scope, host: SubqueryHost): BoundSubquery {
  let plain: BoundRelation
  try {
    plain = host.bindQuery(sub.query)
  } catch (err) {
    // A name the subquery cannot resolve may be the outer query's: try it as a correlated subquery.
    if (!(err instanceof WeirError) || sub.query.kind !== 'Select' || sub.query.from === undefined) throw err
    return bindCorrelated(sub, sub.query, outer, host, err)
  }
  if (sub.form !== 'EXISTS' && plain.plan.fields.length !== 1) {
    throw WeirError.plan(`this subquery returns ${plain.plan.fields.length} columns; ${sub.form === 'IN' ? 'IN' : 'a scalar subquery'} needs exactly one`, {
      span: sub.query.span,
      help: 'select a single column',
    })
  }
  return { plan: plain.plan, outerKeys: [], innerKeys: [] }
}

const DECORRELATE_HELP =
  "Weir decorrelates a subquery whose conditions on the outer query are equalities 'inner expression = outer expression' AND-ed in its WHERE "
  + '(e.g. WHERE b.k = a.k AND b.s = a.s); move other conditions out of the subquery, or write the query as a JOIN'

function bindCorrelated(sub: ast.SubqueryExpr, sel: ast.Select, outer: Scope, host: SubqueryHost, original: WeirError): BoundSubquery {
  const inner = host.bindFrom(sel.from!)
  const ow = outer.fields.length
  const scope = new CorrelatedScope(outer, inner.scope)
  const filters: Rex[] = []
  const outerKeys: Rex[] = []
  const innerExprs: Rex[] = []
  for (const c of conjunctsOf(sel.where)) {
    const rex = bindExpr(c, { scope, clause: 'WHERE' })
    const used = [...inputsUsed(rex)]
    if (used.every(i => i >= ow)) {
      filters.push(remapInputs(rex, i => i - ow))
      continue
    }
    const pair = correlationPair(rex, ow)
    if (pair === undefined) {
      throw WeirError.unsupported('this condition of a correlated subquery cannot be decorrelated', { span: c.span, help: DECORRELATE_HELP })
    }
    outerKeys.push(pair.outer)
    innerExprs.push(pair.inner)
  }
  // Nothing in WHERE names the outer query: the name was missing for another reason.
  if (outerKeys.length === 0) throw original
  if (sub.form === 'SCALAR') {
    throw WeirError.unsupported('a correlated scalar subquery is not supported', {
      span: sub.span,
      help: 'join with the subquery grouped by the correlated columns instead, e.g. … JOIN (SELECT k, AVG(v) AS avg_v FROM t GROUP BY k) s ON s.k = a.k',
    })
  }
  const aggregates = sel.items.some(i => i.kind === 'ExprItem' && hasAggregate(i.expr))
  if (sel.groupBy !== undefined || sel.having !== undefined || sel.distinct || aggregates) {
    throw WeirError.unsupported('a correlated subquery with GROUP BY, HAVING, DISTINCT or an aggregate is not supported', {
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
    const items = sel.items
    if (items.length !== 1 || items[0]!.kind !== 'ExprItem') {
      throw WeirError.plan('this subquery must return exactly one column for IN', { span: sub.query.span, help: 'select a single column' })
    }
    values.push(bindExpr(items[0]!.expr, { scope: inner.scope, clause: 'SELECT' }))
  }
  const exprs = [...values, ...innerExprs]
  const fields: Field[] = exprs.map((e, i) => ({ name: i < values.length ? 'value' : `$corr${i}`, type: withoutTimeAttr(e.type) }))
  plan = { kind: 'Project', input: plan, exprs, fields, span: sel.span }
  return { plan, outerKeys, innerKeys: innerExprs.map((_, i) => values.length + i) }
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
function correlationPair(rex: Rex, ow: number): { outer: Rex; inner: Rex } | undefined {
  if (rex.kind !== 'Call' || rex.op !== '=' || rex.args.length !== 2 || isNonDeterministic(rex)) return undefined
  const side = (r: Rex): 'outer' | 'inner' | undefined => {
    const used = [...inputsUsed(r)]
    if (used.length === 0) return undefined
    if (used.every(i => i < ow)) return 'outer'
    return used.every(i => i >= ow) ? 'inner' : undefined
  }
  const [a, b] = rex.args as [Rex, Rex]
  const toInner = (r: Rex) => remapInputs(r, i => i - ow)
  if (side(a) === 'outer' && side(b) === 'inner') return { outer: a, inner: toInner(b) }
  if (side(a) === 'inner' && side(b) === 'outer') return { outer: b, inner: toInner(a) }
  return undefined
}

// ------------------------------------------------------------------ semi and anti joins

/** `rel` filtered by an IN / EXISTS predicate: a semi join (anti join when negated). */
function semiJoin(rel: BoundRelation, p: Predicate, host: SubqueryHost): BoundRelation {
  const sub = bindSubquery(p.sub, rel.scope, host)
  const leftExprs = [...sub.outerKeys]
  const rightExprs: Rex[] = sub.innerKeys.map(c => inputRef(c, sub.plan.fields[c]!.type))
  let nullAware = false
  if (p.sub.form === 'IN') {
    const probe = bindExpr(p.sub.operand!, { scope: rel.scope, clause: 'WHERE' })
    const value = inputRef(0, sub.plan.fields[0]!.type)
    // NOT IN is false where either side may be NULL and the subquery is not empty: that comparison
    // cannot be a key; with both NOT NULL it is a plain anti join on the value.
    nullAware = p.negated && (probe.type.nullable || value.type.nullable)
    leftExprs.unshift(probe)
    rightExprs.unshift(value)
  }
  for (let i = 0; i < leftExprs.length; i++) {
    const [l, r] = comparable(leftExprs[i]!, rightExprs[i]!, p.sub.span)
    leftExprs[i] = l
    rightExprs[i] = r
  }
  const lw = rel.plan.fields.length
  const left = withKeyColumns(rel.plan, leftExprs)
  const right = withKeyColumns(sub.plan, rightExprs)
  const pairs = nullAware ? 1 : 0
  const plan = windowSemiJoin({
    kind: 'SemiJoin',
    anti: p.negated,
    left: left.plan,
    right: right.plan,
    leftKeys: left.keys.slice(pairs),
    rightKeys: right.keys.slice(pairs),
    ...(nullAware ? { nullAware: { left: left.keys[0]!, right: right.keys[0]! } } : {}),
    ttl: host.ttl,
    fields: left.plan.fields,
    span: p.sub.span,
  })
  return { plan: dropExtra(plan, lw), scope: rel.scope }
}

/** Both sides of a key pair as values of one type (keys compare by their stored encoding). */
function comparable(l: Rex, r: Rex, span: Span): [Rex, Rex] {
  const a = withoutTimeAttr(l.type), b = withoutTimeAttr(r.type)
  if (sameType(a, b) || (isIntegral(a) && isIntegral(b))) return [l, r]
  const common = commonType([a, b])
  if (common === null) throw WeirError.plan(`the subquery compares ${formatType(a)} with ${formatType(b)}`, { span, help: 'CAST one side' })
  return [castTo(l, common, span), castTo(r, common, span)]
}

/** `plan` without the columns past `width` (computed keys). */
function dropExtra(plan: LogicalPlan, width: number): LogicalPlan {
  if (plan.fields.length === width) return plan
  const fields = plan.fields.slice(0, width)
  return { kind: 'Project', input: plan, exprs: fields.map((f, i) => inputRef(i, f.type)), fields, span: plan.span }
}

// ------------------------------------------------------------------ scalar subqueries

/**
 * `rel` joined with each scalar subquery of `exprs`: its value is a hidden column of the scope, which
 * the expression binder reads where the subquery was written.
 */
export function withScalars(rel: BoundRelation, exprs: readonly ast.Expr[], host: SubqueryHost): BoundRelation {
  if (exprs.length === 0) return rel
  let plan = rel.plan
  const fields: ScopeField[] = [...rel.scope.fields]
  const columns = new Map<ast.Expr, number>(rel.scope.subqueries ?? [])
  for (const sub of exprs.flatMap(scalarSubqueriesOf)) {
    const bound = bindSubquery(sub, rel.scope, host)
    const value = bound.plan.fields[0]!
    const type = withNullable(withoutTimeAttr(value.type), true)
    const at = sub.span.start
    plan = {
      kind: 'ScalarJoin',
      left: plan,
      right: bound.plan,
      label: `the scalar subquery at line ${at.line}, column ${at.column}`,
      ttl: host.ttl,
      fields: [...plan.fields.map(f => ({ name: f.name, type: withoutTimeAttr(f.type) })), { name: `$scalar${columns.size}`, type }],
      span: sub.span,
    }
    columns.set(sub, fields.length)
    fields.push({ name: `$scalar${columns.size - 1}`, type, hidden: true })
  }
  return { plan, scope: new Scope(fields, columns) }
}

/** `rel` filtered by WHERE conjuncts holding scalar subqueries; its columns stay as they were. */
function filterWithScalars(rel: BoundRelation, conjuncts: readonly ast.Expr[], host: SubqueryHost,
  bindCondition: (e: ast.Expr, scope: Scope) => Rex): BoundRelation
{
  if (conjuncts.length === 0) return rel
  const joined = withScalars(rel, conjuncts, host)
  const condition = conjuncts.map(c => bindCondition(c, joined.scope)).reduce((a, b) => resolveCall('AND', [a, b]))
  const filtered: LogicalPlan = { kind: 'Filter', input: joined.plan, condition, fields: joined.plan.fields, span: conjuncts[0]!.span }
  return { plan: dropExtra(filtered, rel.plan.fields.length), scope: rel.scope }
}
