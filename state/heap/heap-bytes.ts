// A rough size of heap state on V8's heap, for the live metrics (HeapKeyedStateBackend.stats().bytes):
// sampled slots sized by their objects, scaled up to all.
import type { KeyRef, Namespace } from '../../core/keyed-state.js'

type Slot = { readonly key: KeyRef; cells(): IterableIterator<[Namespace, { readonly v: unknown }]> }

/**
 * What the states' slots take on the heap (HeapKeyedStateBackend.stats().bytes), estimated: every
 * 16th slot of a state (its first 64 all) sized by its objects, scaled up to all its slots.
 */
export function estimateBytes(tables: Iterable<{ readonly slots: ReadonlyMap<string, Slot> }>): number {
  let bytes = 0
  for (const table of tables) {
    let i = 0
    let sampled = 0
    let sampledBytes = 0
    for (const slot of table.slots.values()) {
      if (i++ < 64 || (i & 15) === 0) {
        sampled++
        sampledBytes += slotBytes(slot)
      }
    }
    if (sampled > 0) bytes += (sampledBytes / sampled) * table.slots.size
  }
  return Math.round(bytes)
}

/** What a slot's objects take, roughly: its key and namespaces, its cells and their values. */
function slotBytes(slot: Slot): number {
  let n = 64 + 2 * slot.key.encoded.length + heapBytes(slot.key.values)
  for (const [ns, cell] of slot.cells()) n += 40 + heapBytes(ns) + heapBytes(cell.v)
  return n
}

/**
 * 8 bytes a number, 2 a string's character, headers of 16–32 bytes per object, array and map entry;
 * nested values counted (shared ones as often as seen), 8 levels deep.
 */
export function heapBytes(v: unknown, depth = 0): number {
  switch (typeof v) {
    case 'string':
      return 16 + 2 * v.length
    case 'bigint':
      return 24
    case 'object': {
      if (v === null) return 8
      if (depth > 8) return 32
      if (ArrayBuffer.isView(v)) return 64 + v.byteLength
      if (Array.isArray(v)) {
        let n = 32
        for (const x of v) n += 8 + (typeof x === 'object' || typeof x === 'string' || typeof x === 'bigint' ? heapBytes(x, depth + 1) : 0)
        return n
      }
      if (v instanceof Map) {
        let n = 64
        for (const [k, x] of v) n += 24 + heapBytes(k, depth + 1) + heapBytes(x, depth + 1)
        return n
      }
      if (v instanceof Date) return 32
      let n = 32
      for (const k in v) n += 8 + heapBytes((v as Record<string, unknown>)[k], depth + 1)
      return n
    }
    default:
      return 8
  }
}
