// FLOAT (32-bit) and year-month INTERVAL values in expressions: Java's Float.toString text, casts that round
// to 32 bits, the result types of mixed arithmetic, and year-month arithmetic with dates and timestamps.
import { describe, expect, it } from 'vitest'
import { T, formatType, type DataType } from '../../common/types.js'
import { formatFloat, formatYearMonth } from '../../common/values.js'
import { castTo, commonType, intervalLiteral, timestampLiteral, dateLiteral } from '../../expr/index.js'
import { call, col, errorOf, run, span } from './helpers.js'

const cast = (v: unknown, from: DataType, to: DataType): unknown => run(castTo(col(0, from), to, span), [v])

describe('FLOAT', () => {
  it("prints as Java's Float.toString", () => {
    expect(formatFloat(Math.fround(0.1))).toBe('0.1')
    expect(formatFloat(Math.fround(1 / 3))).toBe('0.33333334')
    expect(formatFloat(100)).toBe('100.0')
    expect(formatFloat(9999999)).toBe('9999999.0')
    expect(formatFloat(1e7)).toBe('1.0E7')
    expect(formatFloat(Math.fround(16777217))).toBe('1.6777216E7')
    expect(formatFloat(Math.fround(1e-4))).toBe('1.0E-4')
    expect(formatFloat(Math.fround(0.001))).toBe('0.001')
    expect(formatFloat(Math.fround(-1.5e10))).toBe('-1.5E10')
    expect(formatFloat(-0)).toBe('-0.0')
    expect(formatFloat(NaN)).toBe('NaN')
    expect(formatFloat(-Infinity)).toBe('-Infinity')
  })

  it('casts round to 32 bits; CAST to STRING prints as Flink', () => {
    expect(cast(0.1, T.double(), T.float())).toBe(Math.fround(0.1))
    expect(cast(16777217, T.int(), T.float())).toBe(16777216)
    expect(cast('0.1', T.string(), T.float())).toBe(Math.fround(0.1))
    expect(cast(Math.fround(0.1), T.float(), T.string())).toBe('0.1')
    expect(cast(Math.fround(0.1), T.float(), T.double())).toBe(Math.fround(0.1))
    expect(cast(12345n, T.decimal(10, 2), T.float())).toBe(Math.fround(123.45))
  })

  it('FLOAT op FLOAT and FLOAT op INT are FLOATs, rounded; with a DOUBLE or a DECIMAL a DOUBLE', () => {
    const f = col(0, T.float()), g = col(1, T.float())
    const sum = call('+', f, g)
    expect(formatType(sum.type)).toBe('FLOAT')
    expect(run(sum, [Math.fround(0.1), Math.fround(0.2)])).toBe(Math.fround(0.3))
    const third = call('/', f, col(1, T.int()))
    expect(formatType(third.type)).toBe('FLOAT')
    expect(run(third, [1, 3])).toBe(Math.fround(1 / 3))
    expect(formatType(call('*', f, col(1, T.double())).type)).toBe('DOUBLE')
    expect(run(call('+', f, col(1, T.double())), [Math.fround(0.1), 0.2])).toBe(Math.fround(0.1) + 0.2)
    expect(formatType(call('+', f, col(1, T.decimal(10, 2))).type)).toBe('DOUBLE')
    expect(formatType(commonType([T.float(), T.int()])!)).toBe('FLOAT')
    expect(formatType(commonType([T.float(), T.double()])!)).toBe('DOUBLE')
  })
})

describe('year-month INTERVAL', () => {
  const ym = (text: string, unit: string, to?: string) => intervalLiteral(text, unit, to, false, span)

  it('prints as Flink: +y-mm', () => {
    expect(formatYearMonth(27)).toBe('+2-03')
    expect(formatYearMonth(-14)).toBe('-1-02')
    expect(formatYearMonth(0)).toBe('+0-00')
    expect(run(castTo(ym('2-3', 'YEAR', 'MONTH'), T.string()))).toBe('+2-03')
  })

  it("adds calendar months to dates and timestamps, clamping the day to the month's end", () => {
    expect(run(call('+', timestampLiteral('2024-01-31 10:00:00'), ym('1', 'MONTH')))).toBe(Date.UTC(2024, 1, 29, 10))
    expect(run(call('-', timestampLiteral('2024-03-31 10:00:00'), ym('1', 'MONTH')))).toBe(Date.UTC(2024, 1, 29, 10))
    expect(run(call('+', ym('2-10', 'YEAR', 'MONTH'), dateLiteral('2020-01-31')))).toBe(Date.UTC(2022, 10, 30) / 86_400_000)
    expect(run(call('-', dateLiteral('2020-03-31'), call('*', ym('1', 'MONTH'), col(0, T.int()))), [13])).toBe(Date.UTC(2019, 1, 28) / 86_400_000)
  })

  it('meets year-month intervals only: + - * /, comparisons; not a day-time interval or a TIME', () => {
    expect(run(call('+', ym('1', 'YEAR'), ym('2', 'MONTH')))).toBe(14)
    expect(run(call('<', ym('11', 'MONTH'), ym('1', 'YEAR')))).toBe(true)
    const mixed = errorOf(() => call('+', ym('1', 'YEAR'), intervalLiteral('1', 'DAY', undefined, false, span)))
    expect(mixed.message).toBe("cannot apply '+' to INTERVAL YEAR TO MONTH and INTERVAL")
    expect(errorOf(() => call('=', ym('1', 'YEAR'), intervalLiteral('1', 'DAY', undefined, false, span))).message).toContain('INTERVAL YEAR TO MONTH')
    expect(errorOf(() => call('+', col(0, T.time(0)), ym('1', 'YEAR'))).message).toBe("cannot apply '+' to TIME(0) and INTERVAL YEAR TO MONTH")
  })
})
