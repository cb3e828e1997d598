// The working folder of one operator subtask's RocksDB state: ownership marker, wipe-or-refuse on
// open, and the user-facing errors for folders that cannot be used, full disks and broken databases.
import { randomUUID } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { errnoCode, errnoInText, fsError, type FsOperation } from '../../common/fs-errors.js'

/** Written into every state folder; a folder without it is never wiped. */
export const MARKER_FILE = 'WEIR-STATE.json'
const MARKER_FORMAT = 'weir-rocksdb-state/1'
/** The marker while it is written (renamed to MARKER_FILE when whole): alone in a folder, the folder is empty. */
const MARKER_TEMP = `${MARKER_FILE}.tmp`

// A process may be killed at any moment, also while it prepares or removes a state folder; the next
// run must still recognise the folder as its own. So a folder is never deleted in place (a kill
// during a recursive delete could leave files without their marker, which no run would touch): it
// is renamed aside (atomic) to a sibling named after it, then deleted, and the next prepare of the
// folder deletes any such sibling left by a kill. The marker is written to a temporary name and
// renamed into place.

/** Whose state a folder holds, as its marker file says. */
export interface FolderOwner {
  readonly jobName: string
  readonly operatorId: string
  /** The process that wrote the marker (absent in markers of older formats). */
  readonly pid?: number
}

/** State folders this process has open: a second open of one would wipe state that is in use. */
const openHere = new Set<string>()

/** Marks `dir` free again in this process (the backend's close and destroy call it). */
export function releaseFolder(dir: string): void {
  openHere.delete(dir)
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return codeOf(e) === 'EPERM'
  }
}

const IN_USE_HELP = "give each concurrent job its own 'pipeline.name' or 'state.dir'"

const OTHER_FOLDER_HELP = "use another 'state.dir', or remove the folder if its contents are not needed"

function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/** A failed file-system call on a state folder (or RocksDB's files in it), as the user sees it. */
export function stateFsError(dir: string, e: unknown, op: FsOperation, notes?: readonly string[], code?: string): WeirError {
  return fsError(e, {
    kind: 'execution',
    op,
    path: dir,
    what: 'a folder of RocksDB working state',
    setting: "'state.dir'",
    notes,
    code,
    // makeDirs creates every missing folder first: ENOENT after that means the file system refuses (e.g. /proc).
    help: { ENOENT: `folders cannot be created under '${dirname(dir)}': set 'state.dir' to a writable folder` },
  })
}

function unusable(dir: string, e: unknown): WeirError {
  return stateFsError(dir, e, 'create')
}

/**
 * Makes `dir` an empty state folder owned by `owner`: creates it, or wipes the working state an
 * earlier run of the same job and operator left there (unless `keep`), and refuses any other
 * non-empty folder. Returns true if an earlier working database was kept.
 */
export async function prepareFolder(dir: string, owner: FolderOwner, keep: boolean): Promise<boolean> {
  if (openHere.has(dir)) {
    throw WeirError.execution(`state folder '${dir}' is in use by another running job of this process (job '${owner.jobName}', operator '${owner.operatorId}')`,
      { help: IN_USE_HELP })
  }
  try {
    await removeDiscarded(dir)
    const existing = await inspect(dir)
    if (existing === 'missing') await makeDirs(dir)
    else if (existing !== 'empty') {
      const marker = await readMarker(dir)
      if (marker === null) {
        throw WeirError.execution(`state folder '${dir}' is not empty and is not a Weir state folder`, { help: OTHER_FOLDER_HELP })
      }
      if (marker.jobName !== owner.jobName || marker.operatorId !== owner.operatorId) {
        throw WeirError.execution(`state folder '${dir}' belongs to job '${marker.jobName}' (operator '${marker.operatorId}')`, { help: OTHER_FOLDER_HELP })
      }
      // Same job and operator: the state of an earlier run — unless that run is still going.
      if (marker.pid !== undefined && marker.pid !== process.pid && isRunning(marker.pid)) {
        throw WeirError.execution(`state folder '${dir}' is in use by job '${marker.jobName}' running in process ${marker.pid}`, { help: IN_USE_HELP })
      }
      if (keep) {
        openHere.add(dir)
        return true
      }
      // Working state is not durable (checkpoints are): what an earlier run left is of no use.
      await discard(dir)
      await mkdir(dir)
    }
    await writeFile(join(dir, MARKER_TEMP),
      JSON.stringify({ format: MARKER_FORMAT, jobName: owner.jobName, operatorId: owner.operatorId, pid: process.pid }) + '\n')
    await rename(join(dir, MARKER_TEMP), join(dir, MARKER_FILE))
    openHere.add(dir)
    return false
  } catch (e) {
    throw unusable(dir, e)
  }
}

async function inspect(dir: string): Promise<'missing' | 'empty' | 'used'> {
  let isDir: boolean
  try {
    isDir = (await stat(dir)).isDirectory()
  } catch (e) {
    if (codeOf(e) === 'ENOENT') return 'missing'
    throw e
  }
  if (!isDir) throw Object.assign(new Error(`'${dir}' is a file`), { code: 'ENOTDIR' })
  // A marker a kill interrupted before its rename: nothing was put in the folder after it.
  return (await readdir(dir)).every(name => name === MARKER_TEMP) ? 'empty' : 'used'
}

/**
 * mkdir -p, one level at a time (exported for snapshot folders). Node's `mkdir(…, { recursive: true })` spins forever on paths
 * where mkdir fails with ENOENT although the parent exists (e.g. under /proc), so it is not used.
 */
export async function makeDirs(dir: string): Promise<void> {
  const missing: string[] = []
  for (let p = dir;; p = dirname(p)) {
    try {
      if (!(await stat(p)).isDirectory()) throw Object.assign(new Error(`'${p}' is a file`), { code: 'ENOTDIR' })
      break
    } catch (e) {
      if (codeOf(e) !== 'ENOENT' || dirname(p) === p) throw e
      missing.push(p)
    }
  }
  for (const p of missing.reverse()) {
    try {
      await mkdir(p)
    } catch (e) {
      if (codeOf(e) !== 'EEXIST') throw e
    }
  }
}

async function readMarker(dir: string): Promise<FolderOwner | null> {
  let text: string
  try {
    text = await readFile(join(dir, MARKER_FILE), 'utf8')
  } catch (e) {
    if (codeOf(e) === 'ENOENT' || codeOf(e) === 'EISDIR') return null
    throw e
  }
  try {
    const m = JSON.parse(text) as { format?: unknown; jobName?: unknown; operatorId?: unknown; pid?: unknown }
    if (m.format !== MARKER_FORMAT || typeof m.jobName !== 'string' || typeof m.operatorId !== 'string') return null
    return { jobName: m.jobName, operatorId: m.operatorId, ...(typeof m.pid === 'number' ? { pid: m.pid } : {}) }
  } catch {
    return null
  }
}

/** RocksDB could not open the database files: a file-system failure (full disk, permissions…), or files that are corrupt or from something else. */
export function openFailed(dir: string, e: unknown): WeirError {
  const code = rocksDbErrno(e)
  // A file of the database missing or in the way is a broken database, not a file-system problem.
  if (code !== undefined && code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR' && code !== 'EEXIST') {
    return stateFsError(dir, e, 'open', [`RocksDB: ${rootMessage(e)}`], code)
  }
  return WeirError.execution(`cannot open the RocksDB state in '${dir}': ${rootMessage(e)}`, {
    help: "the working state there cannot be used: remove the folder, or set 'state.dir' to another folder",
    cause: e,
  })
}

/** A failed write batch or read, as a user sees it: a full disk, an I/O error, or (otherwise) a bug. */
export function ioFailed(dir: string, e: unknown, doing: 'writing' | 'reading'): WeirError {
  if (e instanceof WeirError) return e
  const msg = rootMessage(e)
  const code = rocksDbErrno(e)
  if (code !== undefined) return stateFsError(dir, e, doing === 'writing' ? 'write' : 'read', isNodeFsError(e) ? [] : [`RocksDB: ${msg}`], code)
  if (/IO error/i.test(msg)) {
    return WeirError.execution(`I/O error while ${doing} state ${doing === 'writing' ? 'to' : 'from'} '${dir}': ${msg}`, {
      help: `check the disk behind '${dir}', or set 'state.dir' to another folder`,
      cause: e,
    })
  }
  return WeirError.internal(`RocksDB state in '${dir}' failed: ${msg}`, { cause: e })
}

// rocksdb-native's own batches wrap errors (Error('Batch was not applied', { cause: the RocksDB error }));
// NativeWriteBatch and NativeReadBatch reject with the RocksDB error itself.
function rootError(e: unknown): unknown {
  let cur = e
  for (let i = 0; i < 5 && cur instanceof Error && cur.cause !== undefined; i++) cur = cur.cause
  if (cur instanceof AggregateError) return cur.errors.find(x => x) ?? cur
  return cur
}

function rootMessage(e: unknown): string {
  return messageOf(rootError(e))
}

/** A failed call of Node's fs (it says which system call), not of RocksDB. */
function isNodeFsError(e: unknown): boolean {
  return typeof (rootError(e) as { syscall?: unknown } | null)?.syscall === 'string'
}

/**
 * The errno behind a failure: Node's own code, or for RocksDB the one its message names in
 * strerror's words (rocksdb-native gives every RocksDB failure the code EIO, a corrupt file too).
 */
function rocksDbErrno(e: unknown): string | undefined {
  return isNodeFsError(e) ? errnoCode(rootError(e)) : errnoInText(rootMessage(e))
}

/** Total size of the files under `dir` (0 if it is gone). */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return 0
  }
  for (const name of names) {
    const p = join(dir, name)
    try {
      const s = await stat(p)
      total += s.isDirectory() ? await folderBytes(p) : s.size
    } catch {
      // A file RocksDB deleted meanwhile (compaction) counts as gone.
    }
  }
  return total
}

/** Deletes the state folder and everything in it. */
export async function removeFolder(dir: string): Promise<void> {
  await discard(dir)
}

/** The sibling names `dir` is renamed to before it is deleted. */
function discardedPrefix(dir: string): string {
  return `.${basename(dir)}.discarded-`
}

/** Deletes `dir` (if it exists) by renaming it aside first, so that a kill never leaves it half deleted. */
async function discard(dir: string): Promise<void> {
  const aside = join(dirname(dir), `${discardedPrefix(dir)}${randomUUID()}`)
  try {
    await rename(dir, aside)
  } catch (e) {
    if (codeOf(e) === 'ENOENT') return
    throw e
  }
  await rm(aside, { recursive: true, force: true })
}

/** Deletes what a kill left of earlier discards of `dir` (its renamed-aside siblings). */
async function removeDiscarded(dir: string): Promise<void> {
  let names: string[]
  try {
    names = await readdir(dirname(dir))
  } catch (e) {
    if (codeOf(e) === 'ENOENT') return
    throw e
  }
  const prefix = discardedPrefix(dir)
  for (const name of names) if (name.startsWith(prefix)) await rm(join(dirname(dir), name), { recursive: true, force: true })
}

/**
 * Creates the database folder `dbDir` inside the prepared state folder `dir` and lets `fill` put
 * restored database files there. On failure the state folder is removed and freed, and the error
 * passes through.
 */
export async function fillDbFolder(dir: string, dbDir: string, fill: (dbDir: string) => Promise<void>): Promise<void> {
  try {
    await makeDirs(dbDir)
    await fill(dbDir)
  } catch (e) {
    releaseFolder(dir)
    await removeFolder(dir).catch(() => undefined)
    throw e instanceof WeirError ? e : unusable(dir, e)
  }
}
