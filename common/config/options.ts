// Every job option Weir understands, each defined once: its key, the kind of value it takes, its
// default, its checks and what it means. SET checks against this table, `SET;` lists it, and
// planning reads it into a typed JobConfig (job-config.ts). Flink's spellings are in flink.ts.
import { RESULT_MODE, MAX_ROWS } from './client.js'
import { boolean, duration, location, oneOf, parallelismValue, positiveInt, size, text, trimmedText, wholeNumber, type ValueType } from './value-types.js'

/**
 * One option (Flink's ConfigOption<T>): `T` is its value, with undefined when it may be unset.
 *
 * @example BATCH_SIZE.default   // 1024
 */
export interface ConfigOption<T> {
  readonly key: string
  readonly type: ValueType<NonNullable<T>>
  readonly default: T
  /** The default of `weir run` where it differs (RocksDB state, checkpoints under .weir/checkpoints). */
  readonly runDefault?: NonNullable<T>
  /** What it means (SET's listing). */
  readonly description: string
  /** What is wrong with a value of the right kind, if anything. */
  check?(value: NonNullable<T>): string | undefined
  /** What to do instead, when the value is refused. */
  readonly help?: string
  /** A value Weir takes but does not honour as written: why it changes nothing. */
  warn?(value: NonNullable<T>): string | undefined
}

/** What the other jobs of a file do when one fails ('weir.on-job-failure'). */
export type OnJobFailure = 'stop-with-savepoint' | 'stop' | 'continue'
/** Where keyed state lives ('state.backend'). */
export type StateBackendKind = 'heap' | 'rocksdb'

const option = <T>(o: ConfigOption<T>): ConfigOption<T> => Object.freeze(o)
const KB = 1024
const MB = 1024 * KB

export const STATE_TTL = option<number>({
  key: 'table.exec.state.ttl',
  type: duration,
  default: 0,
  description: 'state TTL of group aggregates (0 = keep forever)',
})
export const MINI_BATCH = option<boolean>({
  key: 'table.exec.mini-batch.enabled',
  type: boolean,
  default: true,
  description: 'group aggregates fold the rows of one batch per key before emitting; false emits a change per row',
})
/** How a GROUP BY is split ('table.optimizer.agg-phase-strategy'), as Flink's values (any case). */
export type AggPhaseStrategy = 'auto' | 'one_phase' | 'two_phase'
export const AGG_PHASE_STRATEGY = option<AggPhaseStrategy>({
  key: 'table.optimizer.agg-phase-strategy',
  type: oneOf('auto', 'one_phase', 'two_phase'),
  default: 'auto',
  description:
    "'two_phase': a GROUP BY folds each batch per key before the exchange and merges after it; 'auto' and 'one_phase': one phase (measured: no gain in Weir)",
})
/** Sub-plan reuse (planner/physical/reuse.ts): an operator computed twice from the same inputs runs once, read by both. */
export const REUSE_SUB_PLAN = option<boolean>({
  key: 'table.optimizer.reuse-sub-plan-enabled',
  type: boolean,
  default: true,
  description: 'a subquery a query computes twice (the same operators over the same inputs) runs once, its rows read by both; false plans each apart',
})
/** Source reuse: two identical scans of one table read it once (only while sub-plan reuse is on, as in Flink). */
export const REUSE_SOURCE = option<boolean>({
  key: 'table.optimizer.reuse-source-enabled',
  type: boolean,
  default: true,
  description: "two identical scans of one table in a query read it once (with 'table.optimizer.reuse-sub-plan-enabled'); false reads it once per scan",
})
export const PIPELINE_NAME = option<string | undefined>({ key: 'pipeline.name', type: text, default: undefined, description: 'the job name' })
export const ON_JOB_FAILURE = option<OnJobFailure>({
  key: 'weir.on-job-failure',
  type: oneOf('stop-with-savepoint', 'stop', 'continue'),
  default: 'stop-with-savepoint',
  description: "what the other jobs of a file do when one fails: 'stop-with-savepoint', 'stop' or 'continue'",
})
export const MAX_PARALLELISM = option<number>({
  key: 'pipeline.max-parallelism',
  type: positiveInt,
  default: 128,
  description: 'number of key groups',
})
export const BATCH_SIZE = option<number>({
  key: 'execution.batch-size',
  type: positiveInt,
  default: 1024,
  description: 'rows per batch read from sources',
})
export const STATE_BACKEND = option<StateBackendKind>({
  key: 'state.backend',
  type: oneOf('heap', 'rocksdb'),
  default: 'heap',
  runDefault: 'rocksdb',
  description: "'rocksdb' (on local disk; the default of weir run) or 'heap' (on the JS heap)",
})
export const STATE_DIR = option<string>({
  key: 'state.dir',
  type: text,
  default: '.weir/state',
  description: 'where RocksDB working state lives (a folder per job and operator)',
})
export const STATE_CACHE_SIZE = option<number>({
  key: 'state.cache.size',
  type: size('64 mb'),
  default: 64 * MB,
  description: 'write-back cache budget of each RocksDB-backed operator',
})
/**
 * Memtable size (RocksDB's and Flink's default). Random keys overlap every file of the level below, so
 * each compaction of L0 (four memtable flushes) rewrites all of that level: compaction work falls with
 * larger memtables. count-10M over 20M events (8.64M keys) on 8 MB: 43 compactions, 7.57 GB written,
 * 84.2 CPU-s, 402 process CPU-s; 32 MB: 10, 1.89 GB, 22.0 CPU-s, 352 process CPU-s; 64 MB: 5, 0.99 GB,
 * 12.1 CPU-s, 361 process CPU-s (a larger skip list costs more per insert and lookup). Peak RSS the same
 * (672–697 MB).
 * 32 MB until 2026-12-06. With the helper threads lowered (runtime/thread-priority.ts) the compaction
 * saved is the processing thread's time on a 2-core host: alternating 32 and 64 MB (scale 1, events/s),
 * q20-rocksdb 505–530K → 554–571K (flush and compaction CPU 0.8–1.0 → 0.4–0.5 s; at scale 3: 473K and
 * 488K → 546K and 494K), q5-published-rocksdb, q7-rocksdb and q9-rocksdb 2–4% faster, q4-, q8-, q3-,
 * q19-rocksdb within the spread, q18-rocksdb and count-10M (scale 0.25) 1–2% slower.
 */
export const WRITE_BUFFER_SIZE = option<number>({
  key: 'state.backend.rocksdb.writebuffer.size',
  type: size('64 mb'),
  default: 64 * MB,
  description: 'RocksDB memtable size of each RocksDB-backed operator (RocksDB keeps up to two): larger ones flush and compact less often',
  check: bytes => (bytes < 64 * KB ? 'a memtable takes at least 64 kb' : undefined),
})
export const PARALLELISM = option<number>({
  key: 'parallelism.default',
  type: parallelismValue,
  default: 1,
  description: "subtasks of each keyed operator, each owning a range of key groups; 'auto': one per core of this machine (at most 'pipeline.max-parallelism')",
})
export const WORKER_THREADS = option<boolean>({
  key: 'execution.worker-threads',
  type: boolean,
  default: false,
  description: "at 'parallelism.default' > 1, each keyed operator's subtask i runs on worker thread i; false: all subtasks take turns on one thread",
})
/** See runtime/thread-priority.ts. */
export const HELPER_THREADS_NICE = option<number>({
  key: 'execution.helper-threads.nice',
  type: wholeNumber,
  default: 10,
  description:
    "Linux nice value a job gives the process's other threads (V8's collector, libuv's pool, RocksDB's flush and compaction) once its state is open, so its processing threads have the cores first; 0 leaves them as they are",
  check: n => (n > 19 ? 'a nice value is at most 19' : undefined),
})
export const CHECKPOINT_INTERVAL = option<number>({
  key: 'execution.checkpointing.interval',
  type: duration,
  default: 0,
  description: 'time between checkpoints (0 = none); makes sinks exactly-once',
})
export const CHECKPOINTS_DIR = option<string | undefined>({
  key: 'state.checkpoints.dir',
  type: location,
  default: undefined,
  runDefault: '.weir/checkpoints',
  description: "where checkpoints go: 'file:///path' or 's3://bucket/prefix' (weir run: .weir/checkpoints)",
})
export const CHECKPOINTS_RETAINED = option<number>({
  key: 'state.checkpoints.num-retained',
  type: positiveInt,
  default: 1,
  description: 'completed checkpoints kept',
})
export const SAVEPOINTS_DIR = option<string | undefined>({
  key: 'state.savepoints.dir',
  type: location,
  default: undefined,
  description: 'where savepoints go (default: the checkpoints dir)',
})
export const S3_ENDPOINT = option<string | undefined>({
  key: 's3.endpoint',
  type: trimmedText,
  default: undefined,
  description: 'S3 endpoint URL for s3:// checkpoints, e.g. http://127.0.0.1:9000 (default: AWS)',
})
export const S3_REGION = option<string>({ key: 's3.region', type: trimmedText, default: 'us-east-1', description: 'S3 region' })
export const S3_ACCESS_KEY = option<string | undefined>({
  key: 's3.access-key',
  type: trimmedText,
  default: undefined,
  description: 'S3 access key (default: the AWS credential chain)',
})
export const S3_SECRET_KEY = option<string | undefined>({ key: 's3.secret-key', type: trimmedText, default: undefined, description: 'S3 secret key' })
export const S3_PATH_STYLE = option<boolean | undefined>({
  key: 's3.path.style.access',
  type: boolean,
  default: undefined,
  description: "'true' for path-style S3 URLs (default true when 's3.endpoint' is set)",
})
export const SINK_NOT_NULL = option<'error' | 'drop'>({
  key: 'table.exec.sink.not-null-enforcer',
  type: oneOf('error', 'drop'),
  default: 'error',
  description: "a NULL for a NOT NULL sink column (a primary key's): 'ERROR' fails the job, 'DROP' drops the row",
})

export const PROCESS_FUNCTION_ON_ERROR = option<'fail' | 'skip'>({
  key: 'weir.process-function.on-error',
  type: oneOf('fail', 'skip'),
  default: 'fail',
  description: "an exception in a process function's handler: 'fail' fails the job naming the function, key and row; 'skip' skips the row " +
    "(or timer), counts it and goes on. Not Flink's (a Java PTF catches its own exceptions)",
})

export const UDF_ON_ERROR = option<'fail' | 'skip'>({
  key: 'weir.udf.on-error',
  type: oneOf('fail', 'skip'),
  default: 'fail',
  description: "a user-defined function that throws (or returns a value of the wrong type): 'FAIL' fails the job naming the function and the row; " +
    "'SKIP' gives NULL for a scalar call and leaves the row out of an aggregate, and counts it",
})

// Flink options whose meaning Weir has only one way: accepted when they say that way, and kept out
// of JobConfig (nothing reads them).
const UTC = new Set(['utc', 'z', 'gmt', 'etc/utc', 'utc+0', 'utc+00:00', '+00:00', 'gmt+0', 'gmt+00:00'])
const RUNTIME_MODE = option<string>({
  key: 'execution.runtime-mode',
  type: text,
  default: 'streaming',
  description: "'streaming' (Weir runs every job as a stream)",
  check: v => (v.trim().toLowerCase() === 'streaming' ? undefined : 'Weir runs every job in streaming mode'),
  help: "remove the SET (or write 'streaming'): a bounded source still ends, with a final watermark that fires every window, " +
    "but a GROUP BY without a window emits its updates (+I, -U, +U), not only final rows as Flink's batch mode does",
})
const CHECKPOINTING_MODE = option<'exactly_once' | 'at_least_once'>({
  key: 'execution.checkpointing.mode',
  type: oneOf('exactly_once', 'at_least_once'),
  default: 'exactly_once',
  description: "'EXACTLY_ONCE' (Weir's checkpoints are always aligned, so always exactly-once)",
  warn: v => (v === 'at_least_once' ? "Weir's checkpoints are always exactly-once (aligned barriers)" : undefined),
})
const INCREMENTAL = option<boolean>({
  key: 'state.backend.incremental',
  type: boolean,
  default: true,
  description: "'true' (RocksDB checkpoints are always incremental; savepoints are self-contained)",
  warn: v => (v ? undefined : 'RocksDB checkpoints are always incremental (savepoints are self-contained)'),
})
const LOCAL_TIME_ZONE = option<string>({
  key: 'table.local-time-zone',
  type: text,
  default: 'UTC',
  description: "'UTC' (Weir computes times in UTC)",
  check: v => (UTC.has(v.trim().toLowerCase()) ? undefined : 'Weir computes times in UTC only'),
  help: "remove the SET (or write 'UTC'); convert times to UTC before Weir reads them",
})

/** Every option Weir understands. Unknown keys are rejected so typos do not pass silently. */
export const ALL_OPTIONS: readonly ConfigOption<unknown>[] = [
  STATE_TTL,
  MINI_BATCH,
  AGG_PHASE_STRATEGY,
  REUSE_SUB_PLAN,
  REUSE_SOURCE,
  PIPELINE_NAME,
  ON_JOB_FAILURE,
  MAX_PARALLELISM,
  BATCH_SIZE,
  STATE_BACKEND,
  STATE_DIR,
  STATE_CACHE_SIZE,
  WRITE_BUFFER_SIZE,
  PARALLELISM,
  WORKER_THREADS,
  HELPER_THREADS_NICE,
  CHECKPOINT_INTERVAL,
  CHECKPOINTS_DIR,
  CHECKPOINTS_RETAINED,
  SAVEPOINTS_DIR,
  S3_ENDPOINT,
  S3_REGION,
  S3_ACCESS_KEY,
  S3_SECRET_KEY,
  S3_PATH_STYLE,
  SINK_NOT_NULL,
  PROCESS_FUNCTION_ON_ERROR,
  UDF_ON_ERROR,
  RUNTIME_MODE,
  CHECKPOINTING_MODE,
  INCREMENTAL,
  LOCAL_TIME_ZONE,
  RESULT_MODE,
  MAX_ROWS,
]

const BY_KEY: ReadonlyMap<string, ConfigOption<unknown>> = new Map(ALL_OPTIONS.map(o => [o.key, o]))

/** The option with this key, if Weir has one. */
export function optionOf(key: string): ConfigOption<unknown> | undefined {
  return BY_KEY.get(key)
}

/** The settings `weir run` starts a file with: each option's runDefault, as SET would store it. */
export function runDefaults(): Record<string, string> {
  const settings: Record<string, string> = {}
  for (const o of ALL_OPTIONS) if (o.runDefault !== undefined) settings[o.key] = o.type.format(o.runDefault)
  return settings
}
