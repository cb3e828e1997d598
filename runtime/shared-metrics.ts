// Subtask metrics every thread of a job sees: FIELDS numbers per subtask in one buffer (a
// SharedArrayBuffer when worker threads run some subtasks), so the job's thread reads what a worker's
// subtasks count (SHOW JOBS, `weir run --stats`, the job's metrics, which operator ran when a worker
// died) as they count. What operators count themselves (OperatorMetrics) are the first four; the
// runtime keeps the others (busy and backpressured time, watermark, whether it is running).
import type { OperatorMetrics } from '../core/operator.js'

/** The runtime's numbers of a subtask, at these offsets of its `stats` view. */
export const STAT = {
  /** Milliseconds spent processing items, timers and snapshots (async state reads included). */
  busyMs: 4,
  /** Milliseconds a source subtask waited for room before reading on (messages in flight between threads at their limit). */
  backpressuredMs: 5,
  /** The subtask's watermark (-Infinity: none yet). */
  watermark: 6,
  /** 1 while the subtask processes something (a worker that dies names the operator it was running). */
  running: 7,
  /** Live keyed-state entries when last sampled (subtask-stats.ts; NaN: keeps no keyed state). */
  stateEntries: 8,
  /** Bytes of its keyed state when last sampled: the heap's estimate of its objects, a disk backend's files (NaN: not known yet). */
  stateBytes: 9,
  /** performance.now() of its own thread when the state is sampled next. */
  stateDueAt: 10,
  /** The checkpoint whose snapshot this subtask finished storing last (0: none), and its figures: */
  uploadedId: 11,
  /** ms of the synchronous part (processing waited for it), */
  uploadedSyncMs: 12,
  /** ms from then until its files were stored, */
  uploadedAsyncMs: 13,
  /** bytes it stored (what an incremental checkpoint references from earlier ones not counted), */
  uploadedBytes: 14,
  /** and when they were stored (epoch ms). */
  uploadedAt: 15,
  /** The same four of the last completed checkpoint this subtask took part in (0: none), set when the checkpoint completes: */
  checkpointId: 16,
  checkpointSyncMs: 17,
  checkpointAsyncMs: 18,
  checkpointBytes: 19,
  /** ms from the checkpoint's trigger until this subtask's files were stored. */
  checkpointEndToEndMs: 20,
} as const

const FIELDS = 21

export function sharedMetricsBuffer(subtasks: number): SharedArrayBuffer {
  return new SharedArrayBuffer(Math.max(1, subtasks) * FIELDS * 8)
}

class SharedMetrics implements OperatorMetrics {
  constructor(private readonly a: Float64Array, private readonly at: number) {}
  get lateRecordsDropped(): number {
    return this.a[this.at]!
  }
  set lateRecordsDropped(v: number) {
    this.a[this.at] = v
  }
  get rowsIn(): number {
    return this.a[this.at + 1]!
  }
  set rowsIn(v: number) {
    this.a[this.at + 1] = v
  }
  get rowsOut(): number {
    return this.a[this.at + 2]!
  }
  set rowsOut(v: number) {
    this.a[this.at + 2] = v
  }
  get rowsSkipped(): number {
    return this.a[this.at + 3]!
  }
  set rowsSkipped(v: number) {
    this.a[this.at + 3] = v
  }
}

/** A subtask's metrics: what its operator counts, and the runtime's numbers (STAT offsets) in the same memory. */
export interface SubtaskMetrics {
  readonly metrics: OperatorMetrics
  readonly stats: Float64Array
}

/** The metrics of subtask `index` (in the job's order) in `buffer`. */
export function sharedMetrics(buffer: SharedArrayBuffer): (index: number) => SubtaskMetrics {
  const a = new Float64Array(buffer)
  return index => {
    const stats = a.subarray(index * FIELDS, (index + 1) * FIELDS)
    return { metrics: new SharedMetrics(a, index * FIELDS), stats }
  }
}

/** The metrics of a subtask only its own thread sees: plain fields (cheaper than shared memory's accessors). */
export function localMetrics(): SubtaskMetrics {
  const stats = new Float64Array(FIELDS)
  initFields(stats, 0)
  return { metrics: { lateRecordsDropped: 0, rowsIn: 0, rowsOut: 0, rowsSkipped: 0 }, stats }
}

/** Sets the fields of every subtask of `buffer` that start other than 0 (the watermark: none yet); the job's thread does it once. */
export function initSharedMetrics(buffer: SharedArrayBuffer): void {
  const a = new Float64Array(buffer)
  for (let at = 0; at < a.length; at += FIELDS) initFields(a, at)
}

function initFields(a: Float64Array, at: number): void {
  a[at + STAT.watermark] = -Infinity
  a[at + STAT.stateEntries] = NaN
  a[at + STAT.stateBytes] = NaN
}
