// The ValueState / ListState / MapState handles of the RocksDB backend: synchronous calls against
// resident cells, with the heap backend's semantics (TTL included); every change marks its cell
// dirty for the next flush.
import type { ListState, MapState, Namespace, ValueState } from '../../core/keyed-state.js'
import {
  ABSENT, type CacheHost, type Cell, type ListCell, type MapCell, MapEntry, mapKeyOf, notResident, type Table, type ValueCell,
} from './cache.js'

/** What the three handles share: finding the current key's cell, which must be resident. */
abstract class RocksState<C extends Cell> {
  protected ns: Namespace = ''

  constructor(protected readonly host: CacheHost, protected readonly table: Table) {}

  setNamespace(ns: Namespace): void {
    this.ns = ns
  }

  protected cell(): C {
    const key = this.host.currentKey
    const table = this.table
    let slot = table.cachedSlot
    if (key !== table.cachedKey || key === undefined) {
      if (key === undefined) return notResident(table, key, this.ns)
      slot = table.slots.get(key.encoded)
      table.cachedKey = key
      table.cachedSlot = slot
    }
    if (slot === undefined) return notResident(table, key, this.ns)
    const ns = this.ns
    let cell = ns === '' ? slot.d : slot.ns === null ? undefined : slot.ns.get(ns)
    if (cell === undefined) {
      if (!slot.allNs) return notResident(table, key, ns)
      cell = this.host.absentCell(slot, ns)
    } else if (cell.loading) {
      return notResident(table, key, ns)
    }
    return cell as C
  }
}

/** ValueState on a resident value cell. */
export class RocksValueState<T> extends RocksState<ValueCell> implements ValueState<T> {
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
    if (value === undefined) { this.clear(); return }
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
  /** The resident array itself (do not modify it); expired elements are dropped first. */
  get(): readonly T[] {
    const c = this.cell()
    const table = this.table
    if (table.ttlMs === 0 || c.items.length === 0) return c.items as T[]
    const now = this.host.ttlNow
    let expired = 0
    for (const t of c.times) if (t + table.ttlMs <= now) expired++
    if (expired > 0) {
      const items: unknown[] = [], times: number[] = [], seqs: number[] = []
      let flushed = 0
      for (let i = 0; i < c.items.length; i++) {
        if (c.times[i]! + table.ttlMs <= now) {
          if (i < c.flushed) c.dropped.push(c.seqs[i]!)
          continue
        }
        if (i < c.flushed) flushed++
        items.push(c.items[i]); times.push(c.times[i]!); seqs.push(c.seqs[i]!)
      }
      c.items = items; c.times = times; c.seqs = seqs; c.flushed = flushed
      if (items.length === 0) this.host.liveEntries--
      this.host.markDirty(c)
    }
    if (table.refreshOnRead && c.items.length > 0) {
      c.times.fill(now)
      c.rewrite = true
      this.host.markDirty(c)
    }
    return c.items as T[]
  }

  /** Appends one element: the next flush writes only it. */
  add(value: T): void {
    const c = this.cell()
    if (c.items.length === 0) this.host.liveEntries++
    this.host.changes++
    c.items.push(value)
    c.times.push(this.host.ttlNow)
    c.seqs.push(c.nextSeq++)
    if (!c.dirty) this.host.markDirty(c)
  }

  /** Replaces the list: the next flush deletes its range and writes every element. */
  update(values: readonly T[]): void {
    if (values.length === 0) { this.clear(); return }
    const c = this.cell()
    if (c.items.length === 0) this.host.liveEntries++
    this.host.changes += values.length
    const now = this.host.ttlNow
    c.items = values.slice()
    c.times = values.map(() => now)
    c.seqs = values.map((_, i) => i)
    c.nextSeq = values.length
    c.flushed = 0
    c.replaced = true
    c.rewrite = false
    c.dropped = []
    this.host.markDirty(c)
  }

  clear(): void {
    const c = this.cell()
    if (c.items.length === 0 && c.flushed === 0 && c.dropped.length === 0 && !c.replaced) return
    if (c.items.length > 0) this.host.liveEntries--
    c.items = []
    c.times = []
    c.seqs = []
    c.nextSeq = 0
    c.flushed = 0
    c.replaced = true
    c.rewrite = false
    c.dropped = []
    this.host.markDirty(c)
  }
}

/** MapState on a resident map cell: one stored entry per map entry. */
export class RocksMapState<K, V> extends RocksState<MapCell> implements MapState<K, V> {
  get(key: K): V | undefined {
    const e = this.entry(key)
    return e === undefined ? undefined : (e.v as V)
  }

  /** Writes one entry: the next flush puts only it. */
  put(key: K, value: V): void {
    const now = this.host.ttlNow
    const c = this.cell()
    const m = c.m
    const mk = mapKeyOf(key)
    const table = this.table
    this.host.changes++
    // Every path that takes an entry out of its Map resets lastMap, so the cached entry is live.
    const e = table.lastMap === m && table.lastMk === mk && table.lastEntry !== undefined ? table.lastEntry : m.get(mk)
    if (e !== undefined) {
      e.v = value
      e.t = now
      this.changed(c, e)
    } else {
      const created = new MapEntry(key, value, now, mk)
      m.set(mk, created)
      this.host.liveEntries++
      this.changed(c, created)
      table.lastMap = m
      table.lastMk = mk
      table.lastEntry = created
    }
  }

  remove(key: K): void {
    const c = this.cell()
    if (this.table.lastMap === c.m) this.table.lastMap = null
    const mk = mapKeyOf(key)
    const e = c.m.get(mk)
    if (e === undefined) return
    this.drop(c, e)
  }

  contains(key: K): boolean {
    return this.entry(key) !== undefined
  }

  *entries(): IterableIterator<[K, V]> {
    const c = this.cell()
    const table = this.table
    const now = this.host.ttlNow
    for (const e of c.m.values()) {
      if (table.expired(e.t, now)) continue
      if (table.refreshOnRead && e.t !== now) { e.t = now; this.changed(c, e) }
      yield [e.k as K, e.v as V]
    }
  }

  *keys(): IterableIterator<K> {
    for (const [k] of this.entries()) yield k
  }

  isEmpty(): boolean {
    return this.size() === 0
  }

  size(): number {
    const c = this.cell()
    if (this.table.ttlMs === 0) return c.m.size
    const now = this.host.ttlNow
    let n = 0
    for (const e of c.m.values()) if (!this.table.expired(e.t, now)) n++
    return n
  }

  clear(): void {
    const c = this.cell()
    if (this.table.lastMap === c.m) this.table.lastMap = null
    if (c.m.size === 0 && c.removed.length === 0 && !c.stored) return
    this.host.liveEntries -= c.m.size
    c.m = new Map()
    c.removed = []
    c.changed = []
    c.cleared = true
    this.host.markDirty(c)
  }

  private entry(key: K): MapEntry | undefined {
    const c = this.cell()
    const m = c.m
    const mk = mapKeyOf(key)
    const e = m.get(mk)
    const table = this.table
    table.lastMap = m
    table.lastMk = mk
    table.lastEntry = e
    if (e === undefined || table.ttlMs === 0) return e
    const now = this.host.ttlNow
    if (e.t + table.ttlMs <= now) {
      table.lastMap = null
      this.drop(c, e)
      return undefined
    }
    if (table.refreshOnRead && e.t !== now) { e.t = now; this.changed(c, e) }
    return e
  }

  private drop(c: MapCell, e: MapEntry): void {
    c.m.delete(e.mk)
    this.host.liveEntries--
    if (e.onDisk) {
      c.removed.push(e)
      this.host.markDirty(c)
    }
  }

  private changed(c: MapCell, e: MapEntry): void {
    if (!e.queued) { e.queued = true; c.changed.push(e) }
    if (!c.dirty) this.host.markDirty(c)
  }
}
