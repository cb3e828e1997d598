// Reading state before it is touched: what a batch or a due timer will touch (the operator says, or
// each row's key), prefetched from a disk backend in one read — and read ahead, one batch early, so
// the read overlaps the processing of the batch before (core/keyed-state.ts: prefetch → synchronous
// calls → flush).
import type { Batch } from '../core/batch.js'
import type { KeyRef, Namespace, PrefetchRequest } from '../core/keyed-state.js'
import type { Item, Task } from './subtasks.js'

/** Makes the state `batch` will touch resident. */
export function prefetchBatch(task: Task, batch: Batch, input: number): Promise<void> {
  const op = task.operator!
  const state = task.state!
  if (op.prefetchState) return op.prefetchState(batch, input, requests => state.prefetch(requests))
  return state.prefetch(stateRequests(task, batch, input))
}

/**
 * Starts reading the state `item` (a batch queued next) will touch, while the subtask goes on
 * with what comes before it: a disk backend reads on its threads while this one processes the batch
 * before and builds its write batch. One batch ahead at most, because a backend keeps what a
 * prefetch loaded resident only until the flush after the next (core/keyed-state.ts). Only for the plain
 * path: one flush per batch (no TTL sweep, which flushes too) and requests known up front (no
 * multi-round prefetchState). True when reads were started.
 */
export function readAhead(task: Task, item: Item): boolean {
  if (task.ahead !== null || item.t !== 'batch' || !task.state?.needsPrefetch || !task.operator || task.operator.prefetchState || task.hasTtl) return false
  // A batch held back for barrier alignment is not the next one processed.
  if (task.pendingBarrier !== null && task.chBarrier[item.ch]) return false
  const loaded = prefetchBatch(task, item.batch, task.chInput[item.ch]!)
  loaded.catch(() => undefined) // awaited when the batch is processed, or dropped
  task.ahead = { item, loaded }
  return true
}

/** Something else touches the state first: wait for the read ahead, and let the batch prefetch again in its turn. */
export async function dropAhead(task: Task): Promise<void> {
  const ahead = task.ahead
  if (ahead === null) return
  task.ahead = null
  await ahead.loaded
}

/** What a batch will touch: the operator says, or else each row's key in namespace ''. */
function stateRequests(task: Task, batch: Batch, input: number): PrefetchRequest[] {
  const requests: PrefetchRequest[] = []
  const op = task.operator!
  if (op.stateRequests) {
    op.stateRequests(batch, input, (key, namespace, appendOnly) => {
      if (appendOnly === undefined || appendOnly === false) requests.push({ key, namespace })
      else if (appendOnly === true) requests.push({ key, namespace, appendOnly })
      else requests.push({ key, namespace, appendOnlyStates: appendOnly })
    })
    return requests
  }
  const ns = op.prefetchAllNamespaces ? undefined : ''
  const keys = task.ctx!.keysOf(batch.rows, input)
  const reused = task.requests
  for (let i = 0; i < keys.length; i++) {
    const r = reused[i]
    if (r === undefined) reused.push({ key: keys[i]!, namespace: ns })
    else {
      r.key = keys[i]!
      r.namespace = ns
    }
  }
  reused.length = keys.length
  return reused
}

/** What due timers will touch: the operator says, or else each timer's (key, namespace). */
export function timerRequests(task: Task, due: readonly { key: KeyRef; namespace: Namespace }[]): PrefetchRequest[] {
  const op = task.operator!
  if (op.timerStateRequests) return due.flatMap(d => op.timerStateRequests!(d.key, d.namespace))
  if (!op.prefetchAllNamespaces) return due as PrefetchRequest[]
  return due.map(d => ({ key: d.key }))
}
