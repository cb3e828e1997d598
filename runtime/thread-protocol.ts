// What the job's thread and its worker threads (threads.ts) say to each other, besides the items of
// the subtasks' channels (thread-links.ts).
import { WeirError, type ErrorKind } from '../common/errors.js'
import type { JobGraph } from '../core/job-graph.js'
import type { Manifest, SourceManifest, SubtaskManifest } from './checkpoint.js'
import type { SourcePart } from './source-positions.js'
import { OperatorFailure, type FailedOperator } from './operator-failure.js'
import type { MessagePort } from 'node:worker_threads'
import type { ItemsMessage } from './thread-links.js'
import type { Barrier } from './subtasks.js'

export interface WorkerInit {
  readonly graph: JobGraph
  /** This worker's number: it runs subtask `worker` of every parallel operator. */
  readonly worker: number
  readonly restore: { readonly manifest: Manifest; readonly baseUri: string; readonly location: string } | undefined
  /** The job's checkpoint and savepoint folders. */
  readonly checkpoint: { readonly storageUri: string; readonly savepointUri: string } | undefined
  readonly stateDir: string
  /** Messages in flight (InFlight), the job's flags (FLAG_*) and every subtask's metrics (SharedMetrics). */
  readonly inFlight: SharedArrayBuffer
  readonly flags: SharedArrayBuffer
  readonly metrics: SharedArrayBuffer
  /** The ring of each link, by sending and receiving thread + 1 (0: the job's thread; null: none). */
  readonly rings: readonly (readonly (SharedArrayBuffer | null)[])[]
  /** A port to each other worker, by worker number (null: this one). */
  readonly peers: readonly (MessagePort | null)[]
}

/** Int32 flags shared by the job's threads: the job was cancelled. */
export const FLAG_ABORTED = 0
export const FLAG_COUNT = 1

export type ToWorker =
  | ItemsMessage
  /** Checkpoint `barrier` went in at the sources: subtasks that finished before it snapshot now. */
  | { readonly t: 'announce'; readonly barrier: Barrier }
  /** State entries (and disk use) of the worker's subtasks, for the job's metrics. */
  | { readonly t: 'stats'; readonly countStored: boolean }
  /** The job's loop starts reading: the worker's source subtasks start too. */
  | { readonly t: 'run' }
  /** The job was cancelled: the worker's sources stop reading (their consumers see an end that is not the input's). */
  | { readonly t: 'abort' }
  /** Checkpoint `checkpoint` completed with these source positions (a reader may report its own). */
  | { readonly t: 'completed'; readonly checkpoint: number; readonly sources: Readonly<Record<string, SourceManifest>> }
  /** Close operators and state (the job ended); the worker replies 'closed' and exits. */
  | { readonly t: 'close' }

export interface WorkerStats {
  /** Per subtask (by index in the job's order) its live state entries. */
  readonly entries: readonly (readonly [number, number])[]
  readonly diskBytes?: number
  readonly storedEntries?: number
  /** Records its source subtasks skipped (bad records with '…ignore-parse-errors'). */
  readonly skippedRecords?: number
}

export type FromWorker =
  | ItemsMessage
  /** Its subtasks are open; `thread` is its kernel thread id (runtime/thread-priority.ts), where there is one. */
  | { readonly t: 'ready'; readonly thread: number | undefined }
  /** Subtask `task` took the synchronous part of its snapshot of checkpoint `checkpoint`. */
  | { readonly t: 'snapshot'; readonly checkpoint: number; readonly task: number }
  /** Its files are uploaded: what the manifest lists for it (null: it keeps no state). */
  | { readonly t: 'uploaded'; readonly checkpoint: number; readonly task: number; readonly subtask: SubtaskManifest | null }
  | { readonly t: 'upload-failed'; readonly checkpoint: number; readonly task: number; readonly error: WireError }
  | { readonly t: 'failed'; readonly error: WireError }
  /**
   * Where the worker's source subtasks were when checkpoint `checkpoint`'s barrier went in there (an
   * answer to 'announce', every worker's, with or without sources), or (checkpoint 0) where one ended.
   */
  | { readonly t: 'source-positions'; readonly checkpoint: number; readonly parts: readonly SourcePart[] }
  | { readonly t: 'stats'; readonly stats: WorkerStats }
  /** Every subtask of the worker has finished (its sink subtasks have written all they were given). */
  | { readonly t: 'finished' }
  | { readonly t: 'closed'; readonly errors: readonly WireError[] }

/** An error as it crosses threads: a WeirError's parts (an OperatorFailure's too), or another error's message. */
export interface WireError {
  readonly kind: ErrorKind
  readonly message: string
  readonly help?: string
  readonly notes?: readonly string[]
  readonly span?: WeirError['span']
  readonly record?: WeirError['record']
  readonly operator?: FailedOperator
  readonly row?: string
  readonly originalNotes?: readonly string[]
  readonly stack?: string
}

export function toWire(e: unknown): WireError {
  if (e instanceof OperatorFailure) {
    return { kind: e.kind, message: e.message, help: e.help, span: e.span, record: e.record, operator: e.operator, row: e.row, originalNotes: e.originalNotes }
  }
  if (e instanceof WeirError) return { kind: e.kind, message: e.message, help: e.help, notes: e.notes, span: e.span, record: e.record }
  const err = e instanceof Error ? e : new Error(String(e))
  return { kind: 'internal', message: err.message, stack: err.stack }
}

export function fromWire(w: WireError): Error {
  if (w.operator !== undefined) {
    const base = new WeirError(w.kind, w.message, { span: w.span, record: w.record, help: w.help, notes: w.originalNotes ?? [] })
    return new OperatorFailure(base, w.operator, w.row, w.originalNotes ?? [])
  }
  if (w.stack !== undefined) {
    const err = new Error(w.message)
    err.stack = w.stack
    return err
  }
  return new WeirError(w.kind, w.message, { span: w.span, record: w.record, help: w.help, notes: w.notes ?? [] })
}
