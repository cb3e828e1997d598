// Flink's option keys that a Flink SQL file sets, and what Weir does with each: a Flink spelling of
// one of Weir's options is stored under Weir's key; an option for something Weir does not have is
// accepted with a warning that says it is ignored and why. Keys that are neither stay unknown.
import { BATCH_SIZE, CHECKPOINTS_DIR, CHECKPOINTS_RETAINED, PARALLELISM, SAVEPOINTS_DIR, STATE_BACKEND, type ConfigOption } from './options.js'

/** A Flink key for one of Weir's options; `convert` maps Flink's value (undefined: Flink's "not set", nothing to store). */
export interface FlinkAlias {
  readonly to: ConfigOption<unknown>
  readonly convert?: (value: string) => string | undefined
  /** Flink's values, for the error on another one. */
  readonly values?: readonly string[]
}

const notSet = (v: string): string | undefined => (Number(v.trim()) <= 0 ? undefined : v.trim())

export const FLINK_ALIASES: Readonly<Record<string, FlinkAlias>> = {
  // Flink 1.17+ names the backends 'hashmap' and 'rocksdb'.
  'state.backend.type': { to: STATE_BACKEND, values: ['hashmap', 'rocksdb'],
    convert: v => ({ hashmap: 'heap', rocksdb: 'rocksdb' })[v.trim().toLowerCase()] ?? v },
  // Flink 2.x's names of the checkpoint options.
  'execution.checkpointing.dir': { to: CHECKPOINTS_DIR },
  'execution.checkpointing.savepoint-dir': { to: SAVEPOINTS_DIR },
  'execution.checkpointing.num-retained': { to: CHECKPOINTS_RETAINED },
  // -1 (Flink's default) means "use parallelism.default".
  'table.exec.resource.default-parallelism': { to: PARALLELISM, convert: notSet },
  // A mini-batch in Weir is a batch of rows read together, which group aggregates fold per key.
  'table.exec.mini-batch.size': { to: BATCH_SIZE, convert: notSet },
}

/** Flink options (exact keys, or families ending in '.') Weir accepts and ignores, with why. */
const IGNORED: readonly (readonly [string, string])[] = [
  ['table.exec.source.idle-timeout', 'Weir does not mark sources idle (a file source that has ended no longer holds the watermark back)'],
  ['table.exec.mini-batch.allow-latency', "Weir's mini-batches are the rows a source read together ('execution.batch-size'); they never wait for more"],
  ['table.exec.sink.upsert-materialize', 'Weir writes changes to a sink as they come'],
  ['table.exec.emit.', 'window aggregates emit once, when the watermark passes the window end'],
  ['table.exec.async-lookup.', 'Weir has no lookup joins'],
  ['table.exec.window-agg.buffer-size-limit', 'window state lives in the state backend, with no separate buffer'],
  ['table.exec.disabled-operators', "Weir's planner has one operator for each job"],
  ['table.exec.source.cdc-events-duplicate', 'Weir reads no CDC sources'],
  ['table.optimizer.', "Weir's planner has no such switch"],
  ['table.dml-sync', "'weir run' waits for bounded jobs to finish anyway"],
  ['table.dynamic-table-options.enabled', 'OPTIONS hints are always allowed'],
  // 'sql-client.execution.result-mode' and 'sql-client.display.max-rows' are the REPL's (client.ts).
  ['sql-client.', "'weir run' prints a SELECT's changes as a table"],
  ['execution.checkpointing.timeout', 'a checkpoint is not timed out'],
  ['execution.checkpointing.min-pause', "checkpoints are taken one at a time, every 'execution.checkpointing.interval'"],
  ['execution.checkpointing.max-concurrent-checkpoints', 'checkpoints are taken one at a time'],
  ['execution.checkpointing.tolerable-failed-checkpoints', 'a failed checkpoint fails the job'],
  ['execution.checkpointing.externalized-checkpoint-retention', "completed checkpoints are kept ('state.checkpoints.num-retained') whatever the job does"],
  ['execution.checkpointing.unaligned', 'checkpoint barriers are always aligned'],
  ['execution.checkpointing.aligned-checkpoint-timeout', 'checkpoint barriers are always aligned'],
  ['execution.buffer-timeout', 'rows move in batches as soon as they are read'],
  ['pipeline.auto-watermark-interval', 'watermarks advance with every batch'],
  ['pipeline.object-reuse', 'Weir never shares rows between operators that change them'],
  ['pipeline.operator-chaining', 'Weir chains operators itself'],
  ['pipeline.jars', 'Weir loads no jars'],
  ['pipeline.classpaths', 'Weir loads no jars'],
  ['state.backend.rocksdb.', "Weir tunes RocksDB itself (only 'state.backend.rocksdb.writebuffer.size' is taken)"],
  ['state.backend.local-recovery', 'a job restores from its checkpoint storage'],
  ['restart-strategy', 'Weir does not restart a failed job; run it again and it resumes from its latest checkpoint'],
  ['taskmanager.', 'Weir runs a job in one process, without a cluster'],
  ['jobmanager.', 'Weir runs a job in one process, without a cluster'],
  ['rest.', 'Weir runs a job in one process, without a cluster'],
  ['high-availability', 'Weir runs a job in one process, without a cluster'],
  ['metrics.', 'Weir reports its metrics when a job ends'],
]

/** Why Weir ignores Flink option `key`, or undefined when it is not one Weir knows to ignore. */
export function ignoredFlinkOption(key: string): string | undefined {
  for (const [pattern, why] of IGNORED) if (pattern.endsWith('.') ? key.startsWith(pattern) : key === pattern || key.startsWith(pattern + '.')) return why
  return undefined
}

/** The exact Flink keys Weir knows (for did-you-mean). */
export function flinkKeys(): string[] {
  return [...Object.keys(FLINK_ALIASES), ...IGNORED.map(([k]) => k).filter(k => !k.endsWith('.'))]
}
