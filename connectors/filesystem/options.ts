// The filesystem connector's options, checked at plan time and resolved into a plain config that
// the readers and writers use. Format options ('json.*', 'csv.*') must match the chosen 'format'.
import { WeirError } from '../../common/errors.js'
import type { ConnectorOptions } from '../api.js'
import { aboutKey, aboutValue, badValue, boolOption, charOption, checkKnownOptions, checkRequiredOptions, enumOption } from '../options.js'

export type FileFormat = 'json' | 'csv' | 'debezium-json'
export const FORMATS: readonly FileFormat[] = ['json', 'csv', 'debezium-json']

export interface JsonConfig {
  readonly ignoreParseErrors: boolean
  readonly failOnMissingField: boolean
  /** How the sink writes timestamps: 'SQL' is 'yyyy-MM-dd HH:mm:ss.SSS', 'ISO-8601' puts a 'T' between date and time. */
  readonly timestampStandard: 'SQL' | 'ISO-8601'
  /** What a number read into a TIMESTAMP column counts ('json.timestamp-format.epoch'); null: numbers are bad records. */
  readonly timestampEpoch: EpochUnit | null
}

/** Units of the '….timestamp-format.epoch' options. */
export type EpochUnit = 'seconds' | 'millis'
const EPOCH_UNITS: readonly EpochUnit[] = ['seconds', 'millis']

export interface CsvConfig {
  readonly delimiter: string
  readonly ignoreParseErrors: boolean
  readonly nullLiteral: string
  readonly allowComments: boolean
  /** null when quoting is disabled. */
  readonly quote: string | null
  readonly escape: string | null
  /** As JsonConfig.timestampEpoch ('csv.timestamp-format.epoch'). */
  readonly timestampEpoch: EpochUnit | null
}

export interface FsConfig {
  readonly path: string
  readonly format: FileFormat
  readonly json: JsonConfig
  readonly csv: CsvConfig
  /** 'debezium-json.schema-include': each change is the payload of a {"schema":…,"payload":…} envelope (read only). */
  readonly schemaInclude: boolean
  /**
   * 'source.decode-thread': whether a JSON source reads and decodes its files on a worker thread
   * (decode-thread.ts); 'auto': when the machine has at least two cores. Default 'false': on this
   * project's 2-core benchmark host the worker costs more per row (decode + encode + message) than
   * the whole main-thread reader, so it frees the main thread but has not raised throughput (README,
   * "Reading a JSON file"); it pays off where the operators cost more per row than decoding does.
   */
  readonly decodeThread: 'auto' | 'true' | 'false'
}

const COMMON = ['path', 'format', 'source.decode-thread']
/** Each format's options (the Kafka source takes the json and csv ones too). */
export const FORMAT_OPTIONS: Record<FileFormat, readonly string[]> = {
  'json': ['json.ignore-parse-errors', 'json.fail-on-missing-field', 'json.timestamp-format.standard', 'json.timestamp-format.epoch'],
  'csv': [
    'csv.field-delimiter',
    'csv.ignore-parse-errors',
    'csv.null-literal',
    'csv.allow-comments',
    'csv.quote-character',
    'csv.disable-quote-character',
    'csv.escape-character',
    'csv.timestamp-format.epoch',
  ],
  'debezium-json': [
    'debezium-json.ignore-parse-errors',
    'debezium-json.timestamp-format.standard',
    'debezium-json.timestamp-format.epoch',
    'debezium-json.schema-include',
  ],
}
const ALL_OPTIONS = [...COMMON, ...Object.values(FORMAT_OPTIONS).flat()]

/**
 * Checks option syntax (no file system access) and resolves defaults. Sources and sinks share it:
 * the planner validates a table's options once, before it knows how the table will be used.
 */
export function resolveFsOptions(options: ConnectorOptions): FsConfig {
  if (options['source.monitor-interval'] !== undefined) {
    throw aboutKey(WeirError.unsupported(`option 'source.monitor-interval' is not supported: the filesystem source is bounded`, {
      help: `remove 'source.monitor-interval'; the source reads the files that exist when the job starts and then ends`,
    }), 'source.monitor-interval')
  }
  checkKnownOptions('filesystem', options, ALL_OPTIONS)
  checkRequiredOptions('filesystem', options, ['path'])
  const path = options['path']!
  if (path.trim() === '') {
    throw aboutValue(WeirError.connector(`option 'path' of connector 'filesystem' is empty`, { help: `set 'path' to a file or a directory` }), 'path')
  }
  const format = enumOption(options, 'format', FORMATS, 'json')
  // Options of another format are a mistake (Flink rejects them too).
  for (const key of Object.keys(options)) {
    for (const [f, keys] of Object.entries(FORMAT_OPTIONS)) {
      if (f !== format && keys.includes(key)) {
        throw aboutKey(WeirError.connector(`option '${key}' applies to format '${f}', but 'format' is '${format}'`, {
          help: `remove '${key}' or set 'format' = '${f}'`,
        }), key)
      }
    }
  }
  // debezium-json reads each row as json does, under options of its own name.
  const prefix = format === 'debezium-json' ? 'debezium-json' : 'json'
  const json: JsonConfig = {
    ignoreParseErrors: boolOption(options, `${prefix}.ignore-parse-errors`, false),
    failOnMissingField: boolOption(options, 'json.fail-on-missing-field', false),
    timestampStandard: enumOption(options, `${prefix}.timestamp-format.standard`, ['SQL', 'ISO-8601'] as const, 'SQL'),
    timestampEpoch: epochOption(options, `${prefix}.timestamp-format.epoch`),
  }
  const schemaInclude = boolOption(options, 'debezium-json.schema-include', false)
  if (json.ignoreParseErrors && json.failOnMissingField) {
    throw aboutKey(
      WeirError.connector(`options 'json.ignore-parse-errors' and 'json.fail-on-missing-field' cannot both be 'true'`, { help: 'keep one of them' }),
      'json.fail-on-missing-field',
    )
  }
  const disableQuote = boolOption(options, 'csv.disable-quote-character', false)
  if (disableQuote && options['csv.quote-character'] !== undefined) {
    throw aboutKey(WeirError.connector(`options 'csv.quote-character' and 'csv.disable-quote-character' cannot be used together`, { help: 'keep one of them' }),
      'csv.disable-quote-character')
  }
  const delimiter = charOption(options, 'csv.field-delimiter', ',')
  const quote = disableQuote ? null : charOption(options, 'csv.quote-character', '"')
  const escapeText = options['csv.escape-character']
  const csv: CsvConfig = {
    delimiter,
    ignoreParseErrors: boolOption(options, 'csv.ignore-parse-errors', false),
    nullLiteral: options['csv.null-literal'] ?? '',
    allowComments: boolOption(options, 'csv.allow-comments', false),
    quote,
    escape: escapeText === undefined ? null : charOption(options, 'csv.escape-character', '\\'),
    timestampEpoch: epochOption(options, 'csv.timestamp-format.epoch'),
  }
  if (delimiter === '\n' || delimiter === '\r' || delimiter === csv.quote) {
    throw badValue('csv.field-delimiter', options['csv.field-delimiter'] ?? ',', 'a character other than the quote character and line breaks')
  }
  const decodeThread = enumOption(options, 'source.decode-thread', ['auto', 'true', 'false'] as const, 'false')
  return { path, format, json, csv, schemaInclude, decodeThread }
}

/** Flink has no option for numeric timestamps (it rejects them): this one says what they count. */
function epochOption(options: ConnectorOptions, key: string): EpochUnit | null {
  return options[key] === undefined ? null : enumOption(options, key, EPOCH_UNITS, 'millis')
}
