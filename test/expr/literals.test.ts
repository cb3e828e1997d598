// Literal builders for the binder: numbers, intervals, timestamps and dates.
import { describe, expect, it } from 'vitest'
import { T, formatType } from '../../common/types.js'
import { dateLiteral, intervalLiteral, numberLiteral, stringLiteral, timestampLiteral, timestampLtzLiteral } from '../../expr/index.js'
import { errorOf, lit, span } from './helpers.js'

describe('numberLiteral', () => {
  it('types integers by size', () => {
    expect(numberLiteral('42')).toEqual(lit(42, T.int(false)))
    expect(numberLiteral('2147483647')).toEqual(lit(2147483647, T.int(false)))
    expect(numberLiteral('2147483648')).toEqual(lit(2147483648, T.bigint(false)))
    expect(numberLiteral('9223372036854775808')).toEqual(lit(9223372036854775808n, T.decimal(19, 0, false)))
  })

  it('keeps decimals exact with the digits as written', () => {
    expect(numberLiteral('0.908')).toEqual(lit(908n, T.decimal(4, 3, false)))
    expect(numberLiteral('12.50')).toEqual(lit(1250n, T.decimal(4, 2, false)))
    expect(numberLiteral('.5')).toEqual(lit(5n, T.decimal(1, 1, false)))
  })

  it('makes exponents DOUBLE', () => {
    expect(numberLiteral('1.5E3')).toEqual(lit(1500, T.double(false)))
    expect(numberLiteral('2e-1')).toEqual(lit(0.2, T.double(false)))
  })

  it('rejects more than 38 digits and garbage', () => {
    expect(errorOf(() => numberLiteral('1' + '0'.repeat(40), span)).message).toMatch(/more than 38 digits/)
    expect(errorOf(() => numberLiteral('1.2.3', span)).message).toBe(`invalid numeric literal '1.2.3'`)
  })

  it("strings are CHAR(n) NOT NULL, n their length, as Flink types them ('' is CHAR(0))", () => {
    expect(stringLiteral("it's")).toEqual(lit("it's", T.char(4, false)))
    expect(formatType(stringLiteral("it's").type)).toBe('CHAR(4) NOT NULL')
    expect(formatType(stringLiteral('').type)).toBe('CHAR(0) NOT NULL')
  })
})

describe('intervalLiteral', () => {
  const ms = (text: string, unit: string, to?: string, negative = false) => {
    const rex = intervalLiteral(text, unit, to, negative, span)
    expect(rex.type).toEqual(T.interval(false))
    return rex.kind === 'Literal' ? rex.value : undefined
  }

  it('reads single units, plural or not', () => {
    expect(ms('10', 'SECOND')).toBe(10_000)
    expect(ms('10', 'SECONDS')).toBe(10_000)
    expect(ms('1.5', 'SECOND')).toBe(1500)
    expect(ms('5', 'MINUTE')).toBe(300_000)
    expect(ms('2', 'HOURS')).toBe(7_200_000)
    expect(ms('1', 'DAY')).toBe(86_400_000)
    expect(ms('250', 'MILLISECOND')).toBe(250)
    expect(ms('-3', 'SECOND')).toBe(-3000)
    expect(ms('3', 'SECOND', undefined, true)).toBe(-3000)
  })

  it('reads ranges', () => {
    expect(ms('1:30', 'HOUR', 'MINUTE')).toBe(5_400_000)
    expect(ms('1 02:03:04.5', 'DAY', 'SECOND')).toBe(86_400_000 + 2 * 3_600_000 + 3 * 60_000 + 4500)
    expect(ms('2 12', 'DAY', 'HOUR')).toBe(2.5 * 86_400_000)
    expect(ms('01:30', 'MINUTE', 'SECOND')).toBe(90_000)
  })

  it('reads year-month intervals as months, typed INTERVAL YEAR TO MONTH', () => {
    const ym = (text: string, unit: string, to?: string, negative = false): unknown => {
      const r = intervalLiteral(text, unit, to, negative, span)
      expect(formatType(r.type)).toBe('INTERVAL YEAR TO MONTH NOT NULL')
      return r.kind === 'Literal' ? r.value : undefined
    }
    expect(ym('2-3', 'YEAR', 'MONTH')).toBe(27)
    expect(ym('1', 'YEAR')).toBe(12)
    expect(ym('14', 'MONTH')).toBe(14)
    expect(ym('-2-3', 'YEAR', 'MONTH')).toBe(-27)
    expect(ym('1', 'YEARS', undefined, true)).toBe(-12)
  })

  it('rejects bad year-month text and qualifiers, saying what to write', () => {
    const bad = errorOf(() => intervalLiteral('2-12', 'YEAR', 'MONTH', false, span))
    expect(bad.message).toBe("invalid interval literal '2-12' for YEAR TO MONTH")
    expect(bad.help).toContain("INTERVAL '2-3' YEAR TO MONTH")
    expect(bad.span).toEqual(span)
    expect(errorOf(() => intervalLiteral('1.5', 'YEAR', undefined, false, span)).message).toBe("invalid interval literal '1.5' for YEAR")
    const mixed = errorOf(() => intervalLiteral('1 2', 'MONTH', 'DAY', false, span))
    expect(mixed.message).toBe('invalid interval qualifier MONTH TO DAY')
    expect(errorOf(() => intervalLiteral('1', 'QUARTER', undefined, false, span)).help).toBe("write INTERVAL '3' MONTH for a quarter")
  })

  it('rejects bad text and qualifiers with an example', () => {
    const e = errorOf(() => intervalLiteral('1:30', 'HOUR', undefined, false, span))
    expect(e.message).toBe(`invalid interval literal '1:30' for HOUR`)
    expect(e.help).toBe(`write e.g. INTERVAL '10' HOUR`)
    expect(errorOf(() => intervalLiteral('1', 'HOUR', 'MINUTE', false, span)).help).toBe(`write e.g. INTERVAL '02:02' HOUR TO MINUTE`)
    expect(errorOf(() => intervalLiteral('1', 'SECOND', 'DAY', false, span)).message).toBe('invalid interval qualifier SECOND TO DAY')
    expect(errorOf(() => intervalLiteral('1', 'FORTNIGHT', undefined, false, span)).message).toBe(`unknown interval unit 'FORTNIGHT'`)
  })
})

describe('timestamp and date literals', () => {
  it('parse to epoch milliseconds and days, with the precision written', () => {
    expect(timestampLiteral('2024-03-15 13:45:12.345', span)).toEqual(lit(Date.UTC(2024, 2, 15, 13, 45, 12, 345), T.timestamp(3, false)))
    expect(timestampLiteral('2024-03-15 13:45:12', span).type).toEqual(T.timestamp(0, false))
    expect(timestampLtzLiteral('1970-01-01 00:00:01', span)).toEqual(lit(1000, T.timestampLtz(0, false)))
    expect(dateLiteral('1970-01-02', span)).toEqual(lit(1, T.date(false)))
  })

  it('reject what is not a time', () => {
    const e = errorOf(() => timestampLiteral('2024-02-30 00:00:00', span))
    expect(e.message).toBe(`invalid TIMESTAMP literal '2024-02-30 00:00:00'`)
    expect(e.span).toEqual(span)
    expect(errorOf(() => dateLiteral('15/03/2024', span)).help).toBe(`write DATE 'yyyy-MM-dd'`)
  })
})
