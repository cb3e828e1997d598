// Rows → Kafka messages: the key's and the value's columns encoded with their formats (json, csv,
// raw, or debezium-json change events), the timestamp and headers of the table's metadata columns,
// and the partition the sink's partitioner picks. A message is a plain tuple so that an exactly-once
// sink can keep a checkpoint's messages in the checkpoint as JSON.
import { WeirError } from '../../../common/errors.js'
import type { Field } from '../../../common/types.js'
import { RowKind, type Batch, type Row } from '../../../core/batch.js'
import { csvRowEncoder, debeziumEncoder, jsonRowEncoder } from '../../filesystem/encoders.js'
import { resolveFsOptions, type CsvConfig, type JsonConfig } from '../../filesystem/options.js'
import { keyPartition } from './murmur2.js'
import type { KafkaSinkConfig, SinkValueFormat } from './options.js'

/**
 * A message's headers: name → UTF-8 text (from a STRING 'headers' column: a JSON object), or
 * [name, bytes | null] pairs (from a MAP<STRING, BYTES> one, Flink's type).
 */
export type MessageHeaders = Readonly<Record<string, string>> | readonly (readonly [string, Uint8Array | null])[]

/**
 * [partition (null, in checkpoints of earlier versions: the producer's partitioner picks it by key), key, value (null: a tombstone),
 * timestamp (epoch ms; absent or null: none given, the producer's clock), headers (absent or null: none)].
 */
export type Message = [partition: number | null, key: string | null, value: string | null, timestamp?: number | null, headers?: MessageHeaders | null]

type Encode = (row: Row, kind: number) => string | null

/** The formats' defaults, for the key (whose format options Weir does not take) and configs without them. */
const DEFAULTS = resolveFsOptions({ path: 'kafka' })

interface Formats {
  readonly json: JsonConfig
  readonly csv: CsvConfig
}

/** Encodes `columns` of a row; `names` are the fields' names in the message (the key's lose 'key.fields-prefix'). */
function encoder(format: SinkValueFormat, columns: readonly number[], schema: readonly Field[], names: readonly string[], formats: Formats): Encode {
  const fields = columns.map((i, j) => ({ name: names[j]!, type: schema[i]!.type }))
  const project = (row: Row): Row => columns.map(i => row[i])
  switch (format) {
    case 'json':
      return jsonRowEncoder(fields, formats.json, columns)
    case 'csv': {
      const encode = csvRowEncoder(fields, formats.csv)
      return row => encode(project(row))
    }
    case 'raw': {
      const i = columns[0]!
      return row => (row[i] === null || row[i] === undefined ? null : (row[i] as string))
    }
    case 'debezium-json': {
      const encode = debeziumEncoder(fields, formats.json)
      return (row, kind) => encode(project(row), kind)
    }
  }
}

/**
 * Turns the rows of batches into messages. 'kafka' takes inserts only, unless its value format is
 * debezium-json: then every row is a change event of its own, as Flink writes them (+I and +U with
 * "after" and op "c", -U and -D with "before" and op "d"). 'upsert-kafka' writes +I/+U as the new
 * value of their key and -D as a tombstone, and drops -U (the +U that follows replaces it), as Flink does.
 */
export class MessageEncoder {
  private readonly key: Encode | undefined
  private readonly value: Encode
  /** debezium-json: each row is its own change event, -U included. */
  private readonly changeEvents: boolean
  private roundRobin = 0

  constructor(private readonly config: KafkaSinkConfig, private readonly schema: readonly Field[], private readonly partitions: number) {
    const keyNames = config.keyNames ?? config.keyColumns.map(i => schema[i]!.name)
    const formats = { json: config.json ?? DEFAULTS.json, csv: config.csv ?? DEFAULTS.csv }
    this.key = config.keyColumns.length > 0 ? encoder(config.keyFormat!, config.keyColumns, schema, keyNames, DEFAULTS) : undefined
    this.value = encoder(config.valueFormat, config.valueColumns, schema, config.valueColumns.map(i => schema[i]!.name), formats)
    this.changeEvents = config.valueFormat === 'debezium-json'
  }

  encode(batch: Batch, out: Message[]): void {
    const { rows, kinds } = batch
    for (let r = 0; r < rows.length; r++) {
      const kind = kinds === null ? RowKind.INSERT : kinds[r]!
      if (this.skips(kind)) continue
      const row = rows[r]!
      out.push(this.message(row, kind, this.keyOf(row, kind)))
    }
  }

  /** The row's columns the message key is made of (none: messages have no key). */
  get keyColumns(): readonly number[] {
    return this.config.keyColumns
  }

  /** Whether a row of `kind` gives no message (upsert's -U: the +U that follows replaces it). */
  skips(kind: number): boolean {
    return kind === RowKind.UPDATE_BEFORE && !this.changeEvents
  }

  /** The message key of a row (null: the table has no key columns). */
  keyOf(row: Row, kind: number): string | null {
    return this.key === undefined ? null : this.key(row, kind)
  }

  /** The message of a row whose key keyOf gave. */
  message(row: Row, kind: number, key: string | null): Message {
    const { timestampColumn, headersColumn } = this.config
    const value = kind === RowKind.DELETE && !this.changeEvents ? null : this.value(row, kind)
    const message: Message = [this.partition(key), key, value]
    if (timestampColumn !== undefined || headersColumn !== undefined) {
      const ts = timestampColumn === undefined ? null : (row[timestampColumn] as number | null | undefined) ?? null
      const headers = headersColumn === undefined ? null : this.headers(row[headersColumn])
      if (ts !== null || headers !== null) message.push(ts, headers)
    }
    return message
  }

  /** The 'headers' column's map of header names to bytes, or its JSON object of names to text, as the Kafka source reads them. */
  private headers(v: unknown): MessageHeaders | null {
    if (v === null || v === undefined) return null
    if (this.schema[this.config.headersColumn!]!.type.kind === 'MAP') {
      const pairs = v as readonly (readonly [string | null, Uint8Array | null])[]
      if (pairs.some(([name]) => name === null)) {
        const column = this.schema[this.config.headersColumn!]!.name
        throw WeirError.execution(`the Kafka sink of topic '${this.config.topic}' cannot write a header named NULL (column '${column}', metadata 'headers')`, {
          help: `give every header a name, e.g. MAP['trace', CAST('abc' AS BYTES)], or filter the NULL keys out`,
        })
      }
      return pairs as readonly (readonly [string, Uint8Array | null])[]
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(v as string)
    } catch {
      parsed = undefined
    }
    const ok = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      && Object.values(parsed as object).every(h => h === null || typeof h === 'string')
    if (!ok) {
      const column = this.schema[this.config.headersColumn!]!.name
      const text = (v as string).length > 60 ? (v as string).slice(0, 60) + '…' : (v as string)
      throw WeirError.execution(
        `the Kafka sink of topic '${this.config.topic}' cannot write headers ${JSON.stringify(text)} (column '${column}', metadata 'headers')`,
        {
          help:
            `a STRING column of metadata 'headers' is a JSON object of header names to text or null, e.g. '{"trace":"abc"}'; declare it MAP<STRING, BYTES> to write bytes`,
        },
      )
    }
    const headers = parsed as Record<string, string | null>
    // kafkajs 2.2.4 cannot write a header without a value (it measures the value before checking
    // for null): such a header is written with an empty value.
    for (const name of Object.keys(headers)) headers[name] ??= ''
    return headers as MessageHeaders
  }

  private partition(key: string | null): number | null {
    switch (this.config.partitioner) {
      case 'default':
        // By key as Kafka's default partitioner does, computed here (kafkajs' own murmur2 costs far more).
        return key === null ? this.roundRobin++ % this.partitions : keyPartition(key, this.partitions)
      case 'round-robin':
        return this.roundRobin++ % this.partitions
      case 'fixed':
        // Flink's fixed partitioner: sink subtask i writes partition i % partitions; Weir runs one sink subtask.
        return 0
    }
  }
}
