// The input of ORDER BY: the query it sorts, with hidden select items appended for the keys that are not
// output columns, as SQL engines do. `SELECT a FROM t ORDER BY b` is bound as `SELECT a, b AS $order0 FROM t`,
// sorted on the hidden column (named b when no output column has that name), and projected back to `a` after the sort and limit (order-limit.ts), so the
// query's columns (DESCRIBE, a sink's schema) are unchanged. An ORDER BY name binds to an output column
// (an alias) first and to the input's columns only when no output column has it, as Flink resolves it. The
// hidden items are bound like any select item: `ORDER BY COUNT(*)` in a GROUP BY query is an aggregate of
// the group, `ORDER BY b + 1` an expression over the input row. SELECT DISTINCT and set operations (UNION…)
// sort by their output columns only: a hidden column would change which rows are distinct.
import type * as ast from '../../grammar/ast.js'
import { WeirError } from '../../common/errors.js'
import { bindExpr } from './expr-binder.js'
import type { BoundRelation } from './join-binder.js'

/** The prefix of the hidden sort columns' names (never shown: they are projected away after the sort). */
const HIDDEN_ORDER_PREFIX = '$order'

export interface OrderSource {
  /** The sorted query's plan, the hidden columns last. */
  readonly inner: BoundRelation
  /** The query's own output (its columns without the hidden ones). */
  readonly output: BoundRelation
  /** Per ORDER BY item: the index of its hidden column in `inner`, or undefined when it binds over the output. */
  readonly hidden: readonly (number | undefined)[]
}

/** Binds the query under ORDER BY, adding hidden select items for the keys its output columns do not give. */
export function orderSource(q: ast.OrderedQuery, bind: (query: ast.Query) => BoundRelation): OrderSource {
  const output = bind(q.query)
  const missing = q.orderBy.map(item => outputBindError(item, output))
  if (missing.every(e => e === undefined)) return { inner: output, output, hidden: q.orderBy.map(() => undefined) }
  const width = output.plan.fields.length
  const items: ast.SelectItem[] = []
  const hidden = missing.map((err, i) => {
    if (err === undefined) return undefined
    const expr = q.orderBy[i]!.expr
    const alias = hiddenName(expr, items.length, [...output.plan.fields.map(f => f.name), ...items.map(it => it.kind === 'ExprItem' ? it.alias!.value : '')])
    items.push({ kind: 'ExprItem', expr, alias: { value: alias, quoted: true, span: expr.span }, span: expr.span })
    return width + items.length - 1
  })
  const first = missing.findIndex(e => e !== undefined)
  const rewritten = withHiddenItems(q.query, items, q.orderBy[first]!, missing[first]!, output)
  return { inner: bind(rewritten), output, hidden }
}

/** A hidden column's name (shown in EXPLAIN only): the input column's own name, else `$order<n>`. */
function hiddenName(expr: ast.Expr, n: number, taken: readonly string[]): string {
  const name = expr.kind === 'ColumnRef' ? expr.name.parts.at(-1)!.value : undefined
  const free = name !== undefined && !taken.some(t => t.toLowerCase() === name.toLowerCase())
  return free ? name : `${HIDDEN_ORDER_PREFIX}${n}`
}

/** Why `item` does not bind over the query's output columns (undefined when it does). */
function outputBindError(item: ast.OrderItem, output: BoundRelation): WeirError | undefined {
  const e = item.expr
  if (e.kind === 'Literal' && e.type === 'number' && /^\d+$/.test(e.text)) return undefined // a position, checked by the caller
  try {
    bindExpr(e, { scope: output.scope, clause: 'ORDER BY' })
    return undefined
  } catch (err) {
    if (!(err instanceof WeirError) || err.kind !== 'plan') throw err
    return err
  }
}

/** `query` with `items` appended to its select list; refuses queries whose rows a hidden column would change. */
function withHiddenItems(query: ast.Query, items: readonly ast.SelectItem[], item: ast.OrderItem, cause: WeirError, output: BoundRelation): ast.Query {
  const columns = output.plan.fields.map(f => f.name).join(', ')
  switch (query.kind) {
    case 'Select':
      if (query.distinct) {
        throw WeirError.plan(`${cause.message}: with SELECT DISTINCT, ORDER BY sorts by the selected columns only`, {
          span: cause.span ?? item.expr.span,
          help: `sorting by a column that is not selected would make the distinct rows depend on it; order by one of ${columns}, ` +
            'or add the key to the SELECT list',
        })
      }
      return { ...query, items: [...query.items, ...items] }
    case 'WithQuery':
      return { ...query, body: withHiddenItems(query.body, items, item, cause, output) }
    case 'SetOperation':
      throw WeirError.plan(`${cause.message}: ORDER BY after ${query.op} sorts by its output columns only`, {
        span: cause.span ?? item.expr.span,
        help: `order by one of ${columns} (by name or position), or sort inside a subquery`,
      })
    default:
      throw WeirError.plan(cause.message, {
        span: cause.span ?? item.expr.span,
        help: `ORDER BY sorts the query's output: ${columns}; add what it needs to the SELECT list`,
      })
  }
}
