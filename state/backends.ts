// The keyed-state backends by their 'state.backend' name: the one place that lists them. The
// runtime asks here for a subtask's factory and for the objects a manifest's state handles need.
import { WeirError } from '../common/errors.js'
import type { StateBackendFactory } from './backend.js'
import type { StateHandle } from './handles.js'
import { heapStateBackend } from './heap/factory.js'
import { rocksDbStateBackend } from './rocksdb/factory.js'

const FACTORIES: { readonly [B in StateHandle['backend']]: StateBackendFactory<Extract<StateHandle, { backend: B }>> } = {
  heap: heapStateBackend,
  rocksdb: rocksDbStateBackend,
}

/**
 * The factory of a subtask's backend: the one 'state.backend' names, or the heap's for an operator
 * that keeps no keyed state (it never touches it, and a heap backend costs nothing).
 */
export function stateBackendFor(backend: string, keepsState: boolean): StateBackendFactory<StateHandle> {
  if (!keepsState) return FACTORIES.heap as StateBackendFactory<StateHandle>
  const factory = factoryNamed(backend)
  if (factory === undefined) {
    throw WeirError.plan(`unknown state backend '${backend}'`, {
      help: `set 'state.backend' to one of ${Object.keys(FACTORIES).map(n => `'${n}'`).join(', ')}`,
    })
  }
  return factory
}

/** The stored objects a state handle needs (retention keeps them). */
export function stateObjects(handle: StateHandle): readonly string[] {
  const factory = factoryNamed(handle.backend)
  if (factory === undefined) {
    throw WeirError.checkpoint(`a checkpoint manifest holds state of an unknown backend '${String(handle.backend)}'`, {
      help: 'the manifest was written by another version of Weir, or is damaged',
    })
  }
  return factory.referencedObjects(handle)
}

function factoryNamed(name: string): StateBackendFactory<StateHandle> | undefined {
  return Object.hasOwn(FACTORIES, name) ? FACTORIES[name as StateHandle['backend']] as StateBackendFactory<StateHandle> : undefined
}
