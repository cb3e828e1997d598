// The Kafka source's options (Flink's names and meanings), checked at plan time and resolved into a
// plain config: topics, where to start ('scan.startup.*'), where to end ('scan.bounded.*'), the
// value format and its bad-record policy (the filesystem connector's decoders and their options).
import { WeirError } from '../../common/errors.js'
import type { Field } from '../../common/types.js'
import type { ConnectorOptions } from '../api.js'
import { FORMAT_OPTIONS, resolveFsOptions, type CsvConfig, type JsonConfig } from '../filesystem/options.js'
import { aboutKey, aboutValue, badValue, bigintOption, checkKnownOptions, enumOption } from '../options.js'
import { bootstrapServers, checkProperties, clientConfig, CLIENT_PROPERTIES, CONSUMER_PROPERTIES } from './client.js'

export type StartupMode = 'earliest-offset' | 'latest-offset' | 'group-offsets' | 'timestamp' | 'specific-offsets'
const STARTUP_MODES: readonly StartupMode[] = ['earliest-offset', 'latest-offset', 'group-offsets', 'timestamp', 'specific-offsets']
export type BoundedMode = 'unbounded' | 'latest-offset' | 'group-offsets' | 'timestamp' | 'specific-offsets'
const BOUNDED_MODES: readonly BoundedMode[] = ['unbounded', 'latest-offset', 'group-offsets', 'timestamp', 'specific-offsets']
export type ValueFormat = 'json' | 'csv' | 'raw'
const FORMATS: readonly ValueFormat[] = ['json', 'csv', 'raw']

/** Offsets per partition of 'scan.*.specific-offsets': 'partition:0,offset:42;partition:1,offset:300'. */
export type SpecificOffsets = ReadonlyMap<number, number>

/** Where each partition starts (or ends) by mode; only the mode's own setting is set. */
export interface OffsetSpec<M> {
  readonly mode: M
  readonly timestamp?: number
  readonly offsets?: SpecificOffsets
}

export interface KafkaSourceConfig {
  readonly topics: readonly string[]
  readonly groupId: string | undefined
  readonly startup: OffsetSpec<StartupMode>
  readonly bounded: OffsetSpec<BoundedMode>
  /** With 'group-offsets': where a partition without a committed offset starts ('properties.auto.offset.reset'); 'none' is an error. */
  readonly offsetReset: 'earliest' | 'latest' | 'none'
  readonly readCommitted: boolean
  readonly format: ValueFormat
  readonly json: JsonConfig
  readonly csv: CsvConfig
}

const SOURCE_OPTIONS = [
  'topic',
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
/** Flink options Weir knows but does not support yet: refused with a reason rather than as unknown. */
const NOT_YET: Readonly<Record<string, string>> = {
  'topic-pattern': `list the topics in 'topic' instead ('a;b;c')`,
  'key.format': 'message keys are not read yet: only the value is decoded',
  'key.fields': 'message keys are not read yet: only the value is decoded',
  'key.fields-prefix': 'message keys are not read yet: only the value is decoded',
  'value.fields-include': 'message keys are not read yet: every physical column comes from the value',
  'scan.topic-partition-discovery.interval': 'partitions are listed when the job starts; partitions added later are not read',
  'scan.watermark.idle-timeout': 'an idle partition holds the watermark back; give every partition data, or use a topic with fewer partitions',
}

/** Checks the options (no broker access) and resolves defaults. */
/**
 * The source's options resolved, or a WeirError naming the bad one. `reading` false checks what
 * defines the table only: a table that is only written needs no consumer group for 'group-offsets'.
 */
export function resolveKafkaSourceOptions(options: ConnectorOptions, schema: readonly Field[], reading = true): KafkaSourceConfig {
  for (const [key, why] of Object.entries(NOT_YET)) {
    if (options[key] !== undefined) {
      throw aboutKey(WeirError.unsupported(`option '${key}' of connector 'kafka' is not supported yet`, { help: `remove it; ${why}` }), key)
    }
  }
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
  const format = enumOption(options, formatKey, FORMATS, 'json')
  checkKnownOptions('kafka', options, [...SOURCE_OPTIONS, ...JSON_OPTIONS, ...CSV_OPTIONS, 'properties.group.id'], k => k.startsWith('properties.'))
  checkProperties(options, [...CLIENT_PROPERTIES, ...CONSUMER_PROPERTIES])
  bootstrapServers(options)
  clientConfig(options, 'check') // the client properties' values
  const topicText = options['topic']
  if (topicText === undefined) {
    throw aboutValue(
      WeirError.connector(`required option 'topic' is missing for connector 'kafka'`, { help: `add 'topic' = 'name' (or 'a;b' for several topics)` }),
      'connector',
    )
  }
  const topics = topicText.split(';').map(t => t.trim()).filter(t => t !== '')
  if (topics.length === 0 || topics.some(t => !/^[A-Za-z0-9._-]{1,249}$/.test(t))) {
    throw badValue('topic', topicText, `a topic name (letters, digits, '.', '_', '-') or a ';'-separated list of them`)
  }
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
  if (format === 'raw') checkRawSchema(schema, options)
  // The format's options are the filesystem connector's: its resolver checks them (and that they
  // match the format); 'path' only satisfies it.
  const formatOptions: Record<string, string> = { path: 'kafka', format: format === 'raw' ? 'json' : format }
  for (const key of [...JSON_OPTIONS, ...CSV_OPTIONS]) {
    if (options[key] === undefined) continue
    if (format === 'raw') {
      throw aboutKey(WeirError.connector(`option '${key}' does not apply to format 'raw'`, { help: `remove '${key}', or change the format` }), key)
    }
    formatOptions[key] = options[key]
  }
  const { json, csv } = resolveFsOptions(formatOptions)
  return { topics, groupId, startup, bounded, offsetReset, readCommitted, format, json, csv }
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
