// Job options that SET can change, with their defaults and validation.
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import { parseDuration, parseSize } from '../common/durations.js'
import { closest } from '../common/names.js'

interface OptionDef {
  readonly default?: string
  readonly describe: string
  readonly check?: (value: string) => string | undefined
}

const duration = (v: string): string | undefined => (parseDuration(v) === null ? `expected a duration such as '10 s', '5 min' or '1 h'` : undefined)
const size = (v: string): string | undefined => (parseSize(v) === null ? `expected a size such as '64 mb'` : undefined)
const memtableSize = (v: string): string | undefined => {
  const bytes = parseSize(v)
  return bytes === null ? `expected a size such as '32 mb'` : bytes < 64 * 1024 ? 'a memtable takes at least 64 kb' : undefined
}
const positiveInt = (v: string): string | undefined => (/^\d+$/.test(v.trim()) && Number(v) > 0 ? undefined : 'expected a positive integer')
const oneOf = (...values: string[]) => (v: string): string | undefined =>
  values.includes(v.toLowerCase()) ? undefined : `expected one of ${values.map(x => `'${x}'`).join(', ')}`

/** Every option Weir understands. Unknown keys are rejected so typos do not pass silently. */
export const OPTIONS: Readonly<Record<string, OptionDef>> = {
  'table.exec.state.ttl': { default: '0', describe: 'state TTL of group aggregates (0 = keep forever)', check: duration },
  'table.exec.mini-batch.enabled': { default: 'true', describe: 'group aggregates fold the rows of one batch per key before emitting; false emits a change per row', check: oneOf('true', 'false') },
  'pipeline.name': { describe: 'the job name' },
  'weir.on-job-failure': {
    default: 'stop-with-savepoint', describe: "what the other jobs of a file do when one fails: 'stop-with-savepoint', 'stop' or 'continue'",
    check: oneOf('stop-with-savepoint', 'stop', 'continue'),
  },
  'pipeline.max-parallelism': { default: '128', describe: 'number of key groups', check: positiveInt },
  'execution.batch-size': { default: '1024', describe: 'rows per batch read from sources', check: positiveInt },
  'state.backend': { default: 'heap', describe: "'rocksdb' (on local disk; the default of weir run) or 'heap' (on the JS heap)", check: oneOf('heap', 'rocksdb') },
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
  's3.path.style.access': { describe: "'true' for path-style S3 URLs (default true when 's3.endpoint' is set)", check: oneOf('true', 'false') },
  'table.exec.sink.not-null-enforcer': { default: 'ERROR', describe: "a NULL for a NOT NULL sink column (a primary key's): 'ERROR' fails the job, 'DROP' drops the row", check: oneOf('error', 'drop') },
}

export function checkOption(key: string, value: string, span: Span): void {
  const def = OPTIONS[key]
  if (!def) {
    const guess = closest(key, Object.keys(OPTIONS))
    throw WeirError.plan(`unknown option '${key}'`, { span, help: guess ? `did you mean '${guess}'?` : `known options: ${Object.keys(OPTIONS).join(', ')}` })
  }
  const problem = def.check?.(value)
  if (problem) throw WeirError.plan(`invalid value '${value}' for option '${key}': ${problem}`, { span })
}

export function optionOrDefault(options: Readonly<Record<string, string>>, key: string): string | undefined {
  return options[key] ?? OPTIONS[key]?.default
}
