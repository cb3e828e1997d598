// The scanner: comments, hints, literals, identifiers and keywords, seen through the parsed AST.
import { describe, expect, it } from 'vitest'
import { SqlParser } from '../../grammar/parser.js'
import { parseExpression, parseSql } from '../../grammar/index.js'
import type { Select } from '../../grammar/ast.js'
import { col, id, showExpr, str, strip } from './helpers.js'

describe('lexer', () => {
  it('skips line and block comments anywhere', () => {
    const sql = `-- leading
      SELECT /* inline */ a -- trailing
      FROM /* multi
      line */ t`
    expect(parseSql(sql)).toHaveLength(1)
    expect(showExpr('a /* x */ + -- y\n b')).toBe('(a + b)')
  })

  it('does not read -- inside strings or a lone - as a comment', () => {
    expect(strip(parseExpression("'a -- b'"))).toEqual(str('a -- b'))
    expect(showExpr('a - -b')).toBe('(a - (- b))')
  })

  it('keeps hints and drops plain comments next to them', () => {
    const q = (parseSql("SELECT /* c */ /*+ A(x) */ /*+ B('k' = 'v') */ 1")[0] as { query: Select }).query
    expect(q.hints.map(h => h.name.value)).toEqual(['A', 'B'])
  })

  it('reads identifiers with digits, _ and $ and Unicode letters', () => {
    expect(strip(parseExpression('a_1$b'))).toEqual(col('a_1$b'))
    expect(strip(parseExpression('_x'))).toEqual(col('_x'))
    expect(strip(parseExpression('prénom'))).toEqual(col('prénom'))
  })

  it('does not read keywords inside longer words', () => {
    expect(strip(parseExpression('selected + fromage + order_id'))).toMatchObject({ kind: 'BinaryOp' })
    expect(showExpr('selected + fromage + order_id')).toBe('((selected + fromage) + order_id)')
  })

  it('unescapes doubled backquotes and keeps quoted names exact', () => {
    expect(strip(parseExpression('`SELECT`'))).toEqual({ kind: 'ColumnRef', name: { parts: [id('SELECT', true)] } })
    expect(strip(parseExpression('`a``b`'))).toEqual({ kind: 'ColumnRef', name: { parts: [id('a`b', true)] } })
  })

  it('reads numbers next to operators and dots', () => {
    expect(showExpr('1+2')).toBe('(1 + 2)')
    expect(showExpr('t.a*.5')).toBe('(t.a * .5)')
    expect(showExpr('1e3-1')).toBe('(1e3 - 1)')
  })

  it('reads multi-character operators', () => {
    expect(showExpr('a<=b AND c>=d AND e<>f AND g!=h AND i||j = k')).toBe('(((((a <= b) AND (c >= d)) AND (e <> f)) AND (g <> h)) AND ((i || j) = k))')
  })
})

describe('grammar', () => {
  it('has no ambiguities Chevrotain can detect', () => {
    expect(() => new SqlParser({ validate: true })).not.toThrow()
  })
})
