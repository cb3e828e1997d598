// The RocksDB keyed-state backend: state on local disk behind the same synchronous API as the heap
// backend. Bundled access: `prefetch` reads a batch's (key, namespace) pairs in one read batch plus
// bounded prefix scans, state calls run against a write-back cache, `flush` writes what changed in one write batch.
import { readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import RocksDB from 'rocksdb-native'
import { WeirError } from '../../common/errors.js'
import type {
  KeyRef, ListState, ListStateDescriptor, MapState, MapStateDescriptor, Namespace, PrefetchRequest,
  StateStats, StateTtlConfig, ValueState, ValueStateDescriptor,
} from '../../core/keyed-state.js'
import { DEFAULT_MAX_PARALLELISM } from '../key-encoding.js'
import { STATE_CACHE_SIZE, WRITE_BUFFER_SIZE } from '../../common/config/options.js'
import {
  ABSENT, type CacheHost, type Cell, CELL_OVERHEAD, ENTRY_OVERHEAD, hashOf, type Kind, ListCell, MapCell, MapEntry, mapKeyOf, Slot, Table, ValueCell,
} from './cache.js'
import {
  cellKey, decodeEncoded, decodeEntry, decodeEntryKey, decodeUserKey, encodeEntry, encodeEntryInPlace, encodeUserKey, entryScratch, entryTime, groupPrefix,
  listElementKey, mapEntryKey, META_GROUP, namespaceBytes, prefixEnd, readUtf16be, skipEncoded, userKeyNeedsCopy, writeCellKey,
} from './codec.js'
import { KeyBloom } from './key-bloom.js'
import { checkInternals, NativeReadBatch, NativeWriteBatch, REUSED_OPS } from './native-batch.js'
import { fillDbFolder, folderBytes, ioFailed, makeDirs, openFailed, prepareFolder, releaseFolder, removeFolder } from './folder.js'
import { KeyGroupFileWriter, keyGroupFileHeader, openKeyGroupFile, type SnapshotState } from './key-group-file.js'
import { RocksListState, RocksMapState, RocksValueState } from './states.js'
import type { PendingStateSnapshot, StateSnapshotOptions, StateStorageStats, SubtaskStateBackend } from '../backend.js'
import type { RocksDbStateHandle, StoredSst } from './handle.js'
import { checkpointDatabase } from './snapshot.js'

export interface RocksDbBackendOptions {
  /** This subtask's working folder; the runtime passes `<state.dir>/<job>/<operator-id>`. */
  readonly dir: string
  readonly operatorId: string
  readonly jobName: string
  /** Number of key groups keys hash to (default 128, at most 32768). */
  readonly maxParallelism?: number
  /** The key groups this subtask owns, inclusive. */
  readonly keyGroupRange?: { readonly start: number; readonly end: number }
  /** Budget of the write-back cache in bytes (estimated from serialized sizes; default 'state.cache.size''s, 64 MB). */
  readonly cacheBytes?: number
  /** RocksDB memtable size (default 'state.backend.rocksdb.writebuffer.size''s, 32 MB, and why: common/config/options.ts); the runtime passes the job's. */
  readonly writeBufferBytes?: number
  /**
   * When flush() writes dirty state back. 'bundle' (default): every flush, as the KeyedStateBackend
   * contract says. 'deferred': only once the changes held reach cacheBytes / 512, or evicting
   * clean slots no longer keeps the cache within budget; a hot key then costs one put per many
   * bundles, and writes go in large batches, which RocksDB applies for less per entry. sync()
   * always writes: call it before anything reads the disk on its own (a checkpoint).
   */
  readonly writeBack?: 'bundle' | 'deferred'
  /**
   * Keep the working database an earlier run of the same job and operator left in `dir` instead of
   * wiping it (local recovery). Default false: working state is not durable, checkpoints are.
   */
  readonly reuse?: boolean
  /**
   * Restore from checkpoint files: called with the empty database folder once the state folder is
   * prepared, before RocksDB opens it, to put a checkpoint's database files there. The database is
   * then used like a kept one: state ids come from it and the key filter is not trusted. Excludes `reuse`.
   */
  readonly restoreFiles?: (dbDir: string) => Promise<void>
  /** With restoreFiles: the live entries the checkpoint held, which saves counting them (a full scan) on open. */
  readonly restoredEntries?: number
}

/** Where a key-group snapshot went. */
export interface KeyGroupSnapshot {
  readonly files: string[]
  /** Stored entries written (one per value, map entry and list element). */
  readonly entries: number
}

const DB_FOLDER = 'db'
/**
 * SST data block size. Point reads of state far larger than memory read one block each, and
 * rocksdb-native's block cache is RocksDB's fixed 8 MB: 4 KB blocks measured 110–114K events/s on
 * count-10M at 5M events against 98–102K with 8 KB (16 KB: 92K; 2 KB: 100K, as the index outgrows
 * that cache; 1 KB: 91K).
 */
const BLOCK_SIZE = 4096

/** The options every backend database opens with (also what bench/state/storage-floor.ts opens). */
export function databaseOptions(writeBufferBytes: number | undefined): { writeBufferSize: number; tableBlockSize: number } {
  return { writeBufferSize: writeBufferBytes ?? WRITE_BUFFER_SIZE.default, tableBlockSize: BLOCK_SIZE }
}
/** Deferred write-back holds at most this many dirty cells (see makeRoom). */
const HELD_CELLS = (REUSED_OPS * 3) >> 2
/** Prefix scans running at once during a prefetch. */
const SCAN_CONCURRENCY = 32
const SCAN_CAPACITY = 1024
/** A sweep lap that deleted at least 1/COMPACT_AFTER_DELETED of the entries it examined compacts them away. */
const COMPACT_AFTER_DELETED = 4
/** ... and examined at most this many (about 50 MB). */
const COMPACT_MAX_ENTRIES = 1_000_000
/** Puts per write batch when restoring a snapshot. */
const RESTORE_BATCH = 4096
const META_STATE = Buffer.from([0xff, 0xff, 0x00, 0x01])
const NO_KEY = Symbol('no key')
/** Where reads and writes of ValueState entries build a stored key (then copied into a batch). */
let keyScratch = Buffer.allocUnsafe(256)

/** Writes a value cell's stored key (ValueCell.key) at the start of keyScratch; returns its length. */
function scratchKey(cell: ValueCell): number {
  if (keyScratch.length < cell.keyLength) keyScratch = Buffer.allocUnsafe(cell.keyLength * 2)
  const slot = cell.slot
  return writeCellKey(keyScratch, slot.group, slot.table.id, slot.encoded, namespaceBytes(cell.ns))
}

interface Scan {
  readonly slot: Slot
  /** The (key, namespace) cell to fill, or null for every namespace of the slot. */
  readonly cell: ListCell | MapCell | null
}

/**
 * Keyed state in RocksDB on local disk, for one operator subtask.
 *
 * The runtime drives it in bundles: `prefetch(requests)` → synchronous state calls for those keys →
 * `flush()`. A state call on a (key, namespace) no prefetch made resident throws an internal error.
 *
 * @example
 * const backend = await RocksDbKeyedStateBackend.open({ dir: '/tmp/weir/job/op-1', jobName: 'job', operatorId: 'op-1' })
 * const count = backend.getValueState(valueState<number>('count'))
 * const key = makeKey(['alice'])
 * await backend.prefetch([{ key, namespace: '' }])
 * backend.setCurrentKey(key)
 * count.update((count.value() ?? 0) + 1)
 * await backend.flush()
 */
export class RocksDbKeyedStateBackend implements SubtaskStateBackend<RocksDbStateHandle>, CacheHost {
  readonly needsPrefetch = true
  /**
   * The SSTs of this database that an earlier retained checkpoint stored (SST files never change and
   * their numbers are never reused): the next checkpoint references them instead of uploading them.
   */
  storedSsts = new Map<string, StoredSst>()
  readonly dir: string
  readonly maxParallelism: number
  readonly keyGroupRange: { readonly start: number; readonly end: number }
  readonly cacheBytes: number
  currentKey: KeyRef | undefined = undefined
  ttlNow: number = Date.now()
  /** Approximate live entries: +1 on create, −1 on delete; `countEntries()` recomputes it. */
  liveEntries = 0
  changes = 0
  /** Deferred write-back: the changes held before a flush writes them anyway (0: every flush writes). */
  private readonly maxHeldChanges: number
  private bytesWritten = 0
  private gets = 0
  private scans = 0
  private readonly tables = new Map<string, Table>()
  private readonly tableList: Table[] = []
  private readonly tablesById: (Table | undefined)[] = []
  private nextId = 0
  private pendingMeta: [Buffer, Buffer][] = []
  private dirty: Cell[] = []
  /** Bundle counter: slots asked for in this epoch are the most recently used. */
  private epoch = 1
  private cacheUsed = 0
  /** Eviction queue (second chance by epoch); slots are queued when created and re-queued when found touched. */
  private lru: (Slot | undefined)[] = []
  private lruHead = 0
  /** The last key the TTL sweep examined (null: start over), and what the current lap examined and deleted. */
  private sweep: { after: Buffer | null; examined: number; deleted: number } = { after: null, examined: 0, deleted: 0 }
  /** A compaction of this subtask's key groups after a sweep lap, while it runs (it never rejects: failures go to `failure`). */
  private compacting: Promise<void> | null = null
  /** Bytes written (puts, and deletes of the sweep) up to the last of those compactions. */
  private compactedAt = 0
  private sweptBytes = 0
  private readonly writeBufferBytes: number
  private failure: WeirError | null = null
  /** Prefetch reads in flight. */
  private readonly loads = new Set<Promise<unknown>>()
  private namedFor: readonly string[] | null = null
  private named: readonly Table[] = []
  /** The write batch of the last flush while RocksDB applies it (it never rejects: failures go to `failure`). */
  private inflight: Promise<void> | null = null
  /** The epoch that wrote the batch in flight: its slots stay resident until it is applied. */
  private inflightEpoch = 0
  private closed = false
  /**
   * Every stored key this backend has written, when it started from an empty folder: a ValueState
   * entry the filter has never seen is absent without a read. Null for a kept (reused) database.
   */
  private bloom: KeyBloom | null
  /** Hashes of a prefetch's keys (SlotMap's), and what touching their slots loaded (kept, so it is not optimized away). */
  private hashScratch = new Int32Array(1024)
  private touched = 0
  /** Keys of the write being built that go into the written-keys filter once it is (located in the filter's batch). */
  private bloomAdds = 0
  /** What the written-keys filter said of each key of a read (reused). */
  private mayRead = new Uint8Array(1024)
  /** The bundles' write batch, reused (one is in flight at most, and the next waits for it). */
  private readonly writer: NativeWriteBatch
  /** Read batches not in use, reused. */
  private readonly readers: NativeReadBatch[] = []

  private constructor(private readonly db: RocksDB, options: RocksDbBackendOptions, maxParallelism: number) {
    checkInternals(db)
    this.writer = new NativeWriteBatch(db)
    this.dir = resolve(options.dir)
    this.maxParallelism = maxParallelism
    this.keyGroupRange = options.keyGroupRange ?? { start: 0, end: maxParallelism - 1 }
    this.cacheBytes = options.cacheBytes ?? STATE_CACHE_SIZE.default
    this.maxHeldChanges = options.writeBack === 'deferred' ? Math.max(1024, Math.floor(this.cacheBytes / 512)) : 0
    this.bloom = options.reuse === true ? null : new KeyBloom(this.cacheBytes)
    this.writeBufferBytes = options.writeBufferBytes ?? WRITE_BUFFER_SIZE.default
  }

  /**
   * Opens (creating or wiping) the state folder `dir` and the database in it. Fails with an
   * execution error when the folder cannot be written, belongs to another job or is not a Weir
   * state folder, or when RocksDB cannot open its files.
   */
  static async open(options: RocksDbBackendOptions): Promise<RocksDbKeyedStateBackend> {
    const maxParallelism = options.maxParallelism ?? DEFAULT_MAX_PARALLELISM
    if (!Number.isInteger(maxParallelism) || maxParallelism < 1 || maxParallelism > 32768) {
      throw WeirError.execution(`max-parallelism must be between 1 and 32768, not ${maxParallelism}`)
    }
    const range = options.keyGroupRange
    if (range !== undefined && !(range.start >= 0 && range.start <= range.end && range.end < maxParallelism)) {
      throw WeirError.internal(`key-group range [${range.start}, ${range.end}] does not fit max-parallelism ${maxParallelism}`)
    }
    const dir = resolve(options.dir)
    const restored = options.restoreFiles !== undefined
    const kept = await prepareFolder(dir, { jobName: options.jobName, operatorId: options.operatorId }, options.reuse === true && !restored)
    if (restored) await fillDbFolder(dir, join(dir, DB_FOLDER), options.restoreFiles!)
    const db = new RocksDB(join(dir, DB_FOLDER), databaseOptions(options.writeBufferBytes))
    try {
      await db.ready()
    } catch (e) {
      await db.close().catch(() => undefined)
      releaseFolder(dir)
      throw openFailed(dir, e)
    }
    const backend = new RocksDbKeyedStateBackend(db, options, maxParallelism)
    if (kept || restored) {
      // Keys written by an earlier run are not in the filter: read everything.
      backend.bloom = null
      await backend.loadMetadata()
      if (restored && options.restoredEntries !== undefined) backend.liveEntries = options.restoredEntries
      else await backend.countEntries()
    }
    return backend
  }

  // ------------------------------------------------------------------ KeyedStateStore

  getValueState<T>(descriptor: ValueStateDescriptor<T>): ValueState<T> {
    const table = this.register(descriptor.name, 'value', descriptor.ttl)
    return (table.handle ??= new RocksValueState<T>(this, table)) as ValueState<T>
  }

  getListState<T>(descriptor: ListStateDescriptor<T>): ListState<T> {
    const table = this.register(descriptor.name, 'list', descriptor.ttl)
    return (table.handle ??= new RocksListState<T>(this, table)) as ListState<T>
  }

  getMapState<K, V>(descriptor: MapStateDescriptor<K, V>): MapState<K, V> {
    const table = this.register(descriptor.name, 'map', descriptor.ttl)
    return (table.handle ??= new RocksMapState<K, V>(this, table)) as MapState<K, V>
  }

  setCurrentKey(key: KeyRef): void {
    if (key.group < this.keyGroupRange.start || key.group > this.keyGroupRange.end) this.outOfRange(key)
    this.currentKey = key
  }

  getCurrentKey(): KeyRef | undefined {
    return this.currentKey
  }

  setTtlTime(now: number): void {
    this.ttlNow = now
  }

  // ------------------------------------------------------------------ bundles

  /**
   * Makes every state of each (key, namespace) resident: ValueState entries through one read batch,
   * map and list contents through prefix scans [key group][state][key][namespace], and for a request
   * without namespace every namespace of the key through scans [key group][state][key]. Absence is
   * remembered, so asking again for a resident or known-absent pair costs no I/O.
   */
  async prefetch(requests: readonly PrefetchRequest[]): Promise<void> {
    this.checkUsable()
    const tables = this.tableList
    if (tables.length === 0 || requests.length === 0) return
    const epoch = this.epoch
    const gets: ValueCell[] = []
    const scans: Scan[] = []
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
      if (key.group < this.keyGroupRange.start || key.group > this.keyGroupRange.end) this.outOfRange(key)
      const ns = req.namespace
      const h = hashes[i]!
      for (const table of req.states === undefined ? tables : this.tablesNamed(req.states)) {
        let slot = table.slots.get(key.encoded, h)
        if (slot === undefined) {
          slot = this.newSlot(table, key, h)
          created = true
        } else {
          slot.epoch = epoch
        }
        if (slot.allNs) continue
        if (slot.loadingAll) { loadingElsewhere = true; continue }
        if (ns === undefined) {
          slot.loadingAll = true
          scans.push({ slot, cell: null })
          continue
        }
        const resident = slot.get(ns)
        if (resident !== undefined) {
          if (resident.loading) loadingElsewhere = true
          continue
        }
        const cell = this.newCell(slot, ns)
        cell.loading = true
        if (cell.kind === 'value') gets.push(cell)
        else scans.push({ slot, cell })
      }
    }
    if (created) for (const table of tables) table.invalidate()
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
      for (const c of gets) this.dropCell(c)
      for (const s of scans) {
        if (s.cell !== null) this.dropCell(s.cell)
        else s.slot.loadingAll = false
      }
      throw ioFailed(this.dir, e, 'reading')
    } finally {
      this.loads.delete(loading)
    }
    await this.awaitLoads(earlier)
  }

  /** The tables of these state names (the last list asked for is remembered: requests of one call share theirs). */
  private tablesNamed(names: readonly string[]): readonly Table[] {
    if (names !== this.namedFor) {
      const out: Table[] = []
      for (const name of names) {
        const table = this.tables.get(name)
        if (table !== undefined) out.push(table)
      }
      this.namedFor = names
      this.named = out
    }
    return this.named
  }

  /** Waits for earlier prefetches; if one failed, what it was loading is not resident: that is this call's failure too. */
  private async awaitLoads(loads: readonly Promise<unknown>[]): Promise<void> {
    if (loads.length === 0) return
    try {
      await Promise.all(loads)
    } catch (e) {
      throw ioFailed(this.dir, e, 'reading')
    }
  }

  /**
   * Writes every dirty entry in one write batch (with writeBack 'deferred', only once enough is
   * held), then evicts clean slots, least recently asked for first, until the cache is within its
   * budget. Write-behind: the batch is handed to RocksDB and applied while the next bundle runs (one
   * batch in flight at most; the next flush waits for it, and its slots stay resident until then,
   * unless they take the cache more than 1/16 over its budget: then this flush waits for it).
   * A failed write surfaces at the next call. Cheap when nothing is dirty.
   */
  async flush(): Promise<void> {
    if (this.maxHeldChanges > 0 && this.changes <= this.maxHeldChanges && this.dirty.length < HELD_CELLS && (await this.makeRoom())) {
      this.epoch++
      return
    }
    await this.write()
  }

  /**
   * Deferred write-back: evicts clean slots and says whether that keeps the cache within budget, so
   * the changes can be held. Slots of a batch being applied cannot go before it is: the cache may run
   * over by 1/16 of its budget meanwhile, and beyond that this waits for the batch and evicts them.
   * Otherwise each bundle after a write would write its own few changes (count-10M wrote 96% of its
   * entries in batches of at most 1,024 that way). Held dirty cells stop at HELD_CELLS, so that with the bundle that goes
   * over it a batch stays within the operations a write batch reuses: larger batches allocate the
   * rest, which live until RocksDB has applied them.
   * Measured over 3M random puts, process CPU-s by batch size: 1,024: 7.9; 8,192: 6.9; 32,768:
   * 7.0; 131,072: 9.6. count-10M over 5M events with batches of up to 131,072 entries: peak RSS 860
   * MB against 640.
   */
  private async makeRoom(): Promise<boolean> {
    this.checkUsable()
    this.evict()
    if (this.cacheUsed <= this.cacheBytes) return true
    if (this.inflight === null) return false
    await this.evictPastSlack()
    // Still in flight: within the slack. Applied: its slots could go.
    return this.inflight !== null || this.cacheUsed <= this.cacheBytes
  }

  /**
   * Slots of the batch being applied cannot be evicted before it is: once they take the cache more
   * than 1/16 over its budget, waits for the batch and evicts them.
   */
  private async evictPastSlack(): Promise<void> {
    if (this.inflight === null || this.cacheUsed <= this.cacheBytes + this.cacheBytes / 16) return
    await this.settle()
    this.evict()
  }

  /** Writes every dirty entry (whatever the write-back mode), waits until RocksDB applied it, and evicts down to the budget. */
  async sync(): Promise<void> {
    await this.write()
    await this.settle()
    this.evict()
  }

  /** Waits for the write batch in flight; after it the disk holds everything but what is dirty. */
  private async settle(): Promise<void> {
    if (this.inflight !== null) {
      await this.inflight
      this.inflight = null
    }
    this.checkUsable()
  }

  /** Issues one write batch of the dirty cells (whatever the write-back mode), then evicts. */
  private async write(): Promise<void> {
    this.checkUsable()
    if (this.dirty.length > 0 || this.pendingMeta.length > 0) {
      // One write batch in flight at most, so batches apply in order.
      await this.settle()
      const cells = this.dirty
      this.changes = 0
      this.dirty = []
      const w = this.writer
      let bytes = 0
      try {
        for (const [k, v] of this.pendingMeta) { w.put(k, v); bytes += k.length + v.length }
        this.pendingMeta = []
        this.bloomAdds = 0
        for (const c of cells) bytes += this.writeCell(w, c)
        // In one go, before anything can prefetch these keys: their filter blocks are memory misses
        // that overlap this way (see KeyBloom.testBatch).
        if (this.bloomAdds > 0) this.bloom!.addBatch(this.bloomAdds)
      } catch (e) {
        // The cache now says more than the disk: nothing can continue from here.
        this.failure = ioFailed(this.dir, e, 'writing')
        throw this.failure
      }
      this.bytesWritten += bytes
      this.inflightEpoch = this.epoch
      const applied: Promise<void> = w.apply().then(
        () => { if (this.inflight === applied) this.inflight = null },
        (e: unknown) => { this.failure ??= ioFailed(this.dir, e, 'writing'); if (this.inflight === applied) this.inflight = null },
      )
      this.inflight = applied
    }
    this.evict()
    await this.evictPastSlack()
    this.epoch++
  }

  // ------------------------------------------------------------------ diagnostics

  /** Resident keys only, in the order of their encoding: a disk backend does not list what is not in its cache. */
  *keys(stateName: string): IterableIterator<KeyRef> {
    const table = this.tables.get(stateName)
    if (table === undefined) return
    const now = this.ttlNow
    const live: Slot[] = []
    for (const slot of table.slots.values()) {
      for (const cell of slot.cells()) {
        if (!cell.loading && hasLive(table, cell, now)) { live.push(slot); break }
      }
    }
    live.sort((a, b) => (a.encoded < b.encoded ? -1 : a.encoded > b.encoded ? 1 : 0))
    for (const slot of live) yield slot.key
  }

  /** `entries` is approximate (see countEntries); `bytesWritten` counts key and value bytes of every flush. */
  stats(): StateStats {
    return { entries: this.liveEntries, bytesWritten: this.bytesWritten }
  }

  /**
   * Flushes, then counts live entries on disk exactly (a list counts once) and resets `stats().entries`
   * to it. With `stored`, counts what the database holds instead: expired entries too, every list element.
   */
  async countEntries(options: { readonly stored?: boolean } = {}): Promise<number> {
    await this.sync()
    const { start, end } = this.keyGroupRange
    let n = 0
    let lastList: Buffer | null = null
    const now = this.ttlNow
    const stored = options.stored === true
    try {
      for await (const { key, value } of this.db.iterator({ gte: groupPrefix(start), lt: groupPrefix(end + 1) }, { capacity: SCAN_CAPACITY })) {
        if (stored) { n++; continue }
        const table = this.tablesById[key.readUInt16BE(2)]
        if (table === undefined) continue
        const t = entryTime(value)
        if (t !== null && table.expired(t, now)) continue
        if (table.kind === 'list') {
          const prefix = key.subarray(0, key.length - 4)
          if (lastList !== null && lastList.equals(prefix)) continue
          lastList = prefix
        }
        n++
      }
    } catch (e) {
      throw ioFailed(this.dir, e, 'reading')
    }
    if (!stored) this.liveEntries = n
    return n
  }

  /** The cache's estimated bytes and resident slots, and the reads issued so far (value gets, prefix scans). */
  cacheStats(): { readonly bytes: number; readonly slots: number; readonly gets: number; readonly scans: number } {
    let slots = 0
    for (const table of this.tableList) slots += table.slots.size
    return { bytes: this.cacheUsed, slots, gets: this.gets, scans: this.scans }
  }

  /** Writes everything, then compacts the whole database (after a bulk load or a restore, say). */
  async compact(): Promise<void> {
    await this.sync()
    try {
      await this.db.compactRange()
    } catch (e) {
      throw ioFailed(this.dir, e, 'writing')
    }
  }

  /** Size in bytes of the files in the state folder. */
  diskBytes(): Promise<number> {
    return folderBytes(this.dir)
  }

  // ------------------------------------------------------------------ TTL

  /**
   * Deletes expired entries from disk. One resumable iterator sweeps this subtask's key groups in
   * order, carrying on from where the last call stopped, and examines at most `budget` entries
   * (entries of states without TTL count too); without a budget it makes one full pass. Flushes
   * first: an expired entry in a clean resident cell goes from the cache too, and an entry whose
   * cell is still dirty (rewritten, or held by deferred write-back) is left for a later pass.
   * Returns how many entries it deleted.
   */
  async cleanupExpired(budget = Number.POSITIVE_INFINITY): Promise<number> {
    this.checkUsable()
    if (!this.tableList.some(t => t.ttlMs > 0) || !(budget > 0)) return 0
    // Whatever flush leaves dirty (deferred write-back) the sweep leaves alone.
    await this.flush()
    await this.settle()
    const { start, end } = this.keyGroupRange
    const now = this.ttlNow
    const sw = this.sweep
    const origin = sw.after
    const doomed: { table: Table; key: Buffer; value: Buffer }[] = []
    let spent = 0
    let wrapped = false
    let lapEnded = false
    try {
      while (spent < budget) {
        // From where the last call stopped to the end, then (one full pass at most) from the start back to there.
        const lower = sw.after === null ? { gte: groupPrefix(start) } : { gt: sw.after }
        const upper = wrapped && origin !== null ? { lte: origin } : { lt: groupPrefix(end + 1) }
        const limit = budget - spent
        let n = 0
        for await (const { key, value } of this.db.iterator({ ...lower, ...upper }, { limit, capacity: Math.min(SCAN_CAPACITY, limit) })) {
          n++
          sw.after = key
          const table = this.tablesById[key.readUInt16BE(2)]
          if (table === undefined || table.ttlMs === 0) continue
          const t = entryTime(value)
          if (t !== null && t + table.ttlMs <= now) doomed.push({ table, key, value })
        }
        spent += n
        if (n === limit) break
        if (wrapped) break
        sw.after = null
        lapEnded = true
        if (origin === null) break
        wrapped = true
      }
    } catch (e) {
      throw ioFailed(this.dir, e, 'reading')
    }
    sw.examined += spent
    if (doomed.length === 0) {
      if (lapEnded) this.endLap()
      return 0
    }
    // Decided now, right before the write, against the cache as it is.
    const w = new NativeWriteBatch(this.db)
    let removed = 0
    try {
      for (const { table, key, value } of doomed) {
        const cell = this.residentCell(table, key)
        if (cell === undefined) {
          if (table.kind !== 'list') this.liveEntries--
        } else if (cell.dirty || cell.loading || !this.expireResident(cell, key, value, now)) {
          continue
        }
        w.delete(key)
        this.sweptBytes += key.length
        removed++
      }
      await w.apply()
    } catch (e) {
      throw ioFailed(this.dir, e, 'writing')
    }
    sw.deleted += removed
    if (lapEnded) this.endLap()
    return removed
  }

  /**
   * After a sweep lap that deleted a good share of what it examined, compacts this subtask's key
   * groups in the background. RocksDB drops a deleted entry's bytes only when a compaction takes its
   * tombstone down to the entry; left to its own triggers (level sizes, 4 files in level 0) a small
   * state under a steady stream of expiring keys keeps several memtables of dead entries on disk.
   * At most once per half a memtable of writes: a manual compaction flushes the memtable first, and
   * every flush and compaction adds to RocksDB's LOG and MANIFEST files. A large state is left to
   * RocksDB: there dead entries are a small share, and a manual compaction of it would hold up
   * RocksDB's other background work (and a checkpoint's pause) for long.
   */
  private endLap(): void {
    const sw = this.sweep
    const written = this.bytesWritten + this.sweptBytes
    const worth = sw.deleted > 0 && sw.deleted * COMPACT_AFTER_DELETED >= sw.examined && sw.examined <= COMPACT_MAX_ENTRIES &&
      written - this.compactedAt >= this.writeBufferBytes / 2
    sw.examined = 0
    sw.deleted = 0
    if (!worth || this.compacting !== null) return
    this.compactedAt = written
    const { start, end } = this.keyGroupRange
    const done: Promise<void> = this.db.compactRange(groupPrefix(start), groupPrefix(end + 1)).then(
      () => { if (this.compacting === done) this.compacting = null },
      (e: unknown) => { this.failure ??= ioFailed(this.dir, e, 'writing'); if (this.compacting === done) this.compacting = null },
    )
    this.compacting = done
  }

  /**
   * Takes an expired disk entry out of its clean resident cell. Returns false (keep it on disk) when
   * the cache has it unexpired, which a clean cell only has if the clock went back.
   */
  private expireResident(cell: Cell, key: Buffer, value: Buffer, now: number): boolean {
    const table = cell.slot.table
    table.invalidate()
    switch (cell.kind) {
      case 'value':
        if (cell.v !== ABSENT) {
          if (!table.expired(cell.t, now)) return false
          cell.v = ABSENT
          this.liveEntries--
        }
        cell.onDisk = false
        this.setCellSize(cell, CELL_OVERHEAD + cell.keyLength)
        return true
      case 'list': {
        const i = cell.seqs.indexOf(key.readUInt32BE(key.length - 4))
        if (i < 0) return true
        if (!table.expired(cell.times[i]!, now)) return false
        const per = (cell.size - CELL_OVERHEAD - cell.key.length) / cell.items.length
        cell.items.splice(i, 1); cell.times.splice(i, 1); cell.seqs.splice(i, 1)
        if (i < cell.flushed) cell.flushed--
        if (cell.items.length === 0) this.liveEntries--
        this.setCellSize(cell, Math.max(CELL_OVERHEAD + cell.key.length, cell.size - per))
        return true
      }
      case 'map': {
        let k = decodeEntryKey(value, NO_KEY)
        if (k === NO_KEY) k = decodeUserKey(readUtf16be(key, cell.key.length, key.length))
        const e = cell.m.get(mapKeyOf(k))
        if (e === undefined) return true
        if (!table.expired(e.t, now)) return false
        cell.m.delete(e.mk)
        this.liveEntries--
        this.setCellSize(cell, cell.size - e.size)
        return true
      }
    }
  }

  // ------------------------------------------------------------------ key groups

  /**
   * Writes every live entry of the key groups in `range` (within this subtask's) into one file in
   * `folder`, after flushing. Restore it with `restoreKeyGroups` into a backend of the same max-parallelism.
   */
  async snapshotKeyGroups(range: { readonly start: number; readonly end: number }, folder: string): Promise<KeyGroupSnapshot> {
    await this.sync()
    const start = Math.max(range.start, this.keyGroupRange.start)
    const end = Math.min(range.end, this.keyGroupRange.end)
    await makeDirs(resolve(folder)).catch((e: unknown) => { throw ioFailed(folder, e, 'writing') })
    const path = join(resolve(folder), `key-groups-${range.start}-${range.end}.wkg`)
    const states: SnapshotState[] = this.tableList.map(t => ({ name: t.name, id: t.id, kind: t.kind }))
    const writer = await KeyGroupFileWriter.create(path, keyGroupFileHeader(this.maxParallelism, { start, end }, states))
    const now = this.ttlNow
    try {
      if (start <= end) {
        for await (const { key, value } of this.db.iterator({ gte: groupPrefix(start), lt: groupPrefix(end + 1) }, { capacity: SCAN_CAPACITY })) {
          const table = this.tablesById[key.readUInt16BE(2)]
          if (table === undefined) continue
          const t = entryTime(value)
          if (t !== null && table.expired(t, now)) continue
          await writer.add(key, value)
        }
      }
      await writer.finish()
    } catch (e) {
      await writer.abort()
      throw ioFailed(folder, e, 'writing')
    }
    return { files: [path], entries: writer.count }
  }

  /**
   * Loads the key-group files in `folder` (written by snapshotKeyGroups, from any subtask), keeping
   * only key groups this backend owns; states are matched by name. Meant for a fresh backend: the
   * cache is dropped and `stats().entries` recounted.
   */
  async restoreKeyGroups(folder: string): Promise<number> {
    await this.sync()
    let names: string[]
    try {
      names = (await readdir(folder)).filter(n => n.endsWith('.wkg')).sort()
    } catch (e) {
      throw WeirError.execution(`cannot restore state from '${folder}': ${(e as Error).message}`, { help: 'check the checkpoint folder', cause: e })
    }
    const { start, end } = this.keyGroupRange
    let restored = 0
    for (const name of names) {
      const file = await openKeyGroupFile(join(folder, name))
      const header = file.header
      if (header.maxParallelism !== this.maxParallelism) {
        await file.close()
        throw WeirError.execution(`state was written with max-parallelism ${header.maxParallelism}, but this job uses ${this.maxParallelism}`, {
          help: 'restore with the same max-parallelism the checkpoint was taken with',
        })
      }
      const ids = new Map<number, number>()
      for (const s of header.states) ids.set(s.id, this.table(s.name, s.kind).id)
      try {
        restored += await this.bulkPut(file.records(), key => {
          const group = key.readUInt16BE(0)
          const id = ids.get(key.readUInt16BE(2))
          if (group < start || group > end || id === undefined) return false
          key.writeUInt16BE(id, 2)
          return true
        })
      } finally {
        await file.close()
      }
    }
    this.dropCache(() => true)
    await this.countEntries()
    return restored
  }

  /** Deletes all state of one key group (after flushing), on disk and in the cache. */
  async clearKeyGroup(group: number): Promise<void> {
    await this.sync()
    this.dropCache(slot => slot.group === group)
    const w = new NativeWriteBatch(this.db)
    w.deleteRange(groupPrefix(group), groupPrefix(group + 1))
    try {
      await w.apply()
    } catch (e) {
      throw ioFailed(this.dir, e, 'writing')
    }
    await this.countEntries()
  }

  // ------------------------------------------------------------------ lifecycle

  /** Closes the database. Unflushed changes are dropped: call flush() first to keep them. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    if (this.inflight !== null) await this.inflight
    this.inflight = null
    if (this.compacting !== null) await this.compacting
    this.dropCache(() => true)
    try {
      await this.db.close()
    } catch (e) {
      throw ioFailed(this.dir, e, 'writing')
    } finally {
      releaseFolder(this.dir)
    }
  }

  /** Closes the database and deletes the state folder (the runtime calls it when a bounded job finishes). */
  async destroy(): Promise<void> {
    try {
      await this.close()
    } finally {
      await removeFolder(this.dir)
    }
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

  // ------------------------------------------------------------------ internals

  private checkUsable(): void {
    if (this.failure !== null) throw this.failure
    if (this.closed) throw WeirError.internal(`RocksDB state in '${this.dir}' used after close`)
  }

  private outOfRange(key: KeyRef): never {
    throw WeirError.internal(`key group ${key.group} is outside this subtask's range [${this.keyGroupRange.start}, ${this.keyGroupRange.end}]`)
  }

  private register(name: string, kind: Kind, ttl: StateTtlConfig | undefined): Table {
    const table = this.table(name, kind)
    table.ttlMs = ttl !== undefined && ttl.ttlMs > 0 ? ttl.ttlMs : 0
    table.refreshOnRead = ttl?.updateType === 'OnReadAndWrite'
    return table
  }

  /** The table of a state name, created with the next free id (persisted at the next flush). */
  private table(name: string, kind: Kind): Table {
    let table = this.tables.get(name)
    if (table !== undefined) {
      if (table.kind !== kind) throw WeirError.internal(`state '${name}' is declared as ${kind} state but already exists as ${table.kind} state`)
      return table
    }
    if (this.nextId >= META_GROUP) throw WeirError.internal('too many states in one operator')
    table = this.addTable(name, kind, this.nextId++)
    this.pendingMeta.push([Buffer.concat([META_STATE, Buffer.from(name, 'utf8')]), Buffer.from(JSON.stringify({ id: table.id, kind }), 'utf8')])
    return table
  }

  private addTable(name: string, kind: Kind, id: number): Table {
    const table = new Table(name, kind, id)
    this.tables.set(name, table)
    this.tableList.push(table)
    this.namedFor = null
    this.tablesById[id] = table
    this.nextId = Math.max(this.nextId, id + 1)
    return table
  }

  /** State ids of a kept database, from its metadata entries. */
  private async loadMetadata(): Promise<void> {
    for await (const { key, value } of this.db.iterator({ gte: META_STATE, lt: prefixEnd(META_STATE) }, { capacity: SCAN_CAPACITY })) {
      const { id, kind } = JSON.parse(value.toString('utf8')) as { id: number; kind: Kind }
      this.addTable(key.subarray(META_STATE.length).toString('utf8'), kind, id)
    }
  }

  private newSlot(table: Table, key: KeyRef, h: number): Slot {
    const slot = new Slot(table, key.encoded, key.group, this.epoch)
    table.slots.set(slot, h)
    this.cacheUsed += slot.size
    this.lru.push(slot)
    return slot
  }

  private newCell(slot: Slot, ns: Namespace): Cell {
    const nsBytes = namespaceBytes(ns)
    const kind = slot.table.kind
    const cell = kind === 'value'
      ? new ValueCell(slot, ns, slot.prefixLength + nsBytes.length)
      : kind === 'list'
        ? new ListCell(slot, ns, cellKey(slot.group, slot.table.id, slot.encoded, nsBytes))
        : new MapCell(slot, ns, cellKey(slot.group, slot.table.id, slot.encoded, nsBytes))
    cell.size += cell.keyLength
    slot.set(ns, cell)
    this.resize(slot, cell.size)
    return cell
  }

  private dropCell(cell: Cell): void {
    const slot = cell.slot
    if (slot.get(cell.ns) !== cell) return
    if (cell.ns === '') slot.d = undefined
    else slot.ns?.delete(cell.ns)
    this.resize(slot, -cell.size)
  }

  private resize(slot: Slot, delta: number): void {
    slot.size += delta
    if (!slot.evicted) this.cacheUsed += delta
  }

  private setCellSize(cell: Cell, size: number): void {
    this.resize(cell.slot, size - cell.size)
    cell.size = size
  }

  // ---- reading

  private async readValues(cells: readonly ValueCell[]): Promise<void> {
    if (cells.length === 0) return
    const bloom = this.bloom
    // Each key is built into a scratch buffer and copied into the read batch, unless the
    // written-keys filter says it was never written: then it is absent, with no read.
    const r = this.readers.pop() ?? new NativeReadBatch(this.db)
    const toRead: ValueCell[] = []
    if (bloom === null) {
      for (const c of cells) { const n = scratchKey(c); r.addBytes(keyScratch, n); toRead.push(c) }
    } else {
      // Every key is hashed before the filter is probed, so the probes' memory misses overlap (at
      // 10M keys the filter's 16 MB are far outside the CPU's caches); a key to read is built again.
      for (let i = 0; i < cells.length; i++) { const n = scratchKey(cells[i]!); bloom.locateBatch(i, keyScratch, n) }
      const may = this.mayRead.length >= cells.length ? this.mayRead : (this.mayRead = new Uint8Array(cells.length * 2))
      bloom.testBatch(cells.length, may)
      for (let i = 0; i < cells.length; i++) {
        const c = cells[i]!
        if (may[i] === 0) { this.fillValue(c, null); continue }
        const n = scratchKey(c)
        r.addBytes(keyScratch, n)
        toRead.push(c)
      }
    }
    if (toRead.length === 0) { this.readers.push(r); return }
    this.gets += toRead.length
    // One read batch: one MultiGet on one thread of the pool (several batches at once measured no
    // faster). Data blocks it reads do not go into RocksDB's block cache: what is read again soon is
    // in this backend's cache, and inserting every block into an 8 MB cache over state far larger only
    // churned it (count-10M at 5M events: 125K events/s and 67 CPU s, against 110K and 75 CPU s).
    const values = await r.read(false)
    this.readers.push(r)
    for (let i = 0; i < toRead.length; i++) this.fillValue(toRead[i]!, values[i]!)
  }

  private async runScans(scans: readonly Scan[]): Promise<void> {
    if (scans.length === 0) return
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < scans.length) {
        const s = scans[next++]!
        if (s.cell !== null) {
          const entries = await this.scan(s.cell.key)
          this.fillCell(s.cell, entries, s.cell.key.length)
        } else {
          this.fillSlot(s.slot, await this.scan(s.slot.prefix))
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(SCAN_CONCURRENCY, scans.length) }, worker))
  }

  private async scan(prefix: Buffer): Promise<{ key: Buffer; value: Buffer }[]> {
    this.scans++
    const out: { key: Buffer; value: Buffer }[] = []
    for await (const e of this.db.iterator({ gte: prefix, lt: prefixEnd(prefix) }, { capacity: SCAN_CAPACITY })) out.push(e)
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
      // A resident cell is as new as the disk or newer (only clean cells are ever evicted).
      if (slot.get(ns) === undefined) {
        const cell = this.newCell(slot, ns)
        if (cell.kind === 'value') this.fillValue(cell, entries[i]!.value)
        else this.fillCell(cell, entries.slice(i, j), nsEnd)
      }
      i = j
    }
    slot.allNs = true
    slot.loadingAll = false
  }

  private fillValue(cell: ValueCell, buf: Buffer | null): void {
    cell.loading = false
    if (buf === null) return
    cell.onDisk = true
    const table = cell.slot.table
    const t = entryTime(buf)
    if (t !== null && table.expired(t, this.ttlNow)) {
      // Hidden from now on, deleted at the next flush.
      this.liveEntries--
      this.markDirty(cell)
    } else {
      cell.v = decodeEntry(buf)
      cell.t = t ?? this.ttlNow
    }
    this.setCellSize(cell, CELL_OVERHEAD + cell.keyLength + buf.length)
  }

  /** A list or map from its entries; `at` is where the element's suffix (seq or user key) starts. */
  private fillCell(cell: ListCell | MapCell, entries: readonly { key: Buffer; value: Buffer }[], at: number): void {
    cell.loading = false
    if (entries.length === 0) return
    const table = cell.slot.table
    const now = this.ttlNow
    let size = CELL_OVERHEAD + cell.key.length
    if (cell.kind === 'list') {
      for (const { key, value } of entries) {
        const seq = key.readUInt32BE(key.length - 4)
        cell.nextSeq = seq + 1
        const t = entryTime(value)
        if (t !== null && table.expired(t, now)) { cell.dropped.push(seq); continue }
        cell.items.push(decodeEntry(value))
        cell.times.push(t ?? now)
        cell.seqs.push(seq)
        size += ENTRY_OVERHEAD + value.length
      }
      cell.flushed = cell.items.length
      if (cell.dropped.length > 0) {
        if (cell.items.length === 0) this.liveEntries--
        this.markDirty(cell)
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
          this.liveEntries--
          continue
        }
        e.v = decodeEntry(value)
        e.size = ENTRY_OVERHEAD + key.length + value.length
        size += e.size
        cell.m.set(e.mk, e)
      }
      if (cell.removed.length > 0) this.markDirty(cell)
    }
    this.setCellSize(cell, size)
  }

  // ---- writing

  /** Adds a dirty cell's puts and deletes to `w`; returns the bytes written. */
  private writeCell(w: NativeWriteBatch, cell: Cell): number {
    cell.dirty = false
    cell.slot.dirtyCells--
    cell.slot.written = this.epoch
    const table = cell.slot.table
    const ttl = table.ttlMs > 0
    let bytes = 0
    switch (cell.kind) {
      case 'value': {
        if (cell.v !== ABSENT && ttl && table.expired(cell.t, this.ttlNow)) {
          // Expired while the cache held it (deferred write-back): it is never returned again, so it
          // is not written, and a stored older value goes.
          cell.v = ABSENT
          this.liveEntries--
        }
        if (cell.v === ABSENT) {
          if (cell.onDisk) { w.delete(cell.key); bytes += cell.keyLength; cell.onDisk = false }
          this.setCellSize(cell, CELL_OVERHEAD + cell.keyLength)
        } else {
          // Key and value are built in scratch buffers and copied into the batch.
          const kn = scratchKey(cell)
          const vn = encodeEntryInPlace(ttl ? cell.t : null, cell.v)
          w.putBytes(keyScratch, kn, entryScratch(), vn)
          // A key the database holds is in the filter already (every stored key went through here or bulkPut).
          if (!cell.onDisk && this.bloom !== null) this.bloom.locateBatch(this.bloomAdds++, keyScratch, kn)
          cell.onDisk = true
          bytes += kn + vn
          this.setCellSize(cell, CELL_OVERHEAD + kn + vn)
        }
        return bytes
      }
      case 'list': {
        let size = cell.size
        let from = cell.flushed
        if (cell.replaced) {
          w.deleteRange(cell.key, prefixEnd(cell.key))
          bytes += cell.key.length * 2
          size = CELL_OVERHEAD + cell.key.length
          from = 0
        } else {
          if (cell.dropped.length > 0) {
            const per = (size - CELL_OVERHEAD - cell.key.length) / (cell.items.length + cell.dropped.length)
            for (const seq of cell.dropped) { const k = listElementKey(cell.key, seq); w.delete(k); bytes += k.length; size -= per }
          }
          if (cell.rewrite) from = 0
        }
        for (let i = from; i < cell.items.length; i++) {
          const k = listElementKey(cell.key, cell.seqs[i]!)
          const v = encodeEntry(ttl ? cell.times[i]! : null, cell.items[i])
          w.put(k, v)
          bytes += k.length + v.length
          if (i >= cell.flushed || cell.replaced) size += ENTRY_OVERHEAD + v.length
        }
        cell.replaced = false
        cell.rewrite = false
        cell.dropped = []
        cell.flushed = cell.items.length
        this.setCellSize(cell, Math.max(size, CELL_OVERHEAD + cell.key.length))
        return bytes
      }
      case 'map': {
        let size = cell.size
        if (cell.cleared) {
          // The range delete goes first: the puts after it in the same batch survive it.
          w.deleteRange(cell.key, prefixEnd(cell.key))
          bytes += cell.key.length * 2
          size = CELL_OVERHEAD + cell.key.length
          cell.cleared = false
          cell.stored = false
        }
        for (const e of cell.removed) {
          if (!e.onDisk) continue
          const kb = this.entryKey(cell, e)
          w.delete(kb)
          bytes += kb.length
          size -= e.size
          e.onDisk = false
        }
        cell.removed = []
        for (const e of cell.changed) {
          e.queued = false
          if (cell.m.get(e.mk) !== e) continue
          const kb = this.entryKey(cell, e)
          const v = encodeEntry(ttl ? e.t : null, e.v, userKeyNeedsCopy(e.k) ? e : undefined)
          w.put(kb, v)
          bytes += kb.length + v.length
          const s = ENTRY_OVERHEAD + kb.length + v.length
          size += s - e.size
          e.size = s
          e.onDisk = true
          cell.stored = true
        }
        cell.changed = []
        this.setCellSize(cell, Math.max(size, CELL_OVERHEAD + cell.key.length))
        return bytes
      }
    }
  }

  private entryKey(cell: MapCell, e: MapEntry): Buffer {
    return mapEntryKey(cell.key, (e.ek ??= encodeUserKey(e.k)))
  }

  // ---- eviction

  private evict(): void {
    if (this.cacheUsed > this.cacheBytes) {
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
          q.push(slot)
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
      if (evicted) for (const table of this.tableList) table.invalidate()
    }
    if (this.lruHead > 1024 && this.lruHead * 2 > this.lru.length) {
      this.lru = this.lru.slice(this.lruHead)
      this.lruHead = 0
    }
  }

  private evictSlot(slot: Slot): void {
    // A slot that is not evicted is the one its table maps its key to (newSlot never replaces one).
    slot.table.slots.delete(slot)
    this.cacheUsed -= slot.size
    slot.evicted = true
  }

  /** Drops clean slots matching `which` (callers flush first). */
  private dropCache(which: (slot: Slot) => boolean): void {
    for (const table of this.tableList) {
      for (const slot of table.slots.values()) if (which(slot)) this.evictSlot(slot)
      table.invalidate()
    }
    if (this.cacheUsed <= 0 || this.tableList.every(t => t.slots.size === 0)) {
      this.lru = []
      this.lruHead = 0
      this.cacheUsed = 0
    }
  }

  /** The resident cell of a stored key's (key, namespace) in `table`, if any. */
  private residentCell(table: Table, key: Buffer): Cell | undefined {
    if (table.slots.size === 0) return undefined
    const s = readUtf16be(key, 4, key.length - (key.length % 2))
    try {
      // The key's arity is not stored: try each value boundary (keys of one operator share an arity).
      for (let i = 0; i < s.length;) {
        i = skipEncoded(s, i)
        const slot = table.slots.get(s.slice(0, i))
        if (slot === undefined) continue
        if (i >= s.length) return undefined
        const cell = slot.get(decodeEncoded(s, i) as Namespace)
        // The namespace must be followed by exactly what the kind stores after it.
        if (cell !== undefined && startsWithAt(key, cell.key, 0)) return cell
        return undefined
      }
    } catch {
      // Ran into a list sequence number or a user key: no resident slot matched.
    }
    return undefined
  }

  // ------------------------------------------------------------------ checkpoint files

  /** A local snapshot of the database files now; their upload in the background (snapshot.ts). */
  checkpoint(options: StateSnapshotOptions): Promise<PendingStateSnapshot<RocksDbStateHandle>> {
    return checkpointDatabase(this, options)
  }

  /** Writes what the cache holds, then the size of the state folder and (`countStored`) the entries stored. */
  async storageStats(countStored: boolean): Promise<StateStorageStats> {
    await this.sync()
    const diskBytes = await this.diskBytes()
    return countStored ? { diskBytes, storedEntries: await this.countEntries({ stored: true }) } : { diskBytes }
  }

  /** The RocksDB database folder inside `dir`. */
  get dbDir(): string {
    return join(this.dir, DB_FOLDER)
  }

  /**
   * For a checkpoint of the database files: writes every held change and flushes the memtable, so
   * that the SST files hold all state. Returns the database folder. Compactions go on meanwhile.
   */
  async flushToFiles(): Promise<string> {
    await this.sync()
    try {
      await this.db.flush()
    } catch (e) {
      throw ioFailed(this.dir, e, 'writing')
    }
    return this.dbDir
  }

  /**
   * flushToFiles(), then runs `fn` on the database folder while RocksDB's background work is paused
   * (pausing waits for a running flush or compaction to finish): no flush, compaction or deletion of
   * obsolete files changes the folder until `fn` settles. Reads and writes issued meanwhile wait.
   * Keep `fn` short: hard links and small copies.
   */
  async whilePaused<T>(fn: (dbDir: string) => Promise<T>): Promise<T> {
    await this.flushToFiles()
    try {
      await this.db.suspend()
    } catch (e) {
      // A failed suspend can leave the binding waiting for a resume that never comes.
      this.failure ??= ioFailed(this.dir, e, 'writing')
      throw this.failure
    }
    try {
      return await fn(this.dbDir)
    } finally {
      try {
        await this.db.resume()
      } catch (e) {
        this.failure ??= ioFailed(this.dir, e, 'writing')
        // eslint-disable-next-line no-unsafe-finally
        throw this.failure
      }
    }
  }

  /**
   * Deletes every stored entry of key groups outside this subtask's range: what a database restored
   * from the files of another parallelism holds besides its own groups (range deletes; the bytes go
   * at compaction). Call countEntries() afterwards for exact stats.
   */
  async dropForeignKeyGroups(): Promise<void> {
    await this.sync()
    const { start, end } = this.keyGroupRange
    const w = new NativeWriteBatch(this.db)
    if (start > 0) w.deleteRange(groupPrefix(0), groupPrefix(start))
    w.deleteRange(groupPrefix(end + 1), groupPrefix(META_GROUP))
    try {
      await w.apply()
    } catch (e) {
      throw ioFailed(this.dir, e, 'writing')
    }
  }

  /**
   * Bulk load: writes the entries `keep` accepts (it may rewrite the key in place, e.g. to this
   * database's state id) in write batches of RESTORE_BATCH, after any pending state metadata.
   * Returns how many it wrote.
   */
  private async bulkPut(entries: AsyncIterable<{ readonly key: Buffer; readonly value: Buffer }>, keep: (key: Buffer) => boolean): Promise<number> {
    const w = new NativeWriteBatch(this.db)
    let written = 0
    try {
      for (const [k, v] of this.pendingMeta) w.put(k, v)
      this.pendingMeta = []
      for await (const { key, value } of entries) {
        if (!keep(key)) continue
        w.put(key, value)
        this.bloom?.add(key)
        this.bytesWritten += key.length + value.length
        written++
        if (w.length >= RESTORE_BATCH) await w.apply()
      }
      await w.apply()
    } catch (e) {
      throw ioFailed(this.dir, e, 'writing')
    }
    return written
  }

  /**
   * Copies every stored entry of `source`'s key groups in `range` that this subtask owns into this
   * database, states matched by name (their ids may differ), and adds them to `stats().entries`.
   * For a restore into another parallelism: no intermediate file and no recount, unlike
   * snapshotKeyGroups → restoreKeyGroups. Expired entries are copied too (reads hide them as
   * before). Returns the stored entries copied.
   */
  async copyKeyGroupsFrom(source: RocksDbKeyedStateBackend, range: { readonly start: number; readonly end: number }): Promise<number> {
    await this.sync()
    await source.sync()
    const start = Math.max(range.start, this.keyGroupRange.start, source.keyGroupRange.start)
    const end = Math.min(range.end, this.keyGroupRange.end, source.keyGroupRange.end)
    if (start > end) return 0
    const ids = new Map<number, Table>()
    for (const t of source.tableList) ids.set(t.id, this.table(t.name, t.kind))
    let live = 0
    let lastList: Buffer | null = null
    const entries = source.db.iterator({ gte: groupPrefix(start), lt: groupPrefix(end + 1) }, { capacity: SCAN_CAPACITY })
    const copied = await this.bulkPut(entries, key => {
      const table = ids.get(key.readUInt16BE(2))
      if (table === undefined) return false
      key.writeUInt16BE(table.id, 2)
      if (table.kind !== 'list') live++
      else {
        // A list counts once: its elements share the key up to the 4-byte sequence number.
        const prefix = key.subarray(0, key.length - 4)
        if (lastList === null || !lastList.equals(prefix)) live++
        lastList = prefix
      }
      return true
    })
    this.dropCache(slot => slot.key.group >= start && slot.key.group <= end)
    this.liveEntries += live
    return copied
  }
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

function startsWithAt(buf: Buffer, part: Buffer, at: number): boolean {
  if (buf.length < at + part.length) return false
  return buf.compare(part, 0, part.length, at, at + part.length) === 0
}

function hasLive(table: Table, cell: Cell, now: number): boolean {
  switch (cell.kind) {
    case 'value': return cell.v !== ABSENT && !table.expired(cell.t, now)
    case 'list': return cell.times.some(t => !table.expired(t, now))
    case 'map':
      for (const e of cell.m.values()) if (!table.expired(e.t, now)) return true
      return false
  }
}
