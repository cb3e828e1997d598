// Converting decoded field values (JSON values, CSV text) into the engine's value representation
// for a column type. A converter throws a ConvertError saying what it expected; the reader adds
// the file, line and column.
import type { DataType } from '../../common/types.js'
import { formatType } from '../../common/types.js'
import { bytesOfBase64, parseDate, parseDecimal, parseTime, parseTimestamp } from '../../common/values.js'
import { assertNever } from '../../common/assert.js'
import { int64, intRange, type Int64 } from '../../common/int64.js'
import { nestedConverter } from './convert-nested.js'

import { ConvertError } from './convert-error.js'
export { ConvertError }

export type Converter = (v: unknown) => unknown

/** How a format reads values that have more than one reading. */
export interface ConvertOptions {
  /** What a number in a TIMESTAMP / TIMESTAMP_LTZ column counts since 1970-01-01 00:00:00 UTC; null: a number is an error. */
  readonly epoch: 'seconds' | 'millis' | null
  /** The option that sets `epoch`, for the error's help line. */
  readonly epochOption: string
  /** A TIME keeps whole seconds only, as Flink's json format reads one (its csv format keeps milliseconds). */
  readonly wholeSecondTimes?: boolean
}

const NO_OPTIONS: ConvertOptions = { epoch: null, epochOption: 'json.timestamp-format.epoch' }

const INTEGER_RE = /^\s*[+-]?\d+\s*$/

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? v.slice(0, 60) + '…' : v)
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object'
  return String(v)
}

/**
 * An integer column's value, exact, never wrapped: a whole number in range, a JSON number with a
 * fraction truncated toward zero for INT and BIGINT (as Flink's JSON format reads them; it parses
 * TINYINT and SMALLINT from the text, so 1.5 is an error there), or a bigint (the exact value of a
 * JSON number beyond 2^53, see json-decoder.ts); anything out of the type's range is an error.
 */
function integer(v: unknown, type: DataType, bits: 8 | 16 | 32 | 64): Int64 {
  let exact: Int64 | null = null
  if (typeof v === 'number') {
    if (Number.isFinite(v) && (bits >= 32 || Number.isInteger(v))) {
      exact = Number.isSafeInteger(v)
        ? v + 0
        : Math.abs(v) < 2 ** 53
        ? Math.trunc(v) + 0
        : BigInt(Math.trunc(v))
    }
  } else if (typeof v === 'bigint') {
    exact = v
  } else if (typeof v === 'string') {
    if (!INTEGER_RE.test(v)) throw new ConvertError(show(v), formatType(type))
    exact = BigInt(v.trim())
  }
  if (exact === null) throw new ConvertError(show(v), formatType(type))
  const { min, max } = RANGES[bits]
  if (exact < min || exact > max) throw new ConvertError(`${show(v)} (out of range)`, `${formatType(type)} between ${min} and ${max}`)
  return typeof exact === 'bigint' ? int64(exact) : exact
}

const RANGES = { 8: intRange(8), 16: intRange(16), 32: intRange(32), 64: intRange(64) }

function double(v: unknown, type: DataType): number {
  if (typeof v === 'number') return v
  if (typeof v === 'string') {
    const t = v.trim()
    if (t !== '') {
      const n = Number(t)
      if (!Number.isNaN(n) || t === 'NaN') return n
    }
  }
  throw new ConvertError(show(v), formatType(type))
}

const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i)

/**
 * '-123.45' at `scale` without regular expressions, for plain numbers of at most 15 digits whose
 * fraction fits the scale; null for anything else (parseDecimal handles it).
 */
export function fastDecimal(text: string, scale: number): bigint | null {
  const n = text.length
  let i = 0
  let negative = false
  if (n > 0 && text.charCodeAt(0) === 45 /* - */) {
    negative = true
    i = 1
  }
  let value = 0
  let digits = 0
  let fraction = -1
  for (; i < n; i++) {
    const c = text.charCodeAt(i) - 48
    if (c >= 0 && c <= 9) {
      value = value * 10 + c
      digits++
      if (fraction >= 0) fraction++
    } else if (c === -2 /* . */ && fraction < 0) {
      fraction = 0
    } else {
      return null
    }
  }
  if (digits === 0 || digits > 15 || scale > 15 || fraction > scale) return null
  const unscaled = value * POW10[scale - Math.max(fraction, 0)]!
  if (!Number.isSafeInteger(unscaled)) return null
  return BigInt(negative ? -unscaled : unscaled)
}

function decimal(v: unknown, type: Extract<DataType, { kind: 'DECIMAL' }>, limit: bigint): bigint {
  // JSON numbers reach here as their source text (see json-decoder.ts), so no digits are lost.
  const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null
  const d = text === null ? null : fastDecimal(text, type.scale) ?? parseDecimal(text, type.scale)
  if (d === null) throw new ConvertError(show(v), formatType(type))
  if (d >= limit || d <= -limit) throw new ConvertError(show(v), `${formatType(type)} (too many digits)`)
  return d
}

function truncateTo(precision: number): (ms: number) => number {
  if (precision >= 3) return ms => ms
  const unit = 10 ** (3 - precision)
  return ms => ms - (((ms % unit) + unit) % unit)
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

const DAYS_IN_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function digits(s: string, at: number, count: number): number {
  let v = 0
  for (let i = at; i < at + count; i++) {
    const c = s.charCodeAt(i) - 48
    if (c < 0 || c > 9) return -1
    v = v * 10 + c
  }
  return v
}

/**
 * 'yyyy-MM-dd HH:mm:ss[.S{1,3}]' (or with 'T') to epoch ms without regular expressions or Date
 * objects; null for any other shape (parseTimestamp handles those).
 */
export function fastTimestamp(s: string): number | null {
  const n = s.length
  if (n < 19 || n > 23 || n === 20) return null
  const sep = s.charCodeAt(10)
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || (sep !== 32 && sep !== 84) || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return null
  let f = 0
  if (n > 19) {
    if (s.charCodeAt(19) !== 46 /* . */) return null
    f = digits(s, 20, n - 20)
    if (f < 0) return null
    f *= POW10[3 - (n - 20)]!
  }
  return civilMillis(digits(s, 0, 4), digits(s, 5, 2), digits(s, 8, 2), digits(s, 11, 2), digits(s, 14, 2), digits(s, 17, 2), f)
}

/**
 * fastTimestamp over the ASCII bytes of `b` from `s` to `e` (a JSON string's content): the same
 * value or null, without making a string of them.
 */
export function fastTimestampBytes(b: Uint8Array, s: number, e: number): number | null {
  const n = e - s
  if (n < 19 || n > 23 || n === 20) return null
  let f = 0
  if (n > 19) {
    if (b[s + 19] !== 46 /* . */) return null
    f = byteDigits(b, s + 20, n - 20)
    if (f < 0) return null
    f *= POW10[3 - (n - 20)]!
  }
  // A stream's timestamps mostly share their second with the one before (Nexmark's bids: ~100 a
  // millisecond): the same 19 bytes as the last valid 'yyyy-MM-dd HH:mm:ss' are the same second.
  if (lastSecondMs !== null && sameBytes(b, s, lastSecond, 19)) return lastSecondMs + f
  const sep = b[s + 10]
  if (b[s + 4] !== 45 || b[s + 7] !== 45 || (sep !== 32 && sep !== 84) || b[s + 13] !== 58 || b[s + 16] !== 58) return null
  const days = daysOfDateBytes(b, s)
  if (days === null) return null
  const h = byteDigits(b, s + 11, 2)
  const mi = byteDigits(b, s + 14, 2)
  const se = byteDigits(b, s + 17, 2)
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) return null
  const ms = days * 86_400_000 + h * 3_600_000 + mi * 60_000 + se * 1000
  for (let j = 0; j < 19; j++) lastSecond[j] = b[s + j]!
  lastSecondMs = ms
  return ms + f
}

/** The last valid 'yyyy-MM-dd HH:mm:ss' fastTimestampBytes read, and its epoch ms (null: none yet). */
const lastSecond = new Uint8Array(19)
let lastSecondMs: number | null = null

function sameBytes(b: Uint8Array, s: number, than: Uint8Array, n: number): boolean {
  for (let j = 0; j < n; j++) if (b[s + j] !== than[j]) return false
  return true
}

/** The last valid date read by daysOfDateBytes ('yyyy-MM-dd' bytes) and its day number: timestamps of a stream mostly share their date. */
const lastDate = new Uint8Array(10)
let lastDays: number | null = null

/** The day number (days since 1970-01-01) of the date 'yyyy-MM-dd' in the bytes at `s`, or null when it is no valid date. */
function daysOfDateBytes(b: Uint8Array, s: number): number | null {
  if (lastDays !== null) {
    let same = true
    for (let j = 0; j < 10; j++) {
      if (b[s + j] !== lastDate[j]) {
        same = false
        break
      }
    }
    if (same) return lastDays
  }
  const y = byteDigits(b, s, 4)
  const mo = byteDigits(b, s + 5, 2)
  const d = byteDigits(b, s + 8, 2)
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > DAYS_IN_MONTH[mo]!) return null
  if (mo === 2 && d === 29 && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) return null
  const days = daysFromCivil(y, mo, d)
  for (let j = 0; j < 10; j++) lastDate[j] = b[s + j]!
  lastDays = days
  return days
}

/** Epoch ms of a date and time of day whose fields were read as digits (-1: not digits); null when they are no valid instant. */
function civilMillis(y: number, mo: number, d: number, h: number, mi: number, se: number, ms: number): number | null {
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > DAYS_IN_MONTH[mo]! || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59) return null
  if (mo === 2 && d === 29 && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) return null
  return daysFromCivil(y, mo, d) * 86_400_000 + h * 3_600_000 + mi * 60_000 + se * 1000 + ms
}

function byteDigits(b: Uint8Array, at: number, count: number): number {
  let v = 0
  for (let i = at; i < at + count; i++) {
    const c = b[i]! - 48
    if (c < 0 || c > 9) return -1
    v = v * 10 + c
  }
  return v
}

const EPOCH_TEXT = /^\s*-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/

/**
 * A TIMESTAMP column's value: text as 'yyyy-MM-dd HH:mm:ss[.SSS]' or ISO-8601. A number (or a
 * string of one) has no reading of its own, seconds and milliseconds being equally likely, so it
 * is an error unless the format's epoch option says which it counts (Flink rejects numbers too).
 */
function timestamp(v: unknown, type: DataType, options: ConvertOptions): number {
  if (typeof v === 'string') {
    const ms = fastTimestamp(v) ?? parseTimestamp(v)
    if (ms !== null) return ms
  }
  const numeric = typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && EPOCH_TEXT.test(v)
  if (numeric) {
    const n = Number(v)
    if (options.epoch !== null) return epochToMillis(n, options.epoch)
    throw new ConvertError(`${typeof v === 'number' ? 'the number' : 'the numeric string'} ${show(v)}`,
      `${formatType(type)} as 'yyyy-MM-dd HH:mm:ss[.SSS]' or ISO-8601`,
      `a number could be epoch seconds or milliseconds: set '${options.epochOption}' = 'seconds' or 'millis' to read it as one of them`)
  }
  throw new ConvertError(show(v), `${formatType(type)} as 'yyyy-MM-dd HH:mm:ss[.SSS]' or ISO-8601`)
}

/** Epoch seconds or milliseconds to milliseconds, truncating what is finer than a millisecond. */
export function epochToMillis(n: number, unit: 'seconds' | 'millis'): number {
  if (unit === 'millis') return Math.trunc(n) + 0
  if (Number.isInteger(n)) return n * 1000
  // On the digits of its shortest decimal form, so 1714564800.123 is …123 ms, not …122.99998.
  const m = /^(-?)(\d+)\.(\d+)$/.exec(String(n))
  if (m === null) return Math.trunc(n * 1000) + 0 // exponent notation: far from today's epochs
  const ms = Number(m[2]) * 1000 + Number(m[3]!.padEnd(3, '0').slice(0, 3))
  return m[1] === '-' ? 0 - ms : ms
}

function date(v: unknown, type: DataType): number {
  if (typeof v === 'string') {
    const d = parseDate(v)
    if (d !== null) return d
  }
  // A number is not read as days since 1970 (as in Flink): that reading is too easy to get wrong silently.
  throw new ConvertError(typeof v === 'number' ? `the number ${v}` : show(v), `${formatType(type)} as 'yyyy-MM-dd'`)
}

/** A TIME from 'HH:mm:ss[.fff]', cut to a multiple of `unit` milliseconds (1000 for the json format, as Flink reads it). */
function time(v: unknown, type: DataType, unit: number): number {
  if (typeof v === 'string') {
    const t = parseTime(v)
    if (t !== null) return unit === 1 ? t : t - (t % unit)
  }
  throw new ConvertError(typeof v === 'number' ? `the number ${v}` : show(v), `${formatType(type)} as 'HH:mm:ss[.SSS]'`)
}

function boolean(v: unknown, type: DataType): boolean {
  if (typeof v === 'boolean') return v
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase()
    if (t === 'true') return true
    if (t === 'false') return false
  }
  throw new ConvertError(show(v), formatType(type))
}

function string(v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

/**
 * A converter for values of `type` coming from JSON (numbers, strings, booleans, nested values) or
 * from CSV (always strings). Callers handle NULL before calling it.
 */
export function converterFor(type: DataType, options: ConvertOptions = NO_OPTIONS): Converter {
  switch (type.kind) {
    case 'BOOLEAN':
      return v => boolean(v, type)
    case 'TINYINT':
      return v => integer(v, type, 8)
    case 'SMALLINT':
      return v => integer(v, type, 16)
    case 'INT':
      return v => typeof v === 'number' && (v | 0) === v ? v + 0 : integer(v, type, 32)
    case 'BIGINT':
      return v => typeof v === 'number' && Number.isSafeInteger(v) ? v + 0 : integer(v, type, 64)
    case 'DOUBLE':
      if (type.float === true) return v => Math.fround(typeof v === 'number' ? v : double(v, type))
      return v => typeof v === 'number' ? v : double(v, type)
    case 'DECIMAL': {
      const limit = 10n ** BigInt(type.precision)
      return v => decimal(v, type, limit)
    }
    case 'STRING':
      return string
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const trunc = truncateTo(type.precision)
      return type.precision >= 3 ? v => timestamp(v, type, options) : v => trunc(timestamp(v, type, options))
    }
    case 'DATE':
      return v => date(v, type)
    case 'BYTES':
      return v => {
        const b = typeof v === 'string' ? bytesOfBase64(v) : null
        if (b === null) throw new ConvertError(show(v), 'BYTES as base64 text')
        return b
      }
    case 'TIME':
      return options.wholeSecondTimes === true ? v => time(v, type, 1000) : v => time(v, type, type.precision >= 3 ? 1 : 10 ** (3 - type.precision))
    case 'INTERVAL':
      return v => {
        if (typeof v === 'number' && Number.isFinite(v)) return v
        if (typeof v === 'string' && INTEGER_RE.test(v)) return Number(v)
        throw new ConvertError(show(v), 'INTERVAL (milliseconds)')
      }
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      return nestedConverter(type, t => converterFor(t, options))
    case 'NULL':
      return () => null
    default:
      return assertNever(type)
  }
}
