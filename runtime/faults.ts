// Fault injection: the points of a checkpoint where a crash is worst (and a source's reads and its end,
// where a held source makes a race reproducible), and the hook an execution environment may install to act there
// (the crash tests kill the process). The runtime reads no
// variable of its own for this: without a hook, reaching a point does nothing.

/** The points a checkpoint passes, and what the hook is told at each. */
export interface FaultPoints {
  /** One subtask's own file (its timers) is stored; its backend's files and other subtasks' may still be uploading. */
  readonly upload: { readonly checkpointId: number; readonly operatorId: string; readonly subtask: number }
  /** Every file of the checkpoint is stored; its manifest is not written yet (the checkpoint is not complete). */
  readonly 'before-manifest': { readonly checkpointId: number; readonly savepoint: boolean }
  /** The manifest is written (the checkpoint is complete); the sinks have not committed its output. `final`: the last checkpoint of a bounded job. */
  readonly 'before-commit': { readonly checkpointId: number; readonly final: boolean }
  /**
   * A source subtask is about to read its next chunk, having read and handed on `rows` rows so far (0 before its
   * first chunk); reached only on the job's thread (not by sources read on worker threads). A hold keeps
   * the source there, its position as of its last chunk, while the job goes on (checkpoints among it).
   * `cancelled`: the job was cancelled (its reader then returns no more). `scan`: the source operator's id
   * (a query may scan one table more than once).
   */
  readonly 'source-rows': { readonly table: string; readonly scan: string; readonly subtask: number; readonly rows: number; readonly cancelled: boolean }
  /** A source subtask's reader has nothing more (its input ended, or the job was cancelled); its end is not handed on yet. */
  readonly 'source-end': { readonly table: string; readonly subtask: number; readonly cancelled: boolean }
}

export type FaultPoint = keyof FaultPoints

/**
 * Called by the runtime at each fault point, in the order the job reaches them. A hook may throw
 * (the checkpoint or job fails as if the step had), kill the process, or return a promise to hold
 * the job at that point until it settles.
 *
 * @example
 * // Kill the process the second time a checkpoint is complete but not committed:
 * let n = 0
 * const faults: FaultInjector = { at: point => { if (point === 'before-commit' && ++n === 2) process.kill(process.pid, 'SIGKILL') } }
 */
export interface FaultInjector {
  at<P extends FaultPoint>(point: P, detail: FaultPoints[P]): void | Promise<void>
}
