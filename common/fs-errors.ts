// A failed file-system call as a user sees it: which path, what Weir was doing with it, why it
// failed in words (not an errno), and what to do. One place for every path Weir touches: sources,
// sinks, state folders, checkpoint and savepoint folders, the CLI's own files.
import { WeirError, type ErrorKind } from './errors.js'

/** What Weir was doing with the path. */
export type FsOperation = 'read' | 'list' | 'open' | 'create' | 'write' | 'rename' | 'delete'

export interface FsFailure {
  /** 'connector' for sources and sinks, 'checkpoint' for checkpoint storage, 'execution' for state, 'plan' for the CLI's SQL file. */
  readonly kind: Exclude<ErrorKind, 'syntax' | 'unsupported' | 'internal'>
  readonly op: FsOperation
  /** The path the call failed on (for a rename: its source). */
  readonly path: string
  /** Where a rename was going. */
  readonly to?: string
  /** What the path is to the user: "the source of table 'clicks'", "a part file of table 'out'", "the state folder of job 'j'". */
  readonly what: string
  /** The setting that chose the path, for the help line: "the 'path' option of table 'clicks'", "'state.dir'". */
  readonly setting?: string
  /** Help lines that fit better than the generic one, by error code (e.g. EISDIR for a SQL file). */
  readonly help?: Readonly<Partial<Record<string, string>>>
  /** Said after the message, e.g. a native library's own words. */
  readonly notes?: readonly string[]
  /** The errno code when `e` does not carry the right one (a native library's). */
  readonly code?: string
}

const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EMFILE: 'too many open files in this process',
  ENFILE: 'too many open files on this system',
  EEXIST: 'a file or folder of that name is in the way',
  ENOTEMPTY: 'the folder is not empty',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the path is too long',
  EIO: 'input/output error',
  EXDEV: 'it would cross file systems',
  EBUSY: 'the file or folder is busy',
  EFBIG: 'the file is too large',
}

/**
 * Native libraries (RocksDB) report errno as text ("IO error: …: Permission denied"); these are
 * the texts of strerror(3) for the codes above, so their failures read the same as Node's.
 */
const STRERROR: readonly (readonly [RegExp, string])[] = [
  [/no space left on device/i, 'ENOSPC'],
  [/disk quota exceeded/i, 'EDQUOT'],
  [/permission denied/i, 'EACCES'],
  [/operation not permitted/i, 'EPERM'],
  [/read-only file system/i, 'EROFS'],
  [/too many open files in system/i, 'ENFILE'],
  [/too many open files/i, 'EMFILE'],
  [/not a directory/i, 'ENOTDIR'],
  [/is a directory/i, 'EISDIR'],
  [/no such file or directory/i, 'ENOENT'],
  [/file exists/i, 'EEXIST'],
  [/input\/output error/i, 'EIO'],
]

/** The errno code of a failure: Node's `code`, or one read from a native library's message; undefined if it is neither. */
export function errnoCode(e: unknown): string | undefined {
  for (let cur = e, depth = 0; cur !== undefined && cur !== null && depth < 6; depth++) {
    const code = (cur as { code?: unknown }).code
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code
    const fromText = errnoInText(cur instanceof Error ? cur.message : typeof cur === 'string' ? cur : '')
    if (fromText !== undefined) return fromText
    cur = cur instanceof AggregateError ? cur.errors[0] : cur instanceof Error ? cur.cause : undefined
  }
  return undefined
}

/** The errno code a message names in strerror(3)'s words ("…: No space left on device"), if any. */
export function errnoInText(message: string): string | undefined {
  for (const [pattern, c] of STRERROR) if (pattern.test(message)) return c
  return undefined
}

const SYSCALLS: Readonly<Record<string, FsOperation>> = {
  open: 'open',
  read: 'read',
  stat: 'read',
  lstat: 'read',
  access: 'read',
  copyfile: 'write',
  scandir: 'list',
  mkdir: 'create',
  mkdtemp: 'create',
  link: 'create',
  write: 'write',
  fsync: 'write',
  close: 'write',
  rename: 'rename',
  unlink: 'delete',
  rmdir: 'delete',
  rm: 'delete',
}

/** What a failed Node call was doing, from its `syscall`; `fallback` when it does not say. */
export function operationOf(e: unknown, fallback: FsOperation): FsOperation {
  const syscall = (e as { syscall?: unknown } | null)?.syscall
  return typeof syscall === 'string' ? SYSCALLS[syscall] ?? fallback : fallback
}

/**
 * The WeirError for a failed file-system call; a WeirError passes through unchanged.
 *
 * @example
 * fsError(e, { kind: 'connector', op: 'list', path: '/data/clicks', what: "the source of table 'clicks'", setting: "the 'path' option of table 'clicks'" })
 * // cannot list '/data/clicks' (the source of table 'clicks'): permission denied (EACCES)
 * // help: check the permissions of '/data/clicks' and the folders above it: Weir needs to read it; or change the 'path' option of table 'clicks'
 */
export function fsError(e: unknown, f: FsFailure): WeirError {
  if (e instanceof WeirError) return e
  const code = f.code ?? errnoCode(e)
  const reason = reasonOf(code, e)
  const target = f.to === undefined ? `'${f.path}'` : `'${f.path}' to '${f.to}'`
  const help = (code !== undefined ? f.help?.[code] : undefined) ?? helpFor(code, f)
  return new WeirError(f.kind, `cannot ${f.op} ${target} (${f.what}): ${reason}`, { help, notes: f.notes, cause: e })
}

/**
 * Why a file-system call failed, in words and with its code, for a message that names the path
 * itself (lock files and the sink's commit record use it with their own help lines).
 *
 * @example fsReason(Object.assign(new Error('…'), { code: 'ENOSPC' }))  // 'no space left on the device (ENOSPC)'
 */
export function fsReason(e: unknown): string {
  return reasonOf(errnoCode(e), e)
}

function reasonOf(code: string | undefined, e: unknown): string {
  return code !== undefined && REASONS[code] !== undefined ? `${REASONS[code]} (${code})` : messageOf(e)
}

function helpFor(code: string | undefined, f: FsFailure): string {
  const p = `'${f.path}'`
  const orChange = f.setting === undefined ? '' : `; or change ${f.setting}`
  const checkPath = f.setting ?? 'the path'
  const writes = f.op !== 'read' && f.op !== 'list' && f.op !== 'open'
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `check the permissions of ${p} and the folders above it: Weir needs to ${writes ? 'write' : 'read'} ${writes ? 'there' : 'it'}${orChange}`
    case 'ENOENT':
      if (f.op === 'rename') return `${p} was removed while Weir ran: nothing else may delete files there${orChange}`
      return writes
        ? `a folder on the way to ${p} does not exist (or was removed while Weir ran): create it${orChange}`
        : `${p} does not exist: check ${checkPath}`
    case 'ENOTDIR':
      return `a part of ${p} is a file where a folder should be: check ${checkPath}, or move that file away`
    case 'EISDIR':
      return `${p} is a folder; give a file${orChange}`
    case 'EEXIST':
      return `something else has the name ${p}: remove or rename it${orChange}`
    case 'ENOTEMPTY':
      return `${p} still holds files: remove them${orChange}`
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return `free disk space on the file system of ${p}${f.setting === undefined ? '' : `, or change ${f.setting} to a disk with more room`}`
    case 'EROFS':
      return `${p} is on a read-only file system: ${
        f.setting === undefined ? 'make it writable' : `change ${f.setting} to a writable location, or make it writable`
      }`
    case 'EMFILE':
      return `raise the limit of open files per process ('ulimit -n'), or run fewer jobs in one process`
    case 'ENFILE':
      return `the system's limit of open files is reached: close other programs, or raise the limit (fs.file-max)`
    case 'ELOOP':
      return `a symbolic link on the way to ${p} points back at itself: check ${checkPath}`
    case 'ENAMETOOLONG':
      return `use a shorter path${orChange}`
    case 'EIO':
      return `the disk behind ${p} failed to read or write: check it (the kernel log may say more)${orChange}`
    case 'EXDEV':
      return `${p} and its destination must be on one file system${orChange}`
    case 'EBUSY':
      return `another process holds ${p}: stop it, or try again`
    default:
      return `check ${p}${orChange}`
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
