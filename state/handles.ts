// What a checkpoint manifest records of a subtask's keyed state: a handle per backend, told apart
// by `backend`. Only types and the reading of older manifests here (no backend code is loaded):
// the factories that read and write handles are in state/backends.ts.
import type { StoredObject } from '../checkpoint/objects.js'
import type { HeapStateHandle } from './heap/factory.js'
import type { RocksDbStateHandle } from './rocksdb/handle.js'

/** A subtask's state in a checkpoint, as the backend that took it stored it. */
export type StateHandle = HeapStateHandle | RocksDbStateHandle

/** A subtask entry of manifest format 1: the backend's name, and RocksDB's handle beside the data object. */
export interface Format1Subtask {
  readonly backend: string
  readonly data: StoredObject
  readonly rocksdb?: unknown
}

/**
 * The handle of a format-1 subtask entry. Its RocksDB handle is as format 2 writes it but for the
 * backend's name; heap state was in the subtask's data object, beside its timers.
 */
export function handleOfFormat1(subtask: Format1Subtask): StateHandle {
  if (subtask.backend === 'rocksdb') return { ...(subtask.rocksdb as Omit<RocksDbStateHandle, 'backend'>), backend: 'rocksdb' }
  return { backend: 'heap', entries: subtask.data }
}

/** The bytes a checkpoint stored for this handle itself (objects it names from earlier checkpoints not counted). */
export function storedBytesOf(handle: StateHandle): number {
  if (handle.backend === 'rocksdb') return handle.uploaded.storedSize
  return 'entries' in handle ? handle.entries.bytes : handle.uploaded.bytes
}
