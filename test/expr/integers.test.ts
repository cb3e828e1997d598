// Exact integers in expressions: BIGINT beyond 2^53 in every operator, wrapping as Java (and so
// Flink) does, TINYINT and SMALLINT types, literals, casts at the ends of each range.
import { describe, expect, it } from 'vitest'
import { T, formatType, type DataType } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { castTo, compileCalc } from '../../expr/index.js'
import { apply, call, col, errorOf, lit, num, run, span, str } from './helpers.js'

const MAX = 2n ** 63n - 1n, MIN = -(2n ** 63n)
const B = T.bigint()
const typeOf = (rex: Rex): string => formatType(rex.type)
const cast = (v: unknown, from: DataType, to: DataType, tryCast = false): unknown => run(castTo(col(0, from), to, span, tryCast), [v])

describe('BIGINT beyond 2^53', () => {
  it('adds, subtracts and multiplies exactly and wraps at 64 bits', () => {
    expect(apply('+', [B, B], [9007199254740992n, 1])).toBe(9007199254740993n)
    expect(apply('+', [B, B], [MAX, 1])).toBe(MIN)
    expect(apply('-', [B, B], [MIN, 1])).toBe(MAX)
    expect(apply('*', [B, B], [MAX, 2])).toBe(-2)
    expect(apply('*', [B, B], [3037000500, 3037000500])).toBe(-9223372036709301616n)
    // Back inside the safe range, a result is a number again (one form per value).
    expect(apply('-', [B, B], [9007199254740993n, 2])).toBe(9007199254740991)
    expect(apply('+', [B, B], [9007199254740991, 9007199254740991])).toBe(18014398509481982n)
    expect(apply('+', [B, B], [null, MAX])).toBeNull()
  })

  it('divides and takes remainders as Java long does; division by zero is an error', () => {
    expect(apply('/', [B, B], [MAX, 10])).toBe(922337203685477580n)
    expect(apply('/', [B, B], [MIN, -1])).toBe(MIN)
    expect(apply('%', [B, B], [MIN, 10])).toBe(-8)
    expect(apply('MOD', [B, T.int()], [MAX, 123])).toBe(Number(MAX % 123n))
    expect(typeOf(call('MOD', col(0, B), num('123')))).toBe('INT')
    expect(errorOf(() => apply('/', [B, B], [MAX, 0])).message).toBe('division by zero')
  })

  it('negates and takes ABS as Java does: -MIN and ABS(MIN) stay MIN', () => {
    expect(run(call('NEG', col(0, B)), [MAX])).toBe(-MAX)
    expect(run(call('NEG', col(0, B)), [MIN])).toBe(MIN)
    expect(apply('ABS', [B], [MIN])).toBe(MIN)
    expect(apply('ABS', [B], [-9007199254740993n])).toBe(9007199254740993n)
    expect(apply('ABS', [T.int()], [-2147483648])).toBe(-2147483648)
    expect(run(call('NEG', col(0, T.int())), [-2147483648])).toBe(-2147483648)
    expect(apply('SIGN', [B], [MIN])).toBe(-1)
    expect(apply('FLOOR', [B], [MAX])).toBe(MAX)
  })

  it('compares exactly with numbers and bigints, in predicates, IN lists and CASE', () => {
    expect(apply('=', [B, B], [9007199254740993n, 9007199254740993n])).toBe(true)
    expect(apply('<', [B, B], [9007199254740992n, 9007199254740993n])).toBe(true)
    expect(apply('>', [B, B], [9007199254740993n, 9007199254740991])).toBe(true)
    expect(apply('<', [B, B], [MIN, -5])).toBe(true)
    expect(apply('=', [B, T.int()], [9007199254740993n, 1])).toBe(false)
    expect(run(call('=', col(0, B), num('9007199254740993')), [9007199254740993n])).toBe(true)
    expect(run(call('=', col(0, B), num('9007199254740993')), [9007199254740992n])).toBe(false)
    expect(run(call('IN', col(0, B), num('9223372036854775807'), num('1'), num('2'), num('3'), num('4'), num('5'), num('6')), [MAX])).toBe(true)
    expect(run(call('IN', col(0, B), num('9007199254740993')), [9007199254740992n])).toBe(false)
    expect(run(call('GREATEST', col(0, B), col(1, B)), [MAX, 5])).toBe(MAX)
    expect(run(call('COALESCE', col(0, B), num('9223372036854775807')), [null])).toBe(MAX)
    // BIGINT against DECIMAL and DOUBLE: widened exactly (DECIMAL) or to the nearest double.
    expect(run(call('<', col(0, B), num('9223372036854775808')), [MAX])).toBe(true)
    expect(run(call('=', col(0, B), num('9.223372036854775807E18')), [MAX])).toBe(true)
  })

  it('takes a bigint where a function wants a count, without a TypeError', () => {
    expect(run(call('SUBSTRING', str('abc'), col(0, B)), [9007199254740993n])).toBe('')
    expect(run(call('LEFT', str('abc'), col(0, B)), [MAX])).toBe('abc')
    expect(run(call('REPEAT', str('ab'), col(0, B)), [2])).toBe('abab')
    expect(run(call('ROUND', col(0, B), lit(-1, T.int(false))), [MAX])).toBe(-9223372036854775806n) // 9223372036854775810 wraps
    expect(run(call('ROUND', col(0, B), lit(-2, T.int(false))), [9007199254740993n])).toBe(9007199254741000n)
    expect(run(call('TRUNCATE', col(0, T.int()), lit(-1, T.int(false))), [-2147483648])).toBe(-2147483640)
    expect(run(call('ROUND', col(0, T.int()), lit(-1, T.int(false))), [2147483647])).toBe(-2147483646) // 2147483650 wraps
  })

  it('reads literals exactly: BIGINT to its ends, DECIMAL beyond', () => {
    expect(num('9223372036854775807')).toEqual(lit(MAX, T.bigint(false)))
    expect(num('9007199254740993')).toEqual(lit(9007199254740993n, T.bigint(false)))
    expect(num('9007199254740991')).toEqual(lit(9007199254740991, T.bigint(false)))
    expect(num('-9223372036854775808')).toEqual(lit(MIN, T.bigint(false)))
    expect(num('-2147483648')).toEqual(lit(-2147483648, T.int(false)))
    expect(num('9223372036854775808')).toEqual(lit(9223372036854775808n, T.decimal(19, 0, false)))
    expect(num('-9223372036854775809')).toEqual(lit(-9223372036854775809n, T.decimal(19, 0, false)))
    // Constant folding keeps them exact.
    expect(call('+', num('9223372036854775807'), num('1'))).toEqual(lit(MIN, T.bigint(false)))
  })

  it('compiles the fast path inline and reaches the exact path only for bigints', () => {
    const rex = call('+', col(0, B), col(1, B))
    const calc = compileCalc([rex])
    expect(calc({ rows: [[1, 2], [MAX, 1], [9007199254740991, 2], [null, 1]], kinds: null })!.rows).toEqual([[3], [MIN], [9007199254740993n], [null]])
  })
})

describe('TINYINT and SMALLINT', () => {
  it('take the wider type of their operands, as Flink (Calcite) does', () => {
    expect(typeOf(call('+', col(0, T.tinyint(false)), col(1, T.tinyint(false))))).toBe('TINYINT NOT NULL')
    expect(typeOf(call('*', col(0, T.tinyint()), col(1, T.smallint())))).toBe('SMALLINT')
    expect(typeOf(call('-', col(0, T.smallint()), num('1')))).toBe('INT')
    expect(typeOf(call('+', col(0, T.tinyint()), col(1, T.bigint())))).toBe('BIGINT')
    expect(typeOf(call('+', col(0, T.smallint()), num('1.5')))).toBe('DECIMAL(7, 1)')
    expect(typeOf(call('MOD', col(0, T.bigint()), col(1, T.tinyint())))).toBe('TINYINT')
    expect(typeOf(call('ABS', col(0, T.smallint())))).toBe('SMALLINT')
  })

  it('wrap as Java byte and short arithmetic does', () => {
    const tiny = T.tinyint(), small = T.smallint()
    expect(apply('+', [tiny, tiny], [127, 1])).toBe(-128)
    expect(apply('-', [tiny, tiny], [-128, 1])).toBe(127)
    expect(apply('*', [tiny, tiny], [16, 16])).toBe(0)
    expect(apply('/', [tiny, tiny], [-128, -1])).toBe(-128)
    expect(apply('+', [small, small], [32767, 1])).toBe(-32768)
    expect(apply('*', [small, small], [300, 300])).toBe(24464)
    expect(run(call('NEG', col(0, tiny)), [-128])).toBe(-128)
    expect(apply('ABS', [small], [-32768])).toBe(-32768)
    expect(apply('MOD', [T.bigint(), tiny], [MAX, 100])).toBe(7)
    expect(apply('+', [tiny, T.int()], [127, 1])).toBe(128)
  })

  it('cast from and to every numeric type with Java semantics', () => {
    expect(cast(300, T.int(), T.tinyint())).toBe(44)
    expect(cast(-129, T.int(), T.tinyint())).toBe(127)
    expect(cast(70000, T.int(), T.smallint())).toBe(4464)
    expect(cast(MAX, T.bigint(), T.smallint())).toBe(-1)
    expect(cast(200.7, T.double(), T.tinyint())).toBe(-56)
    expect(cast(1e10, T.double(), T.smallint())).toBe(-1) // (short) (int) 1e10 = (short) 2147483647
    expect(cast(12799n, T.decimal(5, 2), T.tinyint())).toBe(127)
    expect(cast(-128, T.tinyint(), T.bigint())).toBe(-128)
    expect(cast(-32768, T.smallint(), T.decimal(5, 0))).toBe(-32768n)
    expect(cast('127', T.string(), T.tinyint())).toBe(127)
    expect(errorOf(() => cast('128', T.string(), T.tinyint())).message).toBe(`cannot cast '128' to TINYINT`)
    expect(cast('40000', T.string(), T.smallint(), true)).toBeNull()
    expect(cast(true, T.boolean(), T.tinyint())).toBe(1)
    expect(cast(-5, T.smallint(), T.string())).toBe('-5')
  })
})

describe('CAST to and from BIGINT at the ends of its range', () => {
  it('as Flink: integers and decimals wrap, doubles saturate, strings out of range fail', () => {
    expect(cast(MAX, T.bigint(), T.int())).toBe(-1)
    expect(cast(MIN, T.bigint(), T.int())).toBe(0)
    expect(cast(2147483648, T.bigint(), T.int())).toBe(-2147483648)
    expect(cast(1e19, T.double(), T.bigint())).toBe(MAX)
    expect(cast(-1e19, T.double(), T.bigint())).toBe(MIN)
    expect(cast(2 ** 60, T.double(), T.bigint())).toBe(2n ** 60n)
    expect(cast(NaN, T.double(), T.bigint())).toBe(0)
    expect(cast(92233720368547758070n, T.decimal(21, 1), T.bigint())).toBe(MAX)
    expect(cast(92233720368547758080n, T.decimal(21, 1), T.bigint())).toBe(MIN) // 2^63 wraps
    expect(cast('9223372036854775807', T.string(), T.bigint())).toBe(MAX)
    expect(cast('9007199254740993', T.string(), T.bigint())).toBe(9007199254740993n)
    expect(errorOf(() => cast('9223372036854775808', T.string(), T.bigint())).message).toBe(`cannot cast '9223372036854775808' to BIGINT`)
    expect(cast('9223372036854775808', T.string(), T.bigint(), true)).toBeNull()
  })

  it('to DOUBLE, DECIMAL and STRING exactly where the target can hold it', () => {
    expect(cast(MAX, T.bigint(), T.double())).toBe(9223372036854775807)
    expect(cast(9007199254740993n, T.bigint(), T.double())).toBe(9007199254740992)
    expect(cast(MAX, T.bigint(), T.decimal(19, 0))).toBe(MAX)
    expect(cast(MIN, T.bigint(), T.decimal(21, 2))).toBe(MIN * 100n)
    expect(cast(MAX, T.bigint(), T.decimal(18, 0))).toBeNull() // overflow gives NULL, as Flink
    expect(cast(MIN, T.bigint(), T.string())).toBe('-9223372036854775808')
    expect(cast(9007199254740993n, T.bigint(), T.boolean())).toBe(true)
  })
})
