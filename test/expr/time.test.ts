// Date and time functions: EXTRACT and shorthands, FLOOR/CEIL TO unit, DATE_FORMAT and parsing,
// TIMESTAMPADD / TIMESTAMPDIFF, and the clock functions.
import { describe, expect, it } from 'vitest'
import { T, formatType } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { compileScalar, dateLiteral, intervalLiteral, timestampLiteral } from '../../expr/index.js'
import { apply, call, col, errorOf, num, run, span, str } from './helpers.js'

const TS = T.timestamp(3)
const at = Date.UTC(2024, 2, 15, 13, 45, 12, 345) // a Friday
const days = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / 86_400_000
const u = (unit: string) => str(unit)

describe('EXTRACT', () => {
  const extract = (unit: string, v: unknown, type = TS) => run(call('EXTRACT', u(unit), col(0, type)), [v])

  it('extracts fields of a timestamp as BIGINT', () => {
    expect(call('EXTRACT', u('YEAR'), col(0, TS)).type).toEqual(T.bigint())
    const fields = ['YEAR', 'QUARTER', 'MONTH', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'DOW', 'DOY', 'WEEK', 'ISODOW', 'EPOCH']
    expect(fields.map(f => extract(f, at))).toEqual([2024, 1, 3, 15, 13, 45, 12, 345, 6, 75, 11, 5, Math.floor(at / 1000)])
    expect(extract('MICROSECOND', at)).toBe(345_000)
    expect(extract('YEAR', null)).toBe(null)
  })

  it('uses ISO weeks', () => {
    expect(extract('WEEK', Date.UTC(2021, 0, 1))).toBe(53)
    expect(extract('WEEK', Date.UTC(2024, 11, 30))).toBe(1)
    expect(extract('ISOYEAR', Date.UTC(2024, 11, 30))).toBe(2025)
  })

  it('works on dates, before 1970 too', () => {
    expect(extract('MONTH', days(2024, 2, 29), T.date())).toBe(2)
    expect(extract('DAY', days(1969, 12, 31), T.date())).toBe(31)
    expect(extract('YEAR', Date.UTC(1900, 0, 1, 5))).toBe(1900)
    expect(extract('HOUR', Date.UTC(1969, 11, 31, 23, 59))).toBe(23)
  })

  it('works on day-time intervals', () => {
    const i = intervalLiteral('1 02:03:04', 'DAY', 'SECOND', false, span)
    expect(['DAY', 'HOUR', 'MINUTE', 'SECOND'].map(f => run(call('EXTRACT', u(f), i)))).toEqual([1, 2, 3, 4])
  })

  it('has YEAR() … SECOND() shorthands; DAYOFWEEK counts from Sunday = 1', () => {
    const names = ['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAYOFMONTH', 'DAYOFYEAR', 'DAYOFWEEK', 'HOUR', 'MINUTE', 'SECOND']
    expect(names.map(n => apply(n, [TS], [at]))).toEqual([2024, 1, 3, 11, 15, 75, 6, 13, 45, 12])
    expect(apply('DAYOFWEEK', [T.date()], [days(2024, 3, 17)])).toBe(1)
    expect(apply('DAYOFWEEK', [T.date()], [days(2024, 3, 16)])).toBe(7)
    expect(call('YEAR', col(0, TS))).toMatchObject({ kind: 'Call', op: 'EXTRACT' })
  })

  it('rejects unknown units and non-temporal values', () => {
    const e = errorOf(() => call('EXTRACT', u('FORTNIGHT'), col(0, TS)))
    expect(e.message).toBe(`'EXTRACT' does not support the unit 'FORTNIGHT'`)
    expect(e.span).toEqual(span)
    expect(errorOf(() => call('EXTRACT', u('YEAR'), col(0, T.string()))).message).toBe('cannot extract YEAR from STRING')
  })
})

describe('FLOOR and CEIL TO unit', () => {
  const floor = (unit: string, v: number) => run(call('FLOOR_TO', col(0, TS), u(unit)), [v])
  const ceil = (unit: string, v: number) => run(call('CEIL_TO', col(0, TS), u(unit)), [v])

  it('floors to each unit', () => {
    expect(floor('MILLISECOND', at)).toBe(at)
    expect(floor('SECOND', at)).toBe(Date.UTC(2024, 2, 15, 13, 45, 12))
    expect(floor('MINUTE', at)).toBe(Date.UTC(2024, 2, 15, 13, 45))
    expect(floor('HOUR', at)).toBe(Date.UTC(2024, 2, 15, 13))
    expect(floor('DAY', at)).toBe(Date.UTC(2024, 2, 15))
    expect(floor('WEEK', at)).toBe(Date.UTC(2024, 2, 10)) // the Sunday before
    expect(floor('MONTH', at)).toBe(Date.UTC(2024, 2, 1))
    expect(floor('QUARTER', at)).toBe(Date.UTC(2024, 0, 1))
    expect(floor('YEAR', at)).toBe(Date.UTC(2024, 0, 1))
    expect(floor('HOUR', Date.UTC(1969, 11, 31, 23, 30))).toBe(Date.UTC(1969, 11, 31, 23))
  })

  it('ceils to the next boundary unless already on one', () => {
    expect(ceil('MINUTE', at)).toBe(Date.UTC(2024, 2, 15, 13, 46))
    expect(ceil('DAY', at)).toBe(Date.UTC(2024, 2, 16))
    expect(ceil('MONTH', at)).toBe(Date.UTC(2024, 3, 1))
    expect(ceil('QUARTER', at)).toBe(Date.UTC(2024, 3, 1))
    expect(ceil('YEAR', at)).toBe(Date.UTC(2025, 0, 1))
    expect(ceil('MONTH', Date.UTC(2024, 2, 1))).toBe(Date.UTC(2024, 2, 1))
  })

  it('keeps the type, without a time attribute, and handles dates', () => {
    expect(call('FLOOR_TO', col(0, T.timestamp(3, false, 'rowtime')), u('HOUR')).type).toEqual(T.timestamp(3, false))
    const d = call('FLOOR_TO', col(0, T.date()), u('MONTH'))
    expect(d.type).toEqual(T.date())
    expect(run(d, [days(2024, 3, 15)])).toBe(days(2024, 3, 1))
    expect(run(call('CEIL_TO', col(0, T.date()), u('YEAR')), [days(2024, 3, 15)])).toBe(days(2025, 1, 1))
    expect(run(call('FLOOR_TO', col(0, T.date()), u('DAY')), [days(2024, 3, 15)])).toBe(days(2024, 3, 15))
  })
})

describe('DATE_FORMAT and parsing', () => {
  const fmt = (pattern: string, v: unknown = at) => apply('DATE_FORMAT', [TS, T.string()], [v, pattern])

  it('formats Java-style patterns', () => {
    expect(fmt('yyyy-MM-dd HH:mm:ss')).toBe('2024-03-15 13:45:12')
    expect(fmt('yyyy/MM/dd')).toBe('2024/03/15')
    expect(fmt('EEE, d MMM yyyy hh:mm a')).toBe('Fri, 15 Mar 2024 01:45 PM')
    expect(fmt('EEEE MMMM yy D')).toBe('Friday March 24 75')
    expect(fmt('yyyyMMddHHmmssSSS')).toBe('20240315134512345')
    expect(fmt(`yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`)).toBe('2024-03-15T13:45:12.345Z')
    expect(fmt(`h 'o''clock'`)).toBe(`1 o'clock`)
    expect(fmt('yyyy', null)).toBe(null)
  })

  it('defaults to yyyy-MM-dd HH:mm:ss and accepts dates and strings', () => {
    expect(apply('DATE_FORMAT', [TS], [at])).toBe('2024-03-15 13:45:12')
    expect(apply('DATE_FORMAT', [T.date(), T.string()], [days(2024, 3, 15), 'dd.MM.yyyy'])).toBe('15.03.2024')
    expect(apply('DATE_FORMAT', [T.string(), T.string()], ['2024-03-15 13:45:12', 'HH:mm'])).toBe('13:45')
    expect(apply('DATE_FORMAT', [T.string(), T.string()], ['not a time', 'HH:mm'])).toBe(null)
  })

  it('rejects an unsupported pattern at plan time', () => {
    const e = errorOf(() => call('DATE_FORMAT', col(0, TS), str('yyyy-bb')))
    expect(e.message).toBe(`invalid date format 'yyyy-bb': unsupported pattern letter 'b'`)
  })

  it('TO_TIMESTAMP parses, NULL on failure', () => {
    expect(call('TO_TIMESTAMP', col(0, T.string(false))).type).toEqual(T.timestamp(3))
    expect(apply('TO_TIMESTAMP', [T.string()], ['2024-03-15 13:45:12'])).toBe(Date.UTC(2024, 2, 15, 13, 45, 12))
    expect(apply('TO_TIMESTAMP', [T.string()], ['2024-03-15 13:45:12.345'])).toBe(at)
    expect(apply('TO_TIMESTAMP', [T.string(), T.string()], ['15/03/2024 01:45 PM', 'dd/MM/yyyy hh:mm a'])).toBe(Date.UTC(2024, 2, 15, 13, 45))
    expect(apply('TO_TIMESTAMP', [T.string(), T.string()], ['20240315', 'yyyyMMdd'])).toBe(Date.UTC(2024, 2, 15))
    expect(apply('TO_TIMESTAMP', [T.string(), T.string()], ['2024-02-30', 'yyyy-MM-dd'])).toBe(null)
    expect(apply('TO_TIMESTAMP', [T.string()], ['garbage'])).toBe(null)
  })

  it('TO_DATE, UNIX_TIMESTAMP and FROM_UNIXTIME', () => {
    expect(apply('TO_DATE', [T.string()], ['2024-03-15'])).toBe(days(2024, 3, 15))
    expect(apply('TO_DATE', [T.string(), T.string()], ['15.03.2024', 'dd.MM.yyyy'])).toBe(days(2024, 3, 15))
    expect(apply('UNIX_TIMESTAMP', [T.string()], ['1970-01-02 00:00:00'])).toBe(86400)
    expect(apply('UNIX_TIMESTAMP', [T.string(), T.string()], ['1970/01/02', 'yyyy/MM/dd'])).toBe(86400)
    expect(apply('FROM_UNIXTIME', [T.bigint()], [0])).toBe('1970-01-01 00:00:00')
  })

  it('UNIX_TIMESTAMP of text that does not parse is Long.MIN_VALUE, and cuts toward zero (Flink)', () => {
    const unix = (...args: string[]) => apply('UNIX_TIMESTAMP', args.map(() => T.string()), args)
    expect(unix('garbage')).toBe(-(2n ** 63n))
    expect(unix('1970-01-01 08:00:01.001', 'yyyy-MM-dd HH:mm:ss.SSS X')).toBe(-(2n ** 63n))
    expect(unix('1970-01-01 08:00:01.001 +0800', 'yyyy-MM-dd HH:mm:ss.SSS X')).toBe(1)
    expect(unix('1969-12-31 23:59:59.500', 'yyyy-MM-dd HH:mm:ss.SSS')).toBe(0)
    expect(unix('1969-12-31 23:59:58.500', 'yyyy-MM-dd HH:mm:ss.SSS')).toBe(-1)
    expect(apply('UNIX_TIMESTAMP', [T.string()], [null])).toBe(null)
    expect(apply('FROM_UNIXTIME', [T.bigint(), T.string()], [86400, 'yyyy-MM-dd'])).toBe('1970-01-02')
  })

  it('UNIX_TIMESTAMP() is the current epoch second', () => {
    const now = call('UNIX_TIMESTAMP')
    expect(now).toMatchObject({ kind: 'Call', op: 'CAST', type: T.bigint(false) })
    const v = compileScalar(now)([]) as number
    expect(Math.abs(v - Date.now() / 1000)).toBeLessThan(5)
  })

  it('TO_TIMESTAMP_LTZ reads epoch seconds or milliseconds', () => {
    const ltz = (v: unknown, p: string) => run(call('TO_TIMESTAMP_LTZ', col(0, T.bigint()), num(p)), [v])
    expect(call('TO_TIMESTAMP_LTZ', col(0, T.bigint(false)), num('3')).type).toEqual(T.timestampLtz(3, false))
    expect(ltz(1_700_000_000, '0')).toBe(1_700_000_000_000)
    expect(ltz(1_700_000_000_123, '3')).toBe(1_700_000_000_123)
    expect(ltz(null, '3')).toBe(null)
    expect(run(call('TO_TIMESTAMP_LTZ', col(0, T.decimal(10, 3)), num('0')), [1500n])).toBe(1000)
    expect(run(call('TO_TIMESTAMP_LTZ', col(0, T.double()), num('0')), [1.5])).toBe(1500)
    expect(errorOf(() => call('TO_TIMESTAMP_LTZ', col(0, T.bigint()), num('6'))).message).toMatch(/precision must be the constant 0/)
  })
})

describe('TIMESTAMPADD and TIMESTAMPDIFF', () => {
  const jan31 = timestampLiteral('2024-01-31 10:00:00', span)

  it('adds calendar units, clamping the day of month', () => {
    expect(run(call('TIMESTAMPADD', u('MONTH'), num('1'), jan31))).toBe(Date.UTC(2024, 1, 29, 10))
    expect(run(call('TIMESTAMPADD', u('YEAR'), num('1'), timestampLiteral('2024-02-29 00:00:00')))).toBe(Date.UTC(2025, 1, 28))
    expect(run(call('TIMESTAMPADD', u('HOUR'), call('NEG', num('2')), jan31))).toBe(Date.UTC(2024, 0, 31, 8))
    expect(run(call('TIMESTAMPADD', u('WEEK'), num('1'), jan31))).toBe(Date.UTC(2024, 1, 7, 10))
    expect(run(call('TIMESTAMPADD', u('DAY'), col(0, T.int()), col(1, TS)), [null, 0])).toBe(null)
    expect(errorOf(() => call('TIMESTAMPADD', col(0, T.string()), num('1'), jan31)).message).toBe(
      `'TIMESTAMPADD' needs a time unit such as DAY as its unit argument`,
    )
  })

  it('keeps dates as dates for day units and more', () => {
    const d = call('TIMESTAMPADD', u('DAY'), call('NEG', num('1')), dateLiteral('2024-03-01', span))
    expect(d.type).toEqual(T.date(false))
    expect(run(d)).toBe(days(2024, 2, 29))
    const h = call('TIMESTAMPADD', u('HOUR'), num('1'), col(0, T.date()))
    expect(formatType(h.type)).toBe('TIMESTAMP(3)')
    expect(run(h, [1])).toBe(86_400_000 + 3_600_000)
  })

  it('counts whole units between two times', () => {
    const diff = (unit: string, a: string, b: string) => run(call('TIMESTAMPDIFF', u(unit), timestampLiteral(a), timestampLiteral(b)))
    expect(call('TIMESTAMPDIFF', u('DAY'), col(0, TS), col(1, TS)).type).toEqual(T.int())
    expect(diff('DAY', '2024-01-01 00:00:00', '2024-01-03 12:00:00')).toBe(2)
    expect(diff('HOUR', '2024-01-03 12:00:00', '2024-01-01 00:00:00')).toBe(-60)
    expect(diff('MONTH', '2024-01-31 00:00:00', '2024-02-29 00:00:00')).toBe(0)
    expect(diff('MONTH', '2024-01-31 00:00:00', '2024-03-01 00:00:00')).toBe(1)
    expect(diff('YEAR', '2020-02-29 00:00:00', '2021-02-28 00:00:00')).toBe(0)
    expect(diff('QUARTER', '2024-01-01 00:00:00', '2024-12-31 00:00:00')).toBe(3)
    expect(diff('SECOND', '2024-01-01 00:00:00', '2024-01-01 00:01:00')).toBe(60)
  })

  it('rejects an unknown unit', () => {
    expect(errorOf(() => call('TIMESTAMPADD', u('FORTNIGHT'), num('1'), jan31)).help).toMatch(/^units: MILLISECOND, SECOND/)
  })
})

describe('clock functions', () => {
  it('read the clock on every evaluation', () => {
    const check = (rex: Rex, expectedType: unknown, scale = 1) => {
      expect(rex.kind).toBe('Call')
      expect(rex.type).toEqual(expectedType)
      const v = compileScalar(rex)([]) as number
      expect(Math.abs(v - Date.now() / scale)).toBeLessThan(5000 / scale + 1)
    }
    check(call('CURRENT_TIMESTAMP'), T.timestampLtz(3, false))
    check(call('NOW'), T.timestampLtz(3, false))
    check(call('LOCALTIMESTAMP'), T.timestamp(3, false))
    check(call('PROCTIME'), T.timestampLtz(3, false, 'proctime'))
    check(call('CURRENT_DATE'), T.date(false), 86_400_000)
  })

  it('are not folded inside larger expressions', () => {
    const rex = call('+', call('CURRENT_TIMESTAMP'), intervalLiteral('1', 'HOUR', undefined, false, span))
    expect(rex.kind).toBe('Call')
  })
})
