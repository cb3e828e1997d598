// Checkpoints in storage: where a job's checkpoints and savepoints live, what a manifest holds,
// finding the latest usable one, and retention. The executor takes the snapshots; this module
// knows the layout:
//
//   <state.checkpoints.dir>/<job>/
//     chk-<n>/_metadata            the manifest: checkpoint n is complete once it exists
//     chk-<n>/<operator>-<subtask>/…  files of one subtask (timers; its state backend's files)
//     chk-<n>/<sink>-sink.bin      output a sink sealed for checkpoint n (sink-commits.ts)
//     shared/…                     files of state backends stored once, referenced by several manifests
//     savepoint-<n>/_metadata      savepoints: self-contained (every file inside the folder)
import { WeirError } from '../common/errors.js'
import { safeFileName } from '../common/names.js'
import { joinUri, type StoredObject } from '../checkpoint/objects.js'
import type { CheckpointStorage } from '../checkpoint/storage/api.js'
import { handleOfFormat1, type Format1Subtask, type StateHandle } from '../state/handles.js'
import { stateObjects } from '../state/backends.js'
import type { TimersSnapshot } from './timers.js'
import type { LockAttempt, LockClaim } from '../checkpoint/storage/lock.js'
import { openCheckpointStorage } from '../checkpoint/storage/index.js'
import type { S3Config } from '../common/config/index.js'

/** Format 2 records each subtask's state as a handle of its backend (state/handles.ts), which format 1 did not for every backend. */
export const MANIFEST_FORMAT = 'weir-checkpoint/2'
/** Read, and brought to the current format as it is read. */
const MANIFEST_FORMAT_1 = 'weir-checkpoint/1'
export const MANIFEST_NAME = '_metadata'

export interface SubtaskManifest {
  readonly index: number
  readonly keyGroups: { readonly start: number; readonly end: number }
  /** The timers: `{ timers }`, v8-serialized, gzip. */
  readonly data: StoredObject
  /** The keyed state, as the subtask's backend stored it. */
  readonly state: StateHandle
  /** The subtask's watermark when the barrier passed. */
  readonly watermark: number | null
}

/** What a stateful subtask stores besides its state backend's files (SubtaskManifest.data): its timers. */
export interface SubtaskData {
  readonly timers: TimersSnapshot
}

export interface OperatorManifest {
  readonly kind: string
  /** What the operator's state means (keys, aggregates, window): restoring into a different one is refused. */
  readonly signature: Readonly<Record<string, unknown>>
  readonly parallelism: number
  readonly subtasks: readonly SubtaskManifest[]
}

/** A source's read positions: per split of all its subtasks (subtask 0's splits first), so a restore at another parallelism deals them anew. */
export interface SourceManifest {
  readonly table: string
  readonly positions: readonly unknown[]
  /** Per split, as positions: the highest event time it gave (its watermark before the delay). */
  readonly splitMax: readonly (number | null)[]
  /** The lowest watermark of its subtasks. */
  readonly watermark: number | null
  /**
   * Per subtask, in order: how many of the splits are its (they follow those of the subtasks before
   * it), and its watermark. Absent in checkpoints taken before sources ran as several subtasks (one).
   */
  readonly subtasks?: readonly SourceSubtaskManifest[]
}

export interface SourceSubtaskManifest {
  readonly splits: number
  readonly watermark: number | null
}

export interface Manifest {
  readonly format: string
  readonly job: string
  readonly id: number
  readonly kind: 'checkpoint' | 'savepoint'
  /** The bounded job had finished: nothing to resume, only sink commits to finish. */
  readonly finished: boolean
  readonly timestamp: number
  readonly maxParallelism: number
  readonly operators: Readonly<Record<string, OperatorManifest>>
  readonly sources: Readonly<Record<string, SourceManifest>>
  /** What each sink's prepareCommit returned (of a CommitWithData: its commit). */
  readonly sinks: Readonly<Record<string, unknown>>
  /**
   * Per sink whose prepareCommit returned a CommitWithData: the object holding its data (sink-commits.ts).
   * Absent in checkpoints of earlier versions, whose sinks kept everything in `sinks`.
   */
  readonly sinkData?: Readonly<Record<string, StoredObject>>
  /**
   * The job graph's sub-plan reuse (JobGraph.reused): which operators were merged into which. Absent
   * when none was (and in checkpoints of earlier versions, which merged none).
   */
  readonly reused?: Readonly<Record<string, string>>
}

/** A manifest and the storage its paths are relative to. */
export interface CheckpointRef {
  readonly manifest: Manifest
  /** The storage its object paths are relative to: the job folder (checkpoints) or the savepoint folder. */
  readonly base: CheckpointStorage
  /** Where the manifest is, for messages (a URI). */
  readonly location: string
}

/** A checkpoint folder's name. */
export const checkpointFolder = (id: number): string => `chk-${id}`
export const savepointFolder = (id: number): string => `savepoint-${id}`

/** The folder name a job's checkpoints go in. */
export function jobFolderName(job: string): string {
  return safeFileName(job)
}

// ------------------------------------------------------------------ manifests

export async function writeManifest(storage: CheckpointStorage, folder: string, manifest: Manifest): Promise<void> {
  await storage.put(manifestPath(folder), Buffer.from(JSON.stringify(manifest, jsonReplacer, 1)))
}

/** Reads a manifest; a missing, unreadable or foreign one is a checkpoint error naming it. */
export async function readManifest(storage: CheckpointStorage, folder: string): Promise<Manifest> {
  const where = joinUri(storage.uri, manifestPath(folder))
  const data = await storage.get(manifestPath(folder))
  let manifest: Manifest
  try {
    manifest = JSON.parse(data.toString('utf8'), jsonReviver) as Manifest
  } catch (e) {
    throw WeirError.checkpoint(`checkpoint manifest '${where}' is damaged: ${(e as Error).message}`, { help: 'restore from another checkpoint' })
  }
  if (manifest !== null && typeof manifest === 'object' && manifest.format === MANIFEST_FORMAT_1) return fromFormat1(manifest)
  if (manifest === null || typeof manifest !== 'object' || manifest.format !== MANIFEST_FORMAT) {
    throw WeirError.checkpoint(`'${where}' is not a Weir checkpoint manifest (format '${String((manifest as { format?: unknown } | null)?.format)}')`, {
      help: `expected format '${MANIFEST_FORMAT}' (or '${MANIFEST_FORMAT_1}')`,
    })
  }
  return manifest
}

/** A format-1 manifest as format 2 says it: each subtask's state handle out of its backend's name and files. */
function fromFormat1(manifest: Manifest): Manifest {
  const operators: Record<string, OperatorManifest> = {}
  for (const [id, op] of Object.entries(manifest.operators)) {
    const subtasks = (op.subtasks as readonly (SubtaskManifest & Format1Subtask)[]).map(s => ({
      index: s.index,
      keyGroups: s.keyGroups,
      data: s.data,
      state: handleOfFormat1(s),
      watermark: s.watermark,
    }))
    operators[id] = { ...op, subtasks }
  }
  return { ...manifest, format: MANIFEST_FORMAT, operators }
}

const manifestPath = (folder: string): string => (folder === '' ? MANIFEST_NAME : `${folder}/${MANIFEST_NAME}`)

/**
 * Keeps the newest `retained` completed checkpoints: older checkpoint folders go, and so do shared
 * objects that no retained manifest references (savepoints are self-contained and never touched).
 * Incomplete folders older than the newest complete one (a crash mid-checkpoint) go too.
 */
export async function applyRetention(job: CheckpointStorage, retained: number, referenced: (manifest: Manifest) => readonly string[]): Promise<void> {
  const completed = (await listCompleted(job)).filter(c => c.kind === 'checkpoint')
  if (completed.length === 0) return
  const keep = completed.slice(0, Math.max(1, retained))
  const keepIds = new Set(keep.map(c => c.id))
  const newest = keep[0]!.id
  const all = await job.list('')
  const folders = new Set<string>()
  for (const path of all) {
    const m = /^chk-(\d+)\//.exec(path)
    if (m && !keepIds.has(Number(m[1])) && Number(m[1]) < newest) folders.add(`chk-${m[1]}`)
  }
  for (const folder of folders) await job.deletePrefix(folder + '/')
  const needed = new Set<string>()
  for (const c of keep) for (const path of referenced(await readManifest(job, c.folder))) needed.add(path)
  const unused = all.filter(path => path.startsWith('shared/') && !needed.has(path))
  if (unused.length > 0) await job.delete(unused)
}

/** Stored objects a manifest needs (for retention of shared files). */
export function referencedObjects(manifest: Manifest): string[] {
  const paths: string[] = []
  for (const op of Object.values(manifest.operators)) {
    for (const s of op.subtasks) paths.push(s.data.path, ...stateObjects(s.state))
  }
  for (const object of Object.values(manifest.sinkData ?? {})) paths.push(object.path)
  return paths
}

// Watermarks are ±Infinity at times; JSON has no Infinity.
function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) return { $num: String(value) }
  if (typeof value === 'bigint') return { $big: value.toString() }
  return value
}

function jsonReviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>
    const keys = Object.keys(o)
    if (keys.length === 1 && typeof o['$num'] === 'string') return Number(o['$num'])
    if (keys.length === 1 && typeof o['$big'] === 'string') return BigInt(o['$big'])
  }
  return value
}

/** Ids of the completed checkpoints and savepoints in a job folder (those with a manifest), newest first. */
export async function listCompleted(job: CheckpointStorage): Promise<{ id: number; folder: string; kind: 'checkpoint' | 'savepoint' }[]> {
  const found: { id: number; folder: string; kind: 'checkpoint' | 'savepoint' }[] = []
  for (const path of await job.list('')) {
    const m = /^(chk|savepoint)-(\d+)\/_metadata$/.exec(path)
    if (m) found.push({ id: Number(m[2]), folder: `${m[1]}-${m[2]}`, kind: m[1] === 'chk' ? 'checkpoint' : 'savepoint' })
  }
  return found.sort((a, b) => b.id - a.id)
}

/** The highest checkpoint id ever used in a job folder (complete or not), so new ids never collide. */
export async function highestId(job: CheckpointStorage): Promise<number> {
  let max = 0
  for (const path of await job.list('')) {
    const m = /^(?:chk|savepoint)-(\d+)\//.exec(path)
    if (m) max = Math.max(max, Number(m[1]))
  }
  return max
}

export interface CheckpointConfig {
  /** The job's folder (checkpoints and, by default, savepoints). */
  readonly storage: CheckpointStorage
  /** Where savepoints go (the job's folder under 'state.savepoints.dir'); defaults to storage. */
  readonly savepointStorage: CheckpointStorage
  /** 0 = no periodic checkpoints. */
  readonly intervalMs: number
  readonly retained: number
}

/** Opens the job's checkpoint folder under a 'state.checkpoints.dir'-style root. */
export function jobStorage(root: string, job: string, s3: S3Config): CheckpointStorage {
  return openCheckpointStorage(joinUri(root, jobFolderName(job)), s3)
}

/** A checkpoint or savepoint that findLatest passed over, and why. */
export interface SkippedCheckpoint {
  readonly id: number
  readonly kind: 'checkpoint' | 'savepoint'
  readonly reason: string
}

/**
 * The latest completed checkpoint or savepoint of a job below id `below`, in its checkpoint folder
 * or its savepoint folder ('state.savepoints.dir', when that is another), falling back to older
 * ones when the newest cannot be read (`warn` names what was skipped). Undefined when there is none.
 */
export async function findLatest(
  job: CheckpointStorage,
  warn: (message: string, skipped: SkippedCheckpoint) => void,
  below = Infinity,
  savepoints: CheckpointStorage = job,
): Promise<CheckpointRef | undefined> {
  const found = (await listCompleted(job)).map(c => ({ ...c, storage: job }))
  if (savepoints.uri !== job.uri) {
    for (const c of await listCompleted(savepoints)) if (c.kind === 'savepoint') found.push({ ...c, storage: savepoints })
  }
  for (const c of found.sort((a, b) => b.id - a.id)) {
    if (c.id >= below) continue
    try {
      const base = c.kind === 'checkpoint' ? c.storage : openChild(c.storage, c.folder)
      const manifest = c.kind === 'checkpoint' ? await readManifest(c.storage, c.folder) : await readManifest(base, '')
      return { manifest, base, location: joinUri(c.storage.uri, c.folder) }
    } catch (e) {
      if (!(e instanceof WeirError)) throw e
      warn(`skipping ${c.kind} ${c.id}: ${e.message}`, { id: c.id, kind: c.kind, reason: e.message })
    }
  }
  return undefined
}

/** A checkpoint or savepoint given by its folder's URI (--from-checkpoint / --from-savepoint). */
export async function openCheckpointAt(uri: string, s3: S3Config): Promise<CheckpointRef> {
  const trimmed = uri.replace(/\/+$/, '').replace(/\/_metadata$/, '')
  const folder = trimmed.slice(trimmed.lastIndexOf('/') + 1)
  const self = openCheckpointStorage(trimmed, s3)
  const manifest = await readManifest(self, '')
  // A checkpoint's paths are relative to its job folder (they share files); a savepoint's to itself.
  const base = manifest.kind === 'checkpoint' && /^chk-\d+$/.test(folder) ? openCheckpointStorage(trimmed.slice(0, trimmed.lastIndexOf('/')), s3) : self
  return { manifest, base, location: trimmed }
}

function openChild(parent: CheckpointStorage, folder: string): CheckpointStorage {
  return new PrefixedStorage(parent, folder)
}

/** A view of a storage under a sub-folder. */
export class PrefixedStorage implements CheckpointStorage {
  readonly uri: string
  constructor(private readonly inner: CheckpointStorage, private readonly prefix: string) {
    this.uri = joinUri(inner.uri, prefix)
  }
  private p(path: string): string {
    return path === '' ? this.prefix : `${this.prefix}/${path}`
  }
  put(path: string, data: Uint8Array): Promise<void> {
    return this.inner.put(this.p(path), data)
  }
  putFile(path: string, localFile: string): Promise<void> {
    return this.inner.putFile(this.p(path), localFile)
  }
  get(path: string): Promise<Buffer> {
    return this.inner.get(this.p(path))
  }
  getFile(path: string, localFile: string): Promise<void> {
    return this.inner.getFile(this.p(path), localFile)
  }
  exists(path: string): Promise<boolean> {
    return this.inner.exists(this.p(path))
  }
  async list(prefix: string): Promise<string[]> {
    const all = await this.inner.list(this.p(prefix))
    return all.map(path => path.slice(this.prefix.length + 1))
  }
  delete(paths: readonly string[]): Promise<void> {
    return this.inner.delete(paths.map(path => this.p(path)))
  }
  deletePrefix(prefix: string): Promise<void> {
    return this.inner.deletePrefix(this.p(prefix))
  }
  lock(path: string, claim: LockClaim): Promise<LockAttempt> {
    return this.inner.lock(this.p(path), claim)
  }
}
