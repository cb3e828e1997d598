// The RocksDB keyed-state backend: state on local disk behind the same synchronous API as the heap
// backend. Bundled access: `prefetch` reads a batch's (key, namespace) pairs in one read batch plus
// bounded prefix scans, state calls run against a write-back cache, `flush` writes what changed in one
// write batch. This class opens the database and hands each call to the part that does it: the
// shared store and cache (store.ts), prefetch.ts, write-back.ts, ttl-sweep.ts, key-group-transfer.ts,
// diagnostics.ts; its checkpoints are snapshot.ts and restore.ts.
import { join, resolve } from 'node:path'
import RocksDB from 'rocksdb-native'
import { WeirError } from '../../common/errors.js'
import type { KeyRef, ListState, ListStateDescriptor, MapState, MapStateDescriptor, PrefetchRequest, StateStats, ValueState,
  ValueStateDescriptor } from '../../core/keyed-state.js'
import type { PendingStateSnapshot, StateSnapshotOptions, StateStorageStats, SubtaskStateBackend } from '../backend.js'
import { DEFAULT_MAX_PARALLELISM } from '../key-encoding.js'
import { STATE_CACHE_SIZE, WRITE_BUFFER_SIZE } from '../../common/config/options.js'
import { countEntries, residentKeys } from './diagnostics.js'
import { fillDbFolder, folderBytes, ioFailed, openFailed, prepareFolder, releaseFolder, removeFolder } from './folder.js'
import type { RocksDbStateHandle, StoredSst } from './handle.js'
import { KeyBloom } from './key-bloom.js'
import { KeyGroupTransfer, type KeyGroupSnapshot, type SourceDatabase } from './key-group-transfer.js'
import { checkInternals, NativeWriteBatch } from './native-batch.js'
import { Prefetcher } from './prefetch.js'
import { checkpointDatabase } from './snapshot.js'
import { RocksListState, RocksMapState, RocksValueState } from './states.js'
import { RocksStore } from './store.js'
import { TtlSweep } from './ttl-sweep.js'
import { WriteBack } from './write-back.js'

export type { KeyGroupSnapshot }

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
   * contract says. 'deferred': only once the changes held reach cacheBytes / 512, the list elements
   * and new map entries held cacheBytes / 8 (at their measured size), or evicting clean slots no
   * longer keeps the cache within budget (held elements count in it); a hot key then costs one put
   * per many bundles, and writes go in large batches, which RocksDB applies for less per entry. sync()
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

const DB_FOLDER = 'db'
/**
 * SST data block size. Point reads of state far larger than memory read one block each, and
 * rocksdb-native's block cache is RocksDB's fixed 8 MB: 4 KB blocks measured 110–114K events/s on
 * count-10M at 5M events against 98–102K with 8 KB (16 KB: 92K; 2 KB: 100K, as the index outgrows
 * that cache; 1 KB: 91K).
 */
const BLOCK_SIZE = 4096

/**
 * RocksDB's flush and compaction threads (rocksdb-native opens with 6; RocksDB's and Flink's default is 2).
 * On the 2-core host, q20-rocksdb at 0.5 measured 5.75, 5.95, 6.35 process CPU-µs/event against 6.65,
 * 6.46, 7.26 with 6, alternating (2026-12-04); q4-rocksdb at 0.25, which never flushes, the same.
 */
const BACKGROUND_JOBS = 2

/** The options every backend database opens with (also what bench/state/storage-floor.ts opens). */
export function databaseOptions(
  writeBufferBytes: number | undefined,
): { writeBufferSize: number; tableBlockSize: number; maxBackgroundJobs: number } {
  return { writeBufferSize: writeBufferBytes ?? WRITE_BUFFER_SIZE.default, tableBlockSize: BLOCK_SIZE, maxBackgroundJobs: BACKGROUND_JOBS }
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
export class RocksDbKeyedStateBackend implements SubtaskStateBackend<RocksDbStateHandle>, SourceDatabase {
  readonly needsPrefetch = true
  readonly dir: string
  readonly maxParallelism: number
  readonly keyGroupRange: { readonly start: number; readonly end: number }
  readonly cacheBytes: number
  /**
   * The SSTs of this database that an earlier retained checkpoint stored (SST files never change and
   * their numbers are never reused): the next checkpoint references them instead of uploading them.
   */
  storedSsts = new Map<string, StoredSst>()
  /** The storage (its URI) `storedSsts` are in: a checkpoint to another storage cannot reference them. */
  storedSstsIn: string | undefined
  /** What the parts below share (for them and for another backend of this folder copying key groups; not for callers). */
  readonly store: RocksStore
  private readonly prefetcher: Prefetcher
  private readonly writeBack: WriteBack
  private readonly sweep: TtlSweep
  private readonly keyGroups: KeyGroupTransfer

  private constructor(db: RocksDB, options: RocksDbBackendOptions, maxParallelism: number) {
    checkInternals(db)
    this.dir = resolve(options.dir)
    this.maxParallelism = maxParallelism
    this.keyGroupRange = options.keyGroupRange ?? { start: 0, end: maxParallelism - 1 }
    this.cacheBytes = options.cacheBytes ?? STATE_CACHE_SIZE.default
    this.store = new RocksStore(db, {
      dir: this.dir,
      maxParallelism,
      keyGroupRange: this.keyGroupRange,
      cacheBytes: this.cacheBytes,
      writeBufferBytes: options.writeBufferBytes ?? WRITE_BUFFER_SIZE.default,
      bloom: options.reuse === true ? null : new KeyBloom(this.cacheBytes),
    })
    this.prefetcher = new Prefetcher(this.store)
    const maxHeldChanges = options.writeBack === 'deferred' ? Math.max(1024, Math.floor(this.cacheBytes / 512)) : 0
    this.writeBack = new WriteBack(this.store, new NativeWriteBatch(db), maxHeldChanges)
    this.sweep = new TtlSweep(this.store, this.writeBack)
    this.keyGroups = new KeyGroupTransfer(this.store, this.writeBack)
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
      backend.store.bloom = null
      await backend.store.tables.load(db)
      if (restored && options.restoredEntries !== undefined) backend.store.liveEntries = options.restoredEntries
      else await backend.countEntries()
    }
    return backend
  }

  // ------------------------------------------------------------------ KeyedStateStore

  getValueState<T>(descriptor: ValueStateDescriptor<T>): ValueState<T> {
    const table = this.store.tables.register(descriptor.name, 'value', descriptor.ttl)
    return (table.handle ??= new RocksValueState<T>(this.store, table)) as ValueState<T>
  }

  getListState<T>(descriptor: ListStateDescriptor<T>): ListState<T> {
    const table = this.store.tables.register(descriptor.name, 'list', descriptor.ttl)
    return (table.handle ??= new RocksListState<T>(this.store, table)) as ListState<T>
  }

  getMapState<K, V>(descriptor: MapStateDescriptor<K, V>): MapState<K, V> {
    const table = this.store.tables.register(descriptor.name, 'map', descriptor.ttl)
    return (table.handle ??= new RocksMapState<K, V>(this.store, table)) as MapState<K, V>
  }

  setCurrentKey(key: KeyRef): void {
    if (key.group < this.keyGroupRange.start || key.group > this.keyGroupRange.end) this.store.outOfRange(key)
    this.store.currentKey = key
  }

  getCurrentKey(): KeyRef | undefined {
    return this.store.currentKey
  }

  setTtlTime(now: number): void {
    this.store.ttlNow = now
  }

  // ------------------------------------------------------------------ bundles

  /** Makes every state of each (key, namespace) resident (prefetch.ts). */
  prefetch(requests: readonly PrefetchRequest[]): Promise<void> {
    return this.prefetcher.prefetch(requests)
  }

  /** Ends a bundle: writes what changed in one write batch (deferred: once enough is held), then evicts (write-back.ts). */
  flush(): Promise<void> {
    return this.writeBack.flush()
  }

  /** Writes every dirty entry (whatever the write-back mode), waits until RocksDB applied it, and evicts down to the budget. */
  sync(): Promise<void> {
    return this.writeBack.sync()
  }

  // ------------------------------------------------------------------ diagnostics

  /** Resident keys only, in the order of their encoding: a disk backend does not list what is not in its cache. */
  keys(stateName: string): IterableIterator<KeyRef> {
    return residentKeys(this.store, stateName)
  }

  /** `entries` is approximate (see countEntries); `bytesWritten` counts key and value bytes of every flush. */
  stats(): StateStats {
    return { entries: this.store.liveEntries, bytesWritten: this.store.bytesWritten }
  }

  /**
   * Flushes, then counts live entries on disk exactly (a list counts once) and resets `stats().entries`
   * to it. With `stored`, counts what the database holds instead: expired entries too, every list element.
   */
  countEntries(options: { readonly stored?: boolean } = {}): Promise<number> {
    return countEntries(this.store, this.writeBack, options)
  }

  /** The cache's estimated bytes and resident slots, and the reads issued so far (value gets, prefix scans, and the scans the written-keys filter spared). */
  cacheStats(): { readonly bytes: number; readonly slots: number; readonly gets: number; readonly scans: number; readonly skippedScans: number } {
    let slots = 0
    for (const table of this.store.tables.list) slots += table.slots.size
    return { bytes: this.store.cacheUsed, slots, gets: this.prefetcher.gets, scans: this.prefetcher.scans, skippedScans: this.prefetcher.skipped }
  }

  /** Writes everything, then compacts the whole database (after a bulk load or a restore, say). */
  async compact(): Promise<void> {
    await this.sync()
    try {
      await this.store.db.compactRange()
    } catch (e) {
      throw ioFailed(this.dir, e, 'writing')
    }
  }

  /** Size in bytes of the files in the state folder. */
  diskBytes(): Promise<number> {
    return folderBytes(this.dir)
  }

  /** At the job's end: the size of the state folder; with `countStored`, what the cache holds written first and the entries stored counted. */
  async storageStats(countStored: boolean): Promise<StateStorageStats> {
    if (!countStored) {
      // What the job wrote: the changes the cache still holds are never written (the folder goes next).
      await this.writeBack.settle()
      return { diskBytes: await this.diskBytes() }
    }
    await this.sync()
    return { diskBytes: await this.diskBytes(), storedEntries: await this.countEntries({ stored: true }) }
  }

  // ------------------------------------------------------------------ TTL

  /** Deletes up to `budget` examined entries' worth of expired state from disk, resuming where the last call stopped (ttl-sweep.ts). */
  cleanupExpired(budget = Number.POSITIVE_INFINITY): Promise<number> {
    return this.sweep.cleanupExpired(budget)
  }

  // ------------------------------------------------------------------ key groups (key-group-transfer.ts)

  /**
   * Writes every live entry of the key groups in `range` (within this subtask's) into one file in
   * `folder`, after flushing. Restore it with `restoreKeyGroups` into a backend of the same max-parallelism.
   */
  snapshotKeyGroups(range: { readonly start: number; readonly end: number }, folder: string): Promise<KeyGroupSnapshot> {
    return this.keyGroups.snapshot(range, folder)
  }

  /**
   * Loads the key-group files in `folder` (written by snapshotKeyGroups, from any subtask), keeping
   * only key groups this backend owns; states are matched by name. Meant for a fresh backend: the
   * cache is dropped and `stats().entries` recounted.
   */
  restoreKeyGroups(folder: string): Promise<number> {
    return this.keyGroups.restore(folder)
  }

  /** Deletes all state of one key group (after flushing), on disk and in the cache. */
  clearKeyGroup(group: number): Promise<void> {
    return this.keyGroups.clear(group)
  }

  /** Deletes every stored entry of key groups outside this subtask's range (after a restore from another parallelism's files). */
  dropForeignKeyGroups(): Promise<void> {
    return this.keyGroups.dropForeign()
  }

  /** Copies the stored entries of `source`'s key groups in `range` that this subtask owns into this database. */
  copyKeyGroupsFrom(source: RocksDbKeyedStateBackend, range: { readonly start: number; readonly end: number }): Promise<number> {
    return this.keyGroups.copyFrom(source, range)
  }

  // ------------------------------------------------------------------ checkpoint files

  /** A local snapshot of the database files now; their upload in the background (snapshot.ts). */
  checkpoint(options: StateSnapshotOptions): Promise<PendingStateSnapshot<RocksDbStateHandle>> {
    return checkpointDatabase(this, options)
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
      await this.store.db.flush()
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
    const store = this.store
    try {
      await store.db.suspend()
    } catch (e) {
      // A failed suspend can leave the binding waiting for a resume that never comes.
      store.failure ??= ioFailed(this.dir, e, 'writing')
      throw store.failure
    }
    try {
      return await fn(this.dbDir)
    } finally {
      try {
        await store.db.resume()
      } catch (e) {
        store.failure ??= ioFailed(this.dir, e, 'writing')
        // eslint-disable-next-line no-unsafe-finally
        throw store.failure
      }
    }
  }

  // ------------------------------------------------------------------ lifecycle

  /** Closes the database. Unflushed changes are dropped: call flush() first to keep them. */
  async close(): Promise<void> {
    const store = this.store
    if (store.closed) return
    store.closed = true
    if (store.inflight !== null) await store.inflight
    store.inflight = null
    await this.sweep.settle()
    store.forgetCache()
    try {
      await store.db.close()
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
}
