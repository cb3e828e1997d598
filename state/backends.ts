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
  return keepsState ? factory(backend) : FACTORIES.heap
}

/** The stored objects a state handle needs (retention keeps them). */
export function stateObjects(handle: StateHandle): readonly string[] {
  return factory(handle.backend).referencedObjects(handle)
}

function factory(name: string): StateBackendFactory<StateHandle> {
  const found = Object.hasOwn(FACTORIES, name) ? FACTORIES[name as StateHandle['backend']] : undefined
  if (found === undefined) {
    throw WeirError.plan(`unknown state backend '${name}'`, { help: `set 'state.backend' to one of ${Object.keys(FACTORIES).map(n => `'${n}'`).join(', ')}` })
  }
  return found as StateBackendFactory<StateHandle>
}
