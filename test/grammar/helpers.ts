// Test helpers for the SQL front end: span-free AST shapes, a compact expression printer, and error capture.
import { expect } from 'vitest'
import { WeirError } from '../../common/errors.js'
import type { Expr, Query, Statement } from '../../grammar/ast.js'
import { parseExpression, parseSql } from '../../grammar/index.js'

const SPAN_KEYS = new Set(['span', 'keySpan', 'valueSpan', 'fnSpan'])

/** A deep copy without span fields, for comparing AST shapes with toEqual. */
export function strip<T>(node: T): T {
  return JSON.parse(JSON.stringify(node, (k, v: unknown) => (SPAN_KEYS.has(k) ? undefined : v))) as T
}

/** Parses SQL that must hold exactly one statement. */
export function one(sql: string): Statement {
  const statements = parseSql(sql)
  expect(statements).toHaveLength(1)
  return statements[0]!
}

/** The query of a single query statement. */
export function queryOf(sql: string): Query {
  const st = one(sql)
  if (st.kind !== 'QueryStatement') throw new Error(`expected a query, got ${st.kind}`)
  return st.query
}

/** An unquoted name as it appears in the AST (spans stripped). */
export function id(value: string, quoted = false): { value: string; quoted: boolean } {
  return { value, quoted }
}

/** A column reference shape: col('t', 'a') is t.a. */
export function col(...parts: string[]): Expr {
  return { kind: 'ColumnRef', name: { parts: parts.map(p => id(p)) } } as unknown as Expr
}

export function num(text: string): Expr {
  return { kind: 'Literal', type: 'number', text } as unknown as Expr
}

export function str(text: string): Expr {
  return { kind: 'Literal', type: 'string', text } as unknown as Expr
}

/**
 * A compact, fully parenthesized rendering of an expression, for precedence tests:
 * `a + b * c` → `(a + (b * c))`.
 */
export function show(e: Expr): string {
  switch (e.kind) {
    case 'Literal':
      return e.type === 'string'
        ? `'${e.text}'`
        : e.type === 'number' || e.type === 'boolean' || e.type === 'null'
        ? e.text
        : `${e.type.toUpperCase()} '${e.text}'`
    case 'ColumnRef':
      return e.name.parts.map(p => p.value).join('.')
    case 'BinaryOp':
      return `(${show(e.left)} ${e.op} ${show(e.right)})`
    case 'UnaryOp':
      return `(${e.op} ${show(e.operand)})`
    case 'IsNull':
      return `(${show(e.operand)} IS ${e.negated ? 'NOT ' : ''}NULL)`
    case 'IsBool':
      return `(${show(e.operand)} IS ${e.negated ? 'NOT ' : ''}${e.value ? 'TRUE' : 'FALSE'})`
    case 'Between':
      return `(${show(e.operand)} ${e.negated ? 'NOT ' : ''}BETWEEN ${e.symmetric ? 'SYMMETRIC ' : ''}${show(e.low)} AND ${show(e.high)})`
    case 'InList':
      return `(${show(e.operand)} ${e.negated ? 'NOT ' : ''}IN [${e.list.map(show).join(', ')}])`
    case 'Like':
      return `(${show(e.operand)} ${e.negated ? 'NOT ' : ''}${e.similar ? 'SIMILAR TO' : 'LIKE'} ${show(e.pattern)}${
        e.escape ? ` ESCAPE ${show(e.escape)}` : ''
      })`
    case 'CaseExpr':
      return `CASE(${e.operand ? `${show(e.operand)}; ` : ''}${e.whens.map(w => `${show(w.when)} -> ${show(w.then)}`).join('; ')}${
        e.else ? `; ELSE ${show(e.else)}` : ''
      })`
    case 'Cast':
      return `${e.try ? 'TRY_CAST' : 'CAST'}(${show(e.operand)} AS ${e.type.name}${e.type.params.length ? `(${e.type.params.join(', ')})` : ''}${
        e.type.notNull ? ' NOT NULL' : ''
      })`
    case 'FunctionCall':
      return `${e.name.value}(${e.distinct ? 'DISTINCT ' : ''}${e.star ? '*' : ''}${e.args.map(show).join(', ')})${e.filter ? ` FILTER ${show(e.filter)}` : ''}`
    case 'Extract':
      return `EXTRACT(${e.unit} FROM ${show(e.operand)})`
    case 'TimeFloorCeil':
      return `${e.fn}(${show(e.operand)} TO ${e.unit})`
    case 'SubqueryExpr':
      return `${e.form}${e.negated ? ' NOT' : ''}(${e.operand ? show(e.operand) + ', ' : ''}query)`
    case 'IntervalLiteral':
      return `INTERVAL(${e.negative ? '-' : ''}${e.text} ${e.unit}${e.toUnit ? ` TO ${e.toUnit}` : ''})`
  }
}

export function showExpr(sql: string): string {
  return show(parseExpression(sql))
}

/** The WeirError thrown by `fn`; fails the test if nothing is thrown or the error is not a WeirError. */
export function errorOf(fn: () => unknown): WeirError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(WeirError)
    return e as WeirError
  }
  throw new Error('expected an error, but parsing succeeded')
}

/** The syntax error of `sql` as "line:column message" plus its help line. */
export function syntaxErrorOf(sql: string): { at: string; message: string; help: string | undefined; kind: string } {
  const e = errorOf(() => parseSql(sql))
  return { at: `${e.span?.start.line}:${e.span?.start.column}`, message: e.message, help: e.help, kind: e.kind }
}
