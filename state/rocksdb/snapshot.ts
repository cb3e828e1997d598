// Incremental checkpoints of the RocksDB state backend: a fast local snapshot (hard links to the
// live files, taken while processing is paused), then an upload in the background that stores only
// the SST files no earlier retained checkpoint of the same database stored. Restore: restore.ts.
import { randomUUID } from 'node:crypto'
import { copyFile, link, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { errnoCode, fsError, operationOf } from '../../common/fs-errors.js'
import { makeDirs } from './folder.js'
import type { RocksDbKeyedStateBackend } from './rocksdb-backend.js'
import { ManifestFormatError, readManifest, tableFileName, tableFileNumber } from './manifest-reader.js'
import { ROCKSDB_HANDLE_FORMAT, type KeyGroupRange, type RocksDbStateHandle, type StoredDbFile, type StoredSst } from './handle.js'
import { forEachLimit, joinPath, storeFile } from './transfer.js'
import type { CheckpointStorage } from '../../checkpoint/storage/api.js'
import type { PendingStateSnapshot, StateSnapshotOptions } from '../backend.js'

export { checkHandle, referencedObjects, type KeyGroupRange, type RocksDbStateHandle, type StoredDbFile, type StoredSst } from './handle.js'
export { restoreRocksDbSubtask, type RestoredRocksDb, type RestoreRocksDbOptions, type RestoreStats } from './restore.js'

/**
 * gzip level of uploads. On the SSTs of ~1 GB of state (bench/checkpoint/incremental.ts, three runs
 * on a busy 2-CPU machine) levels 1 and 3 ran at the same speed within noise (44–86 and 57–83 MB/s
 * per stream) and stored 35.2% and 35.1% of the bytes; level 6 stored 34.8% at ~70% of the speed.
 */
export const DEFAULT_GZIP_LEVEL = 3
/** Files compressed and stored at once (zlib runs on the libuv pool, 4 threads by default). */
const DEFAULT_CONCURRENCY = 4

/** A database's live files, hard-linked (SSTs) or copied (the rest) into a folder of their own. */
export interface LocalSnapshot {
  readonly dir: string
  readonly files: readonly { readonly name: string; readonly size: number }[]
  readonly keyGroups: KeyGroupRange
  readonly maxParallelism: number
  /** Live entries as the backend counted them (approximate). */
  readonly entries: number
  /** Where the list of live SSTs came from: the MANIFEST, or (a MANIFEST this reader does not know) every SST in the folder. */
  readonly liveFilesFrom: 'manifest' | 'folder'
  /** Whether RocksDB's background work was paused while linking. */
  readonly paused: boolean
  /** How long the synchronous phase took (write-back, memtable flush, pause, links), in ms. */
  readonly millis: number
}

export interface UploadOptions {
  /** Where SST files go, once, for every checkpoint of the database that still has them (e.g. `shared/`). */
  readonly sharedPrefix: string
  /** A folder only this snapshot writes to (e.g. `chk-7/op-1-0/rocksdb/`): MANIFEST, CURRENT, OPTIONS. */
  readonly ownPrefix: string
  /** A savepoint: every file under ownPrefix, nothing taken from or added to `known`. */
  readonly selfContained: boolean
  /** The subtask's key groups and max-parallelism, if the caller wants them checked against the snapshot's. */
  readonly keyGroups?: KeyGroupRange
  readonly maxParallelism?: number
  /** gzip level (default DEFAULT_GZIP_LEVEL). */
  readonly level?: number
  /** Files compressed and stored at once (default 4). */
  readonly concurrency?: number
}

export interface LocalSnapshotOptions {
  /**
   * Pause RocksDB's background work (suspend/resume) while linking. Default false: the files the
   * MANIFEST lists are linked while compactions go on, starting over if one deletes a file meanwhile,
   * so the synchronous phase never waits for a running compaction (seconds on a large database).
   * Either way, a MANIFEST this reader does not understand makes it pause and take every SST in the folder.
   */
  readonly pause?: boolean
}

/**
 * The synchronous phase of a checkpoint — processing waits only for this: writes every held change,
 * flushes the memtable, hard-links every live SST file and copies MANIFEST, CURRENT and the latest
 * OPTIONS into `localDir` (created; on the same file system as the state folder, or SSTs are
 * copied). Live SSTs are the ones the MANIFEST's current version lists: files a compaction made
 * obsolete are left out. A hard link keeps a file's bytes when RocksDB deletes it later.
 *
 * @example
 * const local = await takeLocalSnapshot(backend, join(stateDir, 'snapshots', `chk-${n}`))
 * // … forward the barrier, keep processing …
 * const handle = await uploadSnapshot(local, storage, { sharedPrefix: 'shared/', ownPrefix: `chk-${n}/op-1-0/rocksdb/`, selfContained: false }, known)
 */
export async function takeLocalSnapshot(backend: RocksDbKeyedStateBackend, localDir: string, options: LocalSnapshotOptions = {}): Promise<LocalSnapshot> {
  const t0 = performance.now()
  const dir = resolve(localDir)
  await prepareSnapshotDir(dir)
  let linked: Linked | null = null
  let files: { name: string; size: number }[]
  try {
    if (options.pause !== true) {
      const dbDir = await backend.flushToFiles()
      linked = await linkWhileRunning(dbDir, dir)
    }
    linked ??= await backend.whilePaused(dbDir => linkWhilePaused(dbDir, dir))
    files = await Promise.all(linked.names.map(async name => ({ name, size: (await stat(join(dir, name))).size })))
  } catch (e) {
    await rm(dir, { recursive: true, force: true })
    throw snapshotFailed(dir, e)
  }
  return {
    dir,
    files,
    keyGroups: backend.keyGroupRange,
    maxParallelism: backend.maxParallelism,
    entries: backend.stats().entries,
    liveFilesFrom: linked.from,
    paused: linked.paused,
    millis: performance.now() - t0,
  }
}

/**
 * The asynchronous phase (processing goes on meanwhile): stores every file of `local` that `known`
 * does not already hold — SSTs gzip-compressed under `sharedPrefix` with a unique name, MANIFEST,
 * CURRENT and OPTIONS under `ownPrefix` — and returns the handle for the checkpoint manifest.
 * `known` maps SST names to the stored SSTs of earlier retained checkpoints of this same database
 * (SST files never change and their numbers are never reused); afterwards it holds exactly this
 * snapshot's SSTs. If this checkpoint is then aborted and its objects deleted, clear `known` (or
 * put back a copy taken before) so that no later checkpoint references them. The local snapshot
 * folder is removed afterwards, whether the upload succeeded or not.
 */
export async function uploadSnapshot(
  local: LocalSnapshot,
  storage: CheckpointStorage,
  options: UploadOptions,
  known: Map<string, StoredSst>,
): Promise<RocksDbStateHandle> {
  const t0 = performance.now()
  try {
    checkSameRange(local, options)
    const level = options.level ?? DEFAULT_GZIP_LEVEL
    const shared = !options.selfContained
    const stored: StoredDbFile[] = new Array(local.files.length)
    let uploaded = 0
    let size = 0
    let storedSize = 0
    await forEachLimit(local.files, options.concurrency ?? DEFAULT_CONCURRENCY, async (f, i) => {
      const isSst = tableFileNumber(f.name) !== null
      const earlier = shared && isSst ? known.get(f.name) : undefined
      if (earlier !== undefined && earlier.size === f.size) {
        stored[i] = earlier
        return
      }
      const object = shared && isSst ? joinPath(options.sharedPrefix, `${randomUUID()}-${f.name}.gz`) : joinPath(options.ownPrefix, `${f.name}.gz`)
      const file = await storeFile(storage, join(local.dir, f.name), object, level)
      stored[i] = { name: f.name, object, shared: shared && isSst, ...file }
      uploaded++
      size += file.size
      storedSize += file.storedSize
    })
    if (shared) {
      known.clear()
      for (const f of stored) if (f.shared) known.set(f.name, f)
    }
    return {
      backend: 'rocksdb',
      format: ROCKSDB_HANDLE_FORMAT,
      maxParallelism: local.maxParallelism,
      keyGroups: local.keyGroups,
      entries: local.entries,
      selfContained: options.selfContained,
      compression: 'gzip',
      files: stored,
      uploaded: { files: uploaded, size, storedSize, millis: Math.round(performance.now() - t0) },
    }
  } finally {
    await discardLocalSnapshot(local)
  }
}

/**
 * The backend's checkpoint (SubtaskStateBackend.checkpoint): the local snapshot now, in a folder of
 * `options.tmpDir()`; the upload in the background — SSTs that an earlier retained checkpoint of
 * this database stored (`backend.storedSsts`) are referenced, not stored again, unless it is a savepoint.
 */
export async function checkpointDatabase(backend: RocksDbKeyedStateBackend, options: StateSnapshotOptions): Promise<PendingStateSnapshot<RocksDbStateHandle>> {
  const local = await takeLocalSnapshot(backend, join(await options.tmpDir(), `${options.checkpointId}-${basename(backend.dir)}`))
  const upload = { sharedPrefix: options.sharedPrefix, ownPrefix: `${options.ownPrefix}rocksdb/`, selfContained: options.selfContained }
  if (!options.selfContained && backend.storedSstsIn !== options.storage.uri) {
    // Restored from another job's folder or storage (--from-checkpoint): its SSTs are not where this
    // checkpoint writes, and may be deleted with it; store them again, once.
    backend.storedSsts = new Map()
    backend.storedSstsIn = options.storage.uri
  }
  return { upload: uploadSnapshot(local, options.storage, upload, options.selfContained ? new Map() : backend.storedSsts) }
}

/** Removes a local snapshot that will not be uploaded (its checkpoint was aborted). */
export async function discardLocalSnapshot(local: LocalSnapshot): Promise<void> {
  await rm(local.dir, { recursive: true, force: true })
}

// ------------------------------------------------------------------ the synchronous phase

/** Files a local snapshot folder may hold: a leftover of an earlier attempt is wiped, anything else refused. */
const SNAPSHOT_FILE = /^(\d+\.sst|MANIFEST-\d+|CURRENT|OPTIONS-\d+)(\.gz(\.tmp)?)?$/

async function prepareSnapshotDir(dir: string): Promise<void> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch (e) {
    if (codeOf(e) !== 'ENOENT') throw snapshotFailed(dir, e)
    await makeDirs(dir).catch((e2: unknown) => {
      throw snapshotFailed(dir, e2)
    })
    return
  }
  if (names.length === 0) return
  if (!names.every(n => SNAPSHOT_FILE.test(n))) {
    throw WeirError.internal(`local snapshot folder '${dir}' holds files that are not a RocksDB snapshot's`)
  }
  for (const n of names) await unlink(join(dir, n))
}

interface Linked {
  readonly names: string[]
  readonly from: 'manifest' | 'folder'
  readonly paused: boolean
}

/** The current MANIFEST (cut after its last whole record) and the SSTs its current version lists. */
interface LiveFiles {
  readonly current: Buffer
  readonly manifestName: string
  readonly manifest: Buffer
  readonly ssts: string[]
}

/** Attempts of linkWhileRunning before it gives up and pauses RocksDB instead. */
const LINK_ATTEMPTS = 5

async function readLiveFiles(dbDir: string): Promise<LiveFiles> {
  const current = await readFile(join(dbDir, 'CURRENT'))
  const manifestName = current.toString('utf8').trim()
  if (!/^MANIFEST-\d+$/.test(manifestName)) throw new Error(`CURRENT names '${manifestName}'`)
  const manifest = await readFile(join(dbDir, manifestName))
  const live = readManifest(manifest)
  return { current, manifestName, manifest: manifest.subarray(0, live.validLength), ssts: live.tableFiles.map(tableFileName) }
}

/**
 * With compactions going on: links what the MANIFEST lists. The MANIFEST names only finished files,
 * and the version it describes up to its last whole record is complete once each of its files is
 * linked. A file deleted before its link means a compaction finished meanwhile: start over with the
 * newer MANIFEST. Null when the MANIFEST cannot be read or compactions keep winning the race.
 */
async function linkWhileRunning(dbDir: string, dir: string): Promise<Linked | null> {
  for (let attempt = 0; attempt < LINK_ATTEMPTS; attempt++) {
    let live: LiveFiles
    try {
      live = await readLiveFiles(dbDir)
    } catch (e) {
      if (e instanceof ManifestFormatError) return null
      if (codeOf(e) === 'ENOENT') continue // the MANIFEST was replaced by a newer one
      throw snapshotFailed(dir, e)
    }
    const links = await Promise.allSettled(live.ssts.map(n => linkOrCopy(join(dbDir, n), join(dir, n))))
    const failed = links.find(r => r.status === 'rejected')
    if (failed !== undefined) {
      await clearDir(dir)
      if (codeOf(failed.reason) === 'ENOENT') continue
      throw snapshotFailed(dir, failed.reason)
    }
    try {
      return { names: await copySmallFiles(dbDir, dir, live), from: 'manifest', paused: false }
    } catch (e) {
      throw snapshotFailed(dir, e)
    }
  }
  await clearDir(dir)
  return null
}

/** While RocksDB is paused: links the live SSTs (or, a MANIFEST this reader does not know, every SST in the folder). */
async function linkWhilePaused(dbDir: string, dir: string): Promise<Linked> {
  try {
    const inFolder = new Set(await readdir(dbDir))
    let live: LiveFiles
    let from: Linked['from'] = 'manifest'
    try {
      live = await readLiveFiles(dbDir)
      const missing = live.ssts.filter(n => !inFolder.has(n))
      if (missing.length > 0) throw new ManifestFormatError(`live files missing from the folder: ${missing.join(', ')}`)
    } catch (e) {
      if (!(e instanceof ManifestFormatError)) throw e
      // With background work paused, the folder's SSTs are the live ones plus at most some obsolete
      // ones not deleted yet: a correct superset. The MANIFEST is copied whole.
      const current = await readFile(join(dbDir, 'CURRENT'))
      const manifestName = current.toString('utf8').trim()
      live = { current, manifestName, manifest: await readFile(join(dbDir, manifestName)), ssts: [...inFolder].filter(n => tableFileNumber(n) !== null) }
      from = 'folder'
    }
    await Promise.all(live.ssts.map(n => linkOrCopy(join(dbDir, n), join(dir, n))))
    return { names: await copySmallFiles(dbDir, dir, live), from, paused: true }
  } catch (e) {
    throw snapshotFailed(dir, e)
  }
}

/** Writes the MANIFEST and CURRENT as read, copies the latest OPTIONS (if any), and returns every file name. */
async function copySmallFiles(dbDir: string, dir: string, live: LiveFiles): Promise<string[]> {
  await writeFile(join(dir, live.manifestName), live.manifest)
  await writeFile(join(dir, 'CURRENT'), live.current)
  const names = [...live.ssts, live.manifestName, 'CURRENT']
  const options = (await readdir(dbDir)).filter(n => /^OPTIONS-\d+$/.test(n)).sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)))
  // Newest first; RocksDB replaces OPTIONS files now and then, and opens without one.
  for (const name of options.reverse()) {
    try {
      await copyFile(join(dbDir, name), join(dir, name))
      names.push(name)
      break
    } catch (e) {
      if (codeOf(e) !== 'ENOENT') throw e
    }
  }
  return names
}

async function clearDir(dir: string): Promise<void> {
  for (const n of await readdir(dir)) await rm(join(dir, n), { force: true })
}

function codeOf(e: unknown): unknown {
  return (e as { code?: unknown } | null)?.code
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to)
  } catch (e) {
    const code = codeOf(e)
    // Another file system, or one without hard links: a copy (slower, same result).
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw e
    await copyFile(from, to)
  }
}

function snapshotFailed(dir: string, e: unknown): WeirError {
  if (e instanceof WeirError) return e
  if (errnoCode(e) !== undefined) {
    return fsError(e, { kind: 'checkpoint', op: operationOf(e, 'create'), path: dir,
      what: 'a local snapshot of RocksDB state for a checkpoint, beside the state', setting: "'state.dir'" })
  }
  const msg = e instanceof Error ? e.message : String(e)
  return WeirError.checkpoint(`cannot take a local snapshot of RocksDB state into '${dir}': ${msg}`, {
    help: 'check free space and permissions of the state folder (local snapshots are hard links next to it)',
    cause: e,
  })
}

function checkSameRange(local: LocalSnapshot, options: UploadOptions): void {
  const kg = options.keyGroups
  if (kg !== undefined && (kg.start !== local.keyGroups.start || kg.end !== local.keyGroups.end)) {
    throw WeirError.internal(`uploading a snapshot of key groups [${local.keyGroups.start}, ${local.keyGroups.end}] as [${kg.start}, ${kg.end}]`)
  }
  if (options.maxParallelism !== undefined && options.maxParallelism !== local.maxParallelism) {
    throw WeirError.internal(`uploading a snapshot of max-parallelism ${local.maxParallelism} as ${options.maxParallelism}`)
  }
}
