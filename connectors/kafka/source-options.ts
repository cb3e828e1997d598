// The Kafka source's options (Flink's names and meanings), checked at plan time and resolved into a
// plain config: topics, where to start ('scan.startup.*'), where to end ('scan.bounded.*'), the
// value format and its bad-record policy (the filesystem connector's decoders and their options).
import { WeirError } from '../../common/errors.js'
import type { Field } from '../../common/types.js'
import type { ConnectorOptions } from '../api.js'
import { FORMAT_OPTIONS, resolveFsOptions, type CsvConfig, type JsonConfig } from '../filesystem/options.js'
import { aboutKey, aboutValue, badValue, bigintOption, boolOption, checkKnownOptions, durationOption, enumOption } from '../options.js'
import { MESSAGE_FORMATS, resolveKeyLayout, type KeyLayout, type MessageFormat } from './key-options.js'
import { bootstrapServers, checkProperties, clientConfig, CLIENT_PROPERTIES, CONSUMER_PROPERTIES } from './client.js'

export type StartupMode = 'earliest-offset' | 'latest-offset' | 'group-offsets' | 'timestamp' | 'specific-offsets'
const STARTUP_MODES: readonly StartupMode[] = ['earliest-offset', 'latest-offset', 'group-offsets', 'timestamp', 'specific-offsets']
export type BoundedMode = 'unbounded' | 'latest-offset' | 'group-offsets' | 'timestamp' | 'specific-offsets'
const BOUNDED_MODES: readonly BoundedMode[] = ['unbounded', 'latest-offset', 'group-offsets', 'timestamp', 'specific-offsets']
/** A message format, or 'debezium-json': change events, each giving +I, -U/+U or -D rows. */
export type ValueFormat = MessageFormat | 'debezium-json'
/** Flink's default 'scan.topic-partition-discovery.interval'. */
const DISCOVERY_INTERVAL_MS = 5 * 60_000

/** Offsets per partition of 'scan.*.specific-offsets': 'partition:0,offset:42;partition:1,offset:300'. */
export type SpecificOffsets = ReadonlyMap<number, number>

/** Where each partition starts (or ends) by mode; only the mode's own setting is set. */
export interface OffsetSpec<M> {
  readonly mode: M
  readonly timestamp?: number
  readonly offsets?: SpecificOffsets
}

export interface KafkaSourceConfig {
  /** The topics named in 'topic' (empty with 'topic-pattern'). */
  readonly topics: readonly string[]
  /** 'topic-pattern' as a JavaScript RegExp matching whole topic names, or null. */
  readonly topicPattern: RegExp | null
  /** Which columns the message key and value hold, as indexes into the physical schema. */
  readonly layout: KeyLayout
  /** How often to look for new partitions (and topics matching the pattern); 0: never. */
  readonly discoveryIntervalMs: number
  /** 'scan.watermark.idle-timeout': a partition without messages for this long stops holding the watermark back; 0: never. */
  readonly idleTimeoutMs: number
  /** Commit the offsets of each completed checkpoint to 'properties.group.id' (for monitoring). */
  readonly commitOffsets: boolean
  readonly groupId: string | undefined
  readonly startup: OffsetSpec<StartupMode>
  readonly bounded: OffsetSpec<BoundedMode>
  /** With 'group-offsets': where a partition without a committed offset starts ('properties.auto.offset.reset'); 'none' is an error. */
  readonly offsetReset: 'earliest' | 'latest' | 'none'
  readonly readCommitted: boolean
  readonly format: ValueFormat
  readonly json: JsonConfig
  readonly csv: CsvConfig
  /** 'debezium-json.schema-include': each value is a {"schema", "payload"} envelope. */
  readonly schemaInclude: boolean
}

const SOURCE_OPTIONS = [
  'topic',
  'topic-pattern',
  'key.format',
  'key.fields',
  'key.fields-prefix',
  'value.fields-include',
  'scan.topic-partition-discovery.interval',
  'scan.watermark.idle-timeout',
  'properties.bootstrap.servers',
  'scan.startup.mode',
  'scan.startup.timestamp-millis',
  'scan.startup.specific-offsets',
  'scan.bounded.mode',
  'scan.bounded.timestamp-millis',
  'scan.bounded.specific-offsets',
  'format',
  'value.format',
]
const JSON_OPTIONS = FORMAT_OPTIONS.json
const CSV_OPTIONS = FORMAT_OPTIONS.csv
const FORMATS_OPTIONS = [...JSON_OPTIONS, ...CSV_OPTIONS, ...FORMAT_OPTIONS['debezium-json']]
/** Flink's consumer property: commit each completed checkpoint's offsets to the group (default true). */
const COMMIT_PROPERTY = 'properties.commit.offsets.on.checkpoint'

/**
 * The source's options resolved, or a WeirError naming the bad one. `reading` false checks what
 * defines the table only: a table that is only written needs no consumer group for 'group-offsets'.
 */
export function resolveKafkaSourceOptions(options: ConnectorOptions, schema: readonly Field[], reading = true): KafkaSourceConfig {
  if (options['format'] !== undefined && options['value.format'] !== undefined) {
    throw aboutKey(WeirError.connector(`options 'format' and 'value.format' cannot both be set`, { help: `keep one of them` }), 'value.format')
  }
  const formatKey = options['value.format'] !== undefined ? 'value.format' : 'format'
  if (options[formatKey] === undefined) {
    throw aboutValue(
      WeirError.connector(`required option 'format' (or 'value.format') is missing for connector 'kafka'`, {
        help: `add 'format' = 'json' (or 'csv', 'raw') to the table's WITH clause`,
      }),
      'connector',
    )
  }
  // A debezium-json value's rows are json objects: the key layout is resolved as for json.
  const debezium = options[formatKey]!.trim().toLowerCase() === 'debezium-json'
  const layoutOptions = debezium ? { ...options, [formatKey]: 'json' } : options
  // The value's own check first: its message says what a raw table looks like.
  if (enumOption(layoutOptions, formatKey, MESSAGE_FORMATS, 'json') === 'raw' && options['key.fields'] === undefined) checkRawSchema(schema, options)
  const layout = resolveKeyLayout('kafka', layoutOptions, schema)
  const format: ValueFormat = debezium ? 'debezium-json' : layout.valueFormat
  checkKnownOptions('kafka', options, [...SOURCE_OPTIONS, ...FORMATS_OPTIONS, 'properties.group.id'], k => k.startsWith('properties.'))
  checkProperties(options, [...CLIENT_PROPERTIES, ...CONSUMER_PROPERTIES, COMMIT_PROPERTY])
  bootstrapServers(options)
  clientConfig(options, 'check') // the client properties' values
  const { topics, topicPattern } = topicsOf(options)
  const groupId = options['properties.group.id']
  const startup = offsetSpec(options, 'scan.startup', STARTUP_MODES, 'group-offsets' as StartupMode)
  const bounded = offsetSpec(options, 'scan.bounded', BOUNDED_MODES, 'unbounded' as BoundedMode)
  for (const [spec, key] of [[startup, 'scan.startup.mode'], [bounded, 'scan.bounded.mode']] as const) {
    if (reading && spec.mode === 'group-offsets' && groupId === undefined) {
      throw aboutValue(
        WeirError.connector(`'${key}' = 'group-offsets' needs 'properties.group.id'`, {
          help: options[key] === undefined
            ? `'group-offsets' is the default startup mode (as in Flink): set 'properties.group.id', or 'scan.startup.mode' = 'earliest-offset'`
            : `set 'properties.group.id' to the consumer group whose committed offsets to use`,
        }),
        options[key] === undefined ? 'connector' : key,
      )
    }
  }
  const offsetReset = enumOption(options, 'properties.auto.offset.reset', ['earliest', 'latest', 'none'] as const, 'none')
  const readCommitted = enumOption(options, 'properties.isolation.level', ['read_uncommitted', 'read_committed'] as const, 'read_uncommitted') ===
    'read_committed'
  // As in Flink, a bounded read looks for no new partitions: where it ends was fixed at its start.
  const discovery = durationOption(options, 'scan.topic-partition-discovery.interval', DISCOVERY_INTERVAL_MS)
  const discoveryIntervalMs = bounded.mode !== 'unbounded' ? 0 : discovery
  const idleTimeoutMs = durationOption(options, 'scan.watermark.idle-timeout', 0)
  const commitOffsets = groupId !== undefined && boolOption(options, COMMIT_PROPERTY, true)
  // The format's options are the filesystem connector's: its resolver checks them (and that they
  // match the format); 'path' only satisfies it.
  const formatOptions: Record<string, string> = { path: 'kafka', format: format === 'raw' ? 'json' : format }
  for (const key of FORMATS_OPTIONS) {
    if (options[key] === undefined) continue
    if (format === 'raw') {
      throw aboutKey(WeirError.connector(`option '${key}' does not apply to format 'raw'`, { help: `remove '${key}', or change the format` }), key)
    }
    formatOptions[key] = options[key]
  }
  const { json, csv, schemaInclude } = resolveFsOptions(formatOptions)
  return {
    topics,
    topicPattern,
    layout,
    discoveryIntervalMs,
    idleTimeoutMs,
    commitOffsets,
    groupId,
    startup,
    bounded,
    offsetReset,
    readCommitted,
    format,
    json,
    csv,
    schemaInclude,
  }
}

/** 'topic' (a name or a ';' list) or 'topic-pattern' (a Java regex matching whole names): exactly one. */
function topicsOf(options: ConnectorOptions): { topics: string[]; topicPattern: RegExp | null } {
  const topicText = options['topic']
  const patternText = options['topic-pattern']
  if (topicText !== undefined && patternText !== undefined) {
    throw aboutKey(
      WeirError.connector(`options 'topic' and 'topic-pattern' cannot both be set`, { help: `keep one of them: a list of topics, or a pattern` }),
      'topic-pattern',
    )
  }
  if (patternText !== undefined) {
    let topicPattern: RegExp
    try {
      // Java's Pattern.matches: the whole name must match.
      topicPattern = new RegExp(`^(?:${patternText})$`, 'u')
    } catch (e) {
      throw badValue('topic-pattern', patternText, `a regular expression`, (e as Error).message)
    }
    return { topics: [], topicPattern }
  }
  if (topicText === undefined) {
    throw aboutValue(
      WeirError.connector(`required option 'topic' is missing for connector 'kafka'`, {
        help: `add 'topic' = 'name' (or 'a;b' for several topics, or 'topic-pattern' = 'regex')`,
      }),
      'connector',
    )
  }
  const topics = topicText.split(';').map(t => t.trim()).filter(t => t !== '')
  if (topics.length === 0 || topics.some(t => !/^[A-Za-z0-9._-]{1,249}$/.test(t))) {
    throw badValue('topic', topicText, `a topic name (letters, digits, '.', '_', '-') or a ';'-separated list of them`)
  }
  return { topics, topicPattern: null }
}

function offsetSpec<M extends string>(options: ConnectorOptions, prefix: string, modes: readonly M[], fallback: M): OffsetSpec<M> {
  const mode = enumOption(options, `${prefix}.mode`, modes, fallback)
  const tsKey = `${prefix}.timestamp-millis`
  const offsetsKey = `${prefix}.specific-offsets`
  for (const [key, needs] of [[tsKey, 'timestamp'], [offsetsKey, 'specific-offsets']] as const) {
    if (mode === needs && options[key] === undefined) {
      throw aboutValue(
        WeirError.connector(`'${prefix}.mode' = '${needs}' needs option '${key}'`, {
          help: needs === 'timestamp' ? `add '${key}' = '<epoch milliseconds>'` : `add '${key}' = 'partition:0,offset:42;partition:1,offset:300'`,
        }),
        `${prefix}.mode`,
      )
    }
    if (mode !== needs && options[key] !== undefined) {
      throw aboutKey(
        WeirError.connector(`option '${key}' applies only when '${prefix}.mode' = '${needs}'`, {
          help: `remove '${key}', or set '${prefix}.mode' = '${needs}'`,
        }),
        key,
      )
    }
  }
  if (mode === 'timestamp') return { mode, timestamp: Number(bigintOption(options, tsKey, 0n, 0n, BigInt(Number.MAX_SAFE_INTEGER))) }
  if (mode === 'specific-offsets') return { mode, offsets: specificOffsets(options, offsetsKey) }
  return { mode }
}

/** 'partition:0,offset:42;partition:1,offset:300' (Flink's syntax). */
function specificOffsets(options: ConnectorOptions, key: string): SpecificOffsets {
  const text = options[key]!
  const offsets = new Map<number, number>()
  for (const part of text.split(';').map(s => s.trim()).filter(s => s !== '')) {
    const m = /^partition\s*:\s*(\d+)\s*,\s*offset\s*:\s*(\d+)$/.exec(part)
    if (m === null || !Number.isSafeInteger(Number(m[2]))) throw badValue(key, text, `'partition:<n>,offset:<n>' entries separated by ';'`)
    const partition = Number(m[1])
    if (offsets.has(partition)) throw badValue(key, text, `each partition once`)
    offsets.set(partition, Number(m[2]))
  }
  if (offsets.size === 0) throw badValue(key, text, `'partition:<n>,offset:<n>' entries separated by ';'`)
  return offsets
}

/** Format 'raw' reads each message's value whole into the table's one physical column, a STRING. */
function checkRawSchema(schema: readonly Field[], options: ConnectorOptions): void {
  if (schema.length !== 1 || schema[0]!.type.kind !== 'STRING') {
    throw aboutValue(
      WeirError.connector(
        `format 'raw' needs exactly one physical column of type STRING, but the table has ${
          schema.length === 1 ? `a column of type ${schema[0]!.type.kind}` : `${schema.length}`
        }`,
        { help: `declare one STRING column (computed and METADATA columns may be added), or use 'format' = 'json' or 'csv'` },
      ),
      options['value.format'] !== undefined ? 'value.format' : 'format',
    )
  }
}
