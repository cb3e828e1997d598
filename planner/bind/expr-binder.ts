// AST expressions → typed Rex over a scope. In the SELECT and HAVING of an aggregate query, an
// expression resolves to a GROUP BY key or an aggregate's output column, or it is an error.
import type * as ast from '../../grammar/ast.js'
import type { Rex } from '../../core/rex.js'
import { inputRef, literal } from '../../core/rex.js'
import { T } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { assertNever } from '../../common/assert.js'
import { resolveCall, castTo, numberLiteral, stringLiteral, intervalLiteral, timestampLiteral, dateLiteral, timeLiteral,
  binaryLiteral } from '../../expr/index.js'
import { AGGREGATE_FUNCTIONS as AGGREGATE_FUNCTION_NAMES } from '../../expr/aggregate-types.js'
import { typeFromAst } from './types.js'
import { userAggregate } from '../functions.js'
import { fieldAccess } from '../../expr/functions/collections.js'
import { spanOf } from '../../common/span.js'
import type { Scope } from './scope.js'
import { isWindowCall, misplacedWindowCall } from './window-calls.js'
import { bindJsonCall, JSON_CLAUSE_FUNCTIONS, jsonDefaults } from './json-call.js'

export const AGGREGATE_FUNCTIONS: ReadonlySet<string> = new Set(AGGREGATE_FUNCTION_NAMES)

export function isAggregateCall(e: ast.Expr): e is ast.FunctionCall {
  return e.kind === 'FunctionCall' && e.over === undefined && (AGGREGATE_FUNCTIONS.has(e.name.value.toUpperCase()) || userAggregate(e.name.value) !== undefined)
}

/** How SELECT/HAVING expressions of an aggregate query map onto the aggregate's output. */
export interface AggregateMapping {
  /** The scope of the aggregate's input (what GROUP BY expressions were bound over). */
  readonly inputScope: Scope
  /** Canonical text of each GROUP BY expression (see rexKey) → output column. */
  readonly groupOutput: ReadonlyMap<string, number>
  /** Each aggregate call node → output column. */
  readonly aggOutput: ReadonlyMap<ast.FunctionCall, number>
  /** The aggregate's output row types, by column. */
  readonly outputTypes: readonly import('../../common/types.js').DataType[]
  /** Extra columns visible by name after a window aggregate (window_time). */
  readonly extraColumns?: ReadonlyMap<string, number>
  /** Each GROUPING() / GROUPING_ID() call → its value over the aggregate's output (grouping-sets.ts). */
  readonly grouping?: ReadonlyMap<ast.FunctionCall, Rex>
}

export interface BindContext {
  readonly scope: Scope
  /** The clause being bound, for messages ('WHERE', 'SELECT', …). */
  readonly clause: string
  readonly agg?: AggregateMapping
  /** In a SELECT list over an Over node: each window function call → its output column. */
  readonly over?: ReadonlyMap<ast.FunctionCall, Rex>
}

/** A structural key for Rex equality (GROUP BY matching, de-duplication). */
export function rexKey(rex: Rex): string {
  return JSON.stringify(rex, (k, v) => (k === 'span' ? undefined : typeof v === 'bigint' ? `${v}n` : v))
}

/** Whether an expression calls an aggregate function anywhere. */
export function containsAggregate(e: ast.Expr): boolean {
  let found = false
  visitExpr(e, n => {
    if (isAggregateCall(n)) found = true
  })
  return found
}

/** Calls `f` on every node of an expression, parents first. Does not descend into aggregate arguments when `intoAggregates` is false. */
export function visitExpr(e: ast.Expr, f: (e: ast.Expr) => void, intoAggregates = true): void {
  f(e)
  if (!intoAggregates && isAggregateCall(e)) return
  for (const c of childrenOf(e)) visitExpr(c, f, intoAggregates)
}

export function childrenOf(e: ast.Expr): ast.Expr[] {
  switch (e.kind) {
    case 'Literal':
    case 'ColumnRef':
    case 'IntervalLiteral':
      return []
    case 'BinaryOp':
      return [e.left, e.right]
    case 'UnaryOp':
    case 'IsNull':
    case 'IsBool':
    case 'Cast':
    case 'Extract':
    case 'TimeFloorCeil':
      return [e.operand]
    case 'Between':
      return [e.operand, e.low, e.high]
    case 'InList':
      return [e.operand, ...e.list]
    case 'SubqueryExpr':
      return e.operand ? [e.operand] : []
    case 'Like':
      return e.escape ? [e.operand, e.pattern, e.escape] : [e.operand, e.pattern]
    case 'CaseExpr':
      return [...(e.operand ? [e.operand] : []), ...e.whens.flatMap(w => [w.when, w.then]), ...(e.else ? [e.else] : [])]
    case 'FunctionCall':
      return [...e.args, ...(e.filter ? [e.filter] : []), ...jsonDefaults(e)]
    default:
      return assertNever(e)
  }
}

export function bindExpr(e: ast.Expr, ctx: BindContext): Rex {
  try {
    return bindInner(e, ctx)
  } catch (err) {
    throw err instanceof WeirError ? err.withSpan(e.span) : err
  }
}

function bindInner(e: ast.Expr, ctx: BindContext): Rex {
  if (isWindowCall(e)) {
    const call = e as ast.FunctionCall
    const bound = ctx.over?.get(call)
    if (bound === undefined) throw misplacedWindowCall(call, ctx.clause, ctx.agg !== undefined)
    return bound
  }
  const agg = ctx.agg
  if (agg) {
    const grouping = e.kind === 'FunctionCall' ? agg.grouping?.get(e) : undefined
    if (grouping !== undefined) return grouping
    if (isAggregateCall(e)) {
      const index = agg.aggOutput.get(e)
      if (index === undefined) throw WeirError.internal('aggregate call was not collected')
      return inputRef(index, agg.outputTypes[index]!)
    }
    if (!containsAggregate(e) && !containsGrouping(e, agg)) {
      const overInput = bindExpr(e, { scope: agg.inputScope, clause: ctx.clause })
      const out = agg.groupOutput.get(rexKey(overInput))
      if (out !== undefined) return inputRef(out, agg.outputTypes[out]!)
      if (overInput.kind === 'Literal' || !hasInputs(overInput)) return overInput
      // `r.f` where r is a GROUP BY key: the field of the key's output column.
      const field = e.kind === 'ColumnRef' ? fieldOfGroupKey(overInput, agg) : undefined
      if (field !== undefined) return field
      if (e.kind === 'ColumnRef') {
        const name = e.name.parts[e.name.parts.length - 1]!.value
        const extra = agg.extraColumns?.get(name.toLowerCase())
        if (extra !== undefined) return inputRef(extra, agg.outputTypes[extra]!)
        throw WeirError.plan(`column '${e.name.parts.map(p => p.value).join('.')}' must appear in GROUP BY or be used in an aggregate function`, {
          span: e.span,
          help: `add '${e.name.parts.map(p => p.value).join('.')}' to GROUP BY, or wrap it in an aggregate such as MAX(${name})`,
        })
      }
    }
  } else if (isAggregateCall(e)) {
    throw WeirError.plan(`aggregate function ${e.name.value.toUpperCase()} is not allowed in ${ctx.clause}`, {
      span: e.span,
      help: ctx.clause === 'WHERE' ? 'filter on aggregates with HAVING' : undefined,
    })
  }
  return bindNode(e, ctx)
}

/**
 * A column, or a ROW column's field: `t.c` is table t's column c when t is a table in scope, else
 * column t's field c; longer names (`t.r.f.g`) take the longest prefix that is a column, then fields.
 */
function bindColumnRef(e: ast.ColumnRef, scope: Scope): Rex {
  const parts = e.name.parts
  let first: unknown
  for (let k = parts.length; k >= 1; k--) {
    let index: number
    try {
      index = scope.resolve(k === parts.length ? e.name : { parts: parts.slice(0, k), span: spanOf(parts[0]!.span, parts[k - 1]!.span) })
    } catch (err) {
      first ??= err
      continue
    }
    let rex = inputRef(index, scope.fields[index]!.type)
    for (const p of parts.slice(k)) rex = fieldAccess(rex, p.value, p.quoted, spanOf(parts[0]!.span, p.span))
    return rex
  }
  throw first
}

/** A FIELD chain over the input re-read from a GROUP BY key it starts at, or undefined. */
function fieldOfGroupKey(rex: Rex, agg: AggregateMapping): Rex | undefined {
  const out = agg.groupOutput.get(rexKey(rex))
  if (out !== undefined) return inputRef(out, agg.outputTypes[out]!)
  if (rex.kind !== 'Call' || rex.op !== 'FIELD') return undefined
  const base = fieldOfGroupKey(rex.args[0]!, agg)
  return base === undefined ? undefined : { ...rex, args: [base, rex.args[1]!] }
}

function hasInputs(rex: Rex): boolean {
  return rex.kind === 'Input' || (rex.kind === 'Call' && rex.args.some(hasInputs))
}

function bindNode(e: ast.Expr, ctx: BindContext): Rex {
  const b = (x: ast.Expr): Rex => bindExpr(x, ctx)
  switch (e.kind) {
    case 'Literal': {
      const lt = e.type
      switch (lt) {
        case 'number':
          return numberLiteral(e.text)
        case 'string':
          return stringLiteral(e.text)
        case 'boolean':
          return literal(e.text.toUpperCase() === 'TRUE', T.boolean(false))
        case 'null':
          return literal(null, T.null())
        case 'timestamp':
          return timestampLiteral(e.text, e.span)
        case 'timestamp_ltz': {
          const ts = timestampLiteral(e.text, e.span)
          return literal(ts.kind === 'Literal' ? ts.value : null, T.timestampLtz(3, false))
        }
        case 'date':
          return dateLiteral(e.text, e.span)
        case 'time':
          return timeLiteral(e.text, e.span)
        case 'binary':
          return binaryLiteral(e.text, e.span)
        default:
          return assertNever(lt)
      }
    }
    case 'IntervalLiteral':
      return intervalLiteral(e.text, e.unit, e.toUnit, e.negative, e.span)
    case 'ColumnRef':
      return bindColumnRef(e, ctx.scope)
    case 'BinaryOp':
      return resolveCall(e.op, [b(e.left), b(e.right)], e.span)
    case 'UnaryOp':
      if (e.op === '+') return b(e.operand)
      // -9223372036854775808 is one BIGINT literal, not the negation of a DECIMAL.
      if (e.op === '-' && e.operand.kind === 'Literal' && e.operand.type === 'number') return numberLiteral(`-${e.operand.text}`)
      return resolveCall(e.op === 'NOT' ? 'NOT' : 'NEG', [b(e.operand)], e.span)
    case 'IsNull':
      return resolveCall(e.negated ? 'IS_NOT_NULL' : 'IS_NULL', [b(e.operand)], e.span)
    case 'IsBool': {
      const op = `IS_${e.negated ? 'NOT_' : ''}${e.value ? 'TRUE' : 'FALSE'}`
      return resolveCall(op, [b(e.operand)], e.span)
    }
    case 'Between':
      return resolveCall(`${e.negated ? 'NOT_' : ''}BETWEEN${e.symmetric ? '_SYMMETRIC' : ''}`, [b(e.operand), b(e.low), b(e.high)], e.span)
    case 'InList':
      return resolveCall(e.negated ? 'NOT_IN' : 'IN', [b(e.operand), ...e.list.map(b)], e.span)
    case 'SubqueryExpr': {
      const column = ctx.scope.subqueries?.get(e)
      if (column !== undefined) {
        const value = inputRef(column, ctx.scope.fields[column]!.type)
        // NOT IN reads NOT of its marker: NULL stays NULL, as SQL's three-valued logic wants.
        return e.negated ? resolveCall('NOT', [value], e.span) : value
      }
      // subquery-binder.ts takes the subqueries it can plan out of the expression before it is bound.
      throw WeirError.unsupported(`${e.form === 'SCALAR' ? 'a scalar subquery' : `${e.form} (subquery)`} is not supported in ${ctx.clause}`, {
        span: e.span,
        help: e.form === 'SCALAR'
          ? 'a scalar subquery is supported in the SELECT list and the WHERE clause of a query without GROUP BY'
          : 'IN / EXISTS subqueries are supported in the WHERE clause and in the SELECT list of a query without GROUP BY',
      })
    }
    case 'Like':
      return resolveCall(`${e.negated ? 'NOT_' : ''}${e.similar ? 'SIMILAR_TO' : 'LIKE'}`, [b(e.operand), b(e.pattern), ...(e.escape ? [b(e.escape)] : [])],
        e.span)
    case 'CaseExpr': {
      const operand = e.operand ? b(e.operand) : undefined
      const args: Rex[] = []
      for (const w of e.whens) {
        const when = operand ? resolveCall('=', [operand, b(w.when)], w.when.span) : b(w.when)
        args.push(when, b(w.then))
      }
      if (e.else) args.push(b(e.else))
      return resolveCall('CASE', args, e.span)
    }
    case 'Cast':
      return castTo(b(e.operand), typeFromAst(e.type), e.span, e.try)
    case 'Extract':
      return resolveCall('EXTRACT', [literal(e.unit.toUpperCase(), T.string(false)), b(e.operand)], e.span)
    case 'TimeFloorCeil':
      return resolveCall(e.fn === 'FLOOR' ? 'FLOOR_TO' : 'CEIL_TO', [b(e.operand), literal(e.unit.toUpperCase(), T.string(false))], e.span)
    case 'FunctionCall': {
      const name = e.name.value.toUpperCase()
      if (e.star) throw WeirError.plan(`${name}(*) is not a function`, { span: e.span, help: 'only COUNT(*) takes *' })
      if (e.filter) throw WeirError.plan(`FILTER (WHERE …) applies only to aggregate functions, not ${name}`, { span: e.filter.span })
      if (e.distinct) throw WeirError.plan(`DISTINCT applies only to aggregate functions, not ${name}`, { span: e.span })
      if (JSON_CLAUSE_FUNCTIONS.has(name) || e.json !== undefined) return bindJsonCall(name, e, b)
      return resolveCall(name, e.args.map(b), e.span)
    }
    default:
      return assertNever(e)
  }
}

/** Whether `e` holds a GROUPING() call this aggregate computes (it has no meaning over the aggregate's input). */
function containsGrouping(e: ast.Expr, agg: AggregateMapping): boolean {
  if (agg.grouping === undefined || agg.grouping.size === 0) return false
  let found = false
  visitExpr(e, n => {
    if (n.kind === 'FunctionCall' && agg.grouping!.has(n)) found = true
  }, false)
  return found
}
