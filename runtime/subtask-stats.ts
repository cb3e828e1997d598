// The per-subtask numbers the runtime keeps beside what operators count (shared-metrics.ts STAT): the
// size of a subtask's keyed state, sampled by the thread that runs it every second or so between
// items, and the figures of its part in the last checkpoints. The job's thread reads them all, as
// SubtaskSample rows, for the job's metrics and for `weir run --stats`.
import type { StateHandle } from '../state/handles.js'
import { storedBytesOf } from '../state/handles.js'
import { STAT } from './shared-metrics.js'
import type { Task } from './subtasks.js'

/** One subtask's numbers at one moment (JobSample.subtasks, JobMetrics.subtasks). */
export interface SubtaskSample {
  /** The node's id ('3-group-aggregate'): a job graph's order, as EXPLAIN numbers its operators. */
  readonly operator: string
  /** The operator's kind ('Source', 'GroupAggregate' …). */
  readonly kind: string
  readonly subtask: number
  readonly parallelism: number
  /** Rows it took in: a source's records read (before pushed-down filters), an operator's or sink's input rows. */
  readonly rowsIn: number
  readonly rowsOut: number
  /** Milliseconds it spent processing (items, timers, snapshots; a source: reading and decoding). */
  readonly busyMs: number
  /** Milliseconds it waited for room downstream (sources: messages in flight to other threads at their limit). */
  readonly backpressuredMs: number
  /** Epoch ms; undefined before the first; Infinity once its inputs ended. */
  readonly watermark: number | undefined
  /** Its keyed state when last sampled (undefined: it keeps none). */
  readonly state: { readonly entries: number; readonly bytes: number | undefined } | undefined
  /** Its part in the last completed checkpoint it took part in. */
  readonly checkpoint: SubtaskCheckpoint | undefined
}

/** A subtask's part in one checkpoint. */
export interface SubtaskCheckpoint {
  readonly id: number
  /** The synchronous part of its snapshot (processing waited): alignment not included. */
  readonly syncMs: number
  /** From then until its files were stored (compression and upload, in the background). */
  readonly asyncMs: number
  /** What it stored in this checkpoint (an incremental one: not what it references from earlier). */
  readonly bytes: number
  /** From the checkpoint's trigger until this subtask's files were stored. */
  readonly endToEndMs: number
}

/** How often a subtask's state is sampled at most; a slow sample (a big heap state counted) waits 50× its cost. */
const SAMPLE_EVERY_MS = 1000

/** The thread of `task` samples its state when due (called between items, `now` its performance.now()). */
export function sampleStateIfDue(task: Task, now: number): void {
  if (!task.stateful || task.state === undefined || now < task.stats[STAT.stateDueAt]!) return
  sampleState(task)
  const cost = performance.now() - now
  task.stats[STAT.stateDueAt] = now + Math.max(SAMPLE_EVERY_MS, 50 * cost)
}

const diskReads = new WeakSet<Task>()

/** Samples the state of `task` now: entries and the heap's estimate at once, a disk backend's file sizes when read. */
export function sampleState(task: Task): void {
  const state = task.state
  if (!task.stateful || state === undefined) return
  const s = state.stats()
  task.stats[STAT.stateEntries] = s.entries
  if (s.bytes !== undefined) task.stats[STAT.stateBytes] = s.bytes
  if (state.diskBytes === undefined || diskReads.has(task)) return
  diskReads.add(task)
  state.diskBytes().then(b => {
    task.stats[STAT.stateBytes] = b
  }, () => undefined).finally(() => diskReads.delete(task))
}

/** The live entries of `task`'s state at the job's end, recorded with the heap's estimate of their bytes (a disk backend's files: the caller's storageStats). */
export function stateAtEnd(task: Task): number {
  const s = task.state!.stats()
  task.stats[STAT.stateEntries] = s.entries
  if (s.bytes !== undefined) task.stats[STAT.stateBytes] = s.bytes
  return s.entries
}

/**
 * A subtask started its snapshot of checkpoint `id` at `started` (performance.now()); its synchronous
 * part is done now. Call the returned function with what it stored once the upload is done.
 */
export function snapshotTaken(task: Task, id: number,
  started: number): (stored: { readonly data?: { readonly bytes: number }; readonly state?: StateHandle }) => void
{
  const synced = performance.now()
  return stored => {
    const s = task.stats
    s[STAT.uploadedId] = id
    s[STAT.uploadedSyncMs] = synced - started
    s[STAT.uploadedAsyncMs] = performance.now() - synced
    s[STAT.uploadedBytes] = (stored.data?.bytes ?? 0) + (stored.state === undefined ? 0 : storedBytesOf(stored.state))
    s[STAT.uploadedAt] = Date.now()
  }
}

/** Checkpoint `id`, triggered at `triggeredAt` (epoch ms), is complete: it becomes the last completed one of the subtasks that stored their part. */
export function checkpointCompleted(order: readonly Task[], id: number, triggeredAt: number): void {
  for (const task of order) {
    const s = task.stats
    if (s[STAT.uploadedId] !== id) continue
    s[STAT.checkpointId] = id
    s[STAT.checkpointSyncMs] = s[STAT.uploadedSyncMs]!
    s[STAT.checkpointAsyncMs] = s[STAT.uploadedAsyncMs]!
    s[STAT.checkpointBytes] = s[STAT.uploadedBytes]!
    s[STAT.checkpointEndToEndMs] = Math.max(0, s[STAT.uploadedAt]! - triggeredAt)
  }
}

/** The numbers of every subtask of `order` now. */
export function subtaskSamples(order: readonly Task[]): SubtaskSample[] {
  return order.map(task => {
    const s = task.stats
    const m = task.metrics
    const wm = s[STAT.watermark]!
    const entries = s[STAT.stateEntries]!
    const bytes = s[STAT.stateBytes]!
    return {
      operator: task.node.id,
      kind: task.node.spec.kind,
      subtask: task.index,
      parallelism: task.parallelism,
      rowsIn: m.rowsIn,
      rowsOut: m.rowsOut,
      busyMs: s[STAT.busyMs]!,
      backpressuredMs: s[STAT.backpressuredMs]!,
      watermark: wm === -Infinity ? undefined : wm,
      state: !task.stateful ? undefined : { entries: Number.isNaN(entries) ? 0 : entries, bytes: Number.isNaN(bytes) ? undefined : bytes },
      checkpoint: s[STAT.checkpointId] === 0 ? undefined : {
        id: s[STAT.checkpointId]!,
        syncMs: s[STAT.checkpointSyncMs]!,
        asyncMs: s[STAT.checkpointAsyncMs]!,
        bytes: s[STAT.checkpointBytes]!,
        endToEndMs: s[STAT.checkpointEndToEndMs]!,
      },
    }
  })
}
