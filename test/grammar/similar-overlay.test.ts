// Parsing of BETWEEN [A]SYMMETRIC, [NOT] SIMILAR TO … [ESCAPE …] and OVERLAY(… PLACING … FROM … [FOR …]),
// their precedence, and the syntax errors with line:column.
import { describe, expect, it } from 'vitest'
import { parseExpression, parseSql } from '../../grammar/index.js'
import { col, num, showExpr, str, strip, syntaxErrorOf } from './helpers.js'

describe('BETWEEN SYMMETRIC', () => {
  it('marks the symmetric form; ASYMMETRIC is the plain BETWEEN', () => {
    expect(strip(parseExpression('x BETWEEN SYMMETRIC 10 AND 1'))).toEqual({ kind: 'Between', operand: col('x'), low: num('10'), high: num('1'), negated: false,
      symmetric: true })
    expect(strip(parseExpression('x NOT BETWEEN SYMMETRIC 10 AND 1'))).toMatchObject({ negated: true, symmetric: true })
    expect(strip(parseExpression('x BETWEEN ASYMMETRIC 1 AND 10'))).toEqual(strip(parseExpression('x BETWEEN 1 AND 10')))
    expect(strip(parseExpression('x BETWEEN 1 AND 10'))).not.toHaveProperty('symmetric')
  })

  it('binds its bounds as BETWEEN does: arithmetic only, the next AND is boolean', () => {
    expect(showExpr('x BETWEEN SYMMETRIC a + 1 AND b * 2 AND y')).toBe('((x BETWEEN SYMMETRIC (a + 1) AND (b * 2)) AND y)')
    expect(showExpr('NOT x BETWEEN SYMMETRIC -1 AND 1')).toBe('(NOT (x BETWEEN SYMMETRIC (- 1) AND 1))')
  })

  it('refuses a missing bound with line:column', () => {
    expect(syntaxErrorOf('SELECT a FROM t\nWHERE a BETWEEN SYMMETRIC AND 3')).toMatchObject({ at: '2:27', message: "unexpected 'AND', expected an expression" })
  })
})

describe('SIMILAR TO', () => {
  it('parses [NOT] SIMILAR TO with an optional ESCAPE', () => {
    expect(strip(parseExpression("s SIMILAR TO '%(b|d)%'"))).toEqual({ kind: 'Like', operand: col('s'), pattern: str('%(b|d)%'), negated: false,
      similar: true })
    expect(strip(parseExpression("s NOT SIMILAR TO 'a!%' ESCAPE '!'"))).toEqual({ kind: 'Like', operand: col('s'), pattern: str('a!%'), escape: str('!'),
      negated: true, similar: true })
    expect(strip(parseExpression("s LIKE 'a%'"))).not.toHaveProperty('similar')
  })

  it('has the precedence of LIKE', () => {
    expect(showExpr("s SIMILAR TO 'a' || p AND t NOT SIMILAR TO 'b'")).toBe("((s SIMILAR TO ('a' || p)) AND (t NOT SIMILAR TO 'b'))")
    expect(showExpr("NOT s SIMILAR TO 'a' OR b")).toBe("((NOT (s SIMILAR TO 'a')) OR b)")
  })

  it('refuses SIMILAR without TO, with line:column', () => {
    expect(syntaxErrorOf("SELECT s SIMILAR 'a' FROM t")).toMatchObject({ at: '1:18', message: "unexpected string 'a', expected TO" })
  })
})

describe('OVERLAY', () => {
  it('becomes OVERLAY(s, r, pos[, len])', () => {
    expect(showExpr("OVERLAY('This is an old string' PLACING ' new' FROM 10 FOR 5)")).toBe("OVERLAY('This is an old string', ' new', 10, 5)")
    expect(showExpr('OVERLAY(s PLACING r FROM p)')).toBe('OVERLAY(s, r, p)')
    expect(showExpr("overlay(a || b PLACING UPPER(c) FROM 1 + 1 FOR n - 1) || 'x'")).toBe("(OVERLAY((a || b), UPPER(c), (1 + 1), (n - 1)) || 'x')")
  })

  it('refuses the comma form and a missing PLACING or FROM, with line:column', () => {
    expect(syntaxErrorOf('SELECT OVERLAY(s FROM 1) FROM t')).toMatchObject({ at: '1:18', message: "unexpected 'FROM', expected PLACING" })
    expect(syntaxErrorOf("SELECT\n  OVERLAY(s PLACING 'x') FROM t")).toMatchObject({ at: '2:24', message: "unexpected ')', expected FROM" })
    expect(syntaxErrorOf("SELECT OVERLAY(s, 'x', 1) FROM t")).toMatchObject({ at: '1:17' })
  })
})

describe('the new keywords', () => {
  it('PLACING stays a name; SIMILAR, SYMMETRIC, ASYMMETRIC and OVERLAY are reserved, as in Flink, and work backquoted', () => {
    expect(() => parseSql('SELECT placing FROM t')).not.toThrow()
    for (const word of ['similar', 'symmetric', 'asymmetric', 'overlay']) {
      // OVERLAY starts its special form, so the error is at what follows it, where '(' was expected.
      expect(syntaxErrorOf(`SELECT ${word} FROM t`).at).toBe(word === 'overlay' ? '1:16' : '1:8')
      expect(() => parseSql(`SELECT \`${word}\` FROM t`)).not.toThrow()
    }
  })
})
