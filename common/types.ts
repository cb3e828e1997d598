// SQL data types and how their values are represented in rows.
//
// Value representation (a row is a plain array in schema order; SQL NULL is `null`):
//   BOOLEAN            boolean
//   TINYINT, SMALLINT  number in [-2^7, 2^7) and [-2^15, 2^15)
//   INT                number in [-2^31, 2^31)
//   BIGINT             exact 64-bit integer: a number while Number.isSafeInteger, else a bigint
//                      (one form per value; see common/int64.ts). Arithmetic on every integer type
//                      wraps as Java's does (as Flink).
//   DOUBLE             number
//   DECIMAL(p, s)      bigint holding the unscaled value (123.45 in DECIMAL(10,2) is 12345n)
//   STRING             string
//   TIMESTAMP(3)       number, epoch milliseconds (wall-clock, no zone)
//   TIMESTAMP_LTZ(3)   number, epoch milliseconds (an instant)
//   DATE               number, days since 1970-01-01
//   INTERVAL           number, milliseconds (day-time intervals only)

export type TimeAttribute = 'rowtime' | 'proctime'

export type DataType =
  | { readonly kind: 'BOOLEAN'; readonly nullable: boolean }
  | { readonly kind: 'TINYINT'; readonly nullable: boolean }
  | { readonly kind: 'SMALLINT'; readonly nullable: boolean }
  | { readonly kind: 'INT'; readonly nullable: boolean }
  | { readonly kind: 'BIGINT'; readonly nullable: boolean }
  | { readonly kind: 'DOUBLE'; readonly nullable: boolean }
  | { readonly kind: 'DECIMAL'; readonly nullable: boolean; readonly precision: number; readonly scale: number }
  | { readonly kind: 'STRING'; readonly nullable: boolean }
  | { readonly kind: 'TIMESTAMP'; readonly nullable: boolean; readonly precision: number; readonly timeAttr?: TimeAttribute }
  | { readonly kind: 'TIMESTAMP_LTZ'; readonly nullable: boolean; readonly precision: number; readonly timeAttr?: TimeAttribute }
  | { readonly kind: 'DATE'; readonly nullable: boolean }
  | { readonly kind: 'INTERVAL'; readonly nullable: boolean }
  | { readonly kind: 'NULL'; readonly nullable: true }

export type TypeKind = DataType['kind']

export const T = {
  boolean: (nullable = true): DataType => ({ kind: 'BOOLEAN', nullable }),
  tinyint: (nullable = true): DataType => ({ kind: 'TINYINT', nullable }),
  smallint: (nullable = true): DataType => ({ kind: 'SMALLINT', nullable }),
  int: (nullable = true): DataType => ({ kind: 'INT', nullable }),
  bigint: (nullable = true): DataType => ({ kind: 'BIGINT', nullable }),
  double: (nullable = true): DataType => ({ kind: 'DOUBLE', nullable }),
  decimal: (precision: number, scale: number, nullable = true): DataType => ({ kind: 'DECIMAL', nullable, precision, scale }),
  string: (nullable = true): DataType => ({ kind: 'STRING', nullable }),
  timestamp: (precision = 3, nullable = true, timeAttr?: TimeAttribute): DataType =>
    timeAttr ? { kind: 'TIMESTAMP', nullable, precision, timeAttr } : { kind: 'TIMESTAMP', nullable, precision },
  timestampLtz: (precision = 3, nullable = true, timeAttr?: TimeAttribute): DataType =>
    timeAttr ? { kind: 'TIMESTAMP_LTZ', nullable, precision, timeAttr } : { kind: 'TIMESTAMP_LTZ', nullable, precision },
  date: (nullable = true): DataType => ({ kind: 'DATE', nullable }),
  interval: (nullable = true): DataType => ({ kind: 'INTERVAL', nullable }),
  null: (): DataType => ({ kind: 'NULL', nullable: true }),
} as const

export function withNullable(t: DataType, nullable: boolean): DataType {
  if (t.kind === 'NULL') return t
  return { ...t, nullable } as DataType
}

/** The same type without a time attribute (what a time attribute becomes after it is computed on). */
export function withoutTimeAttr(t: DataType): DataType {
  if ((t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ') && t.timeAttr) {
    const { timeAttr: _drop, ...rest } = t
    return rest as DataType
  }
  return t
}

export function isNumeric(t: DataType): boolean {
  return isIntegral(t) || t.kind === 'DOUBLE' || t.kind === 'DECIMAL'
}

export function isIntegral(t: DataType): boolean {
  return t.kind === 'INT' || t.kind === 'BIGINT' || t.kind === 'SMALLINT' || t.kind === 'TINYINT'
}

/** Bits of an integral type (TINYINT 8, SMALLINT 16, INT 32, BIGINT 64), else 0. */
export function integralBits(t: DataType): 0 | 8 | 16 | 32 | 64 {
  switch (t.kind) {
    case 'TINYINT':
      return 8
    case 'SMALLINT':
      return 16
    case 'INT':
      return 32
    case 'BIGINT':
      return 64
    default:
      return 0
  }
}

export function isTemporal(t: DataType): boolean {
  return t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ' || t.kind === 'DATE'
}

export function isTimestamp(t: DataType): boolean {
  return t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ'
}

export function timeAttrOf(t: DataType): TimeAttribute | undefined {
  return t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ' ? t.timeAttr : undefined
}

/** SQL spelling of a type, as DESCRIBE and EXPLAIN print it. */
export function formatType(t: DataType): string {
  const nn = t.nullable ? '' : ' NOT NULL'
  switch (t.kind) {
    case 'DECIMAL':
      return `DECIMAL(${t.precision}, ${t.scale})${nn}`
    case 'TIMESTAMP':
      return `TIMESTAMP(${t.precision})${nn}${t.timeAttr === 'rowtime' ? ' *ROWTIME*' : t.timeAttr === 'proctime' ? ' *PROCTIME*' : ''}`
    case 'TIMESTAMP_LTZ':
      return `TIMESTAMP_LTZ(${t.precision})${nn}${t.timeAttr === 'rowtime' ? ' *ROWTIME*' : t.timeAttr === 'proctime' ? ' *PROCTIME*' : ''}`
    case 'INTERVAL':
      return `INTERVAL${nn}`
    case 'NULL':
      return 'NULL'
    default:
      return `${t.kind}${nn}`
  }
}

/** Equal ignoring nullability and time attributes. */
export function sameType(a: DataType, b: DataType): boolean {
  if (a.kind !== b.kind) return false
  if (a.kind === 'DECIMAL' && b.kind === 'DECIMAL') return a.precision === b.precision && a.scale === b.scale
  return true
}

/** A column of a schema. */
export interface Field {
  readonly name: string
  readonly type: DataType
}
