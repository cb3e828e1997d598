// A job's configuration, typed: what the options in force say, read once when the job is planned.
// The job graph carries it to the runtime; nothing downstream reads an option's text again.
import { AGG_PHASE_STRATEGY, REUSE_SOURCE, REUSE_SUB_PLAN, BATCH_SIZE, CHECKPOINT_INTERVAL, CHECKPOINTS_DIR, CHECKPOINTS_RETAINED, MAX_PARALLELISM,
  WORKER_THREADS, HELPER_THREADS_NICE, MINI_BATCH, ON_JOB_FAILURE, PARALLELISM, PIPELINE_NAME, S3_ACCESS_KEY, S3_ENDPOINT, S3_PATH_STYLE, S3_REGION,
  S3_SECRET_KEY, SAVEPOINTS_DIR, SINK_NOT_NULL, PROCESS_FUNCTION_ON_ERROR, STATE_BACKEND, UDF_ON_ERROR, STATE_CACHE_SIZE, STATE_DIR, STATE_TTL,
  WRITE_BUFFER_SIZE, type AggPhaseStrategy, type ConfigOption, type OnJobFailure, type StateBackendKind } from './options.js'
import { invalidValue, readOption } from './set.js'

/** The options as SET stored them: Weir's keys, the values as written (enumerations in lower case). */
export type OptionSettings = Readonly<Record<string, string>>

/**
 * Where keyed state lives ('state.*'). `cacheBytes` and `writeBufferBytes` matter to RocksDB only.
 */
export interface StateConfig {
  readonly backend: StateBackendKind
  /** Working state of RocksDB, a folder per job and operator below it (relative: to the working directory). */
  readonly dir: string
  readonly cacheBytes: number
  readonly writeBufferBytes: number
}

/** Checkpoints and savepoints ('execution.checkpointing.*', 'state.checkpoints.*', 'state.savepoints.dir'). */
export interface CheckpointingConfig {
  /** 0: no periodic checkpoints. */
  readonly intervalMs: number
  /** Unset: the job takes no checkpoints and no savepoints. */
  readonly dir?: string
  /** Unset: savepoints go to `dir`. */
  readonly savepointDir?: string
  readonly retained: number
}

/** How to reach an S3-compatible server for s3:// checkpoints ('s3.*'); unset keys: the AWS SDK's defaults. */
export interface S3Config {
  readonly endpoint?: string
  readonly region: string
  readonly accessKey?: string
  readonly secretKey?: string
  /** Unset: path style when an endpoint is set. */
  readonly pathStyleAccess?: boolean
}

/**
 * A job's configuration: plain, frozen, JSON-safe data (an unset option is an absent field).
 *
 * @example jobConfigOf({ 'execution.batch-size': '100' }).batchSize   // 100
 */
export interface JobConfig {
  /** 'pipeline.name'; unset: the session names the job. */
  readonly pipelineName?: string
  /** Rows per batch a source reads. */
  readonly batchSize: number
  /** Subtasks of each keyed operator. */
  readonly parallelism: number
  /** Key groups. */
  readonly maxParallelism: number
  /** Parallel subtasks run on worker threads ('execution.worker-threads'). */
  readonly workerThreads: boolean
  /** Nice value of the process's helper threads ('execution.helper-threads.nice'; runtime/thread-priority.ts). */
  readonly helperThreadsNice: number
  /** State TTL of group aggregates in ms ('table.exec.state.ttl'); 0: kept forever. */
  readonly stateTtlMs: number
  /** Group aggregates fold a batch's rows per key ('table.exec.mini-batch.enabled'). */
  readonly miniBatch: boolean
  /** How a GROUP BY is split into a local and a global phase ('table.optimizer.agg-phase-strategy'). */
  readonly aggPhaseStrategy: AggPhaseStrategy
  /** Identical operators over identical inputs run once ('table.optimizer.reuse-sub-plan-enabled'). */
  readonly reuseSubPlan: boolean
  /** Identical scans of one table read it once ('table.optimizer.reuse-source-enabled'; only with reuseSubPlan). */
  readonly reuseSource: boolean
  readonly onJobFailure: OnJobFailure
  /** What a sink does with NULL in a NOT NULL column ('table.exec.sink.not-null-enforcer'). */
  readonly sinkNotNull: 'error' | 'drop'
  /** What an exception in a process function's handler does ('weir.process-function.on-error'). */
  readonly processFunctionOnError: 'fail' | 'skip'
  /** What a failing user-defined function does ('weir.udf.on-error'). */
  readonly udfOnError: 'fail' | 'skip'
  readonly state: StateConfig
  readonly checkpointing: CheckpointingConfig
  readonly s3: S3Config
}

/**
 * The configuration `settings` give, each option unset in them at its default. Settings SET stored
 * always read; a value that never went through SET (an embedding program's) and does not read is
 * refused as SET would refuse it.
 */
export function jobConfigOf(settings: OptionSettings): JobConfig {
  const get = <T>(option: ConfigOption<T>): T => {
    const text = settings[option.key]
    if (text === undefined) return option.default
    const read = readOption(option, text)
    if ('problem' in read) throw invalidValue(option as ConfigOption<unknown>, text, read.problem)
    return read.value
  }
  return deepFreeze(withoutUnset({
    pipelineName: get(PIPELINE_NAME),
    batchSize: get(BATCH_SIZE),
    // 'auto' is the machine's cores, but never more subtasks than key groups.
    parallelism: settings[PARALLELISM.key]?.trim().toLowerCase() === 'auto' ? Math.min(get(PARALLELISM), get(MAX_PARALLELISM)) : get(PARALLELISM),
    maxParallelism: get(MAX_PARALLELISM),
    workerThreads: get(WORKER_THREADS),
    helperThreadsNice: get(HELPER_THREADS_NICE),
    stateTtlMs: get(STATE_TTL),
    miniBatch: get(MINI_BATCH),
    aggPhaseStrategy: get(AGG_PHASE_STRATEGY),
    reuseSubPlan: get(REUSE_SUB_PLAN),
    reuseSource: get(REUSE_SOURCE),
    onJobFailure: get(ON_JOB_FAILURE),
    sinkNotNull: get(SINK_NOT_NULL),
    processFunctionOnError: get(PROCESS_FUNCTION_ON_ERROR),
    udfOnError: get(UDF_ON_ERROR),
    state: withoutUnset({ backend: get(STATE_BACKEND), dir: get(STATE_DIR), cacheBytes: get(STATE_CACHE_SIZE), writeBufferBytes: get(WRITE_BUFFER_SIZE) }),
    checkpointing: withoutUnset({
      intervalMs: get(CHECKPOINT_INTERVAL),
      dir: get(CHECKPOINTS_DIR),
      savepointDir: get(SAVEPOINTS_DIR),
      retained: get(CHECKPOINTS_RETAINED),
    }),
    s3: withoutUnset({
      endpoint: get(S3_ENDPOINT),
      region: get(S3_REGION),
      accessKey: get(S3_ACCESS_KEY),
      secretKey: get(S3_SECRET_KEY),
      pathStyleAccess: get(S3_PATH_STYLE),
    }),
  }))
}

/** Every option at its default (what an operator or backend outside a job, in a test, runs with). */
export const DEFAULT_JOB_CONFIG: JobConfig = jobConfigOf({})

type Unset<T> = { [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> } & {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K]
}

/** `o` without its undefined fields, so the object is the same after a JSON round trip. */
function withoutUnset<T extends object>(o: T): Unset<T> {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k]
  return o as Unset<T>
}

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null && !Object.isFrozen(o)) {
    for (const v of Object.values(o)) deepFreeze(v)
    Object.freeze(o)
  }
  return o
}
