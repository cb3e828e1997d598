// The metadata a Kafka source offers for `col TYPE METADATA [FROM 'key']` columns (Flink's keys and
// types), and how each is read off a message — or off its change event, for the metadata of the
// 'debezium-json' value format ('value.source.timestamp' …).
import type { KafkaMessage } from 'kafkajs'
import { WeirError } from '../../common/errors.js'
import { formatType, type DataType, type Field } from '../../common/types.js'
import type { SourceContext } from '../api.js'
import type { ChangeEvent } from '../filesystem/decoder.js'
import { about } from '../options.js'
import type { TopicPartition } from './source-offsets.js'

/** Reads a column's metadata off a message; `event`: its change event, with a 'debezium-json' value. */
export type MetadataReader = (m: KafkaMessage, tp: TopicPartition, event: ChangeEvent | undefined) => unknown

interface MetadataKey {
  /** The type Flink declares; a column's type must be this (nullability aside). */
  readonly type: DataType['kind']
  readonly typeText: string
  readonly read: MetadataReader
  /** Weir's other reading, for a STRING column (the headers as a JSON object of text). */
  readonly asText?: MetadataReader
  /** The value format that offers it; undefined: the connector's own, for every format. */
  readonly format?: 'debezium-json'
}

const KEYS: Readonly<Record<string, MetadataKey>> = {
  'topic': { type: 'STRING', typeText: 'STRING', read: (_, tp) => tp.topic },
  'partition': { type: 'INT', typeText: 'INT', read: (_, tp) => tp.partition },
  'offset': { type: 'BIGINT', typeText: 'BIGINT', read: m => Number(m.offset) },
  'timestamp': { type: 'TIMESTAMP_LTZ', typeText: 'TIMESTAMP_LTZ(3)', read: m => Number(m.timestamp) },
  // Flink's MAP<STRING, BYTES> of each name to its value (the last value of a repeated name, as
  // Flink's map keeps); a STRING column gets them as one JSON object of name to UTF-8 text instead.
  'headers': { type: 'MAP', typeText: 'MAP<STRING, BYTES>', read: headersMap, asText: headersJson },
  // The change event's metadata (Flink's debezium-json keys, prefixed 'value.' as the value format's).
  // An event without the field gives NULL. Flink's 'value.source.properties' is a MAP: not offered.
  'value.ingestion-timestamp': { type: 'TIMESTAMP_LTZ', typeText: 'TIMESTAMP_LTZ(3)', format: 'debezium-json',
    read: (_m, _tp, e) => millis(e?.payload['ts_ms']) },
  'value.source.timestamp': { type: 'TIMESTAMP_LTZ', typeText: 'TIMESTAMP_LTZ(3)', format: 'debezium-json',
    read: (_m, _tp, e) => millis(sourceField(e, 'ts_ms')) },
  'value.source.database': { type: 'STRING', typeText: 'STRING', format: 'debezium-json', read: (_m, _tp, e) => text(sourceField(e, 'db')) },
  'value.source.schema': { type: 'STRING', typeText: 'STRING', format: 'debezium-json', read: (_m, _tp, e) => text(sourceField(e, 'schema')) },
  // A MongoDB event names its collection instead.
  'value.source.table': { type: 'STRING', typeText: 'STRING', format: 'debezium-json',
    read: (_m, _tp, e) => text(sourceField(e, 'table') ?? sourceField(e, 'collection')) },
  'value.schema': { type: 'STRING', typeText: 'STRING', format: 'debezium-json',
    read: (_m, _tp, e) => (e?.schema === undefined || e.schema === null ? null : JSON.stringify(e.schema)) },
}

function sourceField(e: ChangeEvent | undefined, name: string): unknown {
  const source = e?.payload['source']
  return source !== null && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined
}

function millis(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : null
}

function text(v: unknown): string | null {
  return typeof v === 'string' ? v : null
}

/** Names Flink users might reach for that are not metadata of the Kafka source, and where their data is. */
const NOT_METADATA: Readonly<Record<string, string>> = {
  key:
    `the message key is read into physical columns: set 'key.format' and 'key.fields' (and 'value.fields-include' = 'EXCEPT_KEY' if the value does not hold them)`,
  value: `the message value is read into the table's physical columns by 'format' (or 'value.format')`,
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The headers as a MAP<STRING, BYTES> value: [name, bytes | null] pairs, names distinct (the last value of a repeated one). */
/** Each header's name and value, the last value of a repeated name (as Flink's map keeps); null: none. */
function lastValues(m: KafkaMessage): [string, string | Buffer | null][] {
  return Object.entries(m.headers ?? {}).map(([name, v]) => [name, (Array.isArray(v) ? v.at(-1) : v) ?? null])
}

function headersMap(m: KafkaMessage): [string, Uint8Array | null][] {
  // A copy: the fetched batch's buffer is not kept alive by the rows read from it.
  return lastValues(m).map(([name, last]) => [name, last === null ? null : typeof last === 'string' ? Buffer.from(last, 'utf8') : Uint8Array.from(last)])
}

function headersJson(m: KafkaMessage, tp: TopicPartition): string {
  const out: Record<string, string | null> = {}
  for (const [name, last] of lastValues(m)) {
    if (last === null) out[name] = null
    else if (typeof last === 'string') out[name] = last
    else {
      try {
        out[name] = utf8.decode(last)
      } catch {
        throw WeirError.execution(
          `header '${name}' of the message at topic '${tp.topic}', partition ${tp.partition}, offset ${m.offset} is not UTF-8 text`,
          { help: `a STRING column of metadata 'headers' reads header values as text: declare it MAP<STRING, BYTES> to read bytes` },
        )
      }
    }
  }
  return JSON.stringify(out)
}

/** The metadata keys the Kafka source offers. */
export const KAFKA_METADATA_KEYS: readonly string[] = Object.keys(KEYS)

/** Checks the table's metadata columns: known keys, each with Flink's type, and a format's keys only with that value format. */
export function checkMetadataColumns(schema: readonly Field[], metadata: readonly (string | null)[], valueFormat: string): void {
  for (const [i, k] of metadata.entries()) {
    if (k === null) continue
    const f = schema[i]!
    const spec = KEYS[k]
    if (spec === undefined && NOT_METADATA[k] !== undefined) {
      throw about(WeirError.connector(`connector 'kafka' has no metadata '${k}' (column '${f.name}')`, { help: NOT_METADATA[k] }), { column: f.name })
    }
    if (spec === undefined) {
      throw about(
        WeirError.connector(`connector 'kafka' has no metadata '${k}' (column '${f.name}')`, {
          help: `the Kafka source offers ${KAFKA_METADATA_KEYS.map(x => `'${x}'`).join(', ')}; name one with METADATA FROM '…'`,
        }),
        { column: f.name },
      )
    }
    if (spec.format !== undefined && spec.format !== valueFormat) {
      throw about(
        WeirError.connector(`metadata '${k}' (column '${f.name}') is the '${spec.format}' format's, but the table's value format is '${valueFormat}'`, {
          help: `set 'value.format' = '${spec.format}' to read change events, or drop the column`,
        }),
        { column: f.name },
      )
    }
    const ok = (f.type.kind === spec.type && (f.type.kind !== 'TIMESTAMP_LTZ' || f.type.precision === 3)
      && (f.type.kind !== 'MAP' || (f.type.key.kind === 'STRING' && f.type.value.kind === 'BYTES' && f.type.multiset !== true)))
      || (spec.asText !== undefined && f.type.kind === 'STRING')
    if (!ok) {
      throw about(
        WeirError.connector(`metadata '${k}' of connector 'kafka' is ${spec.typeText}, but column '${f.name}' is declared ${formatType(f.type)}`, {
          help: k === 'headers'
            ? `declare the column as MAP<STRING, BYTES> (each header's bytes), or as STRING for a JSON object of each header's UTF-8 text`
            : `declare the column as ${spec.typeText}, and convert it in a computed column if you need another type`,
        }),
        { column: f.name },
      )
    }
  }
}

/** Per schema column: how to read its metadata, or null for a column of the value. */
export function metadataReaders(ctx: SourceContext): (MetadataReader | null)[] {
  return ctx.schema.map((_, i) => {
    const k = ctx.metadata?.[i] ?? null
    if (k === null) return null
    const spec = KEYS[k]!
    return spec.asText !== undefined && ctx.schema[i]!.type.kind === 'STRING' ? spec.asText : spec.read
  })
}
