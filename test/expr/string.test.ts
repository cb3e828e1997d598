// String functions, || and CONCAT, LIKE (wildcards and ESCAPE) and the REGEXP family.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import { calcSource } from '../../expr/index.js'
import { apply, call, col, errorOf, lit, num, run, span, str } from './helpers.js'

const S = T.string()
const s1 = (name: string, v: unknown) => apply(name, [S], [v])

describe('string functions', () => {
  it('case and trimming', () => {
    expect(s1('UPPER', 'abc')).toBe('ABC')
    expect(s1('LOWER', 'AbC')).toBe('abc')
    expect(s1('UPPER', null)).toBe(null)
    expect(s1('TRIM', '  a b  ')).toBe('a b')
    expect(s1('TRIM', '\ta ')).toBe('\ta')
    expect(s1('LTRIM', '  a  ')).toBe('a  ')
    expect(s1('RTRIM', '  a  ')).toBe('  a')
    // The string first, then the characters (Flink's BTRIM(str, trimStr)), as the parser passes them.
    expect(apply('TRIM', [S, S], ['xxayx', 'xy'])).toBe('a')
    expect(apply('BTRIM', [S, S], ['xxayx', 'xy'])).toBe('a')
    expect(apply('LTRIM', [S, S], ['xxayx', 'xy'])).toBe('ayx')
    expect(apply('RTRIM', [S, S], ['xxayx', 'xy'])).toBe('xxa')
    expect(apply('TRIM', [S, S], ['xxayx', null])).toBe(null)
    expect(apply('TRIM', [S, S], ['xxayx', ''])).toBe('xxayx')
    expect(s1('INITCAP', 'hello wORLD 9lives')).toBe('Hello World 9lives')
  })

  it('SUBSTRING is 1-based', () => {
    const sub = (...v: unknown[]) => apply('SUBSTRING', [S, T.int(), T.int()].slice(0, v.length), v)
    expect(sub('hello', 2)).toBe('ello')
    expect(sub('hello', 2, 3)).toBe('ell')
    expect(sub('hello', 0, 2)).toBe('he')
    expect(sub('hello', -3)).toBe('llo')
    expect(sub('hello', 9)).toBe('')
    expect(sub('hello', -9)).toBe('')
    expect(sub('hello', 2, -1)).toBe(null)
    expect(call('SUBSTRING', col(0, T.string(false)), num('1'), num('2')).type).toEqual(T.string(false))
    expect(call('SUBSTRING', col(0, T.string(false)), num('1'), col(1, T.int(false))).type).toEqual(T.string(true))
    expect(sub('hello', 1, null)).toBe(null)
    expect(apply('SUBSTR', [S, T.bigint()], ['hello', 4])).toBe('lo')
  })

  it('lengths and positions', () => {
    expect(s1('CHAR_LENGTH', 'héllo')).toBe(5)
    expect(s1('CHARACTER_LENGTH', '')).toBe(0)
    expect(apply('POSITION', [S, S], ['lo', 'hello'])).toBe(4)
    expect(apply('POSITION', [S, S], ['z', 'hello'])).toBe(0)
    expect(apply('LOCATE', [S, S, T.int()], ['l', 'hello', 4])).toBe(4)
    expect(apply('LOCATE', [S, S], ['l', 'hello'])).toBe(3)
  })

  it('CONCAT is NULL if any argument is; CONCAT_WS skips NULLs', () => {
    expect(apply('CONCAT', [S, S, S], ['a', 'b', 'c'])).toBe('abc')
    expect(apply('CONCAT', [S, S], ['a', null])).toBe(null)
    expect(apply('||', [S, S], ['a', 'b'])).toBe('ab')
    expect(apply('||', [S, S], [null, 'b'])).toBe(null)
    expect(apply('CONCAT_WS', [S, S, S, S], ['-', 'a', null, 'c'])).toBe('a-c')
    expect(apply('CONCAT_WS', [S, S], [null, 'a'])).toBe(null)
    expect(call('CONCAT_WS', str('-'), col(0, S)).type).toEqual(T.string(false))
  })

  it('CONCAT converts other types to strings', () => {
    expect(apply('CONCAT', [S, T.int(), T.decimal(4, 2)], ['n=', 5, 150n])).toBe('n=51.50')
  })

  it('padding, sides, repeat and reverse', () => {
    expect(apply('LPAD', [S, T.int(), S], ['hi', 5, 'xy'])).toBe('xyxhi')
    expect(apply('RPAD', [S, T.int(), S], ['hi', 5, 'xy'])).toBe('hixyx')
    expect(apply('LPAD', [S, T.int(), S], ['hello', 2, 'x'])).toBe('he')
    expect(apply('LPAD', [S, T.int(), S], ['hi', -1, 'x'])).toBe(null)
    expect(call('LPAD', col(0, T.string(false)), num('3'), str('b')).type).toEqual(T.string(true))
    expect(apply('LEFT', [S, T.int()], ['hello', 2])).toBe('he')
    expect(apply('RIGHT', [S, T.int()], ['hello', 2])).toBe('lo')
    expect(apply('RIGHT', [S, T.int()], ['hello', -1])).toBe('')
    expect(apply('REPEAT', [S, T.int()], ['ab', 3])).toBe('ababab')
    expect(s1('REVERSE', 'abc')).toBe('cba')
  })

  it('REPLACE and SPLIT_INDEX', () => {
    expect(apply('REPLACE', [S, S, S], ['a.b.c', '.', '::'])).toBe('a::b::c')
    expect(apply('SPLIT_INDEX', [S, S, T.int()], ['a,b,c', ',', 1])).toBe('b')
    expect(apply('SPLIT_INDEX', [S, S, T.int()], ['a,b,c', ',', 3])).toBe(null)
    expect(apply('SPLIT_INDEX', [S, S, T.int()], ['a,b,c', ',', -1])).toBe(null)
  })

  it('checks argument types and counts', () => {
    const e = errorOf(() => call('UPPER', col(0, T.int())))
    expect(e.message).toBe(`cannot apply 'UPPER' to (INT)`)
    expect(e.help).toBe('expected UPPER(STRING)')
    expect(e.span).toEqual(span)
    const arity = errorOf(() => call('SUBSTRING', str('a')))
    expect(arity.message).toBe(`'SUBSTRING' takes 2 to 3 arguments but was given 1`)
    expect(arity.help).toBe('SUBSTRING(STRING, INT[, INT])')
  })
})

describe('LIKE', () => {
  const like = (v: string | null, pattern: string, escape?: string) =>
    run(call('LIKE', col(0, S), str(pattern), ...(escape === undefined ? [] : [str(escape)])), [v])

  it('matches % and _', () => {
    expect(like('hello', 'he%')).toBe(true)
    expect(like('hello', '%llo')).toBe(true)
    expect(like('hello', '%ell%')).toBe(true)
    expect(like('hello', 'h_llo')).toBe(true)
    expect(like('hello', 'h_lo')).toBe(false)
    expect(like('hello', 'hello')).toBe(true)
    expect(like('hello', 'HELLO')).toBe(false)
    expect(like('a.c', 'a.c')).toBe(true)
    expect(like('abc', 'a.c')).toBe(false)
    expect(like('a\nb', 'a%b')).toBe(true)
    expect(like('', '%')).toBe(true)
    expect(like('x(y)z', '%(y)%')).toBe(true)
    expect(like('abcabd', 'a%b_')).toBe(true)
    expect(like(null, '%')).toBe(null)
  })

  it('honours ESCAPE', () => {
    expect(like('100%', '100!%', '!')).toBe(true)
    expect(like('1000', '100!%', '!')).toBe(false)
    expect(like('a_b', 'a\\_b', '\\')).toBe(true)
    expect(like('axb', 'a\\_b', '\\')).toBe(false)
    // Without ESCAPE a backslash is an ordinary character.
    expect(like('a\\b', 'a\\b')).toBe(true)
  })

  it('rejects a bad escape at plan time', () => {
    expect(errorOf(() => call('LIKE', col(0, S), str('a!b'), str('!'))).message).toBe(`invalid escape sequence in LIKE pattern 'a!b'`)
    expect(errorOf(() => call('LIKE', col(0, S), str('a'), str('!!'))).message).toBe(`LIKE escape must be a single character, got '!!'`)
  })

  it('works with a pattern column', () => {
    const rex = call('LIKE', col(0, S), col(1, S))
    expect([run(rex, ['abc', 'a%']), run(rex, ['abc', 'b%']), run(rex, ['abc', null])]).toEqual([true, false, null])
  })

  it('NOT LIKE', () => {
    expect(run(call('NOT_LIKE', col(0, S), str('a%')), ['bc'])).toBe(true)
  })

  it('inlines simple patterns as string methods', () => {
    expect(calcSource([], call('LIKE', col(0, S), str('abc%')))).toContain('.startsWith("abc")')
    expect(calcSource([], call('LIKE', col(0, S), str('%abc%')))).toContain('.includes("abc")')
  })
})

describe('regular expressions', () => {
  it('REGEXP_EXTRACT returns a group, or NULL without a match', () => {
    expect(apply('REGEXP_EXTRACT', [S, S, T.int()], ['foo123bar', '([a-z]+)(\\d+)', 2])).toBe('123')
    expect(apply('REGEXP_EXTRACT', [S, S], ['foo123bar', '\\d+'])).toBe('123')
    expect(apply('REGEXP_EXTRACT', [S, S], ['foobar', '\\d+'])).toBe(null)
    expect(apply('REGEXP_EXTRACT', [S, S, T.int()], ['foo1', '(\\d)', 5])).toBe(null)
  })

  it('REGEXP_REPLACE replaces every match with Java group references', () => {
    expect(apply('REGEXP_REPLACE', [S, S, S], ['a1b22c', '\\d+', '#'])).toBe('a#b#c')
    expect(apply('REGEXP_REPLACE', [S, S, S], ['john smith', '(\\w+) (\\w+)', '$2, $1'])).toBe('smith, john')
    expect(apply('REGEXP_REPLACE', [S, S, S], ['a.b', '\\.', '\\$'])).toBe('a$b')
  })

  it('REGEXP finds a match anywhere; (?i) works', () => {
    expect(apply('REGEXP', [S, S], ['Hello', 'ell'])).toBe(true)
    expect(apply('REGEXP', [S, S], ['Hello', '^ell'])).toBe(false)
    expect(apply('REGEXP', [S, S], ['HELLO', '(?i)hello'])).toBe(true)
  })

  it('rejects an invalid literal pattern at plan time', () => {
    expect(errorOf(() => call('REGEXP', col(0, S), str('(a'))).message).toMatch(/^invalid regular expression '\(a'/)
  })

  it('gives NULL for an invalid pattern from a column', () => {
    expect(apply('REGEXP', [S, S], ['a', '(a'])).toBe(null)
  })
})

describe('UUID', () => {
  it('is a fresh NOT NULL string per row', () => {
    const rex = call('UUID')
    expect(rex.kind).toBe('Call')
    expect(rex.type).toEqual(T.string(false))
    expect(run(lit('x', S))).toBe('x')
  })
})
