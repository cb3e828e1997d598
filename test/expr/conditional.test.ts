// CASE, COALESCE / IFNULL, NULLIF, IF, GREATEST and LEAST.
import { describe, expect, it } from 'vitest'
import { T, formatType } from '../../common/types.js'
import { apply, call, col, errorOf, lit, num, run, span, str } from './helpers.js'

const NULL = lit(null, T.null())

describe('CASE', () => {
  const x = col(0, T.int())
  const rex = call('CASE', call('<', x, num('0')), str('neg'), call('=', x, num('0')), str('zero'), str('pos'))

  it('takes the first branch whose condition is TRUE', () => {
    expect([run(rex, [-1]), run(rex, [0]), run(rex, [5])]).toEqual(['neg', 'zero', 'pos'])
    // A NULL condition is not TRUE: falls through to ELSE.
    expect(run(rex, [null])).toBe('pos')
  })

  it('returns NULL without ELSE', () => {
    const noElse = call('CASE', call('>', x, num('0')), x)
    expect(noElse.type).toEqual(T.int(true))
    expect(run(noElse, [-3])).toBe(null)
  })

  it('converts branches to a common type', () => {
    const mixed = call('CASE', call('>', x, num('0')), x, num('2.5'))
    expect(formatType(mixed.type)).toBe('DECIMAL(11, 1)')
    expect(run(mixed, [3])).toBe(30n)
    expect(run(mixed, [-3])).toBe(25n)
  })

  it('only evaluates the branch taken', () => {
    const safe = call('CASE', call('=', x, num('0')), NULL, call('/', num('100'), x))
    expect(run(safe, [0])).toBe(null)
    expect(run(safe, [4])).toBe(25)
  })

  it('is NOT NULL when every branch is', () => {
    expect(call('CASE', call('>', x, num('0')), num('1'), num('2')).type).toEqual(T.int(false))
  })

  it('rejects incompatible branches and non-boolean conditions', () => {
    const e = errorOf(() => call('CASE', call('>', x, num('0')), num('1'), str('a')))
    expect(e.message).toBe('CASE branches have incompatible types INT and CHAR(1)')
    expect(e.span).toEqual(span)
    expect(errorOf(() => call('CASE', x, num('1'))).message).toBe('CASE WHEN needs a BOOLEAN condition, got INT')
  })
})

describe('COALESCE and friends', () => {
  it('COALESCE returns the first non-NULL value', () => {
    const rex = call('COALESCE', col(0, T.int()), col(1, T.bigint()), num('0'))
    expect(rex.type).toEqual(T.bigint(false))
    expect([run(rex, [1, 2]), run(rex, [null, 2]), run(rex, [null, null])]).toEqual([1, 2, 0])
  })

  it('COALESCE is nullable only if every argument is', () => {
    expect(call('COALESCE', col(0, T.int()), col(1, T.int())).type).toEqual(T.int(true))
    expect(call('COALESCE', col(0, T.int(false)), col(1, T.int()))).toEqual(col(0, T.int(false)))
  })

  it('IFNULL, NULLIF and IF', () => {
    expect(apply('IFNULL', [T.string(), T.string()], [null, 'd'])).toBe('d')
    expect(apply('NULLIF', [T.int(), T.int()], [3, 3])).toBe(null)
    expect(apply('NULLIF', [T.int(), T.int()], [3, 4])).toBe(3)
    expect(apply('IF', [T.boolean(), T.string(), T.string()], [true, 'a', 'b'])).toBe('a')
    expect(apply('IF', [T.boolean(), T.string(), T.string()], [null, 'a', 'b'])).toBe('b')
  })

  it('GREATEST and LEAST, NULL if any argument is NULL', () => {
    expect(apply('GREATEST', [T.int(), T.int(), T.int()], [3, 9, 1])).toBe(9)
    expect(apply('LEAST', [T.string(), T.string()], ['b', 'a'])).toBe('a')
    expect(apply('GREATEST', [T.int(), T.int()], [3, null])).toBe(null)
    const mixed = call('GREATEST', col(0, T.int()), num('2.5'))
    expect(formatType(mixed.type)).toBe('DECIMAL(11, 1)')
    expect(run(mixed, [2])).toBe(25n)
  })
})
