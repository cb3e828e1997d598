// The heap backend in checkpoints: its factory, and the handle a manifest records — one object of
// the subtask's live entries, written by HeapKeyedStateBackend.checkpoint.
import { getObject, type StoredObject } from '../../checkpoint/objects.js'
import type { StateBackendFactory } from '../backend.js'
import { HeapKeyedStateBackend, type HeapSnapshot } from './heap-backend.js'

/** A subtask's heap state in a checkpoint. */
export interface HeapStateHandle {
  readonly backend: 'heap'
  /**
   * The live entries: a HeapSnapshot, v8-serialized, gzip. In a checkpoint of manifest format 1 the
   * subtask's data object, which held them as `heap` beside its timers.
   */
  readonly entries: StoredObject
}

/** The object manifest format 1 stored per subtask: timers and heap entries together. */
interface Format1Data {
  readonly timers: unknown
  readonly heap?: HeapSnapshot
}

/**
 * Heap backends, restored by adding the entries of every handle whose key groups overlap (each
 * keeps only the groups the subtask owns).
 */
export const heapStateBackend: StateBackendFactory<HeapStateHandle> = {
  name: 'heap',
  async create(options, restore) {
    const backend = new HeapKeyedStateBackend({ maxParallelism: options.maxParallelism, keyGroupRange: options.keyGroupRange })
    for (const handle of restore?.handles ?? []) {
      const stored = await getObject<HeapSnapshot | Format1Data>(restore!.storage, handle.entries)
      const snapshot = 'timers' in stored ? stored.heap : stored
      if (snapshot !== undefined) backend.restore(snapshot)
    }
    return backend
  },
  referencedObjects: handle => [handle.entries.path],
}
