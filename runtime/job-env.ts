// What a job runs with (ExecutionEnv: where output goes, how it is stopped, checkpoint storage and
// schedule, what it restores, hooks) and what it reports when it ends (JobMetrics).
import type { Field } from '../common/types.js'
import type { Batch } from '../core/batch.js'
import type { CheckpointConfig, CheckpointRef } from './checkpoint.js'
import type { FaultInjector } from './faults.js'
import type { JobProbe } from './job-probe.js'
import type { SubtaskSample } from './subtask-stats.js'

export interface ExecutionEnv {
  /** Where print sinks write. */
  readonly println: (line: string) => void
  /** Aborting cancels the job: sources stop reading, what was produced is flushed; no savepoint. */
  readonly signal?: AbortSignal
  /** Aborting stops the job with a savepoint (SIGTERM): a self-contained snapshot, sinks commit, then stop. */
  readonly stopWithSavepoint?: AbortSignal
  /** Called with each batch a SELECT produces (Collect). */
  readonly onCollect?: (schema: readonly Field[], batch: Batch) => void
  /** Checkpoint storage and schedule; without it no checkpoints or savepoints are taken. */
  readonly checkpoint?: CheckpointConfig
  /** Start from this checkpoint or savepoint instead of from scratch. */
  readonly restore?: CheckpointRef
  /** Progress lines (checkpoints completed, savepoints). */
  readonly log?: (line: string) => void
  /** Called when checkpoint or savepoint `id` is complete and its sinks have committed. */
  readonly onCheckpoint?: (id: number, location: string) => void
  /**
   * Count the entries disk backends store at the end (JobMetrics.stateStoredEntries): a scan of all
   * working state, seconds for millions of keys, so only tests and diagnostics ask for it.
   */
  readonly countStoredState?: boolean
  /** Called at the points of a checkpoint where a crash is worst (runtime/faults.ts); the crash tests kill the process there. */
  readonly faults?: FaultInjector
  /** Called once the job has opened and starts running, with a probe of its live numbers (sample it on a timer). */
  readonly onStart?: (probe: JobProbe) => void
}

export interface JobMetrics {
  /** Rows each source produced (after pushed-down filters). */
  readonly sourceRows: Record<string, number>
  /** Rows read by sources before filters. */
  readonly sourceRecordsRead: number
  /** Of sourceRecordsRead, per source node ('source-1'): what each of its subtasks read, by subtask index. */
  readonly sourceSubtaskRecordsRead?: Record<string, number[]>
  readonly sinkRows: Record<string, number>
  /** Of sinkRows, those the sinks made visible: committed by a checkpoint, or written by a sink without transactions. */
  readonly sinkCommittedRows: Record<string, number>
  readonly lateRecordsDropped: number
  /**
   * Bad records sources skipped ('…ignore-parse-errors'), rows a process function's handler threw on
   * ('weir.process-function.on-error' = 'skip'), and user function calls that threw under 'weir.udf.on-error' = 'skip'.
   */
  readonly skippedRecords: number
  /** Live state entries per stateful operator at the end (summed over its subtasks). */
  readonly stateEntries: Record<string, number>
  /** Bytes of working state on disk at the end: what it wrote, not what its cache held unwritten (undefined when the state backend keeps none there). */
  readonly stateDiskBytes?: number
  /**
   * Entries stored on disk at the end, expired ones not yet swept included (only with ExecutionEnv.countStoredState;
   * undefined when the state backend keeps none there).
   */
  readonly stateStoredEntries?: number
  /** Checkpoints completed by this run (the final one of a bounded job included). */
  readonly checkpointsCompleted: number
  /** Where the savepoint went, when the job stopped with one. */
  readonly savepoint?: string
  /** The restored checkpoint was the final one of a finished job: only its sink commits were completed. */
  readonly alreadyFinished?: boolean
  /** The checkpoint or savepoint the job started from. */
  readonly restoredFrom?: { readonly kind: 'checkpoint' | 'savepoint'; readonly id: number; readonly location: string }
  /** Every subtask's numbers at the end, in the job graph's order (what `weir run --stats` prints last). */
  readonly subtasks: readonly SubtaskSample[]
  readonly cancelled: boolean
}
