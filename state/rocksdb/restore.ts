// Restoring one subtask's RocksDB state from checkpoint handles. Same key groups as a handle: its
// files go straight into the working folder. Parallelism changed: the handle that overlaps most is
// the base (opened, then trimmed to the subtask's key groups); the overlapping key groups of the
// others are copied in from their databases, opened in a temporary folder.
import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { DEFAULT_MAX_PARALLELISM } from '../key-encoding.js'
import { RocksDbKeyedStateBackend, type RocksDbBackendOptions } from './rocksdb-backend.js'
import { checkHandle, type KeyGroupRange, type RocksDbStateHandle, type StoredDbFile, type StoredSst } from './handle.js'
import { tableFileNumber } from './manifest-reader.js'
import { fetchFile } from './transfer.js'
import type { CheckpointStorage } from '../../checkpoint/storage/api.js'

export interface RestoreRocksDbOptions {
  /** How to open the subtask's backend (its keyGroupRange is set to `range`). */
  readonly open: RocksDbBackendOptions
  /** The key groups the subtask owns now. */
  readonly range: KeyGroupRange
  /** The operator's handles in the checkpoint (all, or only those overlapping `range`); each knows its key groups. */
  readonly handles: readonly (RocksDbStateHandle | { readonly handle: RocksDbStateHandle })[]
  readonly storage: CheckpointStorage
  /** A folder for the databases of other handles while their key groups are moved (removed afterwards). */
  readonly tmpDir: string
  /** Files downloaded at once (default 4). */
  readonly concurrency?: number
}

export interface RestoreStats {
  /** 'files': one handle's database as it was; 'rescaled': trimmed and/or gathered from several; 'empty': no state. */
  readonly mode: 'files' | 'rescaled' | 'empty'
  readonly millis: number
  /** Handles whose files were downloaded. */
  readonly handles: number
  readonly files: number
  /** Bytes downloaded (compressed). */
  readonly storedBytes: number
  /** Stored entries copied in from handles other than the base. */
  readonly copiedEntries: number
}

export interface RestoredRocksDb {
  readonly backend: RocksDbKeyedStateBackend
  /** The shared SSTs the restored database still has (also its `storedSsts`): the next checkpoint uploads only new ones. */
  readonly known: Map<string, StoredSst>
  readonly stats: RestoreStats
}

const DEFAULT_CONCURRENCY = 4
/** Cache budget of the temporary backends that only hand their key groups over (they never cache anything). */
const TEMP_CACHE_BYTES = 1 << 20

/**
 * Opens the subtask's backend with the state of `handles` for the key groups in `range`, every key
 * exactly once. The restored database's reads never rely on the key filter (it has not seen the
 * keys). Missing or corrupt objects, handles of another max-parallelism, and handles that leave key
 * groups of `range` uncovered or cover one twice are checkpoint errors.
 *
 * @example
 * const { backend, known } = await restoreRocksDbSubtask({
 *   open: { dir, jobName, operatorId, maxParallelism: 128 }, range: keyGroupRange(1, 2),
 *   handles: manifest.subtasks.map(s => s.rocksdb), storage, tmpDir,
 * })
 */
export async function restoreRocksDbSubtask(options: RestoreRocksDbOptions): Promise<RestoredRocksDb> {
  const t0 = performance.now()
  const { range, storage } = options
  const maxParallelism = options.open.maxParallelism ?? DEFAULT_MAX_PARALLELISM
  const handles = options.handles.map((h, i) => checkHandle('handle' in h ? h.handle : h, `RocksDB state handle ${i}`))
  for (const h of handles) {
    if (h.maxParallelism !== maxParallelism) {
      throw WeirError.checkpoint(
        `the checkpoint's RocksDB state was written with 'pipeline.max-parallelism' = ${h.maxParallelism}, but this job has ${maxParallelism}`,
        {
          help: `set 'pipeline.max-parallelism' = '${h.maxParallelism}' to restore it`,
        },
      )
    }
  }
  const open: RocksDbBackendOptions = { ...options.open, keyGroupRange: range }
  const overlapping = handles.filter(h => overlap(h.keyGroups, range) !== null)
  if (overlapping.length === 0) {
    if (handles.length > 0) throw uncovered(range, range)
    const backend = await RocksDbKeyedStateBackend.open(open)
    return { backend, known: backend.storedSsts,
      stats: { mode: 'empty', millis: performance.now() - t0, handles: 0, files: 0, storedBytes: 0, copiedEntries: 0 } }
  }
  checkCoverage(overlapping, range)

  // The base: the handle with the most of the subtask's key groups; its files become the database.
  const size = (h: RocksDbStateHandle): number => {
    const o = overlap(h.keyGroups, range)!
    return o.end - o.start + 1
  }
  const base = overlapping.reduce((a, b) => (size(b) > size(a) ? b : a))
  const exact = base.keyGroups.start === range.start && base.keyGroups.end === range.end
  const others = overlapping.filter(h => h !== base)
  const limit = limiter(options.concurrency ?? DEFAULT_CONCURRENCY)
  const transfer = { files: 0, storedBytes: 0 }
  const download = (h: RocksDbStateHandle) => async (dbDir: string): Promise<void> => {
    await settleAll(h.files.map(f =>
      limit(async () => {
        // Not `+= await`: that reads the total before the await and loses concurrent additions.
        const bytes = await fetchFile(storage, f, join(dbDir, f.name))
        transfer.storedBytes += bytes
        transfer.files++
      })
    ))
  }
  const tmpRoot = join(resolve(options.tmpDir), `restore-${randomUUID()}`)
  // Live entries of the trimmed base, estimated from its share of the base's key groups (counting is a full scan).
  const baseEntries = Math.round((base.entries * size(base)) / (base.keyGroups.end - base.keyGroups.start + 1))

  try {
    // Every download at once (within the limit): the base's into the working folder, the others' into tmpRoot.
    const opening = [
      RocksDbKeyedStateBackend.open({ ...open, restoreFiles: download(base), restoredEntries: baseEntries }),
      ...others.map((h, i) =>
        RocksDbKeyedStateBackend.open({
          dir: join(tmpRoot, `handle-${i}`),
          jobName: open.jobName,
          operatorId: open.operatorId,
          maxParallelism,
          keyGroupRange: h.keyGroups,
          cacheBytes: TEMP_CACHE_BYTES,
          restoreFiles: download(h),
          restoredEntries: h.entries,
        })
      ),
    ]
    const settled = await Promise.allSettled(opening)
    const backends = settled.flatMap(r => (r.status === 'fulfilled' ? [r.value] : []))
    const failed = settled.find(r => r.status === 'rejected')
    if (failed !== undefined) {
      for (const b of backends) await b.destroy().catch(() => undefined)
      throw (failed as PromiseRejectedResult).reason
    }
    const [backend, ...temps] = backends as [RocksDbKeyedStateBackend, ...RocksDbKeyedStateBackend[]]
    let copiedEntries = 0
    try {
      if (!exact) await backend.dropForeignKeyGroups()
      for (const temp of temps) {
        const copied = await backend.copyKeyGroupsFrom(temp, range)
        copiedEntries += copied
      }
    } catch (e) {
      await backend.destroy().catch(() => undefined)
      throw e
    } finally {
      for (const temp of temps) await temp.destroy().catch(() => undefined)
    }
    const known = sharedSsts(base)
    backend.storedSsts = known
    backend.storedSstsIn = storage.uri
    return {
      backend,
      known,
      stats: {
        mode: exact ? 'files' : 'rescaled',
        millis: performance.now() - t0,
        handles: overlapping.length,
        files: transfer.files,
        storedBytes: transfer.storedBytes,
        copiedEntries,
      },
    }
  } finally {
    await rm(tmpRoot, { recursive: true, force: true })
  }
}

/** The SSTs of `handle` later checkpoints may reference: shared ones only (a savepoint's files belong to the savepoint). */
function sharedSsts(handle: RocksDbStateHandle): Map<string, StoredSst> {
  const known = new Map<string, StoredDbFile>()
  if (!handle.selfContained) { for (const f of handle.files) if (f.shared && tableFileNumber(f.name) !== null) known.set(f.name, f) }
  return known
}

function overlap(a: KeyGroupRange, b: KeyGroupRange): KeyGroupRange | null {
  const start = Math.max(a.start, b.start)
  const end = Math.min(a.end, b.end)
  return start <= end ? { start, end } : null
}

/** Every key group of `range` in exactly one handle. */
function checkCoverage(handles: readonly RocksDbStateHandle[], range: KeyGroupRange): void {
  const sorted = [...handles].sort((a, b) => a.keyGroups.start - b.keyGroups.start)
  let next = range.start
  for (const h of sorted) {
    const o = overlap(h.keyGroups, range)!
    if (o.start > next) throw uncovered(range, { start: next, end: o.start - 1 })
    if (o.start < next) {
      throw WeirError.checkpoint(`the checkpoint holds RocksDB state of key groups ${o.start}–${Math.min(o.end, next - 1)} twice`, {
        help: 'the checkpoint manifest is damaged: restore from another checkpoint or savepoint',
      })
    }
    next = o.end + 1
  }
  if (next <= range.end) throw uncovered(range, { start: next, end: range.end })
}

function uncovered(range: KeyGroupRange, missing: KeyGroupRange): WeirError {
  return WeirError.checkpoint(
    `the checkpoint has no RocksDB state for key groups ${missing.start}–${missing.end} (restoring key groups ${range.start}–${range.end})`,
    {
      help: 'the checkpoint manifest is incomplete: restore from another checkpoint or savepoint',
    },
  )
}

/** Waits for every promise; then rejects with the first failure, if any (nothing keeps running behind a rejection). */
async function settleAll(promises: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises)
  const failed = results.find(r => r.status === 'rejected')
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason
}

/** At most `n` calls of the returned function run at once; the rest queue in order. */
function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0
  const queue: (() => void)[] = []
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    // A released slot is handed straight to the next in the queue.
    if (active >= n) await new Promise<void>(r => queue.push(r))
    else active++
    try {
      return await fn()
    } finally {
      const next = queue.shift()
      if (next !== undefined) next()
      else active--
    }
  }
}
