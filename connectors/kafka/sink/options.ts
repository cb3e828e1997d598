// The options of the 'kafka' and 'upsert-kafka' sinks (Flink's names), checked at plan time and
// resolved into a plain config: where to write, how keys and values are encoded, how messages are
// partitioned, and the delivery guarantee.
import { WeirError } from '../../../common/errors.js'
import type { Field } from '../../../common/types.js'
import type { ConnectorOptions } from '../../api.js'
import { aboutKey, aboutValue, badValue, boolOption, checkKnownOptions, checkRequiredOptions, enumOption, intOption } from '../../options.js'
import type { CsvConfig, JsonConfig } from '../../filesystem/options.js'
import { resolveKeyLayout, type MessageFormat } from '../key-options.js'
import { resolveSinkValueFormat, SINK_FORMAT_OPTIONS, type SinkValueFormat } from './value-format.js'
import type { Compression } from '../produce/record-batch.js'

export type { MessageFormat, SinkValueFormat }

/** The metadata a Kafka sink writes into each message (Flink's writable keys of 'kafka' and 'upsert-kafka'). */
export const WRITABLE_METADATA: readonly string[] = ['timestamp', 'headers']

export type DeliveryGuarantee = 'exactly-once' | 'at-least-once' | 'none'
const GUARANTEES: readonly DeliveryGuarantee[] = ['exactly-once', 'at-least-once', 'none']
export type Partitioner = 'default' | 'fixed' | 'round-robin'
const PARTITIONERS: readonly Partitioner[] = ['default', 'fixed', 'round-robin']

/** The 'properties.*' that Weir's Kafka client (kafkajs) honours; others would be silently ignored, so they are refused. */
const PROPERTIES = [
  'properties.bootstrap.servers',
  'properties.client.id',
  'properties.transaction.timeout.ms',
  'properties.request.timeout.ms',
  'properties.compression.type',
]
/** The codecs Weir writes record batches with ('properties.compression.type'). */
const COMPRESSIONS: readonly Compression[] = ['none', 'gzip']

/** Where and how the sink connects, and its transactions (what recovery needs without the schema). */
export interface KafkaConnection {
  readonly topic: string
  readonly brokers: readonly string[]
  readonly clientId: string
  /** 'properties.transaction.timeout.ms': how long the broker keeps a transaction open before aborting it. */
  readonly transactionTimeoutMs: number
  readonly requestTimeoutMs: number
  /** 'properties.compression.type': the codec of the record batches produced. */
  readonly compression: Compression
  /** As asked ('exactly-once' when not set and the job checkpoints; see resolveGuarantee). */
  readonly guarantee: DeliveryGuarantee | undefined
  readonly transactionalIdPrefix: string
}

export interface KafkaSinkConfig extends KafkaConnection {
  readonly connector: 'kafka' | 'upsert-kafka'
  /** Indexes into the sink's rows of the key's columns (empty: messages have no key). */
  readonly keyColumns: readonly number[]
  readonly keyFormat: MessageFormat | undefined
  /** The key's field names: the key columns' names without 'key.fields-prefix' (absent: the columns' names). */
  readonly keyNames?: readonly string[]
  /** Indexes of the value's columns (all physical ones, or all but the key's with EXCEPT_KEY). */
  readonly valueColumns: readonly number[]
  readonly valueFormat: SinkValueFormat
  /** How json and debezium-json values, and csv values, are written (absent: the formats' defaults). */
  readonly json?: JsonConfig
  readonly csv?: CsvConfig
  /** The row index of the column of metadata 'timestamp' (each message's timestamp), if written. */
  readonly timestampColumn?: number | undefined
  /** The row index of the column of metadata 'headers' (a JSON object of header names to text), if written. */
  readonly headersColumn?: number | undefined
  readonly partitioner: Partitioner
  /** upsert-kafka ('sink.compact-by-key', default true): exactly-once keeps only each key's last message of a checkpoint. */
  readonly compactByKey: boolean
}

const COMMON = [
  'topic',
  'format',
  'value.format',
  'key.format',
  'key.fields-prefix',
  'value.fields-include',
  'sink.delivery-guarantee',
  'sink.transactional-id-prefix',
  ...PROPERTIES,
  ...SINK_FORMAT_OPTIONS,
]
const KAFKA_ONLY = ['key.fields', 'sink.partitioner']
const UPSERT_ONLY = ['sink.compact-by-key']

/**
 * Checks a sink table's options against the columns it writes and its primary key (names as
 * declared). `metadata`, per schema column: its metadata key (one of WRITABLE_METADATA), or null for
 * a column of the message's key or value; absent: all are.
 *
 * @example resolveKafkaSink('kafka', { topic: 'out', 'properties.bootstrap.servers': '127.0.0.1:9092' }, schema, [])
 */
export function resolveKafkaSink(connector: 'kafka' | 'upsert-kafka', options: ConnectorOptions, schema: readonly Field[], primaryKey: readonly string[],
  metadata?: readonly (string | null)[]): KafkaSinkConfig
{
  const upsert = connector === 'upsert-kafka'
  checkKnownOptions(connector, options, upsert ? [...COMMON, ...UPSERT_ONLY] : [...COMMON, ...KAFKA_ONLY], key => {
    if (key.startsWith('properties.') && !PROPERTIES.includes(key)) {
      throw aboutKey(WeirError.unsupported(`Kafka client property '${key}' is not supported by connector '${connector}'`, {
        help: `Weir's Kafka client takes ${PROPERTIES.map(p => `'${p}'`).join(', ')}; remove '${key}'`,
      }), key)
    }
    return false
  })
  if (upsert && options['format'] !== undefined) {
    throw aboutKey(WeirError.connector(`connector 'upsert-kafka' takes 'key.format' and 'value.format', not 'format'`, {
      help: `replace 'format' with 'value.format' (and set 'key.format')`,
    }), 'format')
  }
  checkRequiredOptions(connector, options,
    upsert ? ['topic', 'properties.bootstrap.servers', 'key.format', 'value.format'] : ['topic', 'properties.bootstrap.servers'])
  const connection = resolveConnection(options)
  if (!upsert && options['format'] !== undefined && options['value.format'] !== undefined) {
    throw aboutKey(WeirError.connector(`options 'format' and 'value.format' cannot both be set`, { help: 'keep one of them' }), 'value.format')
  }
  const valueKey = options['value.format'] !== undefined ? 'value.format' : 'format'
  if (!upsert && options[valueKey] === undefined) checkRequiredOptions(connector, options, ['format'])
  // Metadata columns are written into the message's timestamp and headers; the key and the value
  // hold the others, whose indexes the layout gives among them.
  const physical = schema.flatMap((_, i) => ((metadata?.[i] ?? null) === null ? [i] : []))
  const physicalSchema = physical.map(i => schema[i]!)
  // A debezium-json value's rows are json objects: the key layout is resolved as for json.
  const debezium = (options[valueKey] ?? '').trim().toLowerCase() === 'debezium-json'
  const layout = resolveKeyLayout(connector, debezium ? { ...options, [valueKey]: 'json' } : options, physicalSchema,
    upsert ? primaryKeyColumns(primaryKey, physicalSchema) : undefined)
  const value = resolveSinkValueFormat(connector, options, valueKey)
  const metadataColumn = (key: string): number | undefined => {
    const i = metadata?.indexOf(key) ?? -1
    return i < 0 ? undefined : i
  }
  return {
    ...connection,
    connector,
    keyColumns: layout.keyColumns.map(i => physical[i]!),
    keyFormat: layout.keyFormat,
    keyNames: layout.keyNames,
    valueColumns: layout.valueColumns.map(i => physical[i]!),
    valueFormat: value.format,
    json: value.json,
    csv: value.csv,
    timestampColumn: metadataColumn('timestamp'),
    headersColumn: metadataColumn('headers'),
    partitioner: upsert ? 'default' : enumOption(options, 'sink.partitioner', PARTITIONERS, 'default'),
    compactByKey: upsert && boolOption(options, 'sink.compact-by-key', true),
  }
}

/** The connection options of a sink whose options were checked at plan time (recovery needs no more). */
export function resolveConnection(options: ConnectorOptions): KafkaConnection {
  const topic = options['topic']!.trim()
  if (topic === '' || !/^[A-Za-z0-9._-]+$/.test(topic)) {
    throw badValue('topic', options['topic']!, `one topic name (letters, digits, '.', '_', '-')`,
      options['topic']!.includes(';') ? `a sink writes to one topic; Weir does not support a list here` : undefined)
  }
  const brokers = options['properties.bootstrap.servers']!.split(',').map(s => s.trim()).filter(s => s !== '')
  if (brokers.length === 0 || brokers.some(b => !/^[^:\s]+:\d+$/.test(b))) {
    throw badValue('properties.bootstrap.servers', options['properties.bootstrap.servers']!, `host:port[,host:port…]`)
  }
  const prefix = options['sink.transactional-id-prefix'] ?? 'weir'
  if (prefix.trim() === '') throw badValue('sink.transactional-id-prefix', prefix, 'a non-empty prefix')
  return {
    topic,
    brokers,
    clientId: options['properties.client.id'] ?? 'weir',
    transactionTimeoutMs: intOption(options, 'properties.transaction.timeout.ms', 60_000, 1000, 3_600_000),
    requestTimeoutMs: intOption(options, 'properties.request.timeout.ms', 30_000, 1000, 3_600_000),
    compression: compressionOption(options),
    guarantee: options['sink.delivery-guarantee'] === undefined ? undefined : enumOption(options, 'sink.delivery-guarantee', GUARANTEES, 'exactly-once'),
    transactionalIdPrefix: prefix,
  }
}

function compressionOption(options: ConnectorOptions): Compression {
  const text = options['properties.compression.type']
  if (text !== undefined && ['snappy', 'lz4', 'zstd'].includes(text.trim().toLowerCase())) {
    throw badValue('properties.compression.type', text, `'none' or 'gzip'`, `Weir's Kafka sink has no ${text.trim()} codec; use 'gzip' or 'none'`)
  }
  return enumOption(options, 'properties.compression.type', COMPRESSIONS, 'none')
}

/**
 * What the sink delivers: the guarantee asked for, or exactly-once when the job checkpoints and
 * at-least-once when not. Exactly-once needs checkpoints; without them it is at-least-once (a
 * `warning` says so when the user asked for exactly-once), as in Flink.
 */
export function resolveGuarantee(config: KafkaSinkConfig, checkpoints: boolean): { guarantee: DeliveryGuarantee; warning?: string } {
  if (config.guarantee === undefined) return { guarantee: checkpoints ? 'exactly-once' : 'at-least-once' }
  if (config.guarantee === 'exactly-once' && !checkpoints) {
    return {
      guarantee: 'at-least-once',
      warning: `warning: table writes to Kafka topic '${config.topic}' with 'sink.delivery-guarantee' = 'exactly-once', but the job takes no `
        + `checkpoints, so it delivers at least once; set 'execution.checkpointing.interval' for exactly-once`,
    }
  }
  return { guarantee: config.guarantee }
}

function primaryKeyColumns(primaryKey: readonly string[], schema: readonly Field[]): number[] {
  if (primaryKey.length === 0) {
    throw aboutValue(WeirError.connector(`connector 'upsert-kafka' needs a PRIMARY KEY: it becomes each message's key`, {
      help: `declare PRIMARY KEY (col, …) NOT ENFORCED on the table`,
    }), 'connector')
  }
  return primaryKey.map(name => schema.findIndex(f => f.name === name))
}
