// Parsing and printing of values in the engine's representation (see common/types.ts):
// timestamps as epoch milliseconds, dates as epoch days, decimals as unscaled bigints.
import type { DataType } from './types.js'

const MS_PER_DAY = 86_400_000

function pad(n: number, width: number): string {
  const s = String(Math.abs(n))
  return (n < 0 ? '-' : '') + (s.length >= width ? s : '0'.repeat(width - s.length) + s)
}

/** 0 → '1970-01-01 00:00:00.000'. Always prints three fraction digits. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms)
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)} ` +
    `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(d.getUTCMilliseconds(), 3)}`
}

/** 0 → '1970-01-01'. */
export function formatDate(days: number): string {
  const d = new Date(days * MS_PER_DAY)
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`
}

/**
 * Milliseconds of the day as TIME(precision) prints: 45296789 at 3 → '12:34:56.789', at 0 → '12:34:56'.
 * Digits beyond milliseconds are zeros (values hold milliseconds, as Flink's).
 */
export function formatTime(ms: number, precision = 0): string {
  const h = Math.floor(ms / 3_600_000), m = Math.floor(ms / 60_000) % 60, s = Math.floor(ms / 1000) % 60
  const base = `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}`
  if (precision <= 0) return base
  return `${base}.${(pad(ms % 1000, 3) + '000000').slice(0, precision)}`
}

/** Bytes as lower-case hex digits, two a byte. */
export function hexOf(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length; i++) s += (bytes[i]! < 16 ? '0' : '') + bytes[i]!.toString(16)
  return s
}

/** Hex digits (either case, an even count) as bytes; null when the text is not that. */
export function bytesOfHex(text: string): Uint8Array | null {
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) return null
  const out = new Uint8Array(text.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16)
  return out
}

/** Bytes as base64 text (with padding), as Flink's json and csv formats write BYTES. */
export function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64')
}

/** Base64 text (standard alphabet, padded or not) as bytes; null when the text is not base64. */
export function bytesOfBase64(text: string): Uint8Array | null {
  const t = text.trim()
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(t) || t.length % 4 === 1) return null
  return new Uint8Array(Buffer.from(t, 'base64'))
}

/**
 * SQL's order of two values of one type for MIN, MAX and ORDER BY: NaN after every other number
 * (DuckDB, PostgreSQL and Java's Double.compare order it so), whatever the order rows arrive in —
 * with < and > alone NaN is neither below nor above anything, and the first value seen would win.
 */
export function before(v: unknown, than: unknown): boolean {
  return (v as number) < (than as number) || (than !== than && v === v)
}

/** `v` comes after `than` in the order of `before` (NaN after every other number). */
export function after(v: unknown, than: unknown): boolean {
  return (v as number) > (than as number) || (v !== v && than === than)
}

/** Equal values, NaN equal to NaN (for a retracted extreme). */
export function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b)
}

/** -1, 0 or 1: bytes compared unsigned, one by one, a prefix first (as Flink orders BINARY values). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}

const TIME_RE = /^\s*(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?\s*$/

/**
 * Parses 'HH:mm[:ss[.fff…]]' to milliseconds of the day (fractions beyond milliseconds are cut off, as
 * Flink's int of milliseconds does); null when the text is not a time of day (hour over 23 and so on).
 */
export function parseTime(text: string): number | null {
  const m = TIME_RE.exec(text)
  if (!m) return null
  const hour = Number(m[1]), minute = Number(m[2]), second = Number(m[3] ?? 0)
  if (hour > 23 || minute > 59 || second > 59) return null
  const millis = m[4] ? Number(m[4].padEnd(3, '0').slice(0, 3)) : 0
  return ((hour * 60 + minute) * 60 + second) * 1000 + millis
}

const TS_RE = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$/

/**
 * Parses 'yyyy-MM-dd HH:mm:ss[.SSS]', 'yyyy-MM-ddTHH:mm:ss[.SSS][Z]' or 'yyyy-MM-dd' to epoch
 * milliseconds (UTC wall clock); returns null when the text is not a timestamp.
 */
export function parseTimestamp(text: string): number | null {
  const m = TS_RE.exec(text)
  if (!m) return null
  const [, y, mo, d, h, mi, s, frac, zone] = m
  const month = Number(mo), day = Number(d), hour = Number(h ?? 0), minute = Number(mi ?? 0), second = Number(s ?? 0)
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null
  const millis = frac ? Math.floor(Number(frac.padEnd(3, '0').slice(0, 3))) : 0
  let ms = Date.UTC(Number(y), month - 1, day, hour, minute, second, millis)
  if (Number.isNaN(ms)) return null
  // Reject rolled-over dates such as 2024-02-30.
  if (new Date(ms).getUTCDate() !== day) return null
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000
  }
  return ms
}

/** Parses 'yyyy-MM-dd' to epoch days, or null. */
export function parseDate(text: string): number | null {
  const m = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$/.exec(text)
  if (!m) return null
  const ms = parseTimestamp(text)
  return ms === null ? null : Math.floor(ms / MS_PER_DAY)
}

/** '123.4' at scale 2 → 12340n; rounds half up beyond the scale; null when not a number. */
export function parseDecimal(text: string, scale: number): bigint | null {
  const m = /^\s*([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(text)
  if (!m || (m[2] === '' && (m[3] === undefined || m[3] === ''))) return null
  const negative = m[1] === '-'
  const digits = (m[2] ?? '') + (m[3] ?? '')
  const pointPos = (m[2] ?? '').length + (m[4] ? Number(m[4]) : 0)
  // value = 0.digits × 10^pointPos; we want round(value × 10^scale)
  const wantLen = pointPos + scale
  let unscaled: bigint
  if (wantLen <= 0) {
    unscaled = wantLen === 0 && digits.length > 0 && Number(digits[0]) >= 5 ? 1n : 0n
  } else if (digits.length <= wantLen) {
    unscaled = BigInt((digits + '0'.repeat(wantLen - digits.length)) || '0')
  } else {
    const kept = BigInt(digits.slice(0, wantLen) || '0')
    unscaled = Number(digits[wantLen]) >= 5 ? kept + 1n : kept
  }
  return negative ? -unscaled : unscaled
}

/** 12340n at scale 2 → '123.40'. */
export function formatDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n
  let s = (negative ? -unscaled : unscaled).toString()
  if (scale > 0) {
    if (s.length <= scale) s = '0'.repeat(scale - s.length + 1) + s
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`
  }
  return negative ? `-${s}` : s
}

/**
 * A DOUBLE as Flink prints it (Java's Double.toString): the fewest digits that read back as the same double,
 * plain from 10^-3 to under 10^7 with at least one fraction digit ('1.0', '0.001'), else computerized
 * scientific notation ('1.0E7', '1.5E-4', '-1.0E21').
 */
export function formatDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity'
  if (v === 0) return 1 / v < 0 ? '-0.0' : '0.0'
  const a = Math.abs(v)
  if (a >= 1e-3 && a < 1e7) return Number.isInteger(v) ? `${v}.0` : String(v)
  const [m, e] = v.toExponential().split('e') as [string, string]
  return `${m.includes('.') ? m : `${m}.0`}E${Number(e)}`
}

/**
 * A FLOAT as Java's Float.toString (Flink's text for FLOAT): the fewest digits that read back as the same
 * float (0.1 stays '0.1'), plain from 10^-3 to under 10^7 with at least one fraction digit ('1.0'), else
 * computerized scientific notation ('1.0E10', '1.0E-4').
 */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity'
  if (v === 0) return 1 / v < 0 ? '-0.0' : '0.0'
  const f = Math.fround(v)
  let digits = '', exp = 0
  for (let p = 1; p <= 9; p++) {
    const s = f.toExponential(p - 1)
    if (Math.fround(Number(s)) === f) {
      const [mant, e] = s.split('e') as [string, string]
      digits = mant.replace('-', '').replace('.', '')
      exp = Number(e)
      break
    }
  }
  digits = digits.replace(/0+$/, '') || '0'
  const sign = f < 0 ? '-' : ''
  const abs = Math.abs(f)
  if (abs >= 1e-3 && abs < 1e7) {
    if (exp >= 0) {
      const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0')
      const frac = digits.slice(exp + 1) || '0'
      return `${sign}${int}.${frac}`
    }
    return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${exp}`
}

/** Months as a year-month interval, as Flink prints INTERVAL YEAR TO MONTH: 27 → '+2-03', -14 → '-1-02'. */
export function formatYearMonth(months: number): string {
  const abs = Math.abs(months)
  return `${months < 0 ? '-' : '+'}${Math.floor(abs / 12)}-${pad(abs % 12, 2)}`
}

/** A value as text for print, CSV and error messages; NULL prints as 'NULL' unless `nullText` says otherwise. */
export function formatValue(v: unknown, type: DataType, nullText = 'NULL'): string {
  if (v === null || v === undefined) return nullText
  switch (type.kind) {
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return formatTimestamp(v as number)
    case 'DATE':
      return formatDate(v as number)
    case 'TIME':
      return formatTime(v as number, type.precision)
    case 'BYTES':
      return `x'${hexOf(v as Uint8Array)}'`
    case 'DECIMAL':
      return formatDecimal(v as bigint, type.scale)
    case 'DOUBLE':
      return type.float === true ? formatFloat(v as number) : formatDouble(v as number)
    case 'BOOLEAN':
      return v ? 'TRUE' : 'FALSE'
    case 'INTERVAL':
      return type.yearMonth === true ? formatYearMonth(v as number) : formatInterval(v as number)
    // As Flink casts them to STRING: ROW (1, abc), ARRAY [1, 2], MAP {a=1, b=2}; NULL inside as NULL.
    case 'ROW':
      return '(' + (v as readonly unknown[]).map((x, i) => formatValue(x, type.fields[i]!.type)).join(', ') + ')'
    case 'ARRAY':
      return '[' + (v as readonly unknown[]).map(x => formatValue(x, type.element)).join(', ') + ']'
    case 'MAP':
      return '{' + (v as readonly (readonly [unknown, unknown])[]).map(([k, x]) => `${formatValue(k, type.key)}=${formatValue(x, type.value)}`).join(', ') + '}'
    default:
      return String(v)
  }
}

/** Milliseconds as a day-time interval: 90061001 → '+1 01:01:01.001'. */
export function formatInterval(ms: number): string {
  const sign = ms < 0 ? '-' : '+'
  let rest = Math.abs(ms)
  const days = Math.floor(rest / MS_PER_DAY)
  rest -= days * MS_PER_DAY
  const h = Math.floor(rest / 3_600_000)
  rest -= h * 3_600_000
  const m = Math.floor(rest / 60_000)
  rest -= m * 60_000
  const s = Math.floor(rest / 1000)
  const f = rest - s * 1000
  return `${sign}${days} ${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(f, 3)}`
}

/**
 * Whether a value can stand for itself as a lookup key: `===` (and a Map's SameValueZero) hold for it
 * exactly when the values are the same — null, a string, a boolean, a bigint, or a number other than
 * NaN (one Map entry, several encodings) and -0 (a Map takes it for 0: what is found would hold the
 * other zero, where a KeyRef keeps each row's own value).
 * Batch keys (runtime/batch-keys.ts) and the upsert sink's compaction look such values up directly
 * instead of encoding them first.
 */
export function isPlainKeyValue(v: unknown): boolean {
  switch (typeof v) {
    case 'number':
      return v === v && (v !== 0 || 1 / v > 0)
    case 'string':
    case 'bigint':
    case 'boolean':
      return true
    default:
      return v === null
  }
}

/**
 * Every surrogate in `s` is half of a pair (String.prototype.isWellFormed, in Node 20, not in
 * ES2023's types): a string UTF-8 can hold; a lone surrogate would come back from it as U+FFFD.
 */
export function wellFormed(s: string): boolean {
  return (s as string & { isWellFormed(): boolean }).isWellFormed()
}
