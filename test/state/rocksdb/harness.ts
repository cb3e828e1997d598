// Test harness for keyed-state backends: opens heap or RocksDB backends (in temp folders, removed
// afterwards) and hides what differs between them — prefetching, exact entry counts, key-group snapshots.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import RocksDB from 'rocksdb-native'
import type { KeyedStateBackend, KeyRef, Namespace } from '../../../core/keyed-state.js'
import { HeapKeyedStateBackend, type HeapSnapshot } from '../../../state/heap/heap-backend.js'
import { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'

export interface OpenOptions {
  readonly maxParallelism?: number
  readonly keyGroupRange?: { readonly start: number; readonly end: number }
}

/** One backend flavour the shared behaviour suite runs against. */
export interface Harness {
  readonly name: string
  open(options?: OpenOptions): Promise<KeyedStateBackend>
}

const roots: string[] = []
const opened: RocksDbKeyedStateBackend[] = []
const rawDbs: RocksDB[] = []

/** A fresh temp folder, removed by `cleanup()`. */
export async function tempDir(prefix = 'weir-rocks-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  roots.push(dir)
  return dir
}

let counter = 0

/** Backends whose access batches end with a plain flush (deferred write-back: state stays in memory across them). */
const flushOnly = new WeakSet<KeyedStateBackend>()

/** A RocksDB backend in a fresh folder; destroyed by `cleanup()`. */
export async function openRocks(options: OpenOptions & { cacheBytes?: number; writeBack?: 'bundle' | 'deferred' } = {}): Promise<RocksDbKeyedStateBackend> {
  const root = await tempDir()
  const b = await RocksDbKeyedStateBackend.open({ dir: join(root, 'job', `op-${++counter}`), jobName: 'job', operatorId: `op-${counter}`, ...options })
  opened.push(b)
  if (options.writeBack === 'deferred') flushOnly.add(b)
  return b
}

/** A bare rocksdb-native database, in `dir` or a fresh folder; closed by `cleanup()`. */
export async function openRawDb(dir?: string): Promise<RocksDB> {
  const db = new RocksDB(dir ?? join(await tempDir(), 'db'))
  await db.ready()
  rawDbs.push(db)
  return db
}

/** Destroys every backend and closes every database opened here, and removes every temp folder. */
export async function cleanup(): Promise<void> {
  for (const b of opened.splice(0)) await b.destroy().catch(() => undefined)
  for (const db of rawDbs.splice(0)) await db.close().catch(() => undefined)
  for (const dir of roots.splice(0)) await rm(dir, { recursive: true, force: true })
}

export const harnesses: readonly Harness[] = [
  { name: 'heap', open: async o => new HeapKeyedStateBackend(o) },
  { name: 'rocksdb', open: o => openRocks(o) },
  // A zero cache budget evicts everything at each flush: every access batch reads from disk.
  { name: 'rocksdb, cache evicted at every flush', open: o => openRocks({ ...o, cacheBytes: 0 }) },
  // Deferred write-back: changes stay in the cache across access batches until something syncs.
  { name: 'rocksdb, deferred write-back', open: o => openRocks({ ...o, writeBack: 'deferred' }) },
]

/** Ends an access batch: flush, and on disk wait for the write (so a zero-budget cache is empty after it). */
export async function settle(b: KeyedStateBackend): Promise<void> {
  if (b instanceof RocksDbKeyedStateBackend && !flushOnly.has(b)) await b.sync()
  else await b.flush()
}

/** Everything written to disk, whatever the write-back mode. */
export async function written(b: KeyedStateBackend): Promise<void> {
  if (b instanceof RocksDbKeyedStateBackend) await b.sync()
  else await b.flush()
}

/** Starts an access batch for `key`: settle the last one, prefetch every namespace, set the key. */
export async function at(b: KeyedStateBackend, key: KeyRef, namespace?: Namespace): Promise<void> {
  await settle(b)
  await b.prefetch([{ key, namespace }])
  b.setCurrentKey(key)
}

/** Makes all these keys resident together (for keys(), which lists resident keys only on disk). */
export async function resident(b: KeyedStateBackend, keys: readonly KeyRef[]): Promise<void> {
  await settle(b)
  await b.prefetch(keys.map(key => ({ key })))
}

/** The exact number of live entries. */
export async function liveEntries(b: KeyedStateBackend): Promise<number> {
  return b instanceof RocksDbKeyedStateBackend ? b.countEntries() : b.stats().entries
}

/** A snapshot of the key groups in `range`: heap snapshot data, or the folder the RocksDB files went to. */
export type Snap = HeapSnapshot | string

export async function snapshot(b: KeyedStateBackend, range: { start: number; end: number }): Promise<Snap> {
  if (b instanceof HeapKeyedStateBackend) return structuredClone(b.snapshot())
  const folder = join(await tempDir('weir-snap-'), 'chk')
  await (b as RocksDbKeyedStateBackend).snapshotKeyGroups(range, folder)
  return folder
}

export async function restore(b: KeyedStateBackend, snap: Snap): Promise<void> {
  if (b instanceof HeapKeyedStateBackend) b.restore(snap as HeapSnapshot)
  else await (b as RocksDbKeyedStateBackend).restoreKeyGroups(snap as string)
}
