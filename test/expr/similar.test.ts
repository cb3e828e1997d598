// BETWEEN SYMMETRIC, SIMILAR TO and OVERLAY (expr/functions/similar.ts): Flink's documented values run as
// SQL, the SQL-regular-expression translation (what is regex, what is literal), NULLs, ESCAPE, the
// cached path for a pattern from a column, and the bind-time refusals with the caret on the expression.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import { Session, type StatementResult } from '../../engine/session.js'
import { callableFunctionNames } from '../../expr/builtins.js'
import { similarRegex } from '../../expr/functions/similar.js'
import { refusal } from '../planner/refused.js'
import { apply, call, col, errorOf, str } from './helpers.js'

const S = T.string()
const I = T.int()

/** The single row of `SELECT exprs` over one dummy row. */
async function values(...exprs: string[]): Promise<unknown[]> {
  const [r] = await new Session().executeSql(`SELECT ${exprs.join(', ')} FROM (VALUES (1)) AS t(one)`)
  const rows = (r as Extract<StatementResult, { kind: 'rows' }>).changes.map(c => c.row)
  expect(rows).toHaveLength(1)
  return [...rows[0]!]
}

const similar = (s: string | null, p: string | null, e?: string | null) =>
  e === undefined ? apply('SIMILAR_TO', [S, S], [s, p]) : apply('SIMILAR_TO', [S, S, S], [s, p, e])

describe('BETWEEN [ASYMMETRIC | SYMMETRIC]', () => {
  it("gives Flink's documented values", async () => {
    expect(
      await values('12 BETWEEN 15 AND 12', '12 BETWEEN SYMMETRIC 15 AND 12', '12 BETWEEN 10 AND NULL', '12 BETWEEN NULL AND 10',
        '12 BETWEEN SYMMETRIC NULL AND 12', '12 BETWEEN ASYMMETRIC 15 AND 12'),
    ).toEqual([false, true, null, false, null, false])
    expect(
      await values('12 NOT BETWEEN 15 AND 12', '12 NOT BETWEEN SYMMETRIC 15 AND 12', '12 NOT BETWEEN NULL AND 15', '12 NOT BETWEEN 15 AND NULL',
        '12 NOT BETWEEN SYMMETRIC 12 AND NULL'),
    ).toEqual([true, false, null, true, null])
  })

  it('takes the bounds in either order, ends included, with NULLs as (x >= a AND x <= b) OR (x >= b AND x <= a)', () => {
    const sym = (x: unknown, a: unknown, b: unknown) => apply('BETWEEN_SYMMETRIC', [I, I, I], [x, a, b])
    const notSym = (x: unknown, a: unknown, b: unknown) => apply('NOT_BETWEEN_SYMMETRIC', [I, I, I], [x, a, b])
    // A NULL bound makes it NULL whatever x is: one of the two ANDs has x on the bound's side.
    for (const [x, a, b, want] of [[5, 1, 9, true], [5, 9, 1, true], [1, 9, 1, true], [9, 9, 1, true], [0, 9, 1, false], [10, 1, 9, false], [5, 5, 5, true], [
      null,
      1,
      9,
      null,
    ], [0, null, 5, null], [6, null, 5, null], [-1, null, 5, null], [3, 5, null, null]] as const) {
      expect(sym(x, a, b)).toBe(want)
      expect(notSym(x, a, b)).toBe(want === null ? null : !want)
    }
    // Strings and decimals compare as in BETWEEN.
    expect(apply('BETWEEN_SYMMETRIC', [S, S, S], ['m', 'z', 'a'])).toBe(true)
    expect(call('BETWEEN_SYMMETRIC', col(0, T.int(false)), col(1, T.int(false)), col(2, T.int(false))).type).toEqual(T.boolean(false))
  })

  it('refuses bounds of another type with the caret on the expression', async () => {
    const r = await refusal("SELECT one FROM (VALUES (1)) AS t(one) WHERE one BETWEEN SYMMETRIC 'a' AND DATE '2024-01-01'")
    expect(r.kind).toBe('plan')
    expect(r.at).toBe("one BETWEEN SYMMETRIC 'a' AND DATE '2024-01-01'")
  })
})

describe('SIMILAR TO', () => {
  it('matches the whole string, with % and _ as in LIKE and | * + ? {m,n} ( ) [ ] as regular expressions', async () => {
    expect(
      await values("'abc' SIMILAR TO 'abc'", "'abc' SIMILAR TO 'a'", "'abc' SIMILAR TO '%(b|d)%'", "'abc' SIMILAR TO '(b|c)%'", "'abc' NOT SIMILAR TO '_b_'",
        "'xx' SIMILAR TO 'x{2}'", "'x' SIMILAR TO 'x{2}'", "'abbbc' SIMILAR TO 'ab+c'"),
    ).toEqual([true, false, true, false, false, true, false, true])
    expect(similar('ac', 'ab*c')).toBe(true)
    expect(similar('abc', 'ab?c')).toBe(true)
    expect(similar('abbc', 'ab?c')).toBe(false)
    expect(similar('abcabc', '(abc){1,3}')).toBe(true)
    expect(similar('aXc', 'a[A-Z]c')).toBe(true)
    expect(similar('a5c', 'a[^0-9]c')).toBe(false)
    expect(similar('a-c', 'a[x-]c')).toBe(true)
    expect(similar('a7', '[[:ALPHA:]][[:DIGIT:]]')).toBe(true)
    expect(similar('é7', '[[:ALPHA:]][[:DIGIT:]]')).toBe(false)
    expect(similar('a\t', 'a[[:WHITESPACE:]]')).toBe(true)
    expect(similar('a\t', 'a[[:space:]]')).toBe(false)
    expect(similar('7a', '[[:alpha:]][[:digit:]]')).toBe(false)
    // As in Flink (Calcite's translation, run by Java): % spans line breaks, _ does not.
    expect(similar('a\nb\n', 'a%')).toBe(true)
    expect(similar('a\nb', 'a_b')).toBe(false)
    expect(similar('axb', 'a_b')).toBe(true)
    expect(similar('a\u0085b', 'a_b')).toBe(false)
    expect(similar('a😀b', 'a_b')).toBe(true)
  })

  it('reads . and ^ as regular expressions, as Calcite does, and \\ and $ literally', () => {
    expect(similar('abc', 'a.c')).toBe(true)
    expect(similar('a.c', 'a.c')).toBe(true)
    expect(similar('a\nc', 'a.c')).toBe(false)
    // '.' is not one of SIMILAR TO's special characters, so it cannot be escaped (Calcite refuses it too): '[.]' is a literal dot.
    expect(() => similar('a.c', 'a!.c', '!')).toThrow("the escape '!' at position 2 must be followed by one of")
    expect(similar('ab', '^ab')).toBe(true)
    expect(similar('a^b', 'a^b')).toBe(false)
    expect(similar('$5', '$5')).toBe(true)
    expect(similar('back\\slash', 'back\\slash')).toBe(true)
    expect(similar('back\\slash', 'back\\\\slash')).toBe(false)
    expect(similar('a/b', 'a/b')).toBe(true)
    expect(similar('a-b', 'a-b')).toBe(true)
    expect(similar('a\\b', 'a[\\]b')).toBe(true)
    expect(similar('a.b', 'a[.]b')).toBe(true)
    expect(similar('axb', 'a[.]b')).toBe(false)
  })

  it('escapes a special character (or the escape itself) with ESCAPE', async () => {
    expect(await values("'th%eta' SIMILAR TO 'th!%%' ESCAPE '!'", "'theta' SIMILAR TO 'th!%%' ESCAPE '!'")).toEqual([true, false])
    expect(similar('a_b', 'a#_b', '#')).toBe(true)
    expect(similar('axb', 'a#_b', '#')).toBe(false)
    expect(similar('a#b', 'a##b', '#')).toBe(true)
    expect(similar('a|b', 'a!|b', '!')).toBe(true)
    expect(similar('a', 'a!|b', '!')).toBe(false)
    expect(similar('(x)', '!(x!)', '!')).toBe(true)
    expect(similar('a-', 'a[!-]', '!')).toBe(true)
    expect(similar('a]', 'a[!]]', '!')).toBe(true)
    expect(similar('a%', 'a[!%!_]', '!')).toBe(true)
    expect(similar('a_', 'a[!%!_]', '!')).toBe(true)
    expect(similar('ab', 'a[!%!_]', '!')).toBe(false)
    // Without ESCAPE a backslash is an ordinary character.
    expect(similar('a\\%', 'a\\%')).toBe(true)
  })

  it('gives NULL for a NULL string, pattern or escape; an empty pattern matches only the empty string', () => {
    expect(similar(null, 'a')).toBe(null)
    expect(similar('a', null)).toBe(null)
    expect(similar('a', 'a', null)).toBe(null)
    expect(similar('', '')).toBe(true)
    expect(similar('a', '')).toBe(false)
    expect(similar('', '%')).toBe(true)
    expect(similar('', '_')).toBe(false)
    expect(call('SIMILAR_TO', col(0, T.string(false)), str('a')).type).toEqual(T.boolean(false))
  })

  it('compiles a pattern from a column once per distinct pattern and escape', () => {
    const rex = call('SIMILAR_TO', col(0, S), col(1, S), col(2, S))
    expect(rex.type.kind).toBe('BOOLEAN')
    const rows = [['a$b', 'a$b', '!', true], ['axb', 'a$b', '!', false], ['a_b', 'a!_b', '!', true], ['a!b', 'a!_b', '#', false], ['a$b', 'a$b', '!', true]]
    for (const [s, p, e, want] of rows as [string, string, string, boolean][]) {
      expect(apply('SIMILAR_TO', [S, S, S], [s, p, e])).toBe(want)
    }
  })

  it('translates to one anchored RegExp', () => {
    expect(similarRegex('a$%(b|c)_').source).toBe('^(?:a\\$(?:[^]*)(?:b|c)[^\\n\\r\\u0085\\u2028\\u2029])$')
    expect(similarRegex('').test('')).toBe(true)
  })

  it('refuses an invalid literal pattern or escape at bind time, with the caret on the expression', async () => {
    const bad = async (cond: string) => refusal(`SELECT one FROM (VALUES ('abc')) AS t(one)\nWHERE ${cond}`)
    for (const [cond, message] of [
      ["one SIMILAR TO 'a(b'", "invalid SIMILAR TO pattern 'a(b': Unterminated group"],
      ["one SIMILAR TO 'a[b'", "invalid SIMILAR TO pattern 'a[b': a '[' is not closed"],
      ["one SIMILAR TO 'a]'", "invalid SIMILAR TO pattern 'a]': ']' at position 2 closes no '['"],
      ["one SIMILAR TO 'a[%_]'", "invalid SIMILAR TO pattern 'a[%_]': '%' at position 3 must be escaped inside [ ]"],
      ["one SIMILAR TO '[[:Alpha:]]'", "invalid SIMILAR TO pattern '[[:Alpha:]]': unknown character class at position 2"],
      ["one NOT SIMILAR TO 'a**'", "invalid SIMILAR TO pattern 'a**': Nothing to repeat"],
      ["one SIMILAR TO '(?=a)'", "invalid SIMILAR TO pattern '(?=a)': Nothing to repeat"],
      ["one SIMILAR TO '[[:WORD:]]'", "invalid SIMILAR TO pattern '[[:WORD:]]': unknown character class at position 2"],
      ["one SIMILAR TO 'a!b' ESCAPE '!'", "invalid SIMILAR TO pattern 'a!b': the escape '!' at position 2 must be followed by one of"],
      ["one SIMILAR TO 'ab!' ESCAPE '!'", "invalid SIMILAR TO pattern 'ab!': the escape '!' at position 3"],
      ["one SIMILAR TO 'a' ESCAPE '!!'", "SIMILAR TO escape must be a single character, got '!!'"],
    ] as const) {
      const r = await bad(cond)
      expect(r.kind).toBe('plan')
      expect(r.message).toContain(message)
      expect(r.at).toBe(cond)
    }
    const r = await bad("one SIMILAR TO 'a(b'")
    expect(r.help).toContain('ESCAPE')
    expect((await refusal("SELECT 1 SIMILAR TO 'a' FROM (VALUES (1)) AS t(one)")).message).toContain("cannot apply 'SIMILAR_TO'")
    // A bad pattern from a column fails the row that carries it, naming the pattern.
    expect(errorOf(() => apply('SIMILAR_TO', [S, S], ['abc', 'a(b'])).message).toContain("invalid SIMILAR TO pattern 'a(b'")
  })
})

describe('OVERLAY', () => {
  it("gives Flink's documented value", async () => {
    expect(await values("OVERLAY('This is an old string' PLACING ' new' FROM 10 FOR 5)", "OVERLAY('This is an old string' PLACING ' new' FROM 10)"))
      .toEqual(['This is a new string', 'This is a newd string'])
  })

  it('replaces len characters (the replacement length by default) from a 1-based position, as Flink does', () => {
    const o = (s: unknown, r: unknown, p: unknown, l?: unknown) =>
      l === undefined ? apply('OVERLAY', [S, S, I], [s, r, p]) : apply('OVERLAY', [S, S, I, I], [s, r, p, l])
    expect(o('abcdef', 'XY', 1)).toBe('XYcdef')
    expect(o('abcdef', 'XY', 3, 1)).toBe('abXYdef')
    expect(o('abcdef', '', 2, 3)).toBe('aef')
    // Replacing past the end keeps what is before pos and r.
    expect(o('abcdef', 'XY', 3, 10)).toBe('abXY')
    expect(o('abcdef', 'XY', 6)).toBe('abcdeXY')
    expect(o('abcdef', 'XYZ', 6, 1)).toBe('abcdeXYZ')
    // Flink's SqlFunctionUtils.overlay, not the SQL standard: a position outside 1..length returns s
    // unchanged, and a length of 0 or less drops the rest of s (PostgreSQL would insert r).
    expect(o('abcdef', 'XY', 7)).toBe('abcdef')
    expect(o('abcdef', 'XY', 0)).toBe('abcdef')
    expect(o('abcdef', 'XY', -2, 1)).toBe('abcdef')
    expect(o('', 'XY', 1)).toBe('')
    expect(o('abcdef', 'XY', 3, 0)).toBe('abXY')
    expect(o('abcdef', 'XY', 3, -1)).toBe('abXY')
    expect(o(null, 'XY', 1)).toBe(null)
    expect(o('abc', null, 1)).toBe(null)
    expect(o('abc', 'XY', null)).toBe(null)
    expect(o('abc', 'XY', 1, null)).toBe(null)
    expect(apply('OVERLAY', [S, S, T.bigint(), T.bigint()], ['abcdef', 'XY', 2n, 1n])).toBe('aXYcdef')
    expect(call('OVERLAY', col(0, T.string(false)), str('x'), col(1, T.int(false))).type).toEqual(T.string(false))
  })

  it('refuses arguments of the wrong type with the caret on the call', async () => {
    const r = await refusal("SELECT OVERLAY(one PLACING 'x' FROM 'a') FROM (VALUES ('abc')) AS t(one)")
    expect(r.message).toContain("cannot apply 'OVERLAY'")
    expect(r.at).toBe("OVERLAY(one PLACING 'x' FROM 'a')")
    expect(r.help).toBe('expected OVERLAY(s PLACING r FROM pos [FOR len])')
  })
})

describe('SHOW FUNCTIONS', () => {
  it('lists OVERLAY, not the internal names of the operator forms', () => {
    const names = callableFunctionNames()
    expect(names).toContain('OVERLAY')
    for (const internal of ['SIMILAR_TO', 'NOT_SIMILAR_TO', 'BETWEEN_SYMMETRIC', 'NOT_BETWEEN_SYMMETRIC']) expect(names).not.toContain(internal)
  })
})
