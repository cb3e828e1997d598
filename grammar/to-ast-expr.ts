// CST → AST for expressions, literals and type names. Operator chains are folded by precedence; a
// node's span runs from the start of its first operand's text to the end of its last (parentheses included).
import { NESTED_TYPE_NAMES, nestedTypeName, postfixes } from './nested-types.js'
import { isJsonExpr, jsonArrayAgg, jsonObjectAgg, jsonCallClauses } from './json-clauses.js'
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import type * as A from './ast.js'
import { alt, child, endOf, has, identFromToken, isToken, node, nodes, qualifiedName, startOf, stringValue, token, tokens, type CstElement, type CstNode,
  type IToken, type Spans } from './cst.js'
import { closest } from '../common/names.js'
import * as T from './tokens.js'
import { overWindow, type ExprConverters } from './to-ast-over.js'

type BinaryOperator = A.BinaryOperator

// ---------------------------------------------------------------- operator precedence

/** Binding power of each binary operator and of the postfix predicates (IS, BETWEEN, IN, LIKE). */
const enum Prec {
  Or = 1,
  And = 2,
  Not = 3,
  Compare = 4,
  Concat = 5,
  Add = 6,
  Mul = 7,
}

/** One element of a flattened operator chain, in source order. */
type Item =
  | { readonly kind: 'not'; readonly token: IToken }
  | { readonly kind: 'operand'; readonly node: CstNode }
  | { readonly kind: 'op'; readonly token: IToken }
  | { readonly kind: 'tail'; readonly node: CstNode }

/** An expression with the extent of its text, parentheses included (the node's own span excludes them). */
interface Parsed {
  readonly expr: A.Expr
  readonly start: number
  readonly end: number
}

/**
 * An `expression` CST node (a flat chain `[NOT…] operand (op [NOT…] operand | postfix)*`) → Expr,
 * by precedence climbing: OR < AND < NOT < comparison, IS, BETWEEN, IN, LIKE < || < + - < * / %.
 * All binary operators are left-associative.
 */
export function expression(n: CstNode, s: Spans): A.Expr {
  const tails = nodes(n, 'exprTail')
  const nots = tokens(n, 'NOT')
  if (tails.length === 0 && nots.length === 0) return operand(child(n, 'primary'), s)
  const items: Item[] = []
  for (const t of nots) items.push({ kind: 'not', token: t })
  items.push({ kind: 'operand', node: child(n, 'primary') })
  for (const tail of tails) {
    const op = token(tail, 'op')
    if (op) {
      items.push({ kind: 'op', token: op })
      for (const t of tokens(tail, 'NOT')) items.push({ kind: 'not', token: t })
      items.push({ kind: 'operand', node: child(tail, 'primary') })
    } else {
      items.push({ kind: 'tail', node: tail })
    }
  }
  return new Climber(items, s).parse(0).expr
}

/** `a || b + c * d`: the arithmetic-only chain used for BETWEEN bounds, LIKE patterns and POSITION. */
function arithmetic(n: CstNode, s: Spans): A.Expr {
  const operands = nodes(n, 'primary')
  if (operands.length === 1) return operand(operands[0]!, s)
  const ops = tokens(n, 'op')
  const items: Item[] = [{ kind: 'operand', node: operands[0]! }]
  for (let i = 0; i < ops.length; i++) {
    items.push({ kind: 'op', token: ops[i]! }, { kind: 'operand', node: operands[i + 1]! })
  }
  return new Climber(items, s).parse(0).expr
}

function binaryOp(t: IToken): { op: BinaryOperator; prec: Prec } {
  switch (t.tokenType) {
    case T.OR:
      return { op: 'OR', prec: Prec.Or }
    case T.AND:
      return { op: 'AND', prec: Prec.And }
    case T.Eq:
      return { op: '=', prec: Prec.Compare }
    case T.NotEq:
      return { op: '<>', prec: Prec.Compare }
    case T.Lt:
      return { op: '<', prec: Prec.Compare }
    case T.LtEq:
      return { op: '<=', prec: Prec.Compare }
    case T.Gt:
      return { op: '>', prec: Prec.Compare }
    case T.GtEq:
      return { op: '>=', prec: Prec.Compare }
    case T.Concat:
      return { op: '||', prec: Prec.Concat }
    case T.Plus:
      return { op: '+', prec: Prec.Add }
    case T.Minus:
      return { op: '-', prec: Prec.Add }
    case T.Star:
      return { op: '*', prec: Prec.Mul }
    case T.Slash:
      return { op: '/', prec: Prec.Mul }
    case T.Percent:
      return { op: '%', prec: Prec.Mul }
    default:
      throw WeirError.internal(`unknown operator ${t.image}`)
  }
}

class Climber {
  private i = 0
  constructor(private readonly items: readonly Item[], private readonly s: Spans) {}

  parse(minPrec: number): Parsed {
    let left = this.prefix()
    for (;;) {
      const item = this.items[this.i]
      if (item === undefined) return left
      if (item.kind === 'op') {
        const { op, prec } = binaryOp(item.token)
        if (prec < minPrec) return left
        this.i++
        const right = this.parse(prec + 1)
        left = { expr: { kind: 'BinaryOp', op, left: left.expr, right: right.expr, span: this.s.src.span(left.start, right.end) }, start: left.start,
          end: right.end }
      } else if (item.kind === 'tail') {
        if (Prec.Compare < minPrec) return left
        this.i++
        left = this.postfix(left, item.node)
      } else {
        throw WeirError.internal('operand without an operator in expression chain')
      }
    }
  }

  private prefix(): Parsed {
    const item = this.items[this.i++]!
    if (item.kind === 'not') {
      // NOT binds looser than comparisons: NOT a = b is NOT (a = b).
      const operand = this.parse(Prec.Not)
      const start = item.token.startOffset
      return { expr: { kind: 'UnaryOp', op: 'NOT', operand: operand.expr, span: this.s.src.span(start, operand.end) }, start, end: operand.end }
    }
    if (item.kind !== 'operand') throw WeirError.internal('expression chain starts with an operator')
    return { expr: operand(item.node, this.s), start: startOf(item.node), end: endOf(item.node) }
  }

  private postfix(left: Parsed, tail: CstNode): Parsed {
    const s = this.s
    const end = endOf(tail)
    const span = s.src.span(left.start, end)
    const operand = left.expr
    const negated = has(tail, 'negated')
    let expr: A.Expr
    if (has(tail, 'IS')) {
      const other = node(tail, 'distinctFrom')
      if (other) {
        const name: A.Ident = { value: negated ? 'IS_NOT_DISTINCT_FROM' : 'IS_DISTINCT_FROM', quoted: false, span }
        expr = { kind: 'FunctionCall', name, args: [operand, arithmetic(other, s)], distinct: false, star: false, span }
      } else if (has(tail, 'json')) expr = isJsonExpr(operand, tail, negated, span)
      else if (has(tail, 'NULL') || has(tail, 'UNKNOWN')) expr = { kind: 'IsNull', operand, negated, span }
      else expr = { kind: 'IsBool', operand, value: has(tail, 'TRUE'), negated, span }
    } else {
      const between = node(tail, 'betweenTail')
      const inList = node(tail, 'inTail')
      const like = node(tail, 'likeTail') ?? node(tail, 'similarTail')
      const overlaps = node(tail, 'overlapsTail')
      if (overlaps) {
        const period = arithmetic(child(overlaps, 'period'), s)
        const parts = (e: A.Expr): A.Expr[] => {
          if (e.kind === 'FunctionCall' && e.name.value.toUpperCase() === 'ROW' && e.args.length === 2) return [...e.args]
          throw WeirError.syntax('OVERLAPS compares two periods written (start, end) or (start, interval)', { span: e.span,
            help: "e.g. (t1, t2) OVERLAPS (t3, INTERVAL '1' HOUR)" })
        }
        const overlapsCall = call({ value: 'OVERLAPS', quoted: false, span: s.of(overlaps) }, [...parts(operand), ...parts(period)], span)
        expr = negated ? { kind: 'UnaryOp', op: 'NOT', operand: overlapsCall, span } : overlapsCall
      } else if (between) {
        const low = arithmetic(child(between, 'low'), s), high = arithmetic(child(between, 'high'), s)
        expr = { kind: 'Between', operand, low, high, negated, ...(has(between, 'SYMMETRIC') ? { symmetric: true } : {}), span }
      } else if (inList && has(inList, 'query')) {
        expr = { kind: 'SubqueryExpr', form: 'IN', operand, query: subquery(child(inList, 'query'), s), negated, span }
      } else if (inList) {
        expr = { kind: 'InList', operand, list: nodes(inList, 'expression').map(e => expression(e, s)), negated, span }
      } else if (like) {
        const escape = node(like, 'escape')
        const pattern = arithmetic(child(like, 'pattern'), s)
        expr = { kind: 'Like', operand, pattern, ...(escape ? { escape: arithmetic(escape, s) } : {}), ...(has(like, 'SIMILAR') ? { similar: true } : {}),
          negated, span }
      } else {
        throw WeirError.internal(`unhandled predicate ${s.text(tail)}`)
      }
    }
    return { expr, start: left.start, end }
  }
}

/** Builds a query's AST; to-ast-query.ts registers it (it imports this file, so importing it here would be a cycle). */
let subquery: (n: CstNode, s: Spans) => A.Query = () => {
  throw WeirError.internal('to-ast-query.ts is not loaded')
}

export function registerSubqueryBuilder(build: (n: CstNode, s: Spans) => A.Query): void {
  subquery = build
}

/** A `primary` node: the operand itself, wrapped in its prefix signs. */
function operand(n: CstNode, s: Spans): A.Expr {
  const c = alt(n)
  let acc = primary(c, s)
  const post = n.children['postfix'] as CstNode[] | undefined
  if (post !== undefined) acc = postfixes(acc, post, s, e => expression(e, s))
  const signs = tokens(n, 'AddOp')
  for (let i = signs.length - 1; i >= 0; i--) {
    acc = { kind: 'UnaryOp', op: signs[i]!.tokenType === T.Plus ? '+' : '-', operand: acc, span: s.between(signs[i]!, c) }
  }
  return acc
}

function primary(c: CstElement, s: Spans): A.Expr {
  if (isToken(c)) {
    const span = s.ofToken(c)
    switch (c.tokenType) {
      case T.NumberLit:
        return { kind: 'Literal', type: 'number', text: c.image, span }
      case T.StringLit:
        return { kind: 'Literal', type: 'string', text: stringValue(c), span }
      case T.TRUE:
        return { kind: 'Literal', type: 'boolean', text: 'TRUE', span }
      case T.FALSE:
        return { kind: 'Literal', type: 'boolean', text: 'FALSE', span }
      case T.NULL:
        return { kind: 'Literal', type: 'null', text: 'NULL', span }
      default:
        throw WeirError.internal(`unexpected token ${c.image} in expression`)
    }
  }
  switch (c.name) {
    case 'intervalLiteral':
      return intervalLiteral(c, s)
    case 'typedLiteral':
      return typedLiteral(c, s)
    case 'nameExpr':
      return nameExpr(c, s)
    case 'caseExpr':
      return caseExpr(c, s)
    case 'castExpr':
      return {
        kind: 'Cast',
        operand: expression(child(c, 'expression'), s),
        type: typeName(child(c, 'typeName'), s),
        try: has(c, 'TRY_CAST'),
        span: s.of(c),
      }
    case 'extractExpr':
      return {
        kind: 'Extract',
        unit: timeUnit(token(c, 'Name')!, s, 'EXTRACT'),
        operand: expression(child(c, 'expression'), s),
        span: s.of(c),
      }
    case 'floorCeilExpr':
      return floorCeil(c, s)
    case 'substringExpr':
      return substring(c, s)
    case 'trimExpr':
      return trim(c, s)
    case 'positionExpr':
      return call(keywordIdent(token(c, 'POSITION')!, s), [arithmetic(child(c, 'needle'), s), arithmetic(child(c, 'haystack'), s)], s.of(c))
    case 'overlayExpr': {
      const args = ['source', 'replacement', 'start', 'length'].flatMap(label => {
        const arg = node(c, label)
        return arg ? [expression(arg, s)] : []
      })
      return call(keywordIdent(token(c, 'OVERLAY')!, s), args, s.of(c))
    }
    case 'niladicCall': {
      const t = alt(c) as IToken
      return call(keywordIdent(t, s), [], s.of(c))
    }
    case 'keywordCall': {
      const t = (token(c, 'LEFT') ?? token(c, 'RIGHT'))!
      return functionCall(identFromToken(t, s), child(c, 'callArgs'), s.of(c), s)
    }
    case 'parenExpr':
      if (has(c, 'query')) return { kind: 'SubqueryExpr', form: 'SCALAR', query: subquery(child(c, 'query'), s), negated: false, span: s.of(c) }
      if (nodes(c, 'expression').length > 1) {
        return call({ value: 'ROW', quoted: false, span: s.of(c) }, nodes(c, 'expression').map(e => expression(e, s)), s.of(c))
      }
      return expression(child(c, 'expression'), s)
    case 'existsExpr':
      return { kind: 'SubqueryExpr', form: 'EXISTS', query: subquery(child(c, 'query'), s), negated: false, span: s.of(c) }
    default:
      throw WeirError.internal(`unhandled expression rule ${c.name}`)
  }
}

/** A keyword used as a function name: the name is the keyword, upper-cased. */
function keywordIdent(t: IToken, s: Spans): A.Ident {
  return { value: t.image.toUpperCase(), quoted: false, span: s.ofToken(t) }
}

function call(name: A.Ident, args: A.Expr[], span: Span): A.FunctionCall {
  return { kind: 'FunctionCall', name, args, distinct: false, star: false, span }
}

/** Interval units as Flink accepts them; the planner decides which it can evaluate. */
export const INTERVAL_UNITS = [
  'MILLISECOND',
  'SECOND',
  'MINUTE',
  'HOUR',
  'DAY',
  'WEEK',
  'MONTH',
  'QUARTER',
  'YEAR',
  'MILLISECONDS',
  'SECONDS',
  'MINUTES',
  'HOURS',
  'DAYS',
  'WEEKS',
  'MONTHS',
  'QUARTERS',
  'YEARS',
]
const TIME_UNITS = ['MILLISECOND', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR', 'DOW', 'DOY', 'EPOCH', 'MICROSECOND', 'NANOSECOND',
  'CENTURY', 'DECADE', 'MILLENNIUM', 'ISODOW', 'ISOYEAR']

function unitOf(t: IToken, s: Spans, allowed: readonly string[], what: string): string {
  const id = identFromToken(t, s)
  const unit = id.value.toUpperCase()
  if (allowed.includes(unit)) return unit
  const guess = closest(unit, allowed)
  throw WeirError.syntax(`unknown ${what} unit '${id.value}'`, {
    span: id.span,
    help: guess ? `did you mean ${guess}?` : `use one of ${allowed.filter(u => !u.endsWith('S')).join(', ')}`,
  })
}

function timeUnit(t: IToken, s: Spans, fn: string): string {
  return unitOf(t, s, TIME_UNITS, fn === 'EXTRACT' ? 'EXTRACT' : 'time')
}

export function orderItem(n: CstNode, s: Spans): A.OrderItem {
  const nulls = has(n, 'NULLS') ? has(n, 'FIRST') : undefined
  return {
    expr: expression(child(n, 'expression'), s),
    descending: has(n, 'DESC'),
    ...(nulls !== undefined ? { nullsFirst: nulls } : {}),
    span: s.of(n),
  }
}

/** What to-ast-over.ts needs from here, passed in so the two files do not import each other. */
export const EXPR_CONVERTERS: ExprConverters = { expression, orderItem, intervalLiteral }

function intervalLiteral(n: CstNode, s: Spans): A.IntervalLiteral {
  const str = token(n, 'StringLit')!
  let text = stringValue(str).trim()
  let negative = token(n, 'AddOp')?.tokenType === T.Minus
  // A sign inside the string: INTERVAL '-5' SECOND.
  if (text.startsWith('-') || text.startsWith('+')) {
    if (text.startsWith('-')) negative = !negative
    text = text.slice(1).trim()
  }
  const unit = unitOf(token(n, 'unit')!, s, INTERVAL_UNITS, 'interval')
  const to = token(n, 'toUnit')
  return {
    kind: 'IntervalLiteral',
    text,
    negative,
    unit,
    ...(to ? { toUnit: unitOf(to, s, INTERVAL_UNITS, 'interval') } : {}),
    span: s.of(n),
  }
}

function typedLiteral(n: CstNode, s: Spans): A.Literal {
  const text = stringValue(token(n, 'StringLit')!)
  const prefix = token(n, 'LiteralPrefix')!.image.toUpperCase()
  const type = prefix === 'X' ? 'binary' : prefix === 'DATE' ? 'date' : prefix === 'TIME' ? 'time' : prefix === 'TIMESTAMP_LTZ' ? 'timestamp_ltz' : 'timestamp'
  return { kind: 'Literal', type, text, span: s.of(n) }
}

function caseExpr(n: CstNode, s: Spans): A.CaseExpr {
  const operand = node(n, 'operand')
  const otherwise = node(n, 'else')
  return {
    kind: 'CaseExpr',
    ...(operand ? { operand: expression(operand, s) } : {}),
    // `WHEN a, b THEN r` is `WHEN a THEN r WHEN b THEN r`: the first value equal to the operand wins either way.
    whens: nodes(n, 'whenClause').flatMap(w => {
      const values = nodes(w, 'when')
      if (!operand && values.length > 1) {
        throw WeirError.syntax('a list of values after WHEN needs a CASE with an operand', {
          span: s.of(values[1]!),
          help: 'write CASE x WHEN 1, 2 THEN …, or join the conditions with OR: CASE WHEN c1 OR c2 THEN …',
        })
      }
      const then = expression(child(w, 'then'), s)
      return values.map(v => ({ when: expression(v, s), then }))
    }),
    ...(otherwise ? { else: expression(otherwise, s) } : {}),
    span: s.of(n),
  }
}

function floorCeil(n: CstNode, s: Spans): A.Expr {
  const kw = (token(n, 'FLOOR') ?? token(n, 'CEIL') ?? token(n, 'CEILING'))!
  const fn = kw.tokenType === T.FLOOR ? 'FLOOR' : 'CEIL'
  const operand = expression(child(n, 'expression'), s)
  const unit = token(n, 'Name')
  if (unit) return { kind: 'TimeFloorCeil', fn, operand, unit: timeUnit(unit, s, fn), span: s.of(n) }
  return call({ value: fn, quoted: false, span: s.ofToken(kw) }, [operand], s.of(n))
}

/** SUBSTRING(s FROM a FOR b) and SUBSTRING(s, a, b) both become SUBSTRING(s, a[, b]). */
function substring(n: CstNode, s: Spans): A.FunctionCall {
  const args = [expression(child(n, 'source'), s), expression(child(n, 'start'), s)]
  const length = node(n, 'length')
  if (length) args.push(expression(length, s))
  return call(keywordIdent(token(n, 'SUBSTRING')!, s), args, s.of(n))
}

/**
 * TRIM([BOTH] [chars] FROM s) → TRIM(s[, chars]); LEADING → LTRIM(s[, chars]); TRAILING → RTRIM(s[, chars]);
 * TRIM(s) → TRIM(s).
 */
function trim(n: CstNode, s: Spans): A.FunctionCall {
  const kw = token(n, 'TRIM')!
  const name = has(n, 'LEADING') ? 'LTRIM' : has(n, 'TRAILING') ? 'RTRIM' : 'TRIM'
  const source = node(n, 'source')
  const first = node(n, 'first')
  const chars = node(n, 'chars') ?? (source ? first : undefined)
  const args = [expression(source ?? first!, s)]
  if (chars) args.push(expression(chars, s))
  return call({ value: name, quoted: false, span: s.ofToken(kw) }, args, s.of(n))
}

/** Functions whose first argument is a time unit keyword, passed on as a string literal. */
const UNIT_FIRST_FUNCTIONS = new Set(['TIMESTAMPADD', 'TIMESTAMPDIFF'])

function nameExpr(n: CstNode, s: Spans): A.Expr {
  const args = node(n, 'callArgs')
  if (!args) {
    const name = qualifiedName(n, s)
    return { kind: 'ColumnRef', name, span: name.span }
  }
  const parts = tokens(n, 'Name')
  if (parts.length > 1) {
    throw WeirError.syntax(`qualified function names are not supported: '${s.text(n).split('(')[0]}'`, {
      span: s.between(parts[0]!, parts[parts.length - 1]!),
      help: 'call the function by its plain name',
    })
  }
  return functionCall(identFromToken(parts[0]!, s), args, s.of(n), s)
}

function functionCall(name: A.Ident, argsNode: CstNode, span: Span, s: Spans): A.FunctionCall {
  const quantifier = node(argsNode, 'setQuantifier')
  const distinct = quantifier !== undefined && has(quantifier, 'DISTINCT')
  const star = has(argsNode, 'Star')
  const argNodes = nodes(argsNode, 'expression')
  const upper = name.value.toUpperCase()
  let args: A.Expr[]
  if (UNIT_FIRST_FUNCTIONS.has(upper) && !name.quoted && argNodes.length > 0) {
    args = [unitArgument(argNodes[0]!, s, upper), ...argNodes.slice(1).map(a => expression(a, s))]
  } else {
    args = argNodes.map(a => expression(a, s))
  }
  const filter = node(argsNode, 'filter')
  const over = node(argsNode, 'overClause')
  const json = jsonCallClauses(name, argsNode, args, span, s, { expression, typeName })
  const nullTreatment = nullTreatmentOf(name, argsNode, s)
  const result: A.FunctionCall = { kind: 'FunctionCall', name, args, distinct, star, ...(filter ? { filter: expression(filter, s) } : {}),
    ...(over ? { over: overWindow(over, s, EXPR_CONVERTERS) } : {}), ...(json ? { json } : {}), ...(nullTreatment ? { nullTreatment } : {}), span }
  if (name.quoted) return result
  return upper === 'JSON_ARRAYAGG' ? jsonArrayAgg(result) : upper === 'JSON_OBJECTAGG' ? jsonObjectAgg(result) : result
}

/** `RESPECT NULLS` / `IGNORE NULLS` after the argument: Flink takes them for ARRAY_AGG only. */
function nullTreatmentOf(name: A.Ident, argsNode: CstNode, s: Spans): A.FunctionCall['nullTreatment'] {
  const order = node(argsNode, 'withinOrder')
  if (order !== undefined) {
    throw WeirError.unsupported(`ORDER BY inside ${name.value.toUpperCase()}(…) is not supported (nor in Flink)`, { span: s.of(order),
      help: 'aggregates take values in arrival order; order the input instead' })
  }
  const word = token(argsNode, 'nullTreatment')
  if (word === undefined) return undefined
  const value = word.image.toUpperCase() as 'RESPECT' | 'IGNORE'
  const span = s.ofToken(word)
  if (name.quoted || name.value.toUpperCase() !== 'ARRAY_AGG') {
    throw WeirError.syntax(`${name.value.toUpperCase()} takes no '${value} NULLS' clause`, { span,
      help: `only ARRAY_AGG(x ${value} NULLS) takes it, as in Flink` })
  }
  return { value, span }
}

/** TIMESTAMPADD(HOUR, …): the unit becomes a string literal with the unit's span. */
function unitArgument(n: CstNode, s: Spans, fn: string): A.Literal {
  const e = expression(n, s)
  if (e.kind === 'ColumnRef' && e.name.parts.length === 1 && !e.name.parts[0]!.quoted) {
    const unit = e.name.parts[0]!.value.toUpperCase()
    if (INTERVAL_UNITS.includes(unit) || TIME_UNITS.includes(unit)) return { kind: 'Literal', type: 'string', text: unit, span: e.span }
  }
  throw WeirError.syntax(`the first argument of ${fn} must be a time unit`, { span: e.span, help: `e.g. ${fn}(HOUR, …)` })
}

// ---------------------------------------------------------------- types

/** Type names as written → canonical names (see ast.ts TypeName). */
export const TYPE_NAMES: Record<string, string> = {
  BOOLEAN: 'BOOLEAN',
  TINYINT: 'TINYINT',
  SMALLINT: 'SMALLINT',
  INT: 'INT',
  INTEGER: 'INT',
  BIGINT: 'BIGINT',
  FLOAT: 'FLOAT',
  REAL: 'FLOAT',
  DOUBLE: 'DOUBLE',
  DECIMAL: 'DECIMAL',
  DEC: 'DECIMAL',
  NUMERIC: 'DECIMAL',
  STRING: 'STRING',
  VARCHAR: 'STRING',
  CHAR: 'STRING',
  TIMESTAMP: 'TIMESTAMP',
  TIMESTAMP_LTZ: 'TIMESTAMP_LTZ',
  DATE: 'DATE',
  TIME: 'TIME',
  BYTES: 'BYTES',
  VARBINARY: 'BYTES',
  BINARY: 'BYTES',
}
/** How many parameters each canonical type takes. */
const MAX_PARAMS: Record<string, number> = {
  BOOLEAN: 0,
  TINYINT: 0,
  SMALLINT: 0,
  INT: 0,
  BIGINT: 0,
  DOUBLE: 0,
  FLOAT: 0,
  DECIMAL: 2,
  STRING: 1,
  TIMESTAMP: 1,
  TIMESTAMP_LTZ: 1,
  DATE: 0,
  TIME: 1,
  BYTES: 1,
}
/** Flink types Weir does not have (yet): reported as unsupported rather than unknown. */
const UNSUPPORTED_TYPES = new Set(['RAW', 'INTERVAL', 'CHARACTER', 'BOOL'])
const SUPPORTED_TYPES_HELP =
  'supported types: BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), STRING, VARCHAR(n), TIMESTAMP(p), TIMESTAMP_LTZ(p), DATE, TIME(p), BYTES, VARBINARY(n), ROW<…>, ARRAY<…>, MAP<…>, MULTISET<…>'

export function typeName(n: CstNode, s: Spans): A.TypeName {
  const id = identFromToken(token(n, 'Name')!, s)
  const written = id.value.toUpperCase()
  if (!id.quoted && NESTED_TYPE_NAMES.has(written)) return nestedTypeName(n, s, written, typeName)
  if ((has(n, 'Lt') || nodes(n, 'typeArg').length > 0) && !UNSUPPORTED_TYPES.has(written)) {
    throw WeirError.syntax(`type ${written} takes no element types`, { span: s.of(n), help: 'only ROW, ARRAY, MAP and MULTISET have types inside them' })
  }
  let name = id.quoted ? undefined : TYPE_NAMES[written]
  if (name === undefined) {
    if (UNSUPPORTED_TYPES.has(written)) {
      throw WeirError.unsupported(`type ${written} is not supported`, { span: id.span, help: SUPPORTED_TYPES_HELP })
    }
    const guess = closest(written, Object.keys(TYPE_NAMES))
    throw WeirError.syntax(`unknown type '${id.value}'`, { span: id.span, help: guess ? `did you mean ${guess}?` : SUPPORTED_TYPES_HELP })
  }
  const precision = token(n, 'PRECISION')
  if (precision && written !== 'DOUBLE') {
    throw WeirError.syntax(`PRECISION only follows DOUBLE, not ${written}`, { span: s.ofToken(precision) })
  }
  const zone = token(n, 'ZONE')
  if (zone) {
    const first = (token(n, 'WITH') ?? token(n, 'WITHOUT'))!
    if (name !== 'TIMESTAMP') {
      throw WeirError.syntax(`${s.text(first).toUpperCase()} … TIME ZONE only follows TIMESTAMP, not ${written}`, { span: s.between(first, zone) })
    }
    if (has(n, 'LOCAL')) name = 'TIMESTAMP_LTZ'
  }
  const params = tokens(n, 'NumberLit').map(t => {
    if (!/^\d+$/.test(t.image)) throw WeirError.syntax(`type parameters are whole numbers, got ${t.image}`, { span: s.ofToken(t) })
    return Number(t.image)
  })
  const max = MAX_PARAMS[name]!
  if (params.length > max) {
    const first = tokens(n, 'NumberLit')[0]!
    throw WeirError.syntax(max === 0 ? `type ${written} takes no parameters` : `type ${written} takes at most ${max} parameter${max > 1 ? 's' : ''}`, {
      span: s.between(first, tokens(n, 'NumberLit').at(-1)!),
    })
  }
  return { kind: 'TypeName', name, params, notNull: has(n, 'NOT'), span: s.of(n) }
}
