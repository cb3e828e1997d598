// ListState.clear() without a read: a list that no prefetch made resident is deleted by a range delete
// of its (key, namespace) prefix, or not at all when the written-keys filter says it was never
// written; a resident one whose few stored elements are known loses them by point deletes. An
// operator that drops a list whole (an expired time bucket) then needs no prefetch for it.
import { CELL_OVERHEAD, dropSeq, type ListCell, NO_SEQS, notResident, seqAt, type Table, untail } from './cache.js'
import { hashOf } from './slot-map.js'
import type { Namespace } from '../../core/keyed-state.js'
import type { RocksStore } from './store.js'
import { cellKey, namespaceBytes } from './codec.js'

/**
 * A resident list with at most this many stored elements loses them by point deletes, which no later
 * read pays for; past it, one range delete is cheaper than the deletes (a range tombstone costs the
 * iterators that later scan near it).
 */
export const POINT_DELETES = 16

/**
 * Empties the current key's list `table` in namespace `ns`, whether it is resident, still being read
 * by a prefetch, or not resident at all. The cell stays resident (dirty) until the next flush writes
 * the deletes, so a prefetch of the same list meanwhile finds it empty rather than reading the disk.
 */
export function clearList(store: RocksStore, table: Table, ns: Namespace): void {
  const key = store.currentKey
  if (key === undefined) notResident(table, key, ns)
  let slot = key === table.cachedKey ? table.cachedSlot : table.slots.get(key.encoded)
  if (slot === undefined) {
    slot = store.newSlot(table, key, hashOf(key.encoded))
    table.cachedKey = key
    table.cachedSlot = slot
  }
  let c = slot.get(ns) as ListCell | undefined
  // Every namespace resident and none here: nothing is stored.
  if (c === undefined && slot.allNs) return
  // What the disk holds of it is unknown: the elements of a list never read, or being read, or a
  // tail appended blind (cache.ts, ListCell.tail: its adds did not count it live, its head did).
  let unread = false
  if (c === undefined || c.loading || c.tail) {
    unread = true
    if (c === undefined) c = store.newCell(slot, ns) as ListCell
    else if (c.tail) untail(c)
    else {
      // The read in flight reads what this clear deletes: its elements are dropped when it lands.
      c.loading = false
      c.staleRead = true
    }
    const bloom = store.bloom
    c.stored = bloom === null || table.unfiltered || bloom.mayContain(c.key)
    if (c.stored) store.liveEntries--
  } else if (c.items.length > 0) {
    store.liveEntries--
  }
  if (!c.stored) {
    // Nothing on disk (and so nothing flushed or dropped): whatever was added goes with no write.
    emptyItems(c)
    c.replaced = false
    return
  }
  if (!unread && !c.replaced && c.flushed + c.dropped.length <= POINT_DELETES) {
    // Every stored element is known: delete each (its sequence number stays used, so no later add reuses it before the delete).
    for (let i = 0; i < c.flushed; i++) dropSeq(c, seqAt(c, i))
    emptyItems(c)
    store.markDirty(c)
    return
  }
  emptyItems(c)
  c.nextSeq = 0
  c.replaced = true
  c.dropped = NO_SEQS
  store.markDirty(c)
}

/**
 * Drops the current key's list `table` in namespace `ns` for good (ListState.drop: nothing reads or
 * writes it again). With the key resident this is clearList. Otherwise no cache entry is made for it:
 * its (key, namespace) prefix joins the range deletes the next write issues before any put (nothing
 * at all if the written-keys filter says it was never written). An expired bucket of an interval
 * join's side is such a list: making a slot and a cell for each only to delete it cost Nexmark
 * q7-rocksdb ~20% of its CPU (~210K of its ~280K buckets were evicted by then).
 */
export function dropList(store: RocksStore, table: Table, ns: Namespace): void {
  const key = store.currentKey
  if (key === undefined) notResident(table, key, ns)
  const slot = key === table.cachedKey ? table.cachedSlot : table.slots.get(key.encoded)
  if (slot !== undefined) {
    clearList(store, table, ns)
    return
  }
  const prefix = cellKey(key.group, table.id, key.encoded, namespaceBytes(ns))
  const bloom = store.bloom
  if (bloom !== null && !table.unfiltered && !bloom.mayContain(prefix)) return
  store.liveEntries--
  store.changes++
  store.droppedPrefixes.push(prefix)
}

/**
 * Drops every list of `table`, of every key and namespace (ListState.dropAll): the next write batch
 * range-deletes the table in each key group of the subtask before its puts, where a drop per list
 * costs one range delete each (Nexmark q7-rocksdb at its final watermark: ~200K of them, ~0.8 s).
 * Resident cells are emptied as a clear of a list with nothing stored leaves them (elements not yet
 * written never are), and lists dropped one by one before are covered by the ranges. stats().entries:
 * the table's lists are counted out exactly when it is the store's only table (every live entry was
 * one of them); otherwise the resident ones are, and the others until countEntries() recounts.
 */
export function dropAllLists(store: RocksStore, table: Table): void {
  let live = 0
  // The slot's cells read in place (Slot.cells() is a generator: a result object per cell, for up to
  // every key of the cache at a bounded input's end).
  for (const slot of table.slots.values()) {
    if (slot.d !== undefined) live += dropResident(store, slot.d as ListCell)
    if (slot.c1 !== undefined) live += dropResident(store, slot.c1 as ListCell)
    if (slot.more !== null) { for (const c of slot.more.values()) live += dropResident(store, c as ListCell) }
  }
  const id = table.id
  store.droppedPrefixes = store.droppedPrefixes.filter(p => ((p[2]! << 8) | p[3]!) !== id)
  const { start, end } = store.keyGroupRange
  for (let g = start; g <= end; g++) store.droppedPrefixes.push(Buffer.from([g >>> 8, g & 0xff, id >>> 8, id & 0xff]))
  store.changes++
  if (store.tables.list.length === 1) store.liveEntries = 0
  else store.liveEntries -= live
}

/** Empties resident cell `c` for dropAllLists (the range deletes cover what it stored); 1 if it held elements. */
function dropResident(store: RocksStore, c: ListCell): number {
  if (c.loading) {
    // The read in flight reads what this drops: its elements are dropped when it lands.
    c.loading = false
    c.staleRead = true
  }
  untail(c)
  const live = c.items.length > 0 ? 1 : 0
  emptyItems(c)
  c.replaced = false
  c.stored = false
  c.dropped = NO_SEQS
  store.setCellSize(c, CELL_OVERHEAD + c.keyLength + c.held)
  return live
}

/** The cell holds no element any more, none of them counted as flushed. */
function emptyItems(c: ListCell): void {
  // A new array (a caller may hold the old one), unless it is empty already (a cell made for this clear).
  // With none left the numbering is implicit again: the next add takes nextSeq.
  if (c.items.length > 0) c.items = []
  c.times = null
  c.seqs = null
  c.flushed = 0
  c.rewrite = false
}
