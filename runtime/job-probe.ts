// What a running job looks like now, for whoever watches it (the REPL's SHOW JOBS and status line):
// rows its sources read, rows that reached its sinks, the watermark there, its last checkpoint.
// Read from the counters the job keeps anyway, when asked — a viewer samples it on a timer, so
// nothing is paid per row.
import type { Task } from './subtasks.js'
import { subtaskSamples, type SubtaskSample } from './subtask-stats.js'

/** A running job's numbers at one moment. */
export interface JobSample {
  /** Rows its sources read (before pushed-down filters), as JobMetrics.sourceRecordsRead. */
  readonly rowsIn: number
  /** Rows that reached its sinks (a SELECT: the changes it produced). */
  readonly rowsOut: number
  /**
   * The watermark at its sinks (the lowest of their subtasks), epoch ms; undefined while none has
   * arrived (no WATERMARK on its sources, or none yet), Infinity once every input ended.
   */
  readonly watermark: number | undefined
  /** The checkpoint or savepoint this run completed last, and when (epoch ms). */
  readonly lastCheckpoint: { readonly id: number; readonly at: number } | undefined
  /** Every subtask's numbers, in the job graph's order (sources first). */
  readonly subtasks: readonly SubtaskSample[]
}

/** Samples a job; given to ExecutionEnv.onStart once the job has opened. */
export type JobProbe = () => JobSample

/** The probe of a job's subtasks (`order`), its sources' read counts and its checkpoint coordinator. */
export function jobProbe(
  order: readonly Task[],
  recordsRead: () => number,
  lastCheckpoint: () => JobSample['lastCheckpoint'],
): JobProbe {
  const ends = order.filter(t => t.node.spec.kind === 'Sink' || t.node.spec.kind === 'Collect')
  return () => {
    let rowsOut = 0
    let watermark = Infinity
    for (const t of ends) {
      rowsOut += t.metrics.rowsIn
      if (t.watermark < watermark) watermark = t.watermark
    }
    return {
      rowsIn: recordsRead(),
      rowsOut,
      watermark: watermark === -Infinity || ends.length === 0 ? undefined : watermark,
      lastCheckpoint: lastCheckpoint(),
      subtasks: subtaskSamples(order),
    }
  }
}
