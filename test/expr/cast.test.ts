// CAST and TRY_CAST: which casts exist, results, rounding, overflow, and errors at plan and run time.
import { describe, expect, it } from 'vitest'
import { T, type DataType } from '../../common/types.js'
import { castTo, commonType } from '../../expr/index.js'
import { col, errorOf, lit, run, span, str } from './helpers.js'

const cast = (v: unknown, from: DataType, to: DataType, tryCast = false): unknown => run(castTo(col(0, from), to, span, tryCast), [v])

describe('castTo binding', () => {
  it('builds a CAST call whose nullability follows the operand', () => {
    expect(castTo(col(0, T.string(false)), T.int(), span)).toEqual({ kind: 'Call', op: 'CAST', args: [col(0, T.string(false))], type: T.int(false), span })
    expect(castTo(col(0, T.string(false)), T.int(), span, true).type).toEqual(T.int(true))
    expect(castTo(col(0, T.double(false)), T.decimal(5, 2)).type).toEqual(T.decimal(5, 2, true))
    expect(castTo(col(0, T.int(false)), T.decimal(12, 2)).type).toEqual(T.decimal(12, 2, false))
  })

  it('returns the operand when nothing changes, and drops a time attribute', () => {
    expect(castTo(col(0, T.int()), T.int())).toEqual(col(0, T.int()))
    const rowtime = col(0, T.timestamp(3, false, 'rowtime'))
    expect(castTo(rowtime, T.timestamp(3))).toMatchObject({ op: 'CAST', type: T.timestamp(3, false) })
  })

  it('rejects casts that do not exist', () => {
    const e = errorOf(() => castTo(col(0, T.boolean()), T.date(), span))
    expect(e.kind).toBe('plan')
    expect(e.message).toBe('cannot cast BOOLEAN to DATE')
    expect(e.span).toEqual(span)
    expect(errorOf(() => castTo(col(0, T.bigint()), T.timestamp(3))).help).toMatch(/TO_TIMESTAMP_LTZ/)
    expect(errorOf(() => castTo(col(0, T.interval()), T.int())).message).toBe('cannot cast INTERVAL to INT')
  })

  it('converts literals right away; a bad one is a plan error', () => {
    expect(castTo(str(' 42 '), T.int())).toEqual(lit(42, T.int(false)))
    expect(castTo(lit(null, T.null()), T.int())).toEqual(lit(null, T.int(true)))
    const e = errorOf(() => castTo(str('abc'), T.int(), span))
    expect(e.kind).toBe('plan')
    expect(e.message).toBe(`cannot cast 'abc' to INT`)
    expect(castTo(str('abc'), T.int(), span, true)).toEqual(lit(null, T.int(true)))
  })
})

describe('CAST at run time', () => {
  it('parses strings to numbers, or fails with the value in the message', () => {
    expect(cast('  42', T.string(), T.int())).toBe(42)
    expect(cast('-7', T.string(), T.bigint())).toBe(-7)
    expect(cast('1.5e2', T.string(), T.double())).toBe(150)
    expect(cast('12.345', T.string(), T.decimal(5, 2))).toBe(1235n)
    const e = errorOf(() => cast('abc', T.string(), T.int()))
    expect(e.kind).toBe('execution')
    expect(e.message).toBe(`cannot cast 'abc' to INT`)
    expect(e.help).toMatch(/TRY_CAST/)
    expect(e.span).toEqual(span)
    expect(errorOf(() => cast('3000000000', T.string(), T.int())).message).toBe(`cannot cast '3000000000' to INT`)
    expect(cast('3000000000', T.string(), T.bigint())).toBe(3_000_000_000)
    expect(errorOf(() => cast('1.5', T.string(), T.int())).kind).toBe('execution')
    expect(errorOf(() => cast('', T.string(), T.double())).message).toBe(`cannot cast '' to DOUBLE`)
    expect(errorOf(() => cast('x', T.string(), T.decimal(5, 2))).message).toBe(`cannot cast 'x' to DECIMAL(5, 2)`)
  })

  it('TRY_CAST gives NULL instead', () => {
    expect(cast('abc', T.string(), T.int(), true)).toBe(null)
    expect(cast('2024-13-01', T.string(), T.date(), true)).toBe(null)
    expect(cast('17', T.string(), T.int(), true)).toBe(17)
    expect(cast(null, T.string(), T.int(), true)).toBe(null)
  })

  it('truncates doubles and decimals toward zero for integers', () => {
    expect(cast(2.7, T.double(), T.int())).toBe(2)
    expect(cast(-2.7, T.double(), T.bigint())).toBe(-2)
    expect(cast(NaN, T.double(), T.int())).toBe(0)
    expect(cast(1e20, T.double(), T.int())).toBe(2147483647)
    expect(cast(299n, T.decimal(5, 2), T.int())).toBe(2)
    expect(cast(-299n, T.decimal(5, 2), T.bigint())).toBe(-2)
    expect(cast(3_000_000_000, T.bigint(), T.int())).toBe(-1294967296)
  })

  it('rounds decimals half up and gives NULL on overflow', () => {
    expect(cast(1255n, T.decimal(4, 3), T.decimal(3, 2))).toBe(126n)
    expect(cast(-1255n, T.decimal(4, 3), T.decimal(3, 2))).toBe(-126n)
    expect(cast(12345n, T.decimal(5, 2), T.decimal(4, 2))).toBe(null)
    expect(cast(12345n, T.decimal(5, 2), T.decimal(7, 3))).toBe(123450n)
    expect(cast(100, T.int(), T.decimal(3, 1))).toBe(null)
    expect(cast(99, T.int(), T.decimal(3, 1))).toBe(990n)
    expect(cast(0.1, T.double(), T.decimal(5, 2))).toBe(10n)
    expect(cast(2.675, T.double(), T.decimal(5, 2))).toBe(268n)
    expect(cast(NaN, T.double(), T.decimal(5, 2))).toBe(null)
    expect(cast(15n, T.decimal(2, 1), T.double())).toBe(1.5)
    expect(cast(123456789012345678901234567890n, T.decimal(30, 10), T.double())).toBe(12345678901234567890.123456789)
  })

  it('reads booleans from words', () => {
    expect(['TRUE', 'false', ' yes ', 'N', '1'].map(s => cast(s, T.string(), T.boolean()))).toEqual([true, false, true, false, true])
    expect(errorOf(() => cast('maybe', T.string(), T.boolean())).message).toBe(`cannot cast 'maybe' to BOOLEAN`)
    expect(cast(0, T.int(), T.boolean())).toBe(false)
    expect(cast(true, T.boolean(), T.int())).toBe(1)
  })

  it('prints values as strings', () => {
    expect(cast(150n, T.decimal(5, 2), T.string())).toBe('1.50')
    expect(cast(1, T.double(), T.string())).toBe('1.0')
    expect(cast(true, T.boolean(), T.string())).toBe('TRUE')
    expect(cast(42, T.bigint(), T.string())).toBe('42')
    const at = Date.UTC(2024, 2, 15, 13, 45, 12, 345)
    expect(cast(at, T.timestamp(3), T.string())).toBe('2024-03-15 13:45:12.345')
    expect(cast(at, T.timestamp(0), T.string())).toBe('2024-03-15 13:45:12')
    expect(cast(19797, T.date(), T.string())).toBe('2024-03-15')
    expect(cast(90_061_001, T.interval(), T.string())).toBe('+1 01:01:01.001')
  })

  it('converts between times and dates', () => {
    expect(cast('2024-03-15', T.string(), T.date())).toBe(19797)
    expect(cast('2024-03-15 13:45:12.345', T.string(), T.timestamp(3))).toBe(Date.UTC(2024, 2, 15, 13, 45, 12, 345))
    expect(cast('2024-03-15 13:45:12.345', T.string(), T.timestamp(0))).toBe(Date.UTC(2024, 2, 15, 13, 45, 12))
    expect(cast(Date.UTC(2024, 2, 15, 23), T.timestamp(3), T.date())).toBe(19797)
    expect(cast(-1, T.timestamp(3), T.date())).toBe(-1)
    expect(cast(19797, T.date(), T.timestamp(3))).toBe(Date.UTC(2024, 2, 15))
    expect(cast(1500, T.timestamp(3), T.timestampLtz(3))).toBe(1500)
    expect(cast(1999, T.timestamp(3), T.timestamp(0))).toBe(1000)
  })

  it('reads TIMESTAMP_LTZ as epoch seconds for numbers', () => {
    expect(cast(1_700_000_000, T.bigint(), T.timestampLtz(3))).toBe(1_700_000_000_000)
    expect(cast(1_700_000_000_999, T.timestampLtz(3), T.bigint())).toBe(1_700_000_000)
  })
  it('prints a DOUBLE as Java does: plain from 10^-3 to under 10^7, scientific outside', () => {
    const text = (v: number) => cast(v, T.double(), T.string())
    expect([1e10, 1e7, 9999999, 123.25, 0.001, 1e-4, -2.5e-5, 1e21, -0].map(text))
      .toEqual(['1.0E10', '1.0E7', '9999999.0', '123.25', '0.001', '1.0E-4', '-2.5E-5', '1.0E21', '-0.0'])
  })
})

describe('commonType', () => {
  it('widens numbers and merges decimals', () => {
    expect(commonType([T.int(false), T.bigint(false)])).toEqual(T.bigint(false))
    expect(commonType([T.int(false), T.decimal(10, 2, false)])).toEqual(T.decimal(12, 2, false))
    expect(commonType([T.decimal(5, 4), T.decimal(10, 1)])).toEqual(T.decimal(13, 4))
    expect(commonType([T.decimal(5, 4), T.double(false)])).toEqual(T.double())
  })

  it('lets NULL adapt, is nullable if any input is, and drops time attributes', () => {
    expect(commonType([T.null(), T.string(false)])).toEqual(T.string(true))
    expect(commonType([T.timestamp(3, false, 'rowtime'), T.timestamp(0, false)])).toEqual(T.timestamp(3, false))
    expect(commonType([T.date(false), T.timestamp(3, false)])).toEqual(T.timestamp(3, false))
    expect(commonType([T.timestamp(3), T.timestampLtz(3)])).toEqual(T.timestampLtz(3))
    expect(commonType([T.null()])).toEqual(T.null())
  })

  it('is null for incompatible types', () => {
    expect(commonType([T.int(), T.string()])).toBe(null)
    expect(commonType([T.boolean(), T.date()])).toBe(null)
  })
})
