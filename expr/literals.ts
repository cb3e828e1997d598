// Typed literals for the binder: numbers (INT / BIGINT / exact DECIMAL / DOUBLE), strings, booleans,
// NULL, day-time intervals (as milliseconds), and TIMESTAMP / DATE literals.
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import { T } from '../common/types.js'
import { bytesOfHex, parseDate, parseTime, parseTimestamp } from '../common/values.js'
import { literal, type Rex } from '../core/rex.js'
import { MAX_PRECISION } from './decimal.js'
import { INT64_MAX, INT64_MIN, int64 } from '../common/int64.js'

const INT32_MAX = 2n ** 31n - 1n
const INT32_MIN = -(2n ** 31n)

/**
 * A numeric literal as written (with an optional leading '-'): an integer is INT if it fits 32
 * bits, else BIGINT, else an exact DECIMAL(p, 0); a decimal point makes an exact DECIMAL(p, s) counting the digits as written
 * (Calcite's rule: '0.908' is DECIMAL(4, 3)); an exponent makes a DOUBLE.
 *
 * @example numberLiteral('12.50') // Literal 1250n : DECIMAL(4, 2) NOT NULL
 */
export function numberLiteral(text: string, span?: Span): Rex {
  let t = text.trim()
  // A minus sign written before the literal belongs to it, so -2147483648 is an INT and
  // -9223372036854775808 a BIGINT (their positive halves would not fit).
  const negative = t.startsWith('-')
  if (negative) t = t.slice(1).trimStart()
  if (/^(?:\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(t)) return literal(negative ? -Number(t) : Number(t), T.double(false))
  const m = /^(\d*)(?:\.(\d*))?$/.exec(t)
  if (!m || (m[1] === '' && !m[2])) throw WeirError.plan(`invalid numeric literal '${text}'`, { span })
  const intPart = m[1]!
  const tooLong = (): WeirError =>
    WeirError.plan(`numeric literal '${text}' has more than ${MAX_PRECISION} digits`, {
      span,
      help: 'write it with an exponent (such as 1.5E40) to make it a DOUBLE',
    })
  if (m[2] !== undefined) {
    const frac = m[2]
    const precision = Math.max(1, intPart.length + frac.length)
    if (intPart.replace(/^0+/, '').length + frac.length > MAX_PRECISION) throw tooLong()
    const unscaled = BigInt(intPart + frac || '0')
    return literal(negative ? -unscaled : unscaled, T.decimal(Math.min(precision, MAX_PRECISION), frac.length, false))
  }
  const value = negative ? -BigInt(intPart) : BigInt(intPart)
  if (value <= INT32_MAX && value >= INT32_MIN) return literal(Number(value), T.int(false))
  if (value <= INT64_MAX && value >= INT64_MIN) return literal(int64(value), T.bigint(false))
  // Beyond BIGINT: an exact DECIMAL, as in Flink.
  const digits = intPart.replace(/^0+/, '').length
  if (digits > MAX_PRECISION) throw tooLong()
  return literal(value, T.decimal(digits, 0, false))
}

/**
 * A character string literal: CHAR(n) NOT NULL, n its length in UTF-16 units (Java's String.length, as
 * Flink counts; `''` is CHAR(0), Flink's empty literal). `text` is the unquoted, unescaped content.
 */
export function stringLiteral(text: string): Rex {
  return literal(text, T.char(text.length, false))
}

/** TRUE / FALSE: BOOLEAN NOT NULL. */
export function booleanLiteral(value: boolean): Rex {
  return literal(value, T.boolean(false))
}

/** An untyped NULL; it takes the type its context needs. */
export function nullLiteral(): Rex {
  return literal(null, T.null())
}

const UNIT_MS: Record<string, number> = {
  MILLISECOND: 1,
  SECOND: 1000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: 86_400_000,
  WEEK: 7 * 86_400_000,
}
const RANGE_UNITS = ['DAY', 'HOUR', 'MINUTE', 'SECOND'] as const

function normalizeUnit(unit: string): string {
  const u = unit.trim().toUpperCase().replace(/\s*\(.*\)$/, '')
  return u.endsWith('S') && u !== 'S' ? u.slice(0, -1) : u
}

/**
 * A day-time interval literal in milliseconds: `INTERVAL '10' SECOND`, `INTERVAL '1.5' SECONDS`,
 * `INTERVAL '1 02:00:00' DAY TO SECOND`, `INTERVAL '1:30' HOUR TO MINUTE`; a year-month one
 * (`INTERVAL '2-3' YEAR TO MONTH`, YEAR, MONTH) in months, typed INTERVAL YEAR TO MONTH.
 *
 * @example intervalLiteral('1:30', 'HOUR', 'MINUTE', false, span) // Literal 5400000 : INTERVAL NOT NULL
 */
export function intervalLiteral(text: string, unit: string, toUnit: string | undefined, negative: boolean, span?: Span): Rex {
  const from = normalizeUnit(unit)
  const to = toUnit === undefined ? undefined : normalizeUnit(toUnit)
  if (from === 'YEAR' || from === 'MONTH' || to === 'YEAR' || to === 'MONTH') return yearMonthLiteral(text, from, to, negative, span)
  if (from === 'QUARTER' || to === 'QUARTER') {
    throw WeirError.plan(`INTERVAL … QUARTER is not an interval qualifier`, { span, help: `write INTERVAL '3' MONTH for a quarter` })
  }
  const unknown = [from, to].find(u => u !== undefined && UNIT_MS[u] === undefined)
  if (unknown !== undefined) {
    throw WeirError.plan(`unknown interval unit '${unknown}'`, { span, help: 'use MILLISECOND, SECOND, MINUTE, HOUR or DAY' })
  }
  const t = text.trim()
  let ms: number | null | undefined
  if (to === undefined || to === from) {
    const m = /^([+-])?(\d+(?:\.\d*)?|\.\d+)$/.exec(t)
    ms = m ? Math.round(Number(m[2]) * UNIT_MS[from]!) * (m[1] === '-' ? -1 : 1) : null
  } else {
    ms = parseRange(t, from, to)
    if (ms === undefined) {
      throw WeirError.plan(`invalid interval qualifier ${from} TO ${to}`, { span, help: 'the first unit must be larger: DAY TO SECOND, HOUR TO MINUTE, …' })
    }
  }
  if (ms === null) {
    const example = to === undefined ? `INTERVAL '10' ${from}` : `INTERVAL '${rangeExample(from, to)}' ${from} TO ${to}`
    throw WeirError.plan(`invalid interval literal '${text}' for ${from}${to === undefined ? '' : ` TO ${to}`}`, { span, help: `write e.g. ${example}` })
  }
  return literal(negative ? -ms : ms, T.interval(false))
}

/**
 * A year-month interval literal in months (as Flink: INTERVAL YEAR TO MONTH holds an int of months):
 * `INTERVAL '2-3' YEAR TO MONTH` 27, `INTERVAL '1' YEAR` 12, `INTERVAL '14' MONTH` 14.
 */
function yearMonthLiteral(text: string, from: string, to: string | undefined, negative: boolean, span: Span | undefined): Rex {
  const t = text.trim()
  let months: number | null = null
  if (to === undefined || to === from) {
    if (from !== 'YEAR' && from !== 'MONTH') throw badYearMonthQualifier(from, to, span)
    const m = /^([+-])?(\d+)$/.exec(t)
    if (m) months = Number(m[2]) * (from === 'YEAR' ? 12 : 1) * (m[1] === '-' ? -1 : 1)
  } else {
    if (from !== 'YEAR' || to !== 'MONTH') throw badYearMonthQualifier(from, to, span)
    const m = /^([+-])?(\d+)-(\d{1,2})$/.exec(t)
    // The months field is 0 to 11, as Calcite checks it.
    if (m && Number(m[3]) < 12) months = (Number(m[2]) * 12 + Number(m[3])) * (m[1] === '-' ? -1 : 1)
  }
  if (months === null || !Number.isSafeInteger(months) || Math.abs(months) > 2 ** 31 - 1) {
    const example = to === undefined || to === from ? `INTERVAL '2' ${from}` : `INTERVAL '2-3' YEAR TO MONTH`
    throw WeirError.plan(`invalid interval literal '${text}' for ${from}${to === undefined || to === from ? '' : ` TO ${to}`}`, { span,
      help: `write e.g. ${example} (years, then months 0 to 11)` })
  }
  return literal(negative ? -months : months, T.intervalYearMonth(false))
}

function badYearMonthQualifier(from: string, to: string | undefined, span: Span | undefined): WeirError {
  return WeirError.plan(`invalid interval qualifier ${from}${to === undefined ? '' : ` TO ${to}`}`, { span,
    help: 'a year-month interval is YEAR, MONTH or YEAR TO MONTH; a day-time one DAY, HOUR, MINUTE or SECOND (… TO …)' })
}

function rangeUnits(from: string, to: string): string[] | undefined {
  const i = RANGE_UNITS.indexOf(from as (typeof RANGE_UNITS)[number])
  const j = RANGE_UNITS.indexOf(to as (typeof RANGE_UNITS)[number])
  return i < 0 || j <= i ? undefined : RANGE_UNITS.slice(i, j + 1)
}

function rangeExample(from: string, to: string): string {
  const units = rangeUnits(from, to) ?? []
  return units.map((u, k) => (u === 'DAY' ? '1' : '02') + (k + 1 < units.length ? (u === 'DAY' ? ' ' : ':') : '')).join('')
}

/** 'd hh:mm:ss.fff' for the units from..to; undefined for a bad qualifier, null for bad text. */
function parseRange(text: string, from: string, to: string): number | null | undefined {
  const units = rangeUnits(from, to)
  if (units === undefined) return undefined
  let re = '^([+-])?'
  units.forEach((u, k) => {
    re += u === 'SECOND' ? '(\\d+(?:\\.\\d{1,9})?)' : '(\\d+)'
    if (k + 1 < units.length) re += u === 'DAY' ? ' +' : ':'
  })
  const m = new RegExp(re + '$').exec(text)
  if (!m) return null
  let ms = 0
  units.forEach((u, k) => {
    ms += Number(m[k + 2]) * UNIT_MS[u]!
  })
  return Math.round(ms) * (m[1] === '-' ? -1 : 1)
}

function fractionDigits(text: string): number {
  const m = /\d{1,2}:\d{1,2}:\d{1,2}\.(\d+)/.exec(text)
  return m ? Math.min(9, m[1]!.length) : 0
}

function badTimestamp(kind: string, text: string, span: Span | undefined): WeirError {
  return WeirError.plan(`invalid ${kind} literal '${text}'`, { span, help: `write ${kind} 'yyyy-MM-dd HH:mm:ss[.SSS]'` })
}

/** TIMESTAMP 'yyyy-MM-dd HH:mm:ss[.SSS]' → TIMESTAMP(p) NOT NULL, p = the fraction digits written. */
export function timestampLiteral(text: string, span?: Span): Rex {
  const ms = parseTimestamp(text)
  if (ms === null) throw badTimestamp('TIMESTAMP', text, span)
  return literal(ms, T.timestamp(fractionDigits(text), false))
}

/** TIMESTAMP_LTZ 'yyyy-MM-dd HH:mm:ss[.SSS]' (read in the UTC session zone) → TIMESTAMP_LTZ(p) NOT NULL. */
export function timestampLtzLiteral(text: string, span?: Span): Rex {
  const ms = parseTimestamp(text)
  if (ms === null) throw badTimestamp('TIMESTAMP_LTZ', text, span)
  return literal(ms, T.timestampLtz(fractionDigits(text), false))
}

/** DATE 'yyyy-MM-dd' → DATE NOT NULL (epoch days). */
export function dateLiteral(text: string, span?: Span): Rex {
  const days = parseDate(text)
  if (days === null) throw WeirError.plan(`invalid DATE literal '${text}'`, { span, help: `write DATE 'yyyy-MM-dd'` })
  return literal(days, T.date(false))
}

/** TIME 'HH:mm:ss[.SSS]' → TIME(p) NOT NULL (milliseconds of the day), p = the fraction digits written. */
export function timeLiteral(text: string, span?: Span): Rex {
  const ms = parseTime(text)
  if (ms === null) throw WeirError.plan(`invalid TIME literal '${text}'`, { span, help: `write TIME 'HH:mm:ss[.SSS]', hours 00 to 23` })
  const m = /:\d{1,2}\.(\d+)\s*$/.exec(text)
  return literal(ms, T.time(m ? Math.min(9, m[1]!.length) : 0, false))
}

/** x'0aFF' → BYTES NOT NULL: two hex digits a byte, either case (an odd count is an error, as in Flink). */
export function binaryLiteral(text: string, span?: Span): Rex {
  const bytes = bytesOfHex(text.replace(/\s+/g, ''))
  if (bytes === null) throw WeirError.plan(`invalid binary literal x'${text}'`, { span, help: `write two hex digits (0-9, a-f) a byte, e.g. x'0aff'` })
  return literal(bytes, T.bytes(false))
}
