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
//   FLOAT              number holding a 32-bit float (Math.fround'ed); a DOUBLE with `float: true`, so every
//                      path that moves numbers takes it unchanged; rounded where a value is made (read, cast,
//                      arithmetic, aggregate result) and printed as Java's Float.toString
//   DECIMAL(p, s)      bigint holding the unscaled value (123.45 in DECIMAL(10,2) is 12345n)
//   STRING             string; CHAR(n) is a STRING with `char: n`, the type of a string literal of n characters
//                      (as Flink types it), so every path that moves strings takes it unchanged
//   TIMESTAMP(3)       number, epoch milliseconds (wall-clock, no zone)
//   TIMESTAMP_LTZ(3)   number, epoch milliseconds (an instant)
//   DATE               number, days since 1970-01-01
//   TIME(p)            number, milliseconds since midnight in [0, 86400000) (as Flink holds it: an int of
//                      milliseconds; fractions beyond milliseconds are not kept)
//   BYTES              Uint8Array (BINARY(n) and VARBINARY(n) are BYTES, as VARCHAR(n) is STRING)
//   INTERVAL           number: milliseconds (INTERVAL DAY TO SECOND), or whole months with `yearMonth: true`
//                      (INTERVAL YEAR TO MONTH), as Flink holds them (a long of millis, an int of months)
//   ROW<a T, b U>      a JS array of the field values in field order (a row within the row)
//   ARRAY<T>           a JS array of the elements (SQL index i is JS index i - 1)
//   MAP<K, V>          a JS array of [key, value] pairs in insertion order, keys distinct (a later
//                      duplicate replaces the earlier value). Arrays rather than JS Maps, so that every
//                      nested value is plain data that the state serializers, the key encoding, v8 and
//                      JSON all keep as it is; lookups scan, which is cheap for the small maps of events.
//   MULTISET<T>        a MAP<T, INT NOT NULL> of each element to its count (`multiset: true`), as Flink
//                      holds one internally and prints it ({a=2, b=1}); COLLECT makes them.

export type TimeAttribute = 'rowtime' | 'proctime'

export type DataType =
  | { readonly kind: 'BOOLEAN'; readonly nullable: boolean }
  | { readonly kind: 'TINYINT'; readonly nullable: boolean }
  | { readonly kind: 'SMALLINT'; readonly nullable: boolean }
  | { readonly kind: 'INT'; readonly nullable: boolean }
  | { readonly kind: 'BIGINT'; readonly nullable: boolean }
  | { readonly kind: 'DOUBLE'; readonly nullable: boolean; readonly float?: true }
  | { readonly kind: 'DECIMAL'; readonly nullable: boolean; readonly precision: number; readonly scale: number }
  | { readonly kind: 'STRING'; readonly nullable: boolean; readonly char?: number }
  | { readonly kind: 'TIMESTAMP'; readonly nullable: boolean; readonly precision: number; readonly timeAttr?: TimeAttribute }
  | { readonly kind: 'TIMESTAMP_LTZ'; readonly nullable: boolean; readonly precision: number; readonly timeAttr?: TimeAttribute }
  | { readonly kind: 'DATE'; readonly nullable: boolean }
  | { readonly kind: 'TIME'; readonly nullable: boolean; readonly precision: number }
  | { readonly kind: 'BYTES'; readonly nullable: boolean }
  | { readonly kind: 'INTERVAL'; readonly nullable: boolean; readonly yearMonth?: true }
  | { readonly kind: 'ROW'; readonly nullable: boolean; readonly fields: readonly Field[] }
  | { readonly kind: 'ARRAY'; readonly nullable: boolean; readonly element: DataType }
  | { readonly kind: 'MAP'; readonly nullable: boolean; readonly key: DataType; readonly value: DataType; readonly multiset?: true }
  | { readonly kind: 'NULL'; readonly nullable: true }

export type TypeKind = DataType['kind']

export const T = {
  boolean: (nullable = true): DataType => ({ kind: 'BOOLEAN', nullable }),
  tinyint: (nullable = true): DataType => ({ kind: 'TINYINT', nullable }),
  smallint: (nullable = true): DataType => ({ kind: 'SMALLINT', nullable }),
  int: (nullable = true): DataType => ({ kind: 'INT', nullable }),
  bigint: (nullable = true): DataType => ({ kind: 'BIGINT', nullable }),
  double: (nullable = true): DataType => ({ kind: 'DOUBLE', nullable }),
  /** FLOAT (REAL): a 32-bit float, held as a DOUBLE marked `float`. */
  float: (nullable = true): DataType => ({ kind: 'DOUBLE', nullable, float: true }),
  decimal: (precision: number, scale: number, nullable = true): DataType => ({ kind: 'DECIMAL', nullable, precision, scale }),
  string: (nullable = true): DataType => ({ kind: 'STRING', nullable }),
  /** CHAR(n): a string literal's type (Flink's); a STRING marked with its length. */
  char: (length: number, nullable = true): DataType => ({ kind: 'STRING', nullable, char: length }),
  timestamp: (precision = 3, nullable = true, timeAttr?: TimeAttribute): DataType =>
    timeAttr ? { kind: 'TIMESTAMP', nullable, precision, timeAttr } : { kind: 'TIMESTAMP', nullable, precision },
  timestampLtz: (precision = 3, nullable = true, timeAttr?: TimeAttribute): DataType =>
    timeAttr ? { kind: 'TIMESTAMP_LTZ', nullable, precision, timeAttr } : { kind: 'TIMESTAMP_LTZ', nullable, precision },
  date: (nullable = true): DataType => ({ kind: 'DATE', nullable }),
  bytes: (nullable = true): DataType => ({ kind: 'BYTES', nullable }),
  /** TIME(p): Flink's default precision is 0. */
  time: (precision = 0, nullable = true): DataType => ({ kind: 'TIME', nullable, precision }),
  interval: (nullable = true): DataType => ({ kind: 'INTERVAL', nullable }),
  /** INTERVAL YEAR TO MONTH: a number of months. */
  intervalYearMonth: (nullable = true): DataType => ({ kind: 'INTERVAL', nullable, yearMonth: true }),
  row: (fields: readonly Field[], nullable = true): DataType => ({ kind: 'ROW', nullable, fields }),
  array: (element: DataType, nullable = true): DataType => ({ kind: 'ARRAY', nullable, element }),
  map: (key: DataType, value: DataType, nullable = true): DataType => ({ kind: 'MAP', nullable, key, value }),
  /** MULTISET<element>: a map of each element to its count. */
  multiset: (element: DataType, nullable = true): DataType => ({ kind: 'MAP', nullable, key: element, value: { kind: 'INT', nullable: false },
    multiset: true }),
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

/** FLOAT (REAL): a DOUBLE marked `float`. */
export function isFloat(t: DataType): boolean {
  return t.kind === 'DOUBLE' && t.float === true
}

/** INTERVAL YEAR TO MONTH (months), as against INTERVAL DAY TO SECOND (milliseconds). */
export function isYearMonth(t: DataType): boolean {
  return t.kind === 'INTERVAL' && t.yearMonth === true
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
    case 'TIME':
      return `TIME(${t.precision})${nn}`
    case 'INTERVAL':
      return t.yearMonth === true ? `INTERVAL YEAR TO MONTH${nn}` : `INTERVAL${nn}`
    case 'DOUBLE':
      return t.float === true ? `FLOAT${nn}` : `DOUBLE${nn}`
    case 'STRING':
      return t.char !== undefined ? `CHAR(${t.char})${nn}` : `STRING${nn}`
    case 'NULL':
      return 'NULL'
    case 'ROW':
      return `ROW<${t.fields.map(f => `${quoteFieldName(f.name)} ${formatType(f.type)}`).join(', ')}>${nn}`
    case 'ARRAY':
      return `ARRAY<${formatType(t.element)}>${nn}`
    case 'MAP':
      return t.multiset === true ? `MULTISET<${formatType(t.key)}>${nn}` : `MAP<${formatType(t.key)}, ${formatType(t.value)}>${nn}`
    default:
      return `${t.kind}${nn}`
  }
}

/** A field name as Flink prints it inside ROW<…>: backquoted when it is not a plain word. */
function quoteFieldName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_$]*$/.test(name) ? name : '`' + name.replace(/`/g, '``') + '`'
}

/** True for ROW, ARRAY and MAP. */
export function isNested(t: DataType): boolean {
  return t.kind === 'ROW' || t.kind === 'ARRAY' || t.kind === 'MAP'
}

/** Equal ignoring nullability and time attributes. */
export function sameType(a: DataType, b: DataType): boolean {
  if (a.kind !== b.kind) return false
  if (a.kind === 'DECIMAL' && b.kind === 'DECIMAL') return a.precision === b.precision && a.scale === b.scale
  if (a.kind === 'DOUBLE' && b.kind === 'DOUBLE') return a.float === b.float
  if (a.kind === 'INTERVAL' && b.kind === 'INTERVAL') return a.yearMonth === b.yearMonth
  if (a.kind === 'ROW' && b.kind === 'ROW') {
    return a.fields.length === b.fields.length && a.fields.every((f, i) => f.name === b.fields[i]!.name && sameType(f.type, b.fields[i]!.type))
  }
  if (a.kind === 'ARRAY' && b.kind === 'ARRAY') return sameType(a.element, b.element)
  if (a.kind === 'MAP' && b.kind === 'MAP') return sameType(a.key, b.key) && sameType(a.value, b.value) && a.multiset === b.multiset
  return true
}

/** A column of a schema. */
export interface Field {
  readonly name: string
  readonly type: DataType
}
