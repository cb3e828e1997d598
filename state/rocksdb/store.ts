// What every part of the RocksDB backend shares: the database and its state tables, the write-back
// cache's accounting (slots and cells, their estimated bytes, the dirty list, the eviction queue)
// and the first failure, after which nothing may continue. Prefetch (prefetch.ts), write-back
// (write-back.ts), the TTL sweep (ttl-sweep.ts) and key-group transfer (key-group-transfer.ts) work on it.
import type RocksDB from 'rocksdb-native'
import { WeirError } from '../../common/errors.js'
import type { KeyRef, Namespace } from '../../core/keyed-state.js'
import { type CacheHost, type Cell, ListCell, MapCell, Slot, type Table, ValueCell, ValueSlot } from './cache.js'
import { namespaceBytes } from './codec.js'
import type { KeyBloom } from './key-bloom.js'
import { StateTables } from './tables.js'
import type { EncodedRows } from './value-codec.js'

export interface StoreOptions {
  readonly dir: string
  readonly maxParallelism: number
  readonly keyGroupRange: { readonly start: number; readonly end: number }
  readonly cacheBytes: number
  readonly writeBufferBytes: number
  readonly bloom: KeyBloom | null
}

export class RocksStore implements CacheHost {
  readonly dir: string
  readonly maxParallelism: number
  readonly keyGroupRange: { readonly start: number; readonly end: number }
  readonly cacheBytes: number
  /** The memtable size the database opened with. */
  readonly writeBufferBytes: number
  readonly tables = new StateTables()
  currentKey: KeyRef | undefined = undefined
  ttlNow: number = Date.now()
  /** Approximate live entries: +1 on create, −1 on delete; countEntries() recomputes it. */
  liveEntries = 0
  changes = 0
  heldBytes = 0
  /** List elements that took rows this bundle, encoded at its end (encoded-rows.ts). */
  waiting: EncodedRows[] = []
  /** Key and value bytes written (puts, and deletes of the sweep are counted apart). */
  bytesWritten = 0
  /** Cells changed since the last write batch. */
  dirty: Cell[] = []
  /**
   * (key, namespace) prefixes of lists dropped without a cache entry (blind-clear.ts, dropList): the
   * next write batch range-deletes each before its puts.
   */
  droppedPrefixes: Buffer[] = []
  /** Bundle counter: slots asked for in this epoch are the most recently used. */
  epoch = 1
  cacheUsed = 0
  /** Eviction queue (second chance by epoch); slots are queued when created and re-queued when found touched. */
  lru: (Slot | undefined)[] = []
  lruHead = 0
  /**
   * Slots eviction found dirty or in the batch in flight, out of the queue until a write or the end
   * of that batch can have changed that (then queued again, at the back). Pushed back into the queue
   * instead, each was looked at again by every eviction until then, twice: Nexmark q18-rocksdb at
   * 0.5 looked at 0.8–1.3M slots to evict 171K, 0.6–1.1M of them slots it could not evict.
   */
  private parked: Slot[] = []
  /** The batch in flight and the epoch that wrote it when the parked slots were parked. */
  private parkedWhile: Promise<void> | null = null
  private parkedEpoch = 0
  /** The write batch of the last flush while RocksDB applies it (it never rejects: failures go to `failure`). */
  inflight: Promise<void> | null = null
  /** The epoch that wrote the batch in flight: its slots stay resident until it is applied. */
  inflightEpoch = 0
  /**
   * Every stored key this backend has written, when it started from an empty folder: a ValueState
   * entry the filter has never seen is absent without a read. Null for a kept or restored database.
   */
  bloom: KeyBloom | null
  /**
   * Every stored list element was written by this backend, in this run (not kept, restored or copied
   * in): a list without TTL then holds sequence numbers 0..n-1 with no gap (add counts up from 0, and
   * clear and update delete the whole list), so its first elements can be read by point gets
   * (prefetch.ts, SHORT_LIST). Cleared for good by anything that brings entries in.
   */
  get denseLists(): boolean {
    return this.bloom !== null && !this.imported
  }
  /** Entries came in from key-group files or another database (key-group-transfer.ts). */
  imported = false
  failure: WeirError | null = null
  closed = false

  constructor(readonly db: RocksDB, options: StoreOptions) {
    this.dir = options.dir
    this.maxParallelism = options.maxParallelism
    this.keyGroupRange = options.keyGroupRange
    this.cacheBytes = options.cacheBytes
    this.writeBufferBytes = options.writeBufferBytes
    this.bloom = options.bloom
  }

  checkUsable(): void {
    if (this.failure !== null) throw this.failure
    if (this.closed) throw WeirError.internal(`RocksDB state in '${this.dir}' used after close`)
  }

  outOfRange(key: KeyRef): never {
    throw WeirError.internal(`key group ${key.group} is outside this subtask's range [${this.keyGroupRange.start}, ${this.keyGroupRange.end}]`)
  }

  // ------------------------------------------------------------------ CacheHost

  markDirty(cell: Cell): void {
    if (cell.dirty) return
    cell.dirty = true
    cell.slot.dirtyCells++
    this.dirty.push(cell)
  }

  absentCell(slot: Slot, ns: Namespace): Cell {
    return this.newCell(slot, ns)
  }

  // ------------------------------------------------------------------ slots and cells

  newSlot(table: Table, key: KeyRef, h: number): Slot {
    // A value state's slot holds the value of namespace '' itself (cache.ts, ValueSlot).
    const slot = table.kind === 'value' ? new ValueSlot(table, key.encoded, key.group, this.epoch) : new Slot(table, key.encoded, key.group, this.epoch)
    table.slots.set(slot, h)
    this.cacheUsed += slot.bytes
    this.lru.push(slot)
    return slot
  }

  newCell(slot: Slot, ns: Namespace): Cell {
    if (ns === '' && slot instanceof ValueSlot) {
      slot.reset()
      slot.set(ns, slot)
      this.resize(slot, slot.size)
      return slot
    }
    const keyLength = slot.prefixLength + namespaceBytes(ns).length
    const kind = slot.table.kind
    const cell = kind === 'value' ? new ValueCell(slot, ns, keyLength) : kind === 'list' ? new ListCell(slot, ns, keyLength) : new MapCell(slot, ns, keyLength)
    cell.size += cell.keyLength
    slot.set(ns, cell)
    this.resize(slot, cell.size)
    return cell
  }

  dropCell(cell: Cell): void {
    const slot = cell.slot
    if (slot.get(cell.ns) !== cell) return
    slot.delete(cell.ns)
    this.resize(slot, -cell.size)
  }

  setCellSize(cell: Cell, size: number): void {
    this.resize(cell.slot, size - cell.size)
    cell.size = size
  }

  private resize(slot: Slot, delta: number): void {
    slot.bytes += delta
    if (!slot.evicted) this.cacheUsed += delta
  }

  // ------------------------------------------------------------------ eviction

  /** Evicts clean slots, least recently asked for first, until the cache is within its budget (or nothing more may go). */
  evict(): void {
    if (this.cacheUsed > this.cacheBytes) {
      if (this.parked.length > 0 && (this.inflight !== this.parkedWhile || this.inflightEpoch !== this.parkedEpoch)) this.unpark()
      this.parkedWhile = this.inflight
      this.parkedEpoch = this.inflightEpoch
      const q = this.lru
      let head = this.lruHead
      let end = q.length
      let pass = 0
      let evicted = false
      while (this.cacheUsed > this.cacheBytes) {
        if (head >= end) {
          // Second pass: what the first one gave a second chance, now in order.
          if (++pass === 2 || head >= q.length) break
          end = q.length
        }
        const slot = q[head]!
        q[head++] = undefined
        if (slot.evicted) continue
        if (slot.dirtyCells > 0 || (this.inflight !== null && slot.written === this.inflightEpoch)) {
          // Its data is not on disk yet (dirty, or in the batch RocksDB is applying).
          this.parked.push(slot)
          continue
        }
        if (slot.epoch !== slot.queuedEpoch) {
          // Asked for since it was queued: a second chance, behind everything older.
          slot.queuedEpoch = slot.epoch
          q.push(slot)
          continue
        }
        if (slot.epoch === this.epoch) {
          // Asked for since the last flush: the batch it was prefetched for may not have run yet
          // (a runtime may prefetch batch N+1 before it flushes batch N). The next flush may evict it.
          q.push(slot)
          continue
        }
        this.evictSlot(slot)
        evicted = true
      }
      this.lruHead = head
      if (evicted) { for (const table of this.tables.list) table.invalidate() }
    }
    if (this.lruHead > 1024 && this.lruHead * 2 > this.lru.length) {
      this.lru = this.lru.slice(this.lruHead)
      this.lruHead = 0
    }
  }

  /** The parked slots back into the eviction queue. */
  private unpark(): void {
    const q = this.lru
    for (const slot of this.parked) q.push(slot)
    this.parked = []
  }

  /**
   * At close: lets go of every slot and what is queued of them at once, so that a backend still
   * referenced (a finished job's) holds no cache. Unlike dropCache, slot by slot, it marks no slot
   * evicted: that took q18-rocksdb's close 9–24 ms over its ~0.5M slots, in the job's end.
   */
  forgetCache(): void {
    for (const table of this.tables.list) {
      table.slots.clear()
      table.invalidate()
    }
    this.dirty = []
    this.emptied()
  }

  /** Drops clean slots matching `which` (callers flush first). */
  dropCache(which: (slot: Slot) => boolean): void {
    for (const table of this.tables.list) {
      for (const slot of table.slots.values()) if (which(slot)) this.evictSlot(slot)
      table.invalidate()
    }
    if (this.cacheUsed <= 0 || this.tables.list.every(t => t.slots.size === 0)) this.emptied()
  }

  /** With no slot left: the eviction queue, the parked slots and the budget's count start again. */
  private emptied(): void {
    this.lru = []
    this.lruHead = 0
    this.parked = []
    this.cacheUsed = 0
  }

  private evictSlot(slot: Slot): void {
    // A slot that is not evicted is the one its table maps its key to (newSlot never replaces one).
    slot.table.slots.delete(slot)
    this.cacheUsed -= slot.bytes
    slot.evicted = true
  }
}
