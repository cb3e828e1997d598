// Restoring a subtask's heap state from the handles of every old subtask whose key groups overlap
// its own: whole snapshots are read and filtered; chained handles (incremental.ts) are read object
// by object, oldest first, applying only the sections of the chains of the groups the subtask owns,
// so objects without such a section are not read at all.
import { deserialize } from 'node:v8'
import { getObject, type StoredObject } from '../../checkpoint/objects.js'
import type { CheckpointStorage } from '../../checkpoint/storage/api.js'
import { WeirError } from '../../common/errors.js'
import { fromColumns } from './columns.js'
import type { HeapKeyedStateBackend, HeapSnapshot } from './heap-backend.js'
import { checkHeapHandle, type HeapChainedHandle, type HeapSectionsObject, type HeapStateHandle, isChained } from './handle.js'
import type { BaseSection, DeltaSection } from './incremental.js'

/** The object manifest format 1 stored per subtask: timers and heap entries together. */
interface Format1Data {
  readonly timers: unknown
  readonly heap?: HeapSnapshot
}

/** Adds the state of `handles` that `backend` (fresh) owns, and lets its next checkpoint build on the chains it can. */
export async function restoreHeapState(backend: HeapKeyedStateBackend, handles: readonly HeapStateHandle[], storage: CheckpointStorage): Promise<void> {
  let buildOn = handles.length > 0
  for (const [i, h] of handles.entries()) {
    const handle = checkHeapHandle(h, `heap state handle ${i}`)
    if (!isChained(handle)) {
      const stored = await getObject<HeapSnapshot | Format1Data>(storage, handle.entries)
      const snapshot = 'timers' in stored ? stored.heap : stored
      if (snapshot !== undefined) backend.restore(snapshot)
      buildOn = false
      continue
    }
    await restoreChains(backend, handle, storage)
    if (handle.selfContained) buildOn = false
    else backend.incremental.adopt(handle, owns(backend), storage.uri)
  }
  if (!buildOn) backend.incremental.restart()
}

function owns(backend: HeapKeyedStateBackend): (group: number) => boolean {
  const { start, end } = backend.keyGroupRange
  return group => group >= start && group <= end
}

async function restoreChains(backend: HeapKeyedStateBackend, handle: HeapChainedHandle, storage: CheckpointStorage): Promise<void> {
  if (handle.maxParallelism !== backend.maxParallelism) {
    throw WeirError.execution(`state was written with max-parallelism ${handle.maxParallelism}, but this job uses ${backend.maxParallelism}`, {
      help: 'restore with the same max-parallelism the checkpoint was taken with',
    })
  }
  // Per object, the owned groups whose chains name it.
  const wanted = new Map<number, Set<number>>()
  const owned = owns(backend)
  for (const { group, sections } of handle.groups) {
    if (!owned(group)) continue
    for (const [index] of sections) {
      let groups = wanted.get(index)
      if (groups === undefined) wanted.set(index, groups = new Set())
      groups.add(group)
    }
  }
  const order = [...wanted.keys()].sort((a, b) => a - b)
  const fetch = (at: number): Promise<HeapSectionsObject> | undefined => {
    const index = order[at]
    return index === undefined ? undefined : readSections(storage, handle.objects[index]!)
  }
  // One object ahead is read while the one before is applied; objects apply oldest first.
  let next = fetch(0)
  for (let at = 0; at < order.length; at++) {
    const object = await next!
    next = fetch(at + 1)
    const groups = wanted.get(order[at]!)!
    for (const section of object.sections) {
      if (!groups.has(section.group)) continue
      if (section.base) backend.applyChanges([], fromColumns(deserialize(section.data) as BaseSection))
      else {
        const delta = deserialize(section.data) as DeltaSection
        backend.applyChanges(delta.cleared, fromColumns(delta.entries))
      }
    }
  }
}

async function readSections(storage: CheckpointStorage, object: StoredObject): Promise<HeapSectionsObject> {
  const body = await getObject<HeapSectionsObject>(storage, object)
  if (body?.format !== 'weir-heap-sections/1') {
    throw WeirError.checkpoint(`checkpoint file '${object.path}' is not an object of heap state sections (format '${String(body?.format)}')`, {
      help: 'the checkpoint was written by another version of Weir, or the file was replaced: restore from another checkpoint',
    })
  }
  return body
}
