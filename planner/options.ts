// Job options that SET can change, with their defaults and validation, and what SET does with a
// key: store a Weir option (a Flink spelling of one under Weir's key), warn about a Flink option
// Weir ignores (planner/flink-options.ts), or refuse an unknown key with a did-you-mean.
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import type { Warning } from '../common/warnings.js'
import { parseDuration, parseSize } from '../common/durations.js'
import { closest } from '../common/names.js'
import { FLINK_ALIASES, flinkKeys, ignoredFlinkOption } from './flink-options.js'

interface OptionDef {
  readonly default?: string
  readonly describe: string
  readonly check?: (value: string) => string | undefined
  /** What to do instead, when `check` refuses a value. */
  readonly help?: string
  /** A value Weir takes but does not honour as written: why it changes nothing. */
  readonly warn?: (value: string) => string | undefined
  /** The value as stored (the engine compares enumerated values in lower case). */
  readonly normalize?: (value: string) => string
}

const duration = (v: string): string | undefined => (parseDuration(v) === null ? `expected a duration such as '10 s', '5 min' or '1 h'` : undefined)
const size = (v: string): string | undefined => (parseSize(v) === null ? `expected a size such as '64 mb'` : undefined)
const memtableSize = (v: string): string | undefined => {
  const bytes = parseSize(v)
  return bytes === null ? `expected a size such as '32 mb'` : bytes < 64 * 1024 ? 'a memtable takes at least 64 kb' : undefined
}
const positiveInt = (v: string): string | undefined => (/^\d+$/.test(v.trim()) && Number(v) > 0 ? undefined : 'expected a positive integer')
const oneOf = (...values: string[]) => (v: string): string | undefined =>
  values.includes(v.trim().toLowerCase()) ? undefined : `expected one of ${values.map(x => `'${x}'`).join(', ')}`
/** One of `values`, any case, stored in lower case ('HEAP' must not read as "not 'heap'"). */
const choice = (...values: string[]): Pick<OptionDef, 'check' | 'normalize'> => ({ check: oneOf(...values), normalize: v => v.trim().toLowerCase() })
const UTC = new Set(['utc', 'z', 'gmt', 'etc/utc', 'utc+0', 'utc+00:00', '+00:00', 'gmt+0', 'gmt+00:00'])

/** Every option Weir understands. Unknown keys are rejected so typos do not pass silently. */
export const OPTIONS: Readonly<Record<string, OptionDef>> = {
  'table.exec.state.ttl': { default: '0', describe: 'state TTL of group aggregates (0 = keep forever)', check: duration },
  'table.exec.mini-batch.enabled': { default: 'true', describe: 'group aggregates fold the rows of one batch per key before emitting; false emits a change per row', ...choice('true', 'false') },
  'pipeline.name': { describe: 'the job name' },
  'weir.on-job-failure': {
    default: 'stop-with-savepoint', describe: "what the other jobs of a file do when one fails: 'stop-with-savepoint', 'stop' or 'continue'",
    ...choice('stop-with-savepoint', 'stop', 'continue'),
  },
  'pipeline.max-parallelism': { default: '128', describe: 'number of key groups', check: positiveInt },
  'execution.batch-size': { default: '1024', describe: 'rows per batch read from sources', check: positiveInt },
  'state.backend': { default: 'heap', describe: "'rocksdb' (on local disk; the default of weir run) or 'heap' (on the JS heap)", ...choice('heap', 'rocksdb') },
  'state.dir': { default: '.weir/state', describe: 'where RocksDB working state lives (a folder per job and operator)' },
  'state.cache.size': { default: '64 mb', describe: 'write-back cache budget of each RocksDB-backed operator', check: size },
  'state.backend.rocksdb.writebuffer.size': { default: '32 mb', describe: "RocksDB memtable size of each RocksDB-backed operator (RocksDB keeps up to two): larger ones flush and compact less often", check: memtableSize },
  'parallelism.default': { default: '1', describe: 'subtasks of each keyed operator, each owning a range of key groups', check: positiveInt },
  'execution.checkpointing.interval': { default: '0', describe: 'time between checkpoints (0 = none); makes sinks exactly-once', check: duration },
  'state.checkpoints.dir': { describe: "where checkpoints go: 'file:///path' or 's3://bucket/prefix' (weir run: .weir/checkpoints)" },
  'state.checkpoints.num-retained': { default: '1', describe: 'completed checkpoints kept', check: positiveInt },
  'state.savepoints.dir': { describe: 'where savepoints go (default: the checkpoints dir)' },
  's3.endpoint': { describe: 'S3 endpoint URL for s3:// checkpoints, e.g. http://127.0.0.1:9000 (default: AWS)' },
  's3.region': { default: 'us-east-1', describe: 'S3 region' },
  's3.access-key': { describe: 'S3 access key (default: the AWS credential chain)' },
  's3.secret-key': { describe: 'S3 secret key' },
  's3.path.style.access': { describe: "'true' for path-style S3 URLs (default true when 's3.endpoint' is set)", ...choice('true', 'false') },
  'table.exec.sink.not-null-enforcer': { default: 'ERROR', describe: "a NULL for a NOT NULL sink column (a primary key's): 'ERROR' fails the job, 'DROP' drops the row", ...choice('error', 'drop') },
  // Flink options whose meaning Weir has only one way.
  'execution.runtime-mode': {
    default: 'streaming', describe: "'streaming' (Weir runs every job as a stream)",
    check: v => (v.trim().toLowerCase() === 'streaming' ? undefined : 'Weir runs every job in streaming mode'),
    help: "remove the SET (or write 'streaming'): a bounded source still ends, with a final watermark that fires every window, but a GROUP BY without a window emits its updates (+I, -U, +U), not only final rows as Flink's batch mode does",
  },
  'execution.checkpointing.mode': {
    default: 'EXACTLY_ONCE', describe: "'EXACTLY_ONCE' (Weir's checkpoints are always aligned, so always exactly-once)", ...choice('exactly_once', 'at_least_once'),
    warn: v => (v.trim().toLowerCase() === 'at_least_once' ? "Weir's checkpoints are always exactly-once (aligned barriers)" : undefined),
  },
  'state.backend.incremental': {
    default: 'true', describe: "'true' (RocksDB checkpoints are always incremental; savepoints are self-contained)", ...choice('true', 'false'),
    warn: v => (v.trim().toLowerCase() === 'false' ? 'RocksDB checkpoints are always incremental (savepoints are self-contained)' : undefined),
  },
  'table.local-time-zone': {
    default: 'UTC', describe: "'UTC' (Weir computes times in UTC)",
    check: v => (UTC.has(v.trim().toLowerCase()) ? undefined : 'Weir computes times in UTC only'),
    help: "remove the SET (or write 'UTC'); convert times to UTC before Weir reads them",
  },
}

/** What a SET does: store `value` under Weir's `key` (absent for an option Weir ignores), and what to warn about. */
export interface OptionSetting {
  readonly key?: string
  readonly value?: string
  readonly warning?: Warning
}

/**
 * What `SET 'key' = 'value'` does, or a plan error for an unknown key or a bad value.
 *
 * @example setOption('state.backend.type', 'hashmap', span)        // { key: 'state.backend', value: 'heap' }
 * @example setOption('table.optimizer.agg-phase-strategy', 'X', span) // { warning: { message: "option … is ignored: …" } }
 */
export function setOption(key: string, value: string, span: Span): OptionSetting {
  const alias = FLINK_ALIASES[key]
  if (alias !== undefined) {
    if (alias.values !== undefined && !alias.values.includes(value.trim().toLowerCase())) {
      throw WeirError.plan(`invalid value '${value}' for option '${key}': expected one of ${alias.values.map(v => `'${v}'`).join(', ')}`, { span })
    }
    const converted = alias.convert === undefined ? value : alias.convert(value)
    if (converted === undefined) return {}
    checkValue(alias.to, converted, span, key)
    return { key: alias.to, value: OPTIONS[alias.to]!.normalize?.(converted) ?? converted }
  }
  const why = OPTIONS[key] === undefined ? ignoredFlinkOption(key) : undefined
  if (why !== undefined) return { warning: { message: `option '${key}' is ignored: ${why}`, span } }
  checkOption(key, value, span)
  const def = OPTIONS[key]!
  const note = def.warn?.(value)
  const warning = note === undefined ? undefined : { message: `option '${key}' = '${value}' changes nothing: ${note}`, span }
  return { key, value: def.normalize?.(value) ?? value, ...(warning !== undefined ? { warning } : {}) }
}

/** The Weir option `RESET 'key'` resets (undefined for a Flink option Weir ignores); throws for an unknown key. */
export function resetOption(key: string, span: Span): string | undefined {
  const alias = FLINK_ALIASES[key]
  if (alias !== undefined) return alias.to
  if (OPTIONS[key] === undefined && ignoredFlinkOption(key) !== undefined) return undefined
  if (OPTIONS[key] === undefined) throw unknownOption(key, span)
  return key
}

/** Checks a key and value of Weir's own options. */
export function checkOption(key: string, value: string, span: Span): void {
  if (OPTIONS[key] === undefined) throw unknownOption(key, span)
  checkValue(key, value, span)
}

function checkValue(key: string, value: string, span: Span, asWritten = key): void {
  const def = OPTIONS[key]!
  const problem = def.check?.(value)
  if (problem) throw WeirError.plan(`invalid value '${value}' for option '${asWritten}': ${problem}`, { span, ...(def.help !== undefined ? { help: def.help } : {}) })
}

function unknownOption(key: string, span: Span): WeirError {
  const guess = closest(key, [...Object.keys(OPTIONS), ...flinkKeys()])
  return WeirError.plan(`unknown option '${key}'`, { span, help: guess ? `did you mean '${guess}'?` : `known options: ${Object.keys(OPTIONS).join(', ')}` })
}

export function optionOrDefault(options: Readonly<Record<string, string>>, key: string): string | undefined {
  return options[key] ?? OPTIONS[key]?.default
}
