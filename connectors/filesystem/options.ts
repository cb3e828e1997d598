// The filesystem connector's options, checked at plan time and resolved into a plain config that
// the readers and writers use. Format options ('json.*', 'csv.*') must match the chosen 'format'.
import { WeirError } from '../../common/errors.js'
import type { ConnectorOptions } from '../api.js'
import { parseDuration, parseSize } from '../../common/durations.js'
import { fileURLToPath } from 'node:url'
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
   * (decode-thread.ts); 'auto': when the machine has two cores per source subtask. Default 'false': on this
   * project's 2-core benchmark host the worker costs more per row (decode + encode + message) than
   * the whole main-thread reader, so it frees the main thread but has not raised throughput (README,
   * "Reading a JSON file"); it pays off where the operators cost more per row than decoding does.
   */
  readonly decodeThread: 'auto' | 'true' | 'false'
  /**
   * 'source.split-size': a 'json' or 'debezium-json' file larger than this is read as byte ranges of
   * this size (splits.ts), which the source's subtasks share. Default 32 MB (Flink's block size of
   * local files, by which its file source splits).
   */
  readonly splitSize: number
  /** 'partition.default-name': the folder of a NULL or empty partition value. */
  readonly defaultPartition: string
  /** How a PARTITIONED BY sink commits a partition (partition-commit.ts). */
  readonly partitionCommit: PartitionCommitConfig
  /**
   * 'sink.rolling-policy.file-size' / '.rollover-interval': with checkpoints, a part also rolls (is
   * sealed, to be published by the next checkpoint) once it holds this many bytes or is this old when
   * rows come; every checkpoint rolls it in any case.
   */
  readonly rolling: { readonly fileSize: number; readonly rolloverMs: number }
}

/**
 * 'sink.partition-commit.*': when a partition is done (its files are visible and the trigger says no
 * more rows will come) the policies run; 'success-file' writes an empty marker file into its folder.
 */
export interface PartitionCommitConfig {
  /** 'process-time': when the wall clock passes the partition's first write plus the delay; 'partition-time': when the watermark passes the time its values stand for plus the delay. */
  readonly trigger: 'process-time' | 'partition-time'
  readonly delayMs: number
  readonly successFile: boolean
  readonly successFileName: string
  /** 'partition.time-extractor.timestamp-pattern': e.g. '$dt $hour:00:00'; default: the first partition column's value. */
  readonly timestampPattern: string | null
  /** 'partition.time-extractor.timestamp-formatter': the pattern's text format (default 'yyyy-MM-dd HH:mm:ss'). */
  readonly timestampFormatter: string
}

const COMMON = ['path', 'format', 'source.decode-thread', 'source.split-size', 'partition.default-name', 'sink.partition-commit.trigger',
  'sink.partition-commit.delay', 'sink.partition-commit.policy.kind', 'sink.partition-commit.success-file.name', 'sink.partition-commit.watermark-time-zone',
  'partition.time-extractor.kind', 'partition.time-extractor.timestamp-pattern', 'partition.time-extractor.timestamp-formatter',
  'sink.rolling-policy.file-size', 'sink.rolling-policy.rollover-interval', 'sink.rolling-policy.check-interval', 'sink.rolling-policy.inactivity-interval']
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
  const path = localPath(options['path']!)
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
  const splitText = options['source.split-size']
  const splitSize = splitText === undefined ? DEFAULT_SPLIT_SIZE : parseSize(splitText)
  if (splitSize === null || splitSize <= 0) throw badValue('source.split-size', splitText!, `a size such as '32 mb' or '64 kb'`)
  const defaultPartition = options['partition.default-name'] ?? '__DEFAULT_PARTITION__'
  if (defaultPartition === '' || /[/\\]/.test(defaultPartition) || defaultPartition.startsWith('.')) {
    throw badValue('partition.default-name', defaultPartition, 'a folder name (not empty, without / or \\, not starting with a dot)')
  }
  return { path, format, json, csv, schemaInclude, decodeThread, splitSize, defaultPartition, partitionCommit: partitionCommitOptions(options),
    rolling: rollingOptions(options) }
}

/** 'source.split-size' when not set: 32 MB. */
export const DEFAULT_SPLIT_SIZE = 32 * 1024 * 1024

/** Flink's defaults: 128 MB, 30 min. The check and inactivity intervals are checked only: a part is looked at when rows come. */
function rollingOptions(options: ConnectorOptions): FsConfig['rolling'] {
  const duration = (key: string, fallback: number): number => {
    const text = options[key]
    if (text === undefined) return fallback
    const ms = parseDuration(text)
    if (ms === null || ms <= 0) throw badValue(key, text, `a duration such as '30 min' or '10 s'`)
    return ms
  }
  const sizeText = options['sink.rolling-policy.file-size']
  const fileSize = sizeText === undefined ? 128 * 1024 * 1024 : parseSize(sizeText)
  if (fileSize === null || fileSize <= 0) throw badValue('sink.rolling-policy.file-size', sizeText!, `a size such as '128 mb' or '1 gb'`)
  duration('sink.rolling-policy.check-interval', 60_000)
  duration('sink.rolling-policy.inactivity-interval', 30 * 60_000)
  return { fileSize, rolloverMs: duration('sink.rolling-policy.rollover-interval', 30 * 60_000) }
}

function partitionCommitOptions(options: ConnectorOptions): PartitionCommitConfig {
  const trigger = enumOption(options, 'sink.partition-commit.trigger', ['process-time', 'partition-time'] as const, 'process-time')
  const delayText = options['sink.partition-commit.delay']
  const delayMs = delayText === undefined ? 0 : parseDuration(delayText)
  if (delayMs === null) throw badValue('sink.partition-commit.delay', delayText!, `a duration such as '0 s', '1 h' or '10 min'`)
  const kinds = (options['sink.partition-commit.policy.kind'] ?? '').split(',').map(k => k.trim().toLowerCase()).filter(k => k !== '')
  for (const k of kinds) {
    if (k === 'success-file') continue
    if (k === 'metastore' || k === 'custom') {
      throw aboutValue(WeirError.unsupported(`partition commit policy '${k}' is not supported`, {
        help: k === 'metastore'
          ? `'metastore' registers partitions in a Hive metastore, which Weir has no catalog for: use 'success-file'`
          : `custom policy classes are Java: use 'success-file'`,
      }), 'sink.partition-commit.policy.kind')
    }
    throw badValue('sink.partition-commit.policy.kind', options['sink.partition-commit.policy.kind']!, `'success-file' (or a comma-separated list of policies)`)
  }
  const zone = options['sink.partition-commit.watermark-time-zone']
  if (zone !== undefined && !['UTC', 'GMT', 'Z', '+00:00'].includes(zone.trim().toUpperCase())) {
    throw aboutValue(WeirError.unsupported(`'sink.partition-commit.watermark-time-zone' = '${zone}' is not supported yet`, {
      help: `partition times are compared with the watermark in UTC: remove the option or set it to 'UTC'`,
    }), 'sink.partition-commit.watermark-time-zone')
  }
  const kind = options['partition.time-extractor.kind']
  if (kind !== undefined && kind.trim().toLowerCase() !== 'default') {
    throw aboutValue(WeirError.unsupported(`'partition.time-extractor.kind' = '${kind}' is not supported`, {
      help: `the 'default' extractor reads the time from 'partition.time-extractor.timestamp-pattern'; custom extractors are Java classes`,
    }), 'partition.time-extractor.kind')
  }
  const timestampFormatter = options['partition.time-extractor.timestamp-formatter'] ?? 'yyyy-MM-dd HH:mm:ss'
  if (!/^(?:yyyy|MM|dd|HH|mm|ss|[^A-Za-z])+$/.test(timestampFormatter) || !timestampFormatter.includes('yyyy')) {
    throw badValue('partition.time-extractor.timestamp-formatter', timestampFormatter,
      `a pattern of yyyy, MM, dd, HH, mm, ss and separators, e.g. 'yyyy-MM-dd HH:mm:ss' or 'yyyyMMdd'`)
  }
  const name = options['sink.partition-commit.success-file.name'] ?? '_SUCCESS'
  if (name === '' || /[/\\]/.test(name)) throw badValue('sink.partition-commit.success-file.name', name, 'a file name')
  return {
    trigger,
    delayMs,
    successFile: kinds.includes('success-file'),
    successFileName: name,
    timestampPattern: options['partition.time-extractor.timestamp-pattern'] ?? null,
    timestampFormatter,
  }
}

/** A 'path' as a local path: `file:///data/x` (Flink's spelling) is `/data/x`; other schemes are refused. */
function localPath(path: string): string {
  if (/^file:/i.test(path)) {
    try {
      // file:/x and file:///x are both local paths, as in Flink (Hadoop's Path).
      return fileURLToPath(path.replace(/^file:\/*/i, 'file:///'))
    } catch {
      throw badValue('path', path, 'a local path or a file:// URI')
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw aboutValue(WeirError.unsupported(`filesystem path '${path}' is not local: only local paths and file:// URIs are supported`, {
      help: 'write to a local folder (S3 is for checkpoints: state.checkpoints.dir)',
    }), 'path')
  }
  return path
}

/** Flink has no option for numeric timestamps (it rejects them): this one says what they count. */
function epochOption(options: ConnectorOptions, key: string): EpochUnit | null {
  return options[key] === undefined ? null : enumOption(options, key, EPOCH_UNITS, 'millis')
}
