// Write-back, the write half of the RocksDB backend's bundles: what state calls changed goes to
// disk in one write batch at a bundle's end (or, deferred, once enough is held), applied while the
// next bundle runs; then clean slots are evicted down to the cache's budget.
import type { Cell, ListCell, MapCell, MapEntry, Table } from './cache.js'
import { ABSENT, CELL_OVERHEAD, ENTRY_OVERHEAD, keyScratch, NO_SEQS, scratchKey, seqAt, timesOf } from './cache.js'
import { encodeEntryInPlace, encodeUserKey, entryScratch, listElementKey, mapEntryKey, prefixEnd, stringEntryKey, stringEntryKeyLength, userKeyNeedsCopy,
  writeMapEntryKey, writeSeq, writeStringEntryKey } from './codec.js'
import { encodeWaiting, rowsEntry } from './encoded-rows.js'
import { ioFailed } from './folder.js'
import { type NativeWriteBatch, REUSED_OPS } from './native-batch.js'
import type { RocksStore } from './store.js'
import { EncodedRows } from './value-codec.js'

/**
 * Deferred write-back holds at most this many dirty cells (see makeRoom): as many as a 64 MB cache
 * holds changes, so that state that lives and goes within the budget (a window's keys, cleared when
 * it fires) is never written. At 12,288, Nexmark q8-rocksdb (a window's ~80K cells) wrote and
 * then deleted nearly all of them: 2.78–3.30 process CPU-µs/event against 2.06–2.13 at this bound,
 * peak RSS 333–344 MB against 253–256. The write batch reuses the operations of this many
 * (REUSED_OPS), so a full batch allocates none per entry.
 */
const HELD_CELLS = REUSED_OPS

/**
 * Deferred write-back holds list elements and new map entries up to this share of the cache's
 * budget (heldBytes): a change can be a whole batch's rows under one key (a join side's element,
 * ~1.2 KB in Nexmark q20), and 131,072 of them staged ~150 MB for one write batch (peak RSS ~1.2 GB
 * at a 64 MB cache).
 * It is what makes Nexmark q7-rocksdb write (scale 0.5: all 8 writes, ~40K bid buckets each, the
 * cache ~60 MB full), but raising it saves little: at 1/2 or with no share (held elements count in
 * cacheUsed already) the changes bound and then the budget itself force 3 writes of 274K buckets
 * instead of 318K (q7 keeps all its bids until the end, ~540 estimated bytes a price bucket, several
 * times the budget at scale 1), 9.27 against 9.34 CPU-µs/event (4 alternating pairs, load ~4).
 */
const HELD_BYTES_SHARE = 1 / 8
/** …and at least this much (as held changes are at least 1,024): a small cache writes no more often for it. */
const MIN_HELD_BYTES = 1 << 20

/** Where a list element's or map entry's stored key is built before the batch copies it (grows). */
let entryKeyBuf = Buffer.allocUnsafe(1024)

function entryKeyRoom(n: number): Buffer {
  if (entryKeyBuf.length < n) entryKeyBuf = Buffer.allocUnsafe(n * 2)
  return entryKeyBuf
}

export class WriteBack {
  /** Keys of the write being built that go into the written-keys filter once it is (located in the filter's batch). */
  private bloomAdds = 0
  /**
   * Per list or map table, in the write being built: bytes held for its appended elements or new
   * entries, what they measure written, and its elementBytes before.
   */
  private readonly measured = new Map<Table, { held: number; written: number; per: number }>()
  /**
   * A write measured some list's elements or map's entries (measureElements). Until then they count
   * at a guess (cache.ts, Table.elementBytes), and a write comes once MIN_HELD_BYTES are held.
   */
  private elementsMeasured = false

  /**
   * @param writer the bundles' write batch, reused (one is in flight at most, and the next waits for it)
   * @param maxHeldChanges deferred write-back: the changes held before a flush writes them anyway (0: every flush writes)
   */
  constructor(private readonly store: RocksStore, private readonly writer: NativeWriteBatch, private readonly maxHeldChanges: number) {
    this.maxHeldBytes = Math.max(MIN_HELD_BYTES, store.cacheBytes * HELD_BYTES_SHARE)
  }

  /** Deferred write-back: the list bytes held before a flush writes them anyway. */
  private readonly maxHeldBytes: number

  /**
   * Writes every dirty entry in one write batch (with writeBack 'deferred', only once enough is
   * held), then evicts clean slots, least recently asked for first, until the cache is within its
   * budget. Write-behind: the batch is handed to RocksDB and applied while the next bundle runs (one
   * batch in flight at most; the next flush waits for it, and its slots stay resident until then,
   * unless they take the cache more than 1/16 over its budget: then this flush waits for it).
   * A failed write surfaces at the next call. Cheap when nothing is dirty.
   */
  async flush(): Promise<void> {
    const store = this.store
    this.encodeWaiting()
    if (
      this.maxHeldChanges > 0 && store.changes <= this.maxHeldChanges &&
      store.heldBytes <= (this.elementsMeasured ? this.maxHeldBytes : MIN_HELD_BYTES) && store.dirty.length < HELD_CELLS &&
      (await this.makeRoom())
    ) {
      this.store.epoch++
      return
    }
    await this.write()
  }

  /**
   * Deferred write-back: evicts clean slots and says whether that keeps the cache within budget, so
   * the changes can be held. Slots of a batch being applied cannot go before it is: the cache may run
   * over by 1/16 of its budget meanwhile, and beyond that this waits for the batch and evicts them.
   * Otherwise each bundle after a write would write its own few changes (count-10M wrote 96% of its
   * entries in batches of at most 1,024 that way). Held dirty cells stop at HELD_CELLS (see there):
   * operations of a batch past the ones a write batch reuses are allocated, and live until RocksDB
   * has applied them.
   * Measured over 3M random puts, process CPU-s by batch size: 1,024: 7.9; 8,192: 6.9; 32,768:
   * 7.0; 131,072: 9.6. count-10M over 5M events with batches of up to 131,072 entries: peak RSS 860
   * MB against 640.
   */
  private async makeRoom(): Promise<boolean> {
    this.store.checkUsable()
    this.store.evict()
    if (this.store.cacheUsed <= this.store.cacheBytes) return true
    if (this.store.inflight === null) return false
    await this.evictPastSlack()
    // Still in flight: within the slack. Applied: its slots could go.
    return this.store.inflight !== null || this.store.cacheUsed <= this.store.cacheBytes
  }

  /**
   * Slots of the batch being applied cannot be evicted before it is: once they take the cache more
   * than 1/16 over its budget, waits for the batch and evicts them.
   */
  private async evictPastSlack(): Promise<void> {
    if (this.store.inflight === null || this.store.cacheUsed <= this.store.cacheBytes + this.store.cacheBytes / 16) return
    await this.settle()
    this.store.evict()
  }

  /** Writes every dirty entry (whatever the write-back mode), waits until RocksDB applied it, and evicts down to the budget. */
  async sync(): Promise<void> {
    await this.write()
    await this.settle()
    this.store.evict()
  }

  /** Waits for the write batch in flight; after it the disk holds everything but what is dirty. */
  async settle(): Promise<void> {
    if (this.store.inflight !== null) {
      await this.store.inflight
      this.store.inflight = null
    }
    this.store.checkUsable()
  }

  /** Lists appended to blind whose encoded elements the write batch in flight puts (trimmed once it is applied). */
  private trimNext: ListCell[] = []

  /**
   * The write batch before this one is applied: the elements it put of the lists in trimNext are on
   * disk, and those still encoded (no read wanted them) are let go. Each list keeps what came after
   * them, as a tail (cache.ts, ListCell.tail): its own batches append blind, and a read of it reads
   * its head back first. A join's side that nothing reads (Nexmark q20's bids) then holds none of its
   * rows in the cache once written.
   */
  private trim(): void {
    const cells = this.trimNext
    this.trimNext = []
    for (const cell of cells) {
      // Gone, or cleared or rewritten (its next write puts it again): as it is.
      if (cell.slot.evicted || cell.replaced || cell.rewrite) continue
      // Being read, or asked for by a batch that may not have run yet: at the next write.
      if (cell.headRead || cell.loading || cell.readEpoch === this.store.epoch) {
        this.trimNext.push(cell)
        continue
      }
      const items = cell.items
      let k = 0, freed = 0
      while (k < cell.flushed) {
        const x = items[k]
        if (!(x instanceof EncodedRows) || x.written === 0) break
        freed += ENTRY_OVERHEAD + x.written
        k++
      }
      if (k === 0) continue
      cell.items = items.slice(k)
      if (cell.seqs !== null) cell.seqs = cell.seqs.slice(k)
      cell.flushed -= k
      cell.tail = true
      cell.stored = true
      this.store.setCellSize(cell, Math.max(cell.size - freed, CELL_OVERHEAD + cell.keyLength))
    }
  }

  /** The bundle's chunks of rows, encoded now that every one has come (encoded-rows.ts). */
  private encodeWaiting(): void {
    const waiting = this.store.waiting
    if (waiting.length === 0) return
    // A new array, not emptied in place: a long-lived one would be allocated old, and hold the
    // bundle's rows past their death until a full collection.
    this.store.waiting = []
    encodeWaiting(waiting)
  }

  /** Issues one write batch of the dirty cells (whatever the write-back mode), then evicts. */
  private async write(): Promise<void> {
    this.store.checkUsable()
    this.encodeWaiting()
    if (this.store.dirty.length > 0 || this.store.tables.pendingMeta.length > 0 || this.store.droppedPrefixes.length > 0) {
      // One write batch in flight at most, so batches apply in order.
      await this.settle()
      if (this.trimNext.length > 0) this.trim()
      const cells = this.store.dirty
      this.store.changes = 0
      this.store.heldBytes = 0
      this.store.dirty = []
      const w = this.writer
      let bytes = 0
      try {
        for (const [k, v] of this.store.tables.pendingMeta) {
          w.put(k, v)
          bytes += k.length + v.length
        }
        this.store.tables.pendingMeta = []
        // With every element numbered below it (ListCell.tail), so a checkpoint of this batch carries it.
        this.store.tables.putListSeq(w)
        // Dropped lists first: a later list of the same prefix (none is expected) keeps its puts.
        const dropped = this.store.droppedPrefixes
        this.store.droppedPrefixes = []
        for (const prefix of dropped) {
          w.deleteRange(prefix, prefixEnd(prefix))
          bytes += prefix.length * 2
        }
        this.bloomAdds = 0
        for (const c of cells) {
          if (c.kind === 'list' && c.held > 0 && !c.replaced && c.dropped.length === 0) bytes += this.writeAppended(w, c)
          else bytes += this.writeCell(w, c)
        }
        this.measureElements()
        // In one go, before anything can prefetch these keys: their filter blocks are memory misses
        // that overlap this way (see KeyBloom.testBatch).
        if (this.bloomAdds > 0) this.store.bloom!.addBatch(this.bloomAdds)
      } catch (e) {
        // The cache now says more than the disk: nothing can continue from here.
        this.store.failure = ioFailed(this.store.dir, e, 'writing')
        throw this.store.failure
      }
      this.store.bytesWritten += bytes
      this.store.inflightEpoch = this.store.epoch
      const applied: Promise<void> = w.apply().then(
        () => {
          if (this.store.inflight === applied) this.store.inflight = null
        },
        (e: unknown) => {
          this.store.failure ??= ioFailed(this.store.dir, e, 'writing')
          if (this.store.inflight === applied) this.store.inflight = null
        },
      )
      this.store.inflight = applied
    }
    this.store.evict()
    await this.evictPastSlack()
    this.store.epoch++
  }

  /**
   * writeCell for a list whose held elements were only appended, noting what they measure written
   * against what they were held at (the table's elementBytes, which only a write changes).
   */
  private writeAppended(w: NativeWriteBatch, cell: ListCell): number {
    // Before writeCell, which sets elementBytes.
    const m = this.measuredOf(cell.slot.table)
    m.held += cell.held
    const before = cell.size - cell.held
    const bytes = this.writeCell(w, cell)
    m.written += cell.size - before
    return bytes
  }

  /** What `table`'s held elements or entries measure in the write being built. */
  private measuredOf(table: Table): { held: number; written: number; per: number } {
    let m = this.measured.get(table)
    if (m === undefined) this.measured.set(table, m = { held: 0, written: 0, per: table.elementBytes })
    return m
  }

  /**
   * A list's elementBytes, from the write batch just built: the bytes its appended elements measure
   * per add or addChunk held at that size; a map's, what its new entries measure. writeCell's own
   * (the last list's mean per element) is not that for a join side, whose element takes the rows of
   * every addChunk until written: Nexmark q20-rocksdb (scale 0.5) held its bids at 136–270 bytes a
   * call, measured 1,190, so deferred write-back held 5 times what it meant to (34–65 MB a batch,
   * the cache 20–30 MB over its budget, and the next flush waited for the batch in flight). A map's
   * new entries counted nothing until written: q19-rocksdb's Top-N rows were written in one batch of
   * 71.5 MB at 131,072 changes, the cache 31 MB over its budget, the next flush waiting 311–588 ms.
   */
  private measureElements(): void {
    for (const [table, m] of this.measured) {
      if (m.written > 0) table.elementBytes = Math.max(ENTRY_OVERHEAD, Math.ceil(m.written * m.per / m.held))
      this.elementsMeasured = true
    }
    this.measured.clear()
  }

  /** Adds a dirty cell's puts and deletes to `w`; returns the bytes written. */
  private writeCell(w: NativeWriteBatch, cell: Cell): number {
    cell.dirty = false
    cell.slot.dirtyCells--
    cell.slot.written = this.store.epoch
    const table = cell.slot.table
    const ttl = table.ttlMs > 0
    let bytes = 0
    switch (cell.kind) {
      case 'value': {
        if (cell.v !== ABSENT && ttl && table.expired(cell.t, this.store.ttlNow)) {
          // Expired while the cache held it (deferred write-back): it is never returned again, so it
          // is not written, and a stored older value goes.
          cell.v = ABSENT
          this.store.liveEntries--
        }
        if (cell.v === ABSENT) {
          if (cell.onDisk) {
            w.delete(cell.key)
            bytes += cell.keyLength
            cell.onDisk = false
          }
          this.store.setCellSize(cell, CELL_OVERHEAD + cell.keyLength)
        } else {
          // Key and value are built in scratch buffers and copied into the batch.
          const kn = scratchKey(cell)
          const vn = encodeEntryInPlace(ttl ? cell.t : null, cell.v)
          w.putBytes(keyScratch(), kn, entryScratch(), vn)
          // A key the database holds is in the filter already (every stored key went through here or bulkPut).
          if (!cell.onDisk && this.store.bloom !== null) this.store.bloom.locateBatch(this.bloomAdds++, keyScratch(), kn)
          cell.onDisk = true
          bytes += kn + vn
          this.store.setCellSize(cell, CELL_OVERHEAD + kn + vn)
        }
        return bytes
      }
      case 'list': {
        // A list cell keeps no stored key of its own (cache.ts, CellBase.key): a range delete or point
        // deletes (rare) take it as a Buffer, built here; the puts build it in the key scratch below.
        let key: Buffer | null = null
        // What its held elements counted for is replaced by what they measure now.
        let size = cell.size - cell.held
        cell.held = 0
        let from = cell.flushed
        if (cell.replaced && !cell.stored) {
          // Nothing of it on disk: no range to delete.
          size = CELL_OVERHEAD + cell.keyLength
          from = 0
        } else if (cell.replaced) {
          key = cell.key
          w.deleteRange(key, prefixEnd(key))
          bytes += cell.keyLength * 2
          size = CELL_OVERHEAD + cell.keyLength
          from = 0
        } else {
          if (cell.dropped.length > 0) {
            const per = (size - CELL_OVERHEAD - cell.keyLength) / (cell.items.length + cell.dropped.length)
            key ??= cell.key
            for (const seq of cell.dropped) {
              const k = listElementKey(key, seq)
              w.delete(k)
              bytes += k.length
              size -= per
            }
          }
          if (cell.rewrite) from = 0
        }
        // The list's key is written once into the key scratch, each element's sequence number after
        // it, and copied, the value encoded, into bytes the batch holds (no Buffer per written list).
        if (from < cell.items.length) {
          const kn = scratchKey(cell, 8)
          const kb = keyScratch()
          this.addPrefix(cell, kb, kn)
          const times = ttl ? timesOf(cell, this.store.ttlNow) : null
          let values = 0
          let trimmed: ListCell | null = null
          for (let i = from; i < cell.items.length; i++) {
            const en = writeSeq(kb, kn, seqAt(cell, i))
            const item = cell.items[i]
            let vn: number
            if (item instanceof EncodedRows && table.appendedBlind && times === null) {
              // Let go once this batch is applied (trim): its bytes, in slabs, are held till then.
              vn = w.putHeldEntry(kb, en, null, item)
              item.written = vn
              if (trimmed !== cell) this.trimNext.push(trimmed = cell)
            } else if (item instanceof EncodedRows) {
              // Kept: in a buffer of its own, held by the batch and by the cell (no slab stays held for it).
              const kept = rowsEntry(times === null ? null : times[i]!, item)
              const entry = kept.first!.bytes
              w.putEntry(kb, en, entry)
              cell.items[i] = kept
              vn = entry.length
            } else {
              vn = w.putHeldEntry(kb, en, times === null ? null : times[i]!, item)
            }
            bytes += en + vn
            values += vn
            if (i >= cell.flushed || cell.replaced) size += ENTRY_OVERHEAD + vn
          }
          table.elementBytes = ENTRY_OVERHEAD + Math.ceil(values / (cell.items.length - from))
        }
        cell.replaced = false
        cell.rewrite = false
        cell.dropped = NO_SEQS
        cell.flushed = cell.items.length
        // Every stored element was known and deleted, or the range went: the disk holds none of it now.
        if (cell.items.length === 0) cell.stored = false
        this.store.setCellSize(cell, Math.max(size, CELL_OVERHEAD + cell.keyLength))
        return bytes
      }
      case 'map': {
        const key = cell.key
        let size = cell.size
        if (cell.cleared) {
          // The range delete goes first: the puts after it in the same batch survive it.
          w.deleteRange(key, prefixEnd(key))
          bytes += cell.keyLength * 2
          size = CELL_OVERHEAD + cell.keyLength
          cell.cleared = false
          cell.stored = false
        }
        for (const e of cell.removed) {
          if (!e.onDisk) continue
          const kb = this.entryKey(key, e)
          w.delete(kb)
          bytes += kb.length
          size -= e.size
          e.onDisk = false
        }
        cell.removed = []
        for (const e of cell.changed) {
          e.queued = false
          if (cell.m.get(e.mk) !== e) continue
          this.addPrefix(cell, key, key.length)
          const kn = this.writeEntryKey(key, e)
          const vn = w.putHeldEntry(entryKeyBuf, kn, ttl ? e.t : null, e.v, userKeyNeedsCopy(e.k) ? e : undefined)
          bytes += kn + vn
          const s = ENTRY_OVERHEAD + kn + vn
          if (!e.onDisk && e.size > 0) {
            const m = this.measuredOf(table)
            m.held += e.size
            m.written += s
          }
          size += s - e.size
          e.size = s
          e.onDisk = true
        }
        cell.changed = []
        this.store.setCellSize(cell, Math.max(size, CELL_OVERHEAD + cell.keyLength))
        return bytes
      }
    }
  }

  /**
   * Before the first put of a list or map that the database holds nothing of: its (key, namespace)
   * prefix goes into the written-keys filter, so a prefetch scans it again once evicted, and skips
   * the scans of every prefix never written.
   */
  private addPrefix(cell: ListCell | MapCell, key: Uint8Array, length: number): void {
    if (cell.stored) return
    cell.stored = true
    if (this.store.bloom !== null) this.store.bloom.locateBatch(this.bloomAdds++, key, length)
  }

  /** Writes a map entry's stored key (entryKey's) at the start of entryKeyBuf; returns its length. */
  private writeEntryKey(prefix: Buffer, e: MapEntry): number {
    const k = e.k
    if (e.ek === null && typeof k === 'string') return writeStringEntryKey(entryKeyRoom(stringEntryKeyLength(prefix, k)), prefix, k)
    // mapEntryKey's bytes, with no buffer of their own. A number key (Top-N numbers its rows) is
    // encoded again at each write rather than kept: a string as long-lived as its entry, which the
    // collector promoted (Nexmark q19-rocksdb: ~0.44 a bid).
    const ek = e.ek ?? (typeof k === 'number' ? encodeUserKey(k) : (e.ek = encodeUserKey(k)))
    return writeMapEntryKey(entryKeyRoom(prefix.length + 2 * ek.length), prefix, ek)
  }

  /** A map entry's stored key: the map's prefix (MapCell.key) and the entry's user key. */
  private entryKey(prefix: Buffer, e: MapEntry): Buffer {
    // A string key (most are) is written straight from the string; its encoding is not kept.
    if (e.ek === null && typeof e.k === 'string') return stringEntryKey(prefix, e.k)
    return mapEntryKey(prefix, e.ek ??= encodeUserKey(e.k))
  }
}
