// Checkpoint storage in a local (or mounted) directory, given as file:///abs/dir or a plain path.
// Every write goes to a temporary file beside its target, is fsynced, and is renamed over it.
// Also the path rules that every storage shares (checkPath, folderPrefix).
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { access, copyFile, lstat, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { WeirError } from '../../common/errors.js'
import { fsError as sharedFsError } from '../../common/fs-errors.js'
import type { CheckpointStorage } from './api.js'
import { takeFileLock } from './file-lock.js'
import type { LockAttempt, LockClaim } from './lock.js'

/** Temporary files end with this; list() skips them and no object path may end with it. */
const TEMP_SUFFIX = '.weir-tmp'

/**
 * A directory of checkpoint files.
 *
 * @example
 * const storage = new FileCheckpointStorage('file:///var/lib/weir/checkpoints')  // or '/var/lib/…', './checkpoints'
 * await storage.put('chk-1/_metadata', bytes)   // → /var/lib/weir/checkpoints/chk-1/_metadata
 */
export class FileCheckpointStorage implements CheckpointStorage {
  readonly uri: string
  /** The root directory, absolute; created by the first write. */
  readonly dir: string

  constructor(location: string) {
    this.dir = rootDirOf(location)
    this.uri = pathToFileURL(this.dir).href
  }

  async put(path: string, data: Uint8Array): Promise<void> {
    const target = this.fullPath(path)
    await writeAtomically(target, async tmp => {
      const handle = await open(tmp, 'wx')
      try {
        await handle.writeFile(data)
        await handle.sync()
      } finally {
        await handle.close()
      }
    })
  }

  async putFile(path: string, localFile: string): Promise<void> {
    const target = this.fullPath(path)
    await writeAtomically(target, async tmp => {
      try {
        await copyFile(localFile, tmp)
      } catch (e) {
        if (!await isReadable(localFile)) throw localFileError(e, 'read', localFile, target)
        throw e
      }
      const handle = await open(tmp, 'r+')
      try {
        await handle.sync()
      } finally {
        await handle.close()
      }
    })
  }

  async get(path: string): Promise<Buffer> {
    const source = this.fullPath(path)
    try {
      return await readFile(source)
    } catch (e) {
      throw isMissing(e) ? missingObject(source) : fsError(e, 'read', source)
    }
  }

  async getFile(path: string, localFile: string): Promise<void> {
    const source = this.fullPath(path)
    const target = resolve(localFile)
    // The copy lands under a temporary name first, so a crash never leaves half a file behind.
    const tmp = tempNameFor(target)
    try {
      await mkdir(dirname(target), { recursive: true })
      await copyFile(source, tmp)
      await rename(tmp, target)
    } catch (e) {
      await rm(tmp, { force: true }).catch(() => undefined)
      // copyFile's error names the source whichever side failed: find out which did.
      if (!await isFile(source)) throw missingObject(source)
      if (!await isReadable(source)) throw fsError(e, 'read', source)
      throw localFileError(e, 'write', target, source)
    }
  }

  async exists(path: string): Promise<boolean> {
    const full = this.fullPath(path)
    try {
      return (await stat(full)).isFile()
    } catch (e) {
      if (isMissing(e)) return false
      throw fsError(e, 'read', full)
    }
  }

  async list(prefix: string): Promise<string[]> {
    const folder = folderPrefix(prefix, this.uri)
    const found: string[] = []
    await walk(folder === '' ? this.dir : join(this.dir, ...folder.split('/')), folder, found)
    return found.sort()
  }

  async delete(paths: readonly string[]): Promise<void> {
    // Emptied folders stay: removing them could race with a write that has just created one.
    for (const path of paths) {
      const full = this.fullPath(path)
      try {
        await unlink(full)
      } catch (e) {
        // EISDIR/EPERM: a folder is there, which is not an object.
        const code = errnoOf(e)?.code
        if (isMissing(e) || code === 'EISDIR' || code === 'EPERM' && await isDirectory(full)) continue
        throw fsError(e, 'delete', full)
      }
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    const folder = folderPrefix(prefix, this.uri)
    if (folder === '') {
      // Empties the root but keeps it: it may be a mount point, or shared with other permissions.
      let names: string[]
      try {
        names = await readdir(this.dir)
      } catch (e) {
        if (isMissing(e)) return
        throw fsError(e, 'list', this.dir)
      }
      for (const name of names) await removeTree(join(this.dir, name))
      return
    }
    const full = join(this.dir, ...folder.split('/'))
    // A file named like the prefix is not under it.
    if (await isDirectory(full)) await removeTree(full)
  }

  /** A folder of claim files at `path` (file-lock.ts). */
  lock(path: string, claim: LockClaim): Promise<LockAttempt> {
    return takeFileLock(this.fullPath(path), claim, {
      help: `the checkpoint directory '${this.dir}' must be writable by this process: a job keeps its lock there while it runs`,
    })
  }

  private fullPath(path: string): string {
    checkPath(path, this.uri)
    return join(this.dir, ...path.split('/'))
  }
}

/**
 * Throws an internal error unless `path` is a valid object path: relative, '/'-separated names,
 * none empty, '.' or '..'. The engine makes every path, so a bad one is a bug.
 */
export function checkPath(path: string, uri: string): void {
  const why = path === '' ?
    'it is empty'
    : path.includes('\0') ?
    'it contains a NUL character'
    : path.startsWith('/') ?
    'it is absolute'
    : path.split('/').some(name => name === '' || name === '.' || name === '..') ?
    `it has an empty, '.' or '..' name`
    : path.endsWith(TEMP_SUFFIX) ?
    `'${TEMP_SUFFIX}' marks temporary files`
    : undefined
  if (why !== undefined) throw WeirError.internal(`invalid checkpoint storage path '${path}' under ${uri}: ${why}`)
}

/** A prefix as a folder path without a trailing '/': '' (everything), 'chk-1' for 'chk-1' or 'chk-1/'. */
export function folderPrefix(prefix: string, uri: string): string {
  const folder = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix
  if (folder !== '') checkPath(folder, uri)
  return folder
}

function rootDirOf(location: string): string {
  if (location === '') {
    throw WeirError.checkpoint('the checkpoint location is empty', { help: `give a directory (file:///abs/dir or a path) or s3://bucket/prefix` })
  }
  if (!/^file:/i.test(location)) return resolve(location)
  let url: URL
  try {
    url = new URL(location)
  } catch {
    throw badFileUri(location, 'it cannot be parsed')
  }
  if (url.host !== '' && url.host !== 'localhost') throw badFileUri(location, `it names the host '${url.host}'`)
  if (url.search !== '' || url.hash !== '') throw badFileUri(location, `it has a '?' or '#' part (percent-encode them as %3F and %23)`)
  try {
    return resolve(fileURLToPath(url))
  } catch (e) {
    throw badFileUri(location, (e as Error).message)
  }
}

function badFileUri(location: string, why: string): WeirError {
  return WeirError.checkpoint(`'${location}' is not a usable file URI: ${why}`, {
    help: `write a local directory as file:///abs/dir (three slashes), or give a plain path`,
  })
}

/** Writes through `write(tmp)` to a temporary file beside `target`, then renames it over `target`. */
async function writeAtomically(target: string, write: (tmp: string) => Promise<void>): Promise<void> {
  const folder = dirname(target)
  const tmp = tempNameFor(target)
  let created: string | undefined
  try {
    created = await mkdir(folder, { recursive: true })
    await write(tmp)
    await rename(tmp, target)
  } catch (e) {
    // Where the write failed (say, a file stands where a folder should), so may the cleanup: the write's error is the one to report.
    await rm(tmp, { force: true }).catch(() => undefined)
    throw e instanceof WeirError ? e : fsError(e, 'write', target)
  }
  // The new name, and every folder made for it, must survive a power cut: a completed checkpoint
  // may already have let sinks commit.
  await syncFolder(folder)
  if (created !== undefined) {
    for (let made = folder;; made = dirname(made)) {
      await syncFolder(dirname(made))
      if (made === created || made === dirname(made)) break
    }
  }
}

function tempNameFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`)
}

/** Makes a rename durable. Best effort: some file systems cannot open or fsync a directory. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // The rename has happened; only its durability across a power cut is in doubt.
  }
}

async function walk(dir: string, relative: string, found: string[]): Promise<void> {
  let entries
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch (e) {
    // A missing folder holds nothing; one deleted while we walk it holds nothing now.
    if (isMissing(e)) return
    throw fsError(e, 'list', dir)
  }
  for (const entry of entries) {
    if (entry.name.endsWith(TEMP_SUFFIX)) continue
    const path = relative === '' ? entry.name : `${relative}/${entry.name}`
    const full = join(dir, entry.name)
    const kind = entry.isSymbolicLink()
      ? await stat(full).then(s => s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other', () => 'other')
      : entry.isDirectory()
      ? 'dir'
      : entry.isFile()
      ? 'file'
      : 'other'
    if (kind === 'dir') await walk(full, path, found)
    else if (kind === 'file') found.push(path)
  }
}

async function removeTree(full: string): Promise<void> {
  try {
    await rm(full, { recursive: true, force: true })
  } catch (e) {
    throw fsError(e, 'delete', full)
  }
}

async function isReadable(full: string): Promise<boolean> {
  return access(full, constants.R_OK).then(() => true, () => false)
}

async function isFile(full: string): Promise<boolean> {
  return stat(full).then(s => s.isFile(), () => false)
}

async function isDirectory(full: string): Promise<boolean> {
  try {
    return (await lstat(full)).isDirectory()
  } catch (e) {
    if (isMissing(e)) return false
    throw fsError(e, 'read', full)
  }
}

function errnoOf(e: unknown): NodeJS.ErrnoException | undefined {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' ? e as NodeJS.ErrnoException : undefined
}

/** ENOENT, or ENOTDIR: a file stands where the path needs a folder. */
function isMissing(e: unknown): boolean {
  const code = errnoOf(e)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

function missingObject(full: string): WeirError {
  return WeirError.checkpoint(`checkpoint file '${full}' not found`, {
    help:
      'the checkpoint may be incomplete or deleted, or the checkpoint directory may be wrong; restore from another checkpoint, or start the job without one',
  })
}

/** A failed call on a file or folder of this storage: a checkpoint's or savepoint's. */
function fsError(e: unknown, op: 'read' | 'write' | 'list' | 'delete', full: string): WeirError {
  return sharedFsError(e, {
    kind: 'checkpoint',
    op,
    path: full,
    what: 'checkpoint storage',
    setting: "'state.checkpoints.dir' (or 'state.savepoints.dir')",
    help: { EEXIST: `a file stands where checkpoint storage needs a folder: remove or rename '${full}' or the file above it` },
  })
}

/** A failed read or write of a local file that goes to or comes from the storage (RocksDB state under 'state.dir'). */
function localFileError(e: unknown, op: 'read' | 'write', localFile: string, object: string): WeirError {
  return sharedFsError(e, { kind: 'checkpoint', op, path: localFile,
    what: `local state, ${op === 'read' ? 'to be stored as' : 'restored from'} checkpoint file '${object}'`, setting: "'state.dir'" })
}
