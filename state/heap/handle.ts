// What a checkpoint manifest records of one subtask's heap state, and the objects it names. Two
// shapes: one object of all live entries (Weir before incremental heap checkpoints, and manifest
// format 1), or chains of sections per key group (incremental.ts).
import { WeirError } from '../../common/errors.js'
import type { StoredObject } from '../../checkpoint/objects.js'
import type { KeyGroupRange } from '../backend.js'

export const HEAP_HANDLE_FORMAT = 'weir-heap/2'
export const HEAP_SECTIONS_FORMAT = 'weir-heap-sections/1'

/** All live entries in one object (a HeapSnapshot, v8-serialized, gzip); in manifest format 1 the subtask's data object, beside its timers. */
export interface HeapWholeHandle {
  readonly backend: 'heap'
  readonly entries: StoredObject
}

/** An object of sections, as a handle names it. */
export interface HeapStoredObject extends StoredObject {
  /** The checkpoint that stored it: sections of a group apply in this order. */
  readonly checkpointId: number
  /** Serialized bytes of all its sections (what retention keeps for it, before compression). */
  readonly raw: number
}

/**
 * One subtask's heap state as chains of sections per key group.
 *
 * @example
 * {
 *   "backend": "heap", "format": "weir-heap/2", "maxParallelism": 128, "keyGroups": { "start": 0, "end": 127 }, "selfContained": false,
 *   "objects": [{ "path": "shared/heap-3f0c….bin.gz", "bytes": 81234, "sha1": "…", "checkpointId": 4, "raw": 402311 }, …],
 *   "groups": [{ "group": 0, "sections": [[0, 3121], [2, 88]] }, …],
 *   "uploaded": { "sections": 12, "bases": 0, "raw": 1210, "bytes": 644 }
 * }
 */
export interface HeapChainedHandle {
  readonly backend: 'heap'
  readonly format: typeof HEAP_HANDLE_FORMAT
  readonly maxParallelism: number
  /** The key groups the subtask owned; those without a chain were empty. */
  readonly keyGroups: KeyGroupRange
  /** A savepoint's: its one object under its own prefix. */
  readonly selfContained: boolean
  /** Ascending by checkpointId. */
  readonly objects: readonly HeapStoredObject[]
  /** Per key group with entries: [index in objects, serialized bytes] of its base, then of each delta after it. */
  readonly groups: readonly { readonly group: number; readonly sections: readonly (readonly [number, number])[] }[]
  /** What this checkpoint stored itself (the rest it named from earlier ones). */
  readonly uploaded: { readonly sections: number; readonly bases: number; readonly raw: number; readonly bytes: number }
}

export type HeapStateHandle = HeapWholeHandle | HeapChainedHandle

/** A section in an object: a group's base (its live entries) or delta (see DeltaSection), v8-serialized. */
export interface HeapSection {
  readonly group: number
  readonly base: boolean
  readonly data: Uint8Array
}

/** An object of sections (v8-serialized, gzip). */
export interface HeapSectionsObject {
  readonly format: typeof HEAP_SECTIONS_FORMAT
  readonly maxParallelism: number
  readonly sections: readonly HeapSection[]
}

export function isChained(handle: HeapStateHandle): handle is HeapChainedHandle {
  return 'format' in handle
}

/** The stored objects a handle needs: retention deletes a shared object once no retained handle names it. */
export function referencedObjects(handle: HeapStateHandle): string[] {
  return isChained(handle) ? handle.objects.map(o => o.path) : [handle.entries.path]
}

/** `handle` as read back from a manifest, checked; `where` names it in errors. */
export function checkHeapHandle(handle: HeapStateHandle, where: string): HeapStateHandle {
  if (!isChained(handle)) return handle
  const bad = (what: string): WeirError =>
    WeirError.checkpoint(`${where} is not a Weir heap state handle: ${what}`, {
      help: 'the checkpoint manifest is damaged or was written by a newer version of Weir: restore from another checkpoint or savepoint',
    })
  if (handle.format !== HEAP_HANDLE_FORMAT) throw bad(`format '${String(handle.format)}'`)
  if (!Number.isInteger(handle.maxParallelism)) throw bad('no max-parallelism')
  const kg = handle.keyGroups
  if (kg === undefined || !Number.isInteger(kg.start) || !Number.isInteger(kg.end) || kg.start > kg.end) throw bad('no key-group range')
  if (!Array.isArray(handle.objects) || !Array.isArray(handle.groups)) throw bad('no objects or groups')
  for (const o of handle.objects) {
    if (typeof o?.path !== 'string' || typeof o.sha1 !== 'string' || !Number.isInteger(o.bytes) || !Number.isInteger(o.checkpointId)) {
      throw bad(`object ${JSON.stringify(o)}`)
    }
  }
  for (const g of handle.groups) {
    if (!Number.isInteger(g?.group) || !Array.isArray(g.sections) || g.sections.length === 0 ||
      !g.sections.every((s: readonly [number, number]) => Array.isArray(s) && handle.objects[s[0]] !== undefined && Number.isInteger(s[1])))
    {
      throw bad(`key group ${JSON.stringify(g)}`)
    }
  }
  return handle
}
