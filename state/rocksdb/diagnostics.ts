// What the RocksDB backend can say about its state for tests, metrics and diagnostics: an exact
// count of the entries on disk (a full scan), and the keys its cache holds.
import type { KeyRef } from '../../core/keyed-state.js'
import { ABSENT, type Cell, type Slot, type Table } from './cache.js'
import { elementPrefixLength, entryTime, groupPrefix } from './codec.js'
import { ioFailed } from './folder.js'
import type { RocksStore } from './store.js'
import { SCAN_CAPACITY } from './tables.js'
import type { WriteBack } from './write-back.js'

/**
 * Flushes, then counts live entries on disk exactly (a list counts once). With `stored`, counts what
 * the database holds instead: expired entries too, every list element. Without it, also resets
 * `stats().entries` to what the backend's accounting holds: the same count, but with the expired
 * entries still stored, which a read or the TTL sweep counts out when it comes across them.
 */
export async function countEntries(store: RocksStore, writeBack: WriteBack, options: { readonly stored?: boolean } = {}): Promise<number> {
  await writeBack.sync()
  const { start, end } = store.keyGroupRange
  let n = 0
  /** `n` with the expired entries still stored. */
  let counted = 0
  let lastList: Buffer | null = null
  let lastCounted: Buffer | null = null
  const now = store.ttlNow
  const stored = options.stored === true
  try {
    for await (const { key, value } of store.db.iterator({ gte: groupPrefix(start), lt: groupPrefix(end + 1) }, { capacity: SCAN_CAPACITY })) {
      if (stored) {
        n++
        continue
      }
      const table = store.tables.byId[key.readUInt16BE(2)]
      if (table === undefined) continue
      if (table.kind !== 'list') counted++
      else {
        const prefix = key.subarray(0, elementPrefixLength(key))
        if (lastCounted === null || !lastCounted.equals(prefix)) counted++
        lastCounted = prefix
      }
      const t = entryTime(value)
      if (t !== null && table.expired(t, now)) continue
      if (table.kind === 'list') {
        const prefix = key.subarray(0, elementPrefixLength(key))
        if (lastList !== null && lastList.equals(prefix)) continue
        lastList = prefix
      }
      n++
    }
  } catch (e) {
    throw ioFailed(store.dir, e, 'reading')
  }
  if (!stored) store.liveEntries = counted
  return n
}

/** Resident keys only, in the order of their encoding: a disk backend does not list what is not in its cache. */
export function* residentKeys(store: RocksStore, stateName: string): IterableIterator<KeyRef> {
  const table = store.tables.byName.get(stateName)
  if (table === undefined) return
  const now = store.ttlNow
  const live: Slot[] = []
  for (const slot of table.slots.values()) {
    for (const cell of slot.cells()) {
      if (!cell.loading && hasLive(table, cell, now)) {
        live.push(slot)
        break
      }
    }
  }
  live.sort((a, b) => (a.encoded < b.encoded ? -1 : a.encoded > b.encoded ? 1 : 0))
  for (const slot of live) yield slot.keyRef
}

function hasLive(table: Table, cell: Cell, now: number): boolean {
  switch (cell.kind) {
    case 'value':
      return cell.v !== ABSENT && !table.expired(cell.t, now)
    case 'list':
      // Without TTL times (cache.ts, ListCell.times) an element is live as long as it is there.
      return cell.times === null ? cell.items.length > 0 : cell.times.some(t => !table.expired(t, now))
    case 'map':
      for (const e of cell.m.values()) if (!table.expired(e.t, now)) return true
      return false
  }
}
