// Type rules shared by the function registry: numeric widening (TINYINT → SMALLINT → INT → BIGINT →
// DECIMAL → DOUBLE),
// Flink's DECIMAL precision/scale derivation for arithmetic, and the common type of several types.
import { T, formatType, isNested, isNumeric, sameType, withNullable, withoutTimeAttr, type DataType } from '../common/types.js'
import { MAX_PRECISION } from './decimal.js'

/** A type as messages spell it: no NOT NULL, no time attribute. 'DECIMAL(10, 2)', 'TIMESTAMP(3)'. */
export function typeName(t: DataType): string {
  return formatType(withNullable(withoutTimeAttr(t), true))
}

/** The DECIMAL(p, s) an exact numeric widens to: INT → (10, 0), BIGINT → (19, 0); null for others. */
export function decimalView(t: DataType): { precision: number; scale: number } | null {
  switch (t.kind) {
    case 'TINYINT':
      return { precision: 3, scale: 0 }
    case 'SMALLINT':
      return { precision: 5, scale: 0 }
    case 'INT':
      return { precision: 10, scale: 0 }
    case 'BIGINT':
      return { precision: 19, scale: 0 }
    case 'DECIMAL':
      return { precision: t.precision, scale: t.scale }
    default:
      return null
  }
}

/**
 * Flink's LogicalTypeMerging.adjustPrecisionScale: a result wider than 38 digits keeps its integer
 * digits and gives up scale, but keeps at least min(scale, 6) fraction digits.
 */
export function adjustDecimal(precision: number, scale: number, nullable: boolean): DataType {
  if (precision <= MAX_PRECISION) return T.decimal(precision, scale, nullable)
  const digits = precision - scale
  const adjusted = Math.max(MAX_PRECISION - digits, Math.min(scale, 6))
  return T.decimal(MAX_PRECISION, adjusted, nullable)
}

/** Result type of a DECIMAL `+ - * / %` before adjustment, as Flink derives it: [precision, scale]. */
export function decimalArithmetic(op: string, p1: number, s1: number, p2: number, s2: number): [number, number] {
  switch (op) {
    case '+':
    case '-': {
      const s = Math.max(s1, s2)
      return [Math.max(p1 - s1, p2 - s2) + s + 1, s]
    }
    case '*':
      return [p1 + p2, s1 + s2]
    case '/': {
      const s = Math.max(6, s1 + p2 + 1)
      return [p1 - s1 + s2 + s, s]
    }
    case '%': {
      const s = Math.max(s1, s2)
      return [Math.min(p1 - s1, p2 - s2) + s, s]
    }
    default:
      throw new Error(`not a decimal operator: ${op}`)
  }
}

const NUMERIC_RANK = { TINYINT: 0, SMALLINT: 1, INT: 2, BIGINT: 3, DECIMAL: 4, DOUBLE: 5 } as const

/** The wider of two numeric types (DECIMALs merge to hold both); nullable if either is. */
export function widerNumeric(a: DataType, b: DataType): DataType {
  const nullable = a.nullable || b.nullable
  const ra = NUMERIC_RANK[a.kind as keyof typeof NUMERIC_RANK], rb = NUMERIC_RANK[b.kind as keyof typeof NUMERIC_RANK]
  if (ra === 5 || rb === 5) {
    // FLOAT with FLOAT or an integer stays FLOAT; with a DOUBLE or a DECIMAL it is a DOUBLE (Calcite's rule).
    const fa = ra === 5 ? a.kind === 'DOUBLE' && a.float === true : rb === 5 ? true : false
    const fb = rb === 5 ? b.kind === 'DOUBLE' && b.float === true : true
    return fa && fb && ra !== 4 && rb !== 4 ? T.float(nullable) : T.double(nullable)
  }
  if (ra === 4 || rb === 4) {
    const da = decimalView(a)!, db = decimalView(b)!
    const scale = Math.max(da.scale, db.scale)
    const digits = Math.max(da.precision - da.scale, db.precision - db.scale)
    if (digits + scale <= MAX_PRECISION) return T.decimal(digits + scale, scale, nullable)
    return T.decimal(MAX_PRECISION, Math.max(0, MAX_PRECISION - digits), nullable)
  }
  return withNullable(ra >= rb ? a : b, nullable)
}

function timestampPrecision(t: DataType): number {
  return t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ' ? t.precision : 0
}

/**
 * The type that values of all `types` convert to without loss (CASE branches, COALESCE, IN lists,
 * UNION columns), or null when there is none. NULL types adapt to the others; the result is nullable
 * if any input is, and never carries a time attribute.
 *
 * @example commonType([T.int(false), T.decimal(10, 2)]) // DECIMAL(12, 2)
 */
export function commonType(types: readonly DataType[]): DataType | null {
  const known = types.filter(t => t.kind !== 'NULL')
  if (known.length === 0) return types.length > 0 ? T.null() : null
  const nullable = types.some(t => t.nullable)
  const first = known[0]!
  // Nested values meet only when their types are the same (field names included).
  if (isNested(first)) return known.every(t => sameType(t, first)) ? withNullable(first, nullable) : null
  if (known.every(isNumeric)) return withNullable(known.slice(1).reduce<DataType>(widerNumeric, first), nullable)
  if (known.every(t => t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ' || t.kind === 'DATE')) {
    const precision = Math.max(...known.map(timestampPrecision))
    if (known.some(t => t.kind === 'TIMESTAMP_LTZ')) return T.timestampLtz(precision, nullable)
    if (known.some(t => t.kind === 'TIMESTAMP')) return T.timestamp(precision, nullable)
    return T.date(nullable)
  }
  if (known.every(t => t.kind === 'TIME')) return T.time(Math.max(...known.map(t => (t.kind === 'TIME' ? t.precision : 0))), nullable)
  // A year-month and a day-time interval have no common type (months against milliseconds).
  if (first.kind === 'INTERVAL' && known.some(t => t.kind === 'INTERVAL' && t.yearMonth !== first.yearMonth)) return null
  // CHARs of one length stay that CHAR; of different lengths, or with a STRING, a STRING and no
  // padding (Flink pads to the longest CHAR: a deliberate difference, see the README).
  if (first.kind === 'STRING' && known.every(t => t.kind === 'STRING')) {
    const lengths = new Set(known.map(t => (t.kind === 'STRING' ? t.char : undefined)))
    return lengths.size === 1 && first.char !== undefined ? T.char(first.char, nullable) : T.string(nullable)
  }
  if (known.every(t => t.kind === first.kind)) return withNullable(withoutTimeAttr(first), nullable)
  return null
}

/**
 * The type both sides of a comparison convert to: their common type, or, when one side is a STRING
 * and the other a number or a time, the other side's type (the string is cast). Null if incomparable.
 */
export function comparisonType(a: DataType, b: DataType): DataType | null {
  if (isNested(a) || isNested(b)) return nestedCommonType(a, b)
  const common = commonType([a, b])
  if (common !== null) return common
  const castable = (s: DataType, o: DataType): boolean =>
    s.kind === 'STRING' &&
    (isNumeric(o) || o.kind === 'TIMESTAMP' || o.kind === 'TIMESTAMP_LTZ' || o.kind === 'DATE' || o.kind === 'TIME' || o.kind === 'BOOLEAN')
  if (castable(a, b)) return withNullable(withoutTimeAttr(b), a.nullable || b.nullable)
  if (castable(b, a)) return withNullable(withoutTimeAttr(a), a.nullable || b.nullable)
  return null
}

/**
 * The type two ROW, ARRAY or MAP types of one shape both convert to: element, key, value and field
 * types met as commonType meets scalars (a ROW by position, with the first one's names); null when
 * the shapes differ. NULL meets anything.
 *
 * @example nestedCommonType(T.array(T.int()), T.array(T.bigint(false))) // ARRAY<BIGINT>
 */
export function nestedCommonType(a: DataType, b: DataType): DataType | null {
  if (a.kind === 'NULL') return b
  if (b.kind === 'NULL') return a
  const nullable = a.nullable || b.nullable
  const meet = (x: DataType, y: DataType): DataType | null => (isNested(x) || isNested(y) ? nestedCommonType(x, y) : commonType([x, y]))
  if (a.kind === 'ARRAY' && b.kind === 'ARRAY') {
    const e = meet(a.element, b.element)
    return e === null ? null : T.array(e, nullable)
  }
  if (a.kind === 'MAP' && b.kind === 'MAP') {
    const k = meet(a.key, b.key), v = meet(a.value, b.value)
    return k === null || v === null ? null : T.map(k, v, nullable)
  }
  if (a.kind === 'ROW' && b.kind === 'ROW' && a.fields.length === b.fields.length) {
    const fields = a.fields.map((f, i) => ({ name: f.name, type: meet(f.type, b.fields[i]!.type) }))
    return fields.every(f => f.type !== null) ? T.row(fields as { name: string; type: DataType }[], nullable) : null
  }
  return null
}
