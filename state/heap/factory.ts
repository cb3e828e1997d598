// The heap backend in checkpoints: its factory, with the handle a manifest records (handle.ts) —
// chains of sections per key group written by incremental checkpoints, or (older checkpoints) one
// object of the subtask's live entries.
import type { StateBackendFactory } from '../backend.js'
import { referencedObjects, type HeapStateHandle } from './handle.js'
import { HeapKeyedStateBackend } from './heap-backend.js'
import { restoreHeapState } from './restore.js'

export type { HeapChainedHandle, HeapStateHandle, HeapWholeHandle } from './handle.js'

/**
 * Heap backends, restored by adding the entries of every handle whose key groups overlap (each
 * keeps only the groups the subtask owns).
 */
export const heapStateBackend: StateBackendFactory<HeapStateHandle> = {
  name: 'heap',
  async create(options, restore) {
    const backend = new HeapKeyedStateBackend({ maxParallelism: options.maxParallelism, keyGroupRange: options.keyGroupRange })
    if (restore !== undefined) await restoreHeapState(backend, restore.handles, restore.storage)
    return backend
  },
  referencedObjects,
}
