// Row → text line encoders for the filesystem sink: JSON lines, CSV, and Debezium-style JSON change
// events. Encoders are built once per schema, so writing a row is a loop over precomputed pieces.
import type { DataType, Field } from '../../common/types.js'
import { base64Of, formatDate, formatDecimal, formatDouble, formatFloat, formatInterval, formatYearMonth, formatTime,
  formatTimestamp } from '../../common/values.js'
import { RowKind, type Batch, type Row } from '../../core/batch.js'
import type { CsvConfig, JsonConfig } from './options.js'
import { nestedJsonEncoder } from './encode-nested.js'

/** Turns a batch into the lines of a part file (the sink builds one per table from the encoders below). */
export type BatchEncoder = (batch: Batch) => string

type ValueEncoder = (v: unknown) => string

function jsonValueEncoder(type: DataType, config: JsonConfig): ValueEncoder {
  switch (type.kind) {
    case 'STRING':
      return v => JSON.stringify(v)
    // A BIGINT beyond 2^53 is a bigint: String() writes its exact digits as a JSON number.
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'INTERVAL':
      return v => String(v)
    // A FLOAT as Jackson writes Java's float (Float.toString: 0.1, 1.0E10), which is JSON; NaN and ±Infinity as for DOUBLE.
    case 'DOUBLE':
      if (type.float === true) return v => (Number.isFinite(v) ? formatFloat(v as number) : JSON.stringify(v))
      return v => JSON.stringify(v)
    case 'BOOLEAN':
      return v => (v ? 'true' : 'false')
    case 'DECIMAL':
      return v => formatDecimal(v as bigint, type.scale)
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return config.timestampStandard === 'ISO-8601'
        ? v => `"${formatTimestamp(v as number).replace(' ', 'T')}"`
        : v => `"${formatTimestamp(v as number)}"`
    case 'DATE':
      return v => `"${formatDate(v as number)}"`
    // Base64 text, as Flink's json format writes a binary value (Jackson's binary node).
    case 'BYTES':
      return v => `"${base64Of(v as Uint8Array)}"`
    // Whole seconds, as Flink's json format writes a TIME ('HH:mm:ss', the fraction dropped).
    case 'TIME':
      return v => `"${formatTime(v as number)}"`
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      return nestedJsonEncoder(type, t => jsonValueEncoder(t, config))
    case 'NULL':
      return () => 'null'
  }
}

/**
 * Encodes a row as a JSON object: {"col":value,…}; timestamps as text, decimals as exact numbers.
 * `columns`: where each field's value is in the row (default: field i is row[i]), so that a sink
 * writing some of its row's columns need not copy them out first.
 */
export function jsonRowEncoder(schema: readonly Field[], config: JsonConfig, columns?: readonly number[]): (row: Row) => string {
  const prefixes = schema.map((f, i) => `${i === 0 ? '{' : ','}${JSON.stringify(f.name)}:`)
  const encoders = schema.map(f => jsonValueEncoder(f.type, config))
  const at = columns ?? schema.map((_, i) => i)
  const n = schema.length
  if (n === 0) return () => '{}'
  return row => {
    let s = ''
    for (let i = 0; i < n; i++) {
      const v = row[at[i]!]
      s += prefixes[i]! + (v === null || v === undefined ? 'null' : encoders[i]!(v))
    }
    return s + '}'
  }
}

/**
 * A change as Flink's debezium-json serializer writes it: +I and +U become {"before":null,"after":row,"op":"c"},
 * -U and -D become {"before":row,"after":null,"op":"d"}.
 */
export function debeziumEncoder(schema: readonly Field[], config: JsonConfig): (row: Row, kind: number) => string {
  const encodeRow = jsonRowEncoder(schema, config)
  return (row, kind) =>
    kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER
      ? `{"before":null,"after":${encodeRow(row)},"op":"c"}`
      : `{"before":${encodeRow(row)},"after":null,"op":"d"}`
}

function csvValueText(type: DataType): ValueEncoder {
  switch (type.kind) {
    case 'STRING':
      return v => v as string
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return v => String(v)
    case 'DOUBLE':
      if (type.float === true) return v => formatFloat(v as number)
      return v => formatDouble(v as number)
    case 'BOOLEAN':
      return v => (v ? 'true' : 'false')
    case 'DECIMAL':
      return v => formatDecimal(v as bigint, type.scale)
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return v => formatTimestamp(v as number)
    case 'DATE':
      return v => formatDate(v as number)
    // Base64, as Flink's csv format writes a binary value.
    case 'BYTES':
      return v => base64Of(v as Uint8Array)
    // As Flink's csv format (ISO_LOCAL_TIME): '12:34:56', or the fraction without trailing zeros ('12:34:56.25').
    case 'TIME':
      return v => formatTime(v as number, 3).replace(/\.?0+$/, '')
    case 'INTERVAL':
      return type.yearMonth === true ? v => formatYearMonth(v as number) : v => formatInterval(v as number)
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      // Refused when the table is planned (options.ts checkCsvColumns); reaching here is a bug.
      throw new Error(`internal error: a CSV column of type ${type.kind}`)
    case 'NULL':
      return () => ''
  }
}

/** Encodes a row as one CSV record; fields that would not read back as themselves are quoted. */
export function csvRowEncoder(schema: readonly Field[], config: CsvConfig): (row: Row) => string {
  const { delimiter, quote, escape, nullLiteral } = config
  const texts = schema.map(f => csvValueText(f.type))
  const isString = schema.map(f => f.type.kind === 'STRING')
  const n = schema.length
  const needsQuote = (s: string): boolean =>
    s.indexOf(delimiter) !== -1 || s.indexOf('\n') !== -1 || s.indexOf('\r') !== -1 ||
    (quote !== null && s.indexOf(quote) !== -1) || (escape !== null && s.indexOf(escape) !== -1) ||
    s === nullLiteral || (s.length === 0)
  const quoteField = (s: string): string => {
    if (quote === null) {
      // Without quoting, only an escape character can protect delimiters and line breaks.
      if (escape === null) return s
      let out = ''
      for (const c of s) out += c === delimiter || c === escape || c === '\n' || c === '\r' ? escape + c : c
      return out
    }
    let body = s.split(quote).join(quote + quote)
    if (escape !== null) body = body.split(escape).join(escape + escape)
    return quote + body + quote
  }
  return row => {
    let s = ''
    for (let i = 0; i < n; i++) {
      if (i > 0) s += delimiter
      const v = row[i]
      if (v === null || v === undefined) {
        s += nullLiteral
        continue
      }
      const text = texts[i]!(v)
      s += isString[i] && needsQuote(text) ? quoteField(text) : text
    }
    return s
  }
}
