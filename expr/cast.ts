// CAST and TRY_CAST: which conversions exist, how they are bound (literals are folded), and the
// runtime conversion functions the compiler calls for the casts it does not inline.
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import { integralBits, isNumeric, sameType, withNullable, type DataType } from '../common/types.js'
import { formatDate, formatDecimal, formatDouble, formatFloat, formatInterval, formatYearMonth, formatTime, formatTimestamp, formatValue, parseDate,
  parseDecimal, parseTime, parseTimestamp } from '../common/values.js'
import { literal, type Rex } from '../core/rex.js'
import { decimalView, typeName } from './coercion.js'
import { decimalToDouble, doubleToDecimal, fitsPrecision, pow10, rescale } from './decimal.js'
import { MS_PER_DAY, floorDiv } from './calendar.js'
import { doubleToInt, int64ToDouble, parseInt64, wrapInt } from '../common/int64.js'

/** True when CAST(from AS to) is defined (it may still fail at run time on a bad string). */
export function canCast(from: DataType, to: DataType): boolean {
  if (from.kind === 'NULL') return true
  if (to.kind === 'NULL') return false
  if (from.kind === 'ROW' || from.kind === 'ARRAY' || from.kind === 'MAP' || to.kind === 'ROW' || to.kind === 'ARRAY' || to.kind === 'MAP') {
    // Nested values cast to STRING (Flink's text) or to a nested type of the same shape, element by
    // element (a ROW by position: CAST(ROW(1, 'a') AS ROW<id INT, name STRING>) names the fields).
    if (to.kind === 'STRING') return from.kind !== 'STRING'
    if (from.kind === 'ROW' && to.kind === 'ROW') {
      return from.fields.length === to.fields.length && from.fields.every((f, i) => canCast(f.type, to.fields[i]!.type))
    }
    if (from.kind === 'ARRAY' && to.kind === 'ARRAY') return canCast(from.element, to.element)
    if (from.kind === 'MAP' && to.kind === 'MAP') return canCast(from.key, to.key) && canCast(from.value, to.value)
    return false
  }
  if (from.kind === 'INTERVAL' && to.kind === 'INTERVAL') return from.yearMonth === to.yearMonth
  if (from.kind === to.kind) return true
  if (to.kind === 'STRING') return true
  switch (from.kind) {
    case 'STRING':
      return to.kind !== 'INTERVAL'
    case 'BOOLEAN':
      return isNumeric(to)
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'DOUBLE':
    case 'DECIMAL':
      return isNumeric(to) || to.kind === 'BOOLEAN' || to.kind === 'TIMESTAMP_LTZ'
    case 'TIMESTAMP':
      return to.kind === 'TIMESTAMP_LTZ' || to.kind === 'DATE' || to.kind === 'TIME'
    case 'TIMESTAMP_LTZ':
      return to.kind === 'TIMESTAMP' || to.kind === 'DATE' || to.kind === 'TIME' || isNumeric(to)
    case 'DATE':
      return to.kind === 'TIMESTAMP' || to.kind === 'TIMESTAMP_LTZ'
    // A time of day on 1970-01-01, as Flink casts it.
    case 'TIME':
      return to.kind === 'TIMESTAMP' || to.kind === 'TIMESTAMP_LTZ'
    case 'INTERVAL':
    case 'BYTES':
      return false
  }
}

/** CAST(from AS to) where either side may be a FLOAT: the DOUBLE conversion, rounded to 32 bits for a FLOAT target. */
function castFn(from: DataType, to: DataType, fail: (v: unknown) => null): CastFn {
  if (to.kind === 'DOUBLE' && to.float === true) {
    if (from.kind === 'DOUBLE' && from.float === true) return v => v
    const f = castFnOf(from, to, fail)
    return v => {
      const r = f(v)
      return typeof r === 'number' ? Math.fround(r) : r
    }
  }
  if (to.kind === 'STRING' && from.kind === 'DOUBLE' && from.float === true) return formatFloat
  if (to.kind === 'STRING' && from.kind === 'INTERVAL' && from.yearMonth === true) return formatYearMonth
  return castFnOf(from, to, fail)
}

function castHelp(from: DataType, to: DataType): string | undefined {
  if (isNumeric(from) && to.kind === 'TIMESTAMP') return 'for epoch seconds or milliseconds use TO_TIMESTAMP_LTZ(n, 0) or TO_TIMESTAMP_LTZ(n, 3)'
  if (from.kind === 'TIMESTAMP' && isNumeric(to)) return 'cast to TIMESTAMP_LTZ first to get epoch seconds, or use UNIX_TIMESTAMP'
  return undefined
}

/** True when a CAST of a non-null value can still give NULL (DECIMAL overflow, NaN to DECIMAL). */
function castMayYieldNull(from: DataType, to: DataType): boolean {
  if (to.kind !== 'DECIMAL') return false
  if (from.kind === 'BOOLEAN') return to.precision - to.scale < 1
  const f = decimalView(from)
  if (f === null) return from.kind !== 'NULL'
  const fromDigits = f.precision - f.scale, toDigits = to.precision - to.scale
  // Rounding away fraction digits can carry into one more integer digit (9.99 → 10.0).
  return !(toDigits > fromDigits || (toDigits === fromDigits && to.scale >= f.scale))
}

/**
 * Binds CAST(rex AS to) (or TRY_CAST). Throws a plan error when the cast does not exist; a literal
 * operand is converted right away. The result's nullability follows the operand (TRY_CAST, and
 * casts that can overflow a DECIMAL, are nullable); `to.nullable` is ignored.
 *
 * @example castTo(inputRef(0, T.string()), T.int(), span) // CAST($0 AS INT)
 */
export function castTo(rex: Rex, to: DataType, span?: Span, tryCast = false): Rex {
  const from = rex.type
  if (!canCast(from, to)) {
    throw WeirError.plan(`cannot cast ${typeName(from)} to ${typeName(to)}`, { span, help: castHelp(from, to) })
  }
  const nullable = from.nullable || tryCast || castMayYieldNull(from, to)
  const type = withNullable(to, nullable)
  if (rex.kind === 'Literal') {
    if (rex.value === null || rex.value === undefined) return literal(null, withNullable(to, true))
    try {
      const value = makeCastFn(from, to, tryCast, span)(rex.value)
      return literal(value, withNullable(to, value === null))
    } catch (e) {
      if (e instanceof WeirError && e.kind === 'execution') throw WeirError.plan(e.message, { span, help: e.help })
      throw e
    }
  }
  if (!tryCast && sameType(from, to) && from.nullable === nullable && sameTimeDetails(from, to)) return rex
  return span === undefined
    ? { kind: 'Call', op: tryCast ? 'TRY_CAST' : 'CAST', args: [rex], type }
    : { kind: 'Call', op: tryCast ? 'TRY_CAST' : 'CAST', args: [rex], type, span }
}

function sameTimeDetails(a: DataType, b: DataType): boolean {
  if ((a.kind === 'TIMESTAMP' || a.kind === 'TIMESTAMP_LTZ') && (b.kind === 'TIMESTAMP' || b.kind === 'TIMESTAMP_LTZ')) {
    return a.precision === b.precision && a.timeAttr === b.timeAttr
  }
  if (a.kind === 'TIME' && b.kind === 'TIME') return a.precision === b.precision
  return true
}

/**
 * An implicit conversion inserted by the binder: nothing when the types already agree (timestamp
 * precision and time attributes aside), a typed NULL for a NULL literal, else a CAST keeping the
 * operand's nullability.
 */
export function implicitCast(rex: Rex, to: DataType, span?: Span): Rex {
  if (to.kind === 'NULL') return rex
  if (rex.type.kind === 'NULL') return literal(null, withNullable(to, true))
  if (sameType(rex.type, to)) return rex
  return castTo(rex, withNullable(to, rex.type.nullable), span)
}

/** 'yyyy-MM-dd HH:mm:ss[.f…]' with exactly `precision` fraction digits, as Flink casts TIMESTAMP(p) to STRING. */
export function formatTimestampWithPrecision(ms: number, precision: number): string {
  const s = formatTimestamp(ms)
  if (precision === 3) return s
  if (precision <= 0) return s.slice(0, 19)
  if (precision < 3) return s.slice(0, 20 + precision)
  return s + '0'.repeat(precision - 3)
}

function truncateToPrecision(ms: number, precision: number): number {
  if (precision >= 3) return ms
  const unit = 10 ** (3 - precision)
  return Math.floor(ms / unit) * unit
}

function castError(v: unknown, from: DataType, to: DataType, span: Span | undefined): WeirError {
  let text = typeof v === 'string' ? v : formatValue(v, from)
  if (text.length > 100) text = text.slice(0, 100) + '…'
  return WeirError.execution(`cannot cast '${text}' to ${typeName(to)}`, { span, help: 'use TRY_CAST to get NULL instead of an error' })
}

const DOUBLE_RE = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|NaN|Infinity)$/
const TRUE_WORDS = new Set(['true', 't', 'yes', 'y', '1'])
const FALSE_WORDS = new Set(['false', 'f', 'no', 'n', '0'])

type CastFn = (v: any) => unknown

const UTF8_ENCODER = new TextEncoder()
const UTF8_DECODER = new TextDecoder('utf-8')

/**
 * The run-time conversion for CAST(from AS to), for non-null input. A bad value raises a WeirError
 * execution error ("cannot cast 'abc' to INT"), or gives NULL when `tryCast`. DECIMAL overflow
 * gives NULL in both cases, as in Flink.
 */
export function makeCastFn(from: DataType, to: DataType, tryCast: boolean, span?: Span): (v: unknown) => unknown {
  const fail = tryCast ? (): null => null : (v: unknown): null => {
    throw castError(v, from, to, span)
  }
  return castFn(from, to, fail)
}

function castFnOf(from: DataType, to: DataType, fail: (v: unknown) => null): CastFn {
  const id: CastFn = v => v
  switch (to.kind) {
    case 'NULL':
      return () => null
    case 'STRING':
      switch (from.kind) {
        case 'STRING':
          return id
        case 'BOOLEAN':
          return v => (v ? 'TRUE' : 'FALSE')
        case 'TINYINT':
        case 'SMALLINT':
        case 'INT':
        case 'BIGINT':
          return v => String(v)
        case 'DOUBLE':
          return v => formatDouble(v)
        case 'DECIMAL': {
          const s = from.scale
          return v => formatDecimal(v, s)
        }
        case 'TIMESTAMP':
        case 'TIMESTAMP_LTZ': {
          const p = from.precision
          return v => formatTimestampWithPrecision(v, p)
        }
        case 'DATE':
          return v => formatDate(v)
        case 'TIME': {
          const p = from.precision
          return v => formatTime(v, p)
        }
        case 'INTERVAL':
          return v => formatInterval(v)
        // The bytes read as UTF-8, as Flink casts BYTES to STRING (a bad sequence becomes U+FFFD).
        case 'BYTES':
          return v => UTF8_DECODER.decode(v)
        case 'ROW':
        case 'ARRAY':
        case 'MAP':
          return v => formatValue(v, from)
        case 'NULL':
          return () => null
      }
      break
    case 'BOOLEAN':
      switch (from.kind) {
        case 'BOOLEAN':
          return id
        case 'STRING':
          return (v: string) => {
            const w = v.trim().toLowerCase()
            return TRUE_WORDS.has(w) ? true : FALSE_WORDS.has(w) ? false : fail(v)
          }
        case 'DECIMAL':
          return v => v !== 0n
        // A BIGINT zero is always the number 0 (see common/int64.ts).
        case 'TINYINT':
        case 'SMALLINT':
        case 'INT':
        case 'BIGINT':
        case 'DOUBLE':
          return v => v !== 0
        default:
          break
      }
      break
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT': {
      // As Java's primitive casts (Flink): integers narrow by wrapping, doubles saturate at the
      // ends of (long) or (int) first; only a string out of range is an error.
      const bits = integralBits(to) as 8 | 16 | 32 | 64
      switch (from.kind) {
        case 'TINYINT':
        case 'SMALLINT':
        case 'INT':
        case 'BIGINT':
          return integralBits(from) <= bits ? id : v => wrapInt(v, bits)
        case 'DOUBLE':
          return v => doubleToInt(v, bits)
        case 'DECIMAL': {
          const d = pow10(from.scale)
          return v => wrapInt(v / d, bits)
        }
        case 'BOOLEAN':
          return v => (v ? 1 : 0)
        case 'TIMESTAMP_LTZ':
          return v => wrapInt(Math.floor(v / 1000), bits)
        case 'STRING':
          return (v: string) => parseInt64(v, bits) ?? fail(v)
        default:
          break
      }
      break
    }
    case 'DOUBLE':
      switch (from.kind) {
        case 'TINYINT':
        case 'SMALLINT':
        case 'INT':
        case 'DOUBLE':
          return id
        case 'BIGINT':
          return int64ToDouble
        case 'DECIMAL': {
          const s = from.scale
          return v => decimalToDouble(v, s)
        }
        case 'BOOLEAN':
          return v => (v ? 1 : 0)
        case 'TIMESTAMP_LTZ':
          return v => v / 1000
        case 'STRING':
          return (v: string) => {
            const t = v.trim()
            return DOUBLE_RE.test(t) ? Number(t) : fail(v)
          }
        default:
          break
      }
      break
    case 'DECIMAL': {
      const p = to.precision, s = to.scale
      const check = (u: bigint | null): bigint | null => (u !== null && fitsPrecision(u, p) ? u : null)
      switch (from.kind) {
        case 'TINYINT':
        case 'SMALLINT':
        case 'INT':
        case 'BIGINT': {
          const f = pow10(s)
          return v => check(BigInt(v) * f)
        }
        case 'DOUBLE':
          return v => check(doubleToDecimal(v, s))
        case 'DECIMAL': {
          const fs = from.scale
          return v => check(rescale(v, fs, s))
        }
        case 'BOOLEAN': {
          const f = pow10(s)
          return v => check(v ? f : 0n)
        }
        case 'TIMESTAMP_LTZ':
          return v => check(rescale(BigInt(v), 3, s))
        case 'STRING':
          return (v: string) => {
            const u = parseDecimal(v, s)
            return u === null ? fail(v) : check(u)
          }
        default:
          break
      }
      break
    }
    case 'DATE':
      switch (from.kind) {
        case 'DATE':
          return id
        case 'TIMESTAMP':
        case 'TIMESTAMP_LTZ':
          return v => floorDiv(v, MS_PER_DAY)
        case 'STRING':
          return (v: string) => {
            const d = parseDate(v)
            if (d !== null) return d
            const ts = parseTimestamp(v)
            return ts !== null ? floorDiv(ts, MS_PER_DAY) : fail(v)
          }
        default:
          break
      }
      break
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const p = to.precision
      switch (from.kind) {
        case 'TIMESTAMP':
        case 'TIMESTAMP_LTZ':
          return p >= 3 || from.precision <= p ? id : v => truncateToPrecision(v, p)
        case 'DATE':
          return v => v * MS_PER_DAY
        case 'TIME':
          return p >= 3 ? id : v => truncateToPrecision(v, p)
        case 'STRING':
          return (v: string) => {
            const ts = parseTimestamp(v)
            return ts === null ? fail(v) : truncateToPrecision(ts, p)
          }
        // Numbers become TIMESTAMP_LTZ as epoch seconds (canCast allows no other numeric target).
        case 'TINYINT':
        case 'SMALLINT':
        case 'INT':
        case 'BIGINT':
          return v => truncateToPrecision(Number(v) * 1000, p)
        case 'DOUBLE':
          return v => (Number.isFinite(v) ? truncateToPrecision(Math.floor(v * 1000), p) : fail(v))
        case 'DECIMAL': {
          const fs = from.scale
          return v => truncateToPrecision(Number(rescale(v, fs, 3)), p)
        }
        default:
          break
      }
      break
    }
    case 'TIME': {
      const p = to.precision
      switch (from.kind) {
        case 'TIME':
          return p >= 3 || from.precision <= p ? id : v => truncateToPrecision(v, p)
        case 'TIMESTAMP':
        case 'TIMESTAMP_LTZ':
          return v => truncateToPrecision(v - floorDiv(v, MS_PER_DAY) * MS_PER_DAY, p)
        case 'STRING':
          return (v: string) => {
            const t = parseTime(v)
            return t === null ? fail(v) : truncateToPrecision(t, p)
          }
        default:
          break
      }
      break
    }
    case 'INTERVAL':
      if (from.kind === 'INTERVAL' && from.yearMonth === to.yearMonth) return id
      break
    case 'BYTES':
      if (from.kind === 'BYTES') return id
      // A string's UTF-8 bytes, as Flink casts STRING to BYTES.
      if (from.kind === 'STRING') return v => UTF8_ENCODER.encode(v)
      break
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      return nestedCastFn(from, to, fail) ?? (v => fail(v))
  }
  return v => fail(v)
}

/** Element-wise CAST between nested types of one shape (canCast checked it); NULL inside stays NULL. */
function nestedCastFn(from: DataType, to: DataType, fail: (v: unknown) => null): CastFn | undefined {
  if (sameType(from, to)) return v => v
  const orNull = (f: CastFn): CastFn => v => (v === null || v === undefined ? null : f(v))
  if (from.kind === 'ROW' && to.kind === 'ROW') {
    const fs = from.fields.map((f, i) => orNull(castFn(f.type, to.fields[i]!.type, fail)))
    return (r: readonly unknown[]) => fs.map((f, i) => f(r[i]))
  }
  if (from.kind === 'ARRAY' && to.kind === 'ARRAY') {
    const f = orNull(castFn(from.element, to.element, fail))
    return (a: readonly unknown[]) => a.map(f)
  }
  if (from.kind === 'MAP' && to.kind === 'MAP') {
    const k = orNull(castFn(from.key, to.key, fail)), x = orNull(castFn(from.value, to.value, fail))
    return (m: readonly (readonly [unknown, unknown])[]) => m.map(([a, b]) => [k(a), x(b)])
  }
  return undefined
}
