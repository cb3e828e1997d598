// The keyed-state backends by their 'state.backend' name: the one place that lists them. The
// runtime asks here for a subtask's factory and for the objects a manifest's state handles need.
// A backend's module is imported when a subtask first opens on it, so a thread whose job keeps its
// state on the heap never loads RocksDB (its native binding and two dozen modules).
import { WeirError } from '../common/errors.js'
import type { StateBackendFactory } from './backend.js'
import type { StateHandle } from './handles.js'
import { referencedObjects as heapObjects } from './heap/handle.js'
import { referencedObjects as rocksDbObjects } from './rocksdb/handle.js'

type FactoryOf<B extends StateHandle['backend']> = StateBackendFactory<Extract<StateHandle, { backend: B }>>

const MODULES: { readonly [B in StateHandle['backend']]: () => Promise<FactoryOf<B>> } = {
  heap: async () => (await import('./heap/factory.js')).heapStateBackend,
  rocksdb: async () => (await import('./rocksdb/factory.js')).rocksDbStateBackend,
}

/** What each backend's handles reference, without loading the backend (retention runs on the job's thread). */
const OBJECTS: { readonly [B in StateHandle['backend']]: (handle: Extract<StateHandle, { backend: B }>) => readonly string[] } = {
  heap: heapObjects,
  rocksdb: rocksDbObjects,
}

/**
 * The factory of a subtask's backend, imported on first use: the one 'state.backend' names, or the
 * heap's for an operator that keeps no keyed state (it never touches it, and a heap backend costs nothing).
 */
export async function stateBackendFor(backend: string, keepsState: boolean): Promise<StateBackendFactory<StateHandle>> {
  const name = keepsState ? backend : 'heap'
  if (!isBackend(name)) {
    throw WeirError.plan(`unknown state backend '${backend}'`, {
      help: `set 'state.backend' to one of ${Object.keys(MODULES).map(n => `'${n}'`).join(', ')}`,
    })
  }
  return await MODULES[name]() as StateBackendFactory<StateHandle>
}

/** The stored objects a state handle needs (retention keeps them). */
export function stateObjects(handle: StateHandle): readonly string[] {
  if (!isBackend(handle.backend)) {
    throw WeirError.checkpoint(`a checkpoint manifest holds state of an unknown backend '${String(handle.backend)}'`, {
      help: 'the manifest was written by another version of Weir, or is damaged',
    })
  }
  return (OBJECTS[handle.backend] as (h: StateHandle) => readonly string[])(handle)
}

function isBackend(name: string): name is StateHandle['backend'] {
  return Object.hasOwn(MODULES, name)
}
