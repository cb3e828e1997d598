// The ValueState / ListState / MapState handles of the RocksDB backend: synchronous calls against
// resident cells, with the heap backend's semantics (TTL included); every change marks its cell
// dirty for the next flush.
import type { ListState, Namespace, ValueState } from '../../core/keyed-state.js'
import { WeirError } from '../../common/errors.js'
import { TtlMapState } from '../map-state.js'
import { clearList, dropAllLists, dropList } from './blind-clear.js'
import { ABSENT, type CacheHost, type Cell, dropSeq, implicitSeqs, type ListCell, type MapCell, MapEntry, NO_SEQS, notResident, seqAt, type Table, timesOf,
  untail, type ValueCellLike } from './cache.js'
import { decodeRows } from './encoded-rows.js'
import type { RocksStore } from './store.js'
import { EncodedRows } from './value-codec.js'

/** The current key's cell of `table` in namespace `ns`, which a prefetch must have made resident. */
function residentCell(host: CacheHost, table: Table, ns: Namespace): Cell {
  const key = host.currentKey
  let slot = table.cachedSlot
  if (key !== table.cachedKey || key === undefined) {
    if (key === undefined) return notResident(table, key, ns)
    slot = table.slots.get(key.encoded)
    table.cachedKey = key
    table.cachedSlot = slot
  }
  if (slot === undefined) return notResident(table, key, ns)
  let cell = slot.get(ns)
  if (cell === undefined) {
    if (!slot.allNs) return notResident(table, key, ns)
    cell = host.absentCell(slot, ns)
  } else if (cell.loading) {
    return notResident(table, key, ns)
  }
  return cell
}

/** What the value and list handles share: finding the current key's cell, which must be resident. */
abstract class RocksState<C extends Cell> {
  protected ns: Namespace = ''

  constructor(protected readonly host: CacheHost, protected readonly table: Table) {}

  setNamespace(ns: Namespace): void {
    this.ns = ns
  }

  protected cell(): C {
    return residentCell(this.host, this.table, this.ns) as C
  }
}

/** ValueState on a resident value cell. */
export class RocksValueState<T> extends RocksState<ValueCellLike> implements ValueState<T> {
  value(): T | undefined {
    const c = this.cell()
    const v = c.v
    if (v === ABSENT) return undefined
    const table = this.table
    if (table.ttlMs > 0) {
      const now = this.host.ttlNow
      if (c.t + table.ttlMs <= now) {
        c.v = ABSENT
        this.host.liveEntries--
        this.host.markDirty(c)
        return undefined
      }
      if (table.refreshOnRead && c.t !== now) {
        c.t = now
        this.host.markDirty(c)
      }
    }
    return v as T
  }

  /** `undefined` clears, as Flink's update(null) does. A value is stored by reference until the next flush. */
  update(value: T): void {
    if (value === undefined) {
      this.clear()
      return
    }
    const c = this.cell()
    if (c.v === ABSENT) this.host.liveEntries++
    this.host.changes++
    c.v = value
    c.t = this.host.ttlNow
    if (!c.dirty) this.host.markDirty(c)
  }

  clear(): void {
    const c = this.cell()
    if (c.v === ABSENT) return
    c.v = ABSENT
    this.host.liveEntries--
    this.host.markDirty(c)
  }
}

/** ListState on a resident list cell: one stored entry per element. */
export class RocksListState<T> extends RocksState<ListCell> implements ListState<T> {
  constructor(private readonly store: RocksStore, table: Table) {
    super(store, table)
  }

  /** The resident array itself (do not modify it); expired elements are dropped first. */
  get(): readonly T[] {
    const c = this.cell()
    // Only what was appended blind (ListCell.tail): the list's head was not asked for.
    if (c.tail) notResident(this.table, this.host.currentKey, this.ns)
    if (c.encoded) decodeItems(c)
    const table = this.table
    if (table.ttlMs === 0 || c.items.length === 0) return c.items as T[]
    const now = this.host.ttlNow
    const cTimes = timesOf(c, now)
    let expired = 0
    for (const t of cTimes) if (t + table.ttlMs <= now) expired++
    if (expired > 0) {
      const items: unknown[] = [], times: number[] = [], seqs: number[] = []
      let flushed = 0
      for (let i = 0; i < c.items.length; i++) {
        if (cTimes[i]! + table.ttlMs <= now) {
          if (i < c.flushed) dropSeq(c, seqAt(c, i))
          continue
        }
        if (i < c.flushed) flushed++
        items.push(c.items[i])
        times.push(cTimes[i]!)
        seqs.push(seqAt(c, i))
      }
      c.items = items
      c.times = times
      c.seqs = seqs
      // Implicit again when only first elements went (the usual case: the oldest expire first).
      implicitSeqs(c)
      c.flushed = flushed
      if (items.length === 0) this.host.liveEntries--
      this.host.markDirty(c)
    }
    if (table.refreshOnRead && c.items.length > 0) {
      timesOf(c, now).fill(now)
      c.rewrite = true
      this.host.markDirty(c)
    }
    return c.items as T[]
  }

  /**
   * Appends one element: the next flush writes only it. Until then it counts against the cache's
   * budget at the size its list's elements last had (a change is one element, however large: a join
   * side's element is a batch's rows under one key), so deferred write-back holds no more than fits.
   */
  add(value: T): void {
    const c = this.cell()
    this.host.changes++
    // Sequence numbers stay implicit (cache.ts, ListCell.seqs) unless the list has explicit ones already.
    if (c.seqs !== null) c.seqs.push(c.nextSeq)
    // listSeq stays above every number given (a later tail of this list is numbered from it).
    this.store.tables.raiseListSeq(++c.nextSeq)
    // Times only for a state with TTL: most lists (a join's side, an interval join's bucket) have none.
    if (c.times !== null || this.table.ttlMs > 0) timesOf(c, this.host.ttlNow).push(this.host.ttlNow)
    if (c.items.length === 0) {
      // A tail's list counts as live already if it has a head (most do); its head read counts it if not.
      if (!c.tail) this.host.liveEntries++
      // An array of one: a first push reserves 17 slots, ~150 heap bytes that most lists never use
      // (most join keys' buckets keep one row), and the collector copies them.
      c.items = [value]
    } else {
      c.items.push(value)
    }
    this.hold(c)
  }

  /**
   * Into the last element while no write batch has written it (`flushed` says how many have been)
   * and the list has no TTL (an element keeps the time it was added at, which rows added later must
   * not take); otherwise a new element, kept encoded (encoded-rows.ts) unless a read of this list
   * had to decode one before. Held bytes are counted as for an add.
   */
  addChunk(chunk: T): void {
    const c = this.cell()
    const ttl = this.table.ttlMs !== 0
    if (ttl || !Array.isArray(chunk)) {
      this.add(chunk)
      return
    }
    const last = c.items.length > c.flushed ? c.items[c.items.length - 1] : undefined
    if (last instanceof EncodedRows) {
      if (last.pending === null) {
        last.pending = chunk
        this.store.waiting.push(last)
      } else {
        for (let i = 0; i < chunk.length; i++) last.pending.push(chunk[i])
      }
      last.count += chunk.length
    } else if (Array.isArray(last)) {
      for (let i = 0; i < chunk.length; i++) last.push(chunk[i])
    } else if (c.keepsRows || this.table.decodedElements * 4 > this.table.encodedElements + 64) {
      this.add(chunk)
      return
    } else {
      this.table.encodedElements++
      const e = new EncodedRows()
      e.pending = chunk
      e.count = chunk.length
      this.store.waiting.push(e)
      this.add(e as T)
      c.encoded = true
      return
    }
    this.host.changes++
    this.hold(c)
  }

  /** What `add` or `addChunk` put in `c` counts at its table's elementBytes until written, and `c` is dirty. */
  private hold(c: ListCell): void {
    const bytes = this.table.elementBytes
    c.held += bytes
    this.host.heldBytes += bytes
    this.store.setCellSize(c, c.size + bytes)
    if (!c.dirty) this.host.markDirty(c)
  }

  /** Replaces the list: the next flush deletes its range and writes every element. */
  update(values: readonly T[]): void {
    if (values.length === 0) {
      this.clear()
      return
    }
    const c = this.cell()
    if (c.tail) {
      // Replaced whole: its head, unread, goes with the range delete (it is `stored`).
      untail(c)
    } else if (c.items.length === 0) {
      this.host.liveEntries++
    }
    this.host.changes += values.length
    const now = this.host.ttlNow
    c.items = values.slice()
    c.encoded = false
    c.times = this.table.ttlMs > 0 ? values.map(() => now) : null
    c.seqs = null
    c.nextSeq = values.length
    c.flushed = 0
    c.replaced = true
    c.rewrite = false
    c.dropped = NO_SEQS
    this.host.markDirty(c)
  }

  /** Blind: the list need not be resident (see blind-clear.ts). */
  clear(): void {
    clearList(this.store, this.table, this.ns)
  }

  /** Blind and past the cache when the key is not resident (see blind-clear.ts). */
  drop(): void {
    dropList(this.store, this.table, this.ns)
  }

  /** Blind, one range delete per key group (see blind-clear.ts). */
  dropAll(): void {
    dropAllLists(this.store, this.table)
  }
}

/** MapState on a resident map cell: one stored entry per map entry; the TTL rules are TtlMapState's. */
export class RocksMapState<K, V> extends TtlMapState<K, V, MapEntry, MapCell> {
  constructor(private readonly host: RocksStore, protected override readonly table: Table) {
    super(table)
  }

  clear(): void {
    const c = this.current()
    if (this.table.lastMap === c.m) this.table.lastMap = null
    if (c.m.size === 0 && c.removed.length === 0 && !c.stored) return
    this.host.liveEntries -= c.m.size
    c.m = new Map()
    c.removed = []
    c.changed = []
    c.cleared = true
    this.host.markDirty(c)
  }

  protected current(): MapCell {
    return residentCell(this.host, this.table, this.ns) as MapCell
  }

  protected entriesOf(c: MapCell): Map<unknown, MapEntry> {
    return c.m
  }

  protected now(): number {
    return this.host.ttlNow
  }

  /** Writes one entry: the next flush puts only it. */
  protected insert(c: MapCell, m: Map<unknown, MapEntry>, key: K, value: V, mk: unknown, now: number): MapEntry {
    this.host.changes++
    const created = new MapEntry(key, value, now, mk)
    m.set(mk, created)
    this.host.liveEntries++
    // Held until written, at the size its table's entries last measured (as a list's element is).
    const bytes = this.table.elementBytes
    created.size = bytes
    this.host.heldBytes += bytes
    this.host.setCellSize(c, c.size + bytes)
    this.changed(c, created)
    return created
  }

  protected written(c: MapCell, e: MapEntry): void {
    this.host.changes++
    this.changed(c, e)
  }

  protected refreshed(c: MapCell, e: MapEntry): void {
    this.changed(c, e)
  }

  protected drop(c: MapCell, m: Map<unknown, MapEntry>, mk: unknown, e: MapEntry): void {
    m.delete(mk)
    this.host.liveEntries--
    if (!e.onDisk && e.size > 0) {
      // Held and never written: it counts no more.
      this.host.setCellSize(c, c.size - e.size)
      e.size = 0
    }
    if (e.onDisk) {
      c.removed.push(e)
      this.host.markDirty(c)
    }
  }

  private changed(c: MapCell, e: MapEntry): void {
    if (!e.queued) {
      e.queued = true
      c.changed.push(e)
    }
    if (!c.dirty) this.host.markDirty(c)
  }
}

/** Replaces `c`'s EncodedRows items by their rows; a read that had segments to decode makes the list keep rows from then on. */
function decodeItems(c: ListCell): void {
  const items = c.items
  for (let i = 0; i < items.length; i++) {
    const x = items[i]
    if (!(x instanceof EncodedRows)) continue
    if (x.first !== null) {
      c.keepsRows = true
      c.slot.table.decodedElements++
    }
    items[i] = decodeRows(x)
    // Its rows are the list's now; a later encode of it must find none.
    x.pending = null
  }
  c.encoded = false
}
