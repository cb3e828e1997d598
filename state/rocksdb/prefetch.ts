// Prefetch, the read half of the RocksDB backend's bundles: before a batch runs, every (key,
// namespace) it will touch is made resident — ValueState entries through one read batch (skipped
// for keys the written-keys filter has never seen), lists and maps through prefix scans.
import { WeirError } from '../../common/errors.js'
import type { Namespace, PrefetchRequest } from '../../core/keyed-state.js'
import { dropSeq, ENTRY_OVERHEAD, CELL_OVERHEAD, implicitSeqs, keyScratch, type ListCell, type MapCell, MapEntry, numberedImplicitly, scratchElementKey,
  scratchKey, seqAt, type Slot, type ValueCellLike } from './cache.js'
import { hashOf } from './slot-map.js'
import { decodeEncoded, decodeEntry, decodeEntryKey, decodeUserKey, entryTime, listElementKey, prefixEnd, readSeq, readUtf16be, startsWithAt } from './codec.js'
import { ioFailed } from './folder.js'
import type { KeyBloom } from './key-bloom.js'
import { mapKeyOf } from '../map-state.js'
import { NativeReadBatch } from './native-batch.js'
import type { RocksStore } from './store.js'
import { SCAN_CAPACITY } from './tables.js'

/** Prefix scans running at once during a prefetch. */
const SCAN_CONCURRENCY = 32
/**
 * A list whose elements are dense (see `denseLists`) is first read by point gets of its first
 * SHORT_LIST elements, in the prefetch's read batch: with fewer elements than that it is read whole,
 * for much less than a scan (an iterator's open, seek and close). Longer ones are scanned after.
 */
export const SHORT_LIST = 4
const NO_KEY = Symbol('no key')

interface Scan {
  readonly slot: Slot
  /** The (key, namespace) cell to fill, or null for every namespace of the slot. */
  readonly cell: ListCell | MapCell | null
}

export class Prefetcher {
  /** Value gets and prefix scans issued so far (cacheStats). */
  gets = 0
  scans = 0
  /** Prefix scans the written-keys filter made unneeded (cacheStats). */
  skipped = 0
  /** Prefetch reads in flight. */
  private readonly loads = new Set<Promise<unknown>>()
  /** Hashes of a prefetch's keys (SlotMap's), and what touching their slots loaded (kept, so it is not optimized away). */
  private hashScratch = new Int32Array(1024)
  private touched = 0
  /** What the written-keys filter said of each key of a read (reused). */
  private mayRead = new Uint8Array(1024)
  /** Read batches not in use, reused. */
  private readonly readers: NativeReadBatch[] = []
  /** Where fillCell collects a list's sequence numbers (kept only if they are not the implicit ones). */
  private readonly seqScratch: number[] = []
  /**
   * A list was appended to blind (ListCell.tail): the disk may hold lists numbered with a gap (a head
   * from 0, a tail from listSeq), which the point gets of readShortLists would take for whole.
   */
  private tails = false

  constructor(private readonly store: RocksStore) {}

  /**
   * Makes every state of each (key, namespace) resident: ValueState entries through one read batch,
   * map and list contents through prefix scans [key group][state][key][namespace], and for a request
   * without namespace every namespace of the key through scans [key group][state][key]. Absence is
   * remembered, so asking again for a resident or known-absent pair costs no I/O.
   */
  async prefetch(requests: readonly PrefetchRequest[]): Promise<void> {
    const store = this.store
    store.checkUsable()
    const tables = store.tables.list
    if (tables.length === 0 || requests.length === 0) return
    const epoch = store.epoch
    const { start, end } = store.keyGroupRange
    const gets: ValueCellLike[] = []
    const scans: Scan[] = []
    /** Lists made resident unread for appends (appendOnly), until the written-keys filter has its say. */
    const tails: ListCell[] = []
    let created = false
    // Some of it is being loaded by an earlier prefetch still reading (a runtime reading ahead).
    let loadingElsewhere = false
    // Every key is hashed, and its first positions in each table's slots loaded, before any is looked
    // up: those loads' memory misses then overlap (SlotMap.touch).
    const n = requests.length
    const hashes = this.hashScratch.length >= n ? this.hashScratch : (this.hashScratch = new Int32Array(n * 2))
    for (let i = 0; i < n; i++) hashes[i] = hashOf(requests[i]!.key.encoded)
    let touched = 0
    for (const table of tables) {
      const slots = table.slots
      for (let i = 0; i < n; i++) touched ^= slots.touch(hashes[i]!)
    }
    this.touched = touched
    for (let i = 0; i < n; i++) {
      const req = requests[i]!
      const key = req.key
      if (key.group < start || key.group > end) store.outOfRange(key)
      const ns = req.namespace
      const h = hashes[i]!
      for (const table of req.states === undefined ? tables : store.tables.named(req.states)) {
        const named = req.appendOnlyStates !== undefined && req.appendOnlyStates.includes(table.name)
        // Its elements written and not read are let go once on disk (write-back.ts, trim).
        if (named && !table.appendedBlind) table.appendedBlind = true
        // The batch only appends to this list and reads none of it: a resident tail of it is not read back.
        const blind = req.appendOnly === true || named
        let slot = table.slots.get(key.encoded, h)
        if (slot === undefined) {
          slot = store.newSlot(table, key, h)
          created = true
        } else {
          slot.epoch = epoch
        }
        if (slot.allNs) continue
        if (slot.loadingAll) {
          loadingElsewhere = true
          continue
        }
        if (ns === undefined) {
          slot.loadingAll = true
          scans.push({ slot, cell: null })
          continue
        }
        const resident = slot.get(ns)
        if (resident !== undefined) {
          if (resident.kind === 'list' && !blind) resident.readEpoch = epoch
          if (resident.loading) loadingElsewhere = true
          else if (resident.kind === 'list' && resident.tail && !blind) {
            // Appended to blind, now to be read: its head is read and put in front, the cell staying
            // resident meanwhile (a batch before this one may still append to it).
            if (resident.headRead) loadingElsewhere = true
            else {
              resident.headRead = true
              scans.push({ slot, cell: resident })
            }
          }
          continue
        }
        const cell = store.newCell(slot, ns)
        if (cell.kind === 'list') cell.readEpoch = epoch
        // Read, though appended to only (appendOnlyStates): a tail over a head it may hold would be
        // numbered past a gap, and readShortLists would no longer do for any list.
        if (cell.kind === 'list' && req.appendOnly === true && table.ttlMs === 0) {
          // Not read (a list with TTL is: its elements' times matter to what adds keep).
          cell.tail = true
          cell.nextSeq = store.tables.listSeq
          tails.push(cell)
          continue
        }
        cell.loading = true
        if (cell.kind === 'value') gets.push(cell)
        else scans.push({ slot, cell })
      }
    }
    if (created) { for (const table of tables) table.invalidate() }
    if (tails.length > 0) this.startTails(tails)
    const earlier = loadingElsewhere ? [...this.loads] : []
    if (gets.length === 0 && scans.length === 0) {
      await this.awaitLoads(earlier)
      return
    }
    const loading = Promise.all([this.readValues(gets), this.runScans(scans)])
    this.loads.add(loading)
    try {
      await loading
    } catch (e) {
      // Nothing half-loaded may stay resident: drop the placeholders so a retry reads again.
      for (const c of gets) this.store.dropCell(c)
      for (const s of scans) {
        // A tail stays (it may hold adds), without its head.
        if (s.cell !== null && s.cell.kind === 'list' && s.cell.headRead) s.cell.headRead = false
        else if (s.cell !== null) this.store.dropCell(s.cell)
        else s.slot.loadingAll = false
      }
      throw ioFailed(this.store.dir, e, 'reading')
    } finally {
      this.loads.delete(loading)
    }
    await this.awaitLoads(earlier)
  }

  /**
   * Lists made resident unread for appends: the written-keys filter says which were never written
   * (those are known empty, no tail); the others may hold a head on disk (`stored`).
   */
  private startTails(cells: readonly ListCell[]): void {
    const bloom = this.store.bloom
    if (bloom === null) {
      for (const c of cells) c.stored = true
      this.tails = true
      return
    }
    const may = this.probe(bloom, cells, c => c)
    let j = 0
    for (const c of cells) {
      // `may` is null only when every table is unfiltered.
      if (c.slot.table.unfiltered || may![j++] !== 0) {
        c.stored = true
        this.tails = true
      } else {
        // Known empty: numbered from 0 as any list read empty (dense, see readShortLists).
        c.tail = false
        c.nextSeq = 0
      }
    }
  }

  /** Waits for earlier prefetches; if one failed, what it was loading is not resident: that is this call's failure too. */
  private async awaitLoads(loads: readonly Promise<unknown>[]): Promise<void> {
    if (loads.length === 0) return
    try {
      await Promise.all(loads)
    } catch (e) {
      throw ioFailed(this.store.dir, e, 'reading')
    }
  }

  private async readValues(cells: readonly ValueCellLike[]): Promise<void> {
    if (cells.length === 0) return
    const bloom = this.store.bloom
    // Each key is built into a scratch buffer and copied into the read batch, unless the
    // written-keys filter says it was never written: then it is absent, with no read.
    const r = this.readers.pop() ?? new NativeReadBatch(this.store.db)
    const toRead: ValueCellLike[] = []
    if (bloom === null) {
      for (const c of cells) {
        const n = scratchKey(c)
        r.addBytes(keyScratch(), n)
        toRead.push(c)
      }
    } else {
      // Every key is hashed before the filter is probed, so the probes' memory misses overlap (at
      // 10M keys the filter's 16 MB are far outside the CPU's caches); a key to read is built again.
      for (let i = 0; i < cells.length; i++) {
        const n = scratchKey(cells[i]!)
        bloom.locateBatch(i, keyScratch(), n)
      }
      const may = this.mayRead.length >= cells.length ? this.mayRead : (this.mayRead = new Uint8Array(cells.length * 2))
      bloom.testBatch(cells.length, may)
      for (let i = 0; i < cells.length; i++) {
        const c = cells[i]!
        if (may[i] === 0) {
          this.fillValue(c, null)
          continue
        }
        const n = scratchKey(c)
        r.addBytes(keyScratch(), n)
        toRead.push(c)
      }
    }
    if (toRead.length === 0) {
      this.readers.push(r)
      return
    }
    this.gets += toRead.length
    // One read batch: one MultiGet on one thread of the pool (several batches at once measured no
    // faster). Data blocks it reads do not go into RocksDB's block cache: what is read again soon is
    // in this backend's cache, and inserting every block into an 8 MB cache over state far larger only
    // churned it (count-10M at 5M events: 125K events/s and 67 CPU s, against 110K and 75 CPU s).
    const values = await r.read(false)
    this.readers.push(r)
    for (let i = 0; i < toRead.length; i++) this.fillValue(toRead[i]!, values[i]!)
  }

  private async runScans(all: readonly Scan[]): Promise<void> {
    let scans = this.unwritten(all)
    if (scans.length === 0) return
    if (this.store.denseLists && !this.tails) scans = await this.readShortLists(scans)
    if (scans.length === 0) return
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < scans.length) {
        const s = scans[next++]!
        if (s.cell !== null) {
          const entries = await this.scan(s.cell.key)
          this.fillCell(s.cell, entries, s.cell.keyLength)
        } else {
          this.fillSlot(s.slot, await this.scan(s.slot.prefix))
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(SCAN_CONCURRENCY, scans.length) }, worker))
  }

  /**
   * Asks the written-keys filter about the list or map cell of each of `items` whose table it covers
   * (`cellOf` not null, the table not unfiltered), every key hashed before the first probe so that
   * the probes' memory misses overlap: the answers in that order (0: never written), or null if no
   * item has one.
   */
  private probe<T>(bloom: KeyBloom, items: readonly T[], cellOf: (item: T) => ListCell | MapCell | null): Uint8Array | null {
    let n = 0
    for (let i = 0; i < items.length; i++) {
      const c = cellOf(items[i]!)
      if (c === null || c.slot.table.unfiltered) continue
      // The key first: building it may replace the scratch buffer.
      const kn = scratchKey(c)
      bloom.locateBatch(n++, keyScratch(), kn)
    }
    if (n === 0) return null
    const may = this.mayRead.length >= n ? this.mayRead : (this.mayRead = new Uint8Array(n * 2))
    bloom.testBatch(n, may)
    return may
  }

  /**
   * The scans left once those of (key, namespace) prefixes the written-keys filter has never seen
   * are done: those lists and maps are empty, with no iterator opened (most join keys of one side
   * were never written on the other). Every-namespace scans are all left (the filter records no key's
   * own prefix), and so are the scans of a state whose stored prefixes it may lack.
   */
  private unwritten(scans: readonly Scan[]): readonly Scan[] {
    const bloom = this.store.bloom
    if (bloom === null) return scans
    const may = this.probe(bloom, scans, s => s.cell)
    if (may === null) return scans
    const left: Scan[] = []
    let j = 0
    for (let i = 0; i < scans.length; i++) {
      const s = scans[i]!
      const c = s.cell
      if (c === null || c.slot.table.unfiltered) left.push(s)
      else if (may[j++] === 0) this.fillCell(c, [], c.keyLength)
      else left.push(s)
    }
    this.skipped += scans.length - left.length
    return left
  }

  /**
   * Reads elements 0..SHORT_LIST-1 of each list without TTL by point gets; a list read whole (some
   * found, from 0 with no gap, fewer than asked, none with a TTL time) is filled; the rest is returned
   * to be scanned. Sound only while every stored list element of the backend was written by it, without
   * TTL, as sequence numbers from 0 with no gap (RocksStore.denseLists); anything else is scanned.
   */
  private async readShortLists(scans: readonly Scan[]): Promise<readonly Scan[]> {
    const short: ListCell[] = []
    const left: Scan[] = []
    for (const s of scans) {
      const c = s.cell
      if (c !== null && c.kind === 'list' && c.slot.table.ttlMs === 0) short.push(c)
      else left.push(s)
    }
    if (short.length === 0) return scans
    const r = this.readers.pop() ?? new NativeReadBatch(this.store.db)
    for (const c of short) {
      for (let j = 0; j < SHORT_LIST; j++) {
        const kn = scratchElementKey(c, j)
        r.addBytes(keyScratch(), kn)
      }
    }
    this.gets += short.length * SHORT_LIST
    const values = await r.read(false)
    this.readers.push(r)
    for (let i = 0; i < short.length; i++) {
      const c = short[i]!
      const at = i * SHORT_LIST
      let n = 0
      while (n < SHORT_LIST && values[at + n] !== null) n++
      let whole = n > 0 && n < SHORT_LIST
      for (let j = n + 1; whole && j < SHORT_LIST; j++) if (values[at + j] !== null) whole = false
      for (let j = 0; whole && j < n; j++) if (entryTime(values[at + j]!) !== null) whole = false
      if (!whole) {
        left.push({ slot: c.slot, cell: c })
        continue
      }
      const entries: { key: Buffer; value: Buffer }[] = []
      const key = c.key
      for (let j = 0; j < n; j++) entries.push({ key: listElementKey(key, j), value: values[at + j]! })
      this.fillCell(c, entries, c.keyLength)
    }
    return left
  }

  private async scan(prefix: Buffer): Promise<{ key: Buffer; value: Buffer }[]> {
    this.scans++
    const out: { key: Buffer; value: Buffer }[] = []
    for await (const e of this.store.db.iterator({ gte: prefix, lt: prefixEnd(prefix) }, { capacity: SCAN_CAPACITY })) out.push(e)
    return out
  }

  /** Every namespace of a slot: entries come grouped by namespace (it is self-delimiting), each group fills one cell. */
  private fillSlot(slot: Slot, entries: readonly { key: Buffer; value: Buffer }[]): void {
    const at = slot.prefixLength
    let i = 0
    while (i < entries.length) {
      const first = entries[i]!.key
      const nsEnd = namespaceEnd(first, at)
      const nsKey = first.subarray(at, nsEnd)
      let j = i + 1
      while (j < entries.length && startsWithAt(entries[j]!.key, nsKey, at)) j++
      const ns = decodeEncoded(readUtf16be(first, at, nsEnd), 0) as Namespace
      // A resident cell is as new as the disk or newer (only clean cells are ever evicted), but for
      // a tail's head (an every-namespace read of a key whose lists are appended to blind).
      const resident = slot.get(ns)
      if (resident === undefined) {
        const cell = this.store.newCell(slot, ns)
        if (cell.kind === 'value') this.fillValue(cell, entries[i]!.value)
        else this.fillCell(cell, entries.slice(i, j), nsEnd)
      } else if (resident.kind === 'list' && resident.tail && !resident.headRead) {
        resident.headRead = true
        this.fillCell(resident, entries.slice(i, j), nsEnd)
      }
      i = j
    }
    slot.allNs = true
    slot.loadingAll = false
  }

  private fillValue(cell: ValueCellLike, buf: Buffer | null): void {
    cell.loading = false
    if (buf === null) return
    cell.onDisk = true
    const table = cell.slot.table
    const t = entryTime(buf)
    if (t !== null && table.expired(t, this.store.ttlNow)) {
      // Hidden from now on, deleted at the next flush.
      this.store.liveEntries--
      this.store.markDirty(cell)
    } else {
      cell.v = decodeEntry(buf)
      cell.t = t ?? this.store.ttlNow
    }
    this.store.setCellSize(cell, CELL_OVERHEAD + cell.keyLength + buf.length)
  }

  /**
   * A tail's head (ListCell.tail) from the list's entries: the elements numbered below the tail's
   * first go in front of it (the others are the tail's own, written since). A tail is only made for
   * a list without TTL, so no element has a time to keep. Its adds did not count the list live
   * while a head might have (RocksListState.add): it is counted now if none came.
   */
  private fillHead(cell: ListCell, entries: readonly { key: Buffer; value: Buffer }[], at: number): void {
    cell.headRead = false
    cell.tail = false
    const first = cell.nextSeq - cell.items.length
    const items: unknown[] = []
    const seqs: number[] = []
    let size = 0
    for (const { key, value } of inSeqOrder(entries, at)) {
      const seq = readSeq(key, at)
      if (seq >= first) break
      items.push(decodeEntry(value))
      seqs.push(seq)
      size += ENTRY_OVERHEAD + value.length
    }
    if (items.length === 0) {
      if (cell.items.length > 0) this.store.liveEntries++
      return
    }
    const head = items.length
    for (let i = 0; i < cell.items.length; i++) {
      items.push(cell.items[i])
      seqs.push(seqAt(cell, i))
    }
    cell.items = items
    cell.seqs = seqs
    implicitSeqs(cell)
    cell.flushed += head
    cell.stored = true
    this.store.setCellSize(cell, cell.size + size)
  }

  /** A list or map from its entries; `at` is where the element's suffix (seq or user key) starts. */
  private fillCell(cell: ListCell | MapCell, entries: readonly { key: Buffer; value: Buffer }[], at: number): void {
    if (cell.kind === 'list' && cell.staleRead) {
      // Cleared meanwhile: the clear's delete is queued, and the cell already says what the list holds.
      cell.staleRead = false
      return
    }
    if (cell.kind === 'list' && cell.headRead) {
      this.fillHead(cell, entries, at)
      return
    }
    cell.loading = false
    if (entries.length === 0) return
    const table = cell.slot.table
    const now = this.store.ttlNow
    let size = CELL_OVERHEAD + cell.keyLength
    if (cell.kind === 'list') {
      cell.stored = true
      // Times for a state with TTL, or once an element has one (written with a TTL: the state's
      // descriptor may not be registered yet); sequence numbers into a scratch array, kept only if
      // they are not the implicit ones (cache.ts, ListCell.seqs).
      let times: number[] | null = table.ttlMs > 0 ? [] : null
      const seqs = this.seqScratch
      seqs.length = 0
      for (const { key, value } of inSeqOrder(entries, at)) {
        const seq = readSeq(key, at)
        cell.nextSeq = seq + 1
        const t = entryTime(value)
        if (t !== null && table.expired(t, now)) {
          dropSeq(cell, seq)
          continue
        }
        if (times === null && t !== null) times = new Array<number>(cell.items.length).fill(now)
        cell.items.push(decodeEntry(value))
        if (times !== null) times.push(t ?? now)
        seqs.push(seq)
        size += ENTRY_OVERHEAD + value.length
      }
      cell.times = times
      if (!numberedImplicitly(seqs, cell.nextSeq)) cell.seqs = seqs.slice()
      cell.flushed = cell.items.length
      this.store.tables.raiseListSeq(cell.nextSeq)
      if (cell.dropped.length > 0) {
        if (cell.items.length === 0) this.store.liveEntries--
        this.store.markDirty(cell)
      }
    } else {
      cell.stored = true
      for (const { key, value } of entries) {
        const t = entryTime(value)
        const ek = readUtf16be(key, at, key.length)
        let k = decodeEntryKey(value, NO_KEY)
        if (k === NO_KEY) k = decodeUserKey(ek)
        const e = new MapEntry(k, undefined, t ?? now, mapKeyOf(k))
        e.ek = ek
        e.onDisk = true
        if (t !== null && table.expired(t, now)) {
          cell.removed.push(e)
          this.store.liveEntries--
          continue
        }
        e.v = decodeEntry(value)
        e.size = ENTRY_OVERHEAD + key.length + value.length
        size += e.size
        cell.m.set(e.mk, e)
      }
      if (cell.removed.length > 0) this.store.markDirty(cell)
    }
    this.store.setCellSize(cell, size)
  }
}

/**
 * A list's entries in sequence order. A scan returns them so (writeSeq's order), except elements of
 * an older format numbered from 2^31 on (a u32 then) next to wide ones: sorted then.
 */
function inSeqOrder(entries: readonly { key: Buffer; value: Buffer }[], at: number): readonly { key: Buffer; value: Buffer }[] {
  if (entries.length < 2 || entries[0]!.key.length === entries[entries.length - 1]!.key.length) return entries
  return [...entries].sort((a, b) => readSeq(a.key, at) - readSeq(b.key, at))
}

/** The end of the namespace encoding that starts at byte `at` (UTF-16BE: a number is 5 units, a string ends with \0\0). */
function namespaceEnd(key: Buffer, at: number): number {
  const tag = (key[at]! << 8) | key[at + 1]!
  if (tag === 3) return at + 10
  if (tag !== 4) throw WeirError.internal(`unknown namespace tag ${tag} in a stored key`)
  let i = at + 2
  while (i + 1 < key.length) {
    if (key[i] === 0 && key[i + 1] === 0) {
      if (i + 3 >= key.length) break
      if (key[i + 2] === 0 && key[i + 3] === 0) return i + 4
      i += 4 // \0\xff: an escaped NUL
      continue
    }
    i += 2
  }
  throw WeirError.internal('unterminated namespace in a stored key')
}
