// Comparisons, three-valued AND / OR / NOT, IS [NOT] NULL / TRUE / FALSE, BETWEEN, IN, DISTINCT.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { compilePredicate, timestampLiteral } from '../../expr/index.js'
import { apply, call, col, errorOf, lit, num, run, span, str } from './helpers.js'

const B = T.boolean()
const values = [true, false, null] as const

describe('three-valued logic', () => {
  // SQL truth tables, row = a, column = b, in the order TRUE, FALSE, NULL.
  const AND = [[true, false, null], [false, false, false], [null, false, null]]
  const OR = [[true, true, true], [true, false, null], [true, null, null]]

  it('AND', () => {
    values.forEach((a, i) => values.forEach((b, j) => expect(apply('AND', [B, B], [a, b]), `${a} AND ${b}`).toBe(AND[i]![j])))
  })

  it('OR', () => {
    values.forEach((a, i) => values.forEach((b, j) => expect(apply('OR', [B, B], [a, b]), `${a} OR ${b}`).toBe(OR[i]![j])))
  })

  it('NOT', () => {
    expect(values.map(a => apply('NOT', [B], [a]))).toEqual([false, true, null])
  })

  it('n-ary AND and OR', () => {
    const and3 = call('AND', col(0, B), col(1, B), col(2, B))
    expect(run(and3, [true, null, false])).toBe(false)
    expect(run(and3, [true, null, true])).toBe(null)
    const or3 = call('OR', col(0, B), col(1, B), col(2, B))
    expect(run(or3, [false, null, true])).toBe(true)
    expect(run(or3, [false, null, false])).toBe(null)
  })

  it('does not evaluate the right side when the left decides', () => {
    const guarded = call('AND', call('<>', col(0, T.int()), num('0')), call('>', call('/', num('10'), col(0, T.int())), num('1')))
    expect(run(guarded, [0])).toBe(false)
    expect(run(guarded, [5])).toBe(true)
    const either = call('OR', call('=', col(0, T.int()), num('0')), call('>', call('/', num('10'), col(0, T.int())), num('1')))
    expect(run(either, [0])).toBe(true)
  })

  it('IS TRUE / FALSE / NULL never return NULL', () => {
    const table = (op: string) => values.map(a => apply(op, [B], [a]))
    expect(table('IS_TRUE')).toEqual([true, false, false])
    expect(table('IS_NOT_TRUE')).toEqual([false, true, true])
    expect(table('IS_FALSE')).toEqual([false, true, false])
    expect(table('IS_NOT_FALSE')).toEqual([true, false, true])
    expect(table('IS_NULL')).toEqual([false, false, true])
    expect(table('IS_NOT_NULL')).toEqual([true, true, false])
    expect(call('IS_NULL', col(0, T.int())).type).toEqual(T.boolean(false))
  })

  it('rejects non-boolean operands', () => {
    const e = errorOf(() => call('AND', col(0, T.int()), col(1, B)))
    expect(e.message).toBe('AND needs BOOLEAN operands, got INT')
    expect(e.span).toEqual(span)
  })
})

describe('comparisons', () => {
  it('compares numbers of different types numerically', () => {
    expect(apply('<', [T.int(), T.bigint()], [1, 2])).toBe(true)
    expect(apply('=', [T.int(), T.decimal(5, 2)], [1, 100n])).toBe(true)
    expect(apply('>', [T.decimal(5, 2), T.decimal(6, 3)], [150n, 1499n])).toBe(true)
    expect(apply('<=', [T.decimal(5, 2), T.double()], [150n, 1.5])).toBe(true)
    expect(apply('<>', [T.bigint(), T.double()], [3, 3.5])).toBe(true)
  })

  it('propagates NULL', () => {
    expect(apply('=', [T.int(), T.int()], [null, 1])).toBe(null)
    expect(apply('<', [T.string(), T.string()], ['a', null])).toBe(null)
  })

  it('compares strings, booleans and timestamps', () => {
    expect(apply('<', [T.string(), T.string()], ['abc', 'abd'])).toBe(true)
    expect(apply('>', [T.boolean(), T.boolean()], [true, false])).toBe(true)
    expect(apply('>=', [T.timestamp(3), T.timestamp(0)], [1000, 1000])).toBe(true)
  })

  it('casts a string compared with a timestamp', () => {
    const rex = call('>', col(0, T.timestamp(3)), str('2024-01-01 00:00:00'))
    expect(rex.kind === 'Call' && rex.args[1]).toEqual(lit(Date.UTC(2024, 0, 1), T.timestamp(3, false)))
    expect(timestampLiteral('2024-01-01 00:00:00').type).toEqual(T.timestamp(0, false))
    expect(run(rex, [Date.UTC(2024, 0, 2)])).toBe(true)
    expect(errorOf(() => call('>', col(0, T.timestamp(3)), str('yesterday'))).message).toBe(`cannot cast 'yesterday' to TIMESTAMP(3)`)
  })

  it('compares a DATE with a TIMESTAMP as timestamps', () => {
    expect(apply('<', [T.date(), T.timestamp(3)], [1, 86_400_001])).toBe(true)
  })

  it('rejects incomparable types', () => {
    const e = errorOf(() => call('=', col(0, T.boolean()), col(1, T.int())))
    expect(e.message).toBe(`cannot apply '=' to BOOLEAN and INT`)
    expect(e.help).toBe('CAST one side')
  })

  it('IS DISTINCT FROM treats NULLs as equal', () => {
    const d = (a: unknown, b: unknown) => apply('IS_DISTINCT_FROM', [T.int(), T.int()], [a, b])
    expect([d(1, 1), d(1, 2), d(null, null), d(null, 1)]).toEqual([false, true, false, true])
    expect(apply('IS_NOT_DISTINCT_FROM', [T.int(), T.int()], [null, null])).toBe(true)
  })

  it('predicates are true only for TRUE', () => {
    const p = compilePredicate(call('<', col(0, T.int()), col(1, T.int())))
    expect([p([1, 2]), p([2, 1]), p([null, 1]), p([1, null])]).toEqual([true, false, false, false])
    const ne = compilePredicate(call('<>', col(0, T.string()), str('x')))
    expect([ne(['y']), ne(['x']), ne([null])]).toEqual([true, false, false])
  })
})

describe('BETWEEN and IN', () => {
  it('BETWEEN is inclusive and NOT BETWEEN its complement', () => {
    const between = (x: unknown) => apply('BETWEEN', [T.int(), T.int(), T.int()], [x, 1, 3])
    expect([between(0), between(1), between(3), between(4), between(null)]).toEqual([false, true, true, false, null])
    expect(apply('NOT_BETWEEN', [T.int(), T.int(), T.int()], [5, 1, 3])).toBe(true)
    expect(apply('NOT_BETWEEN', [T.int(), T.int(), T.int()], [2, 1, 3])).toBe(false)
  })

  it('IN is TRUE when found, NULL when not found and a NULL is involved', () => {
    const x = col(0, T.bigint())
    const small = call('IN', x, num('1'), num('2'), num('3'))
    expect([run(small, [2]), run(small, [5]), run(small, [null])]).toEqual([true, false, null])
    const withNull = call('IN', x, num('1'), lit(null, T.null()))
    expect([run(withNull, [1]), run(withNull, [2])]).toEqual([true, null])
    const big = call('IN', x, ...Array.from({ length: 20 }, (_, i) => num(String(i * 10))))
    expect([run(big, [190]), run(big, [191])]).toEqual([true, false])
  })

  it('IN over columns and strings', () => {
    const rex = call('IN', col(0, T.string()), col(1, T.string()), str('b'))
    expect([run(rex, ['a', 'a']), run(rex, ['b', null]), run(rex, ['c', null]), run(rex, ['c', 'd'])]).toEqual([true, true, null, false])
  })

  it('IN compares numerically across types', () => {
    const rex = call('IN', col(0, T.int()), num('1.5'), num('2'))
    expect([run(rex, [2]), run(rex, [1])]).toEqual([true, false])
  })

  it('NOT IN', () => {
    const rex = call('NOT_IN', col(0, T.int()), num('1'), num('2'))
    expect([run(rex, [1]), run(rex, [3]), run(rex, [null])]).toEqual([false, true, null])
  })

  it('rejects an IN list of another type', () => {
    expect(errorOf(() => call('IN', col(0, T.int()), lit(true, T.boolean(false)))).message).toBe(`cannot apply 'IN' to INT and BOOLEAN`)
  })
})

describe('predicates with statements', () => {
  it('nests AND / OR whose operands need temporaries', () => {
    const x = col(0, T.int()), y = col(1, T.int())
    const rex: Rex = call('OR', call('AND', call('>', call('+', x, y), num('10')), call('<', x, num('5'))), call('IS_NULL', y))
    const p = compilePredicate(rex)
    expect([p([4, 7]), p([6, 7]), p([1, null]), p([null, 1])]).toEqual([true, false, true, false])
  })
})
