// The filesystem sink when the job takes checkpoints: the rows of each checkpoint go to their own part
// file, hidden until the checkpoint completes (in-progress → prepareCommit(n) → pending → commit(n) →
// visible). On recovery, the parts a completed checkpoint promised are published, all others deleted.
import { open, readdir, rename, rm, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import type { Batch } from '../../core/batch.js'
import { checkpointList, type CommitQuery, type CommittedOutput, type SinkContext, type SinkWriter } from '../api.js'
import { CommitLog } from './commit-log.js'
import type { BatchEncoder } from './encoders.js'
import { resolveFsOptions, type FsConfig } from './options.js'
import { PartFile, sinkFsError } from './part-file.js'
import { partSeq, timeOrderedUuid } from './part-names.js'
import { isVisibleName, removeReplaced, visibleFiles } from './overwrite.js'

/**
 * What prepareCommit(n) returns, stored in checkpoint n: the pending files sealed for n and for
 * earlier checkpoints not yet committed (file names inside the sink directory).
 *
 * @example { pending: [{ file: '.part-clicks-1-4-sink-0f8e…-0.json.pending', checkpoint: 3, rows: 1024 }] }
 */
export interface FileSinkCommit {
  readonly pending: readonly { readonly file: string; readonly checkpoint: number; readonly rows?: number }[]
  /** INSERT OVERWRITE (overwrite.ts); absent for INSERT INTO. */
  readonly overwrite?: OverwriteCommit
}

/**
 * An INSERT OVERWRITE's part of a commit: the files the table held when the job started, and whether
 * the job's input had ended (`done`). Until then its commits publish nothing: the parts stay pending,
 * promised again by every checkpoint, and the commit of the checkpoint taken after the end deletes
 * `replaces` and publishes them all — the table switches from its old rows to the query's at once.
 */
export interface OverwriteCommit {
  readonly replaces: readonly string[]
  readonly done: boolean
}

const IN_PROGRESS = '.inprogress'
const PENDING = '.pending'
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

/** A job name or operator id made safe for a file name: characters other than [A-Za-z0-9_.-] become %XX (UTF-8). */
function fileNamePart(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/gu, c => [...Buffer.from(c, 'utf8')].map(b => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join(''))
}

/**
 * `part-<job>-<operator>-`: what every part file of this sink's job and operator starts with (after
 * the dot of a hidden one). Operator ids have the form `<n>-<kind>`, so `<job>-<operator>` splits
 * only one way and two jobs or sinks never share a prefix.
 */
export function partPrefix(jobName: string, operatorId: string): string {
  return `part-${fileNamePart(jobName)}-${fileNamePart(operatorId)}-`
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The visible name a pending file is published under: without its leading dot and '.pending'. */
function finalNameOf(pending: string): string {
  return pending.slice(1, -PENDING.length)
}

/** fsync of a directory, so that renames and deletions in it survive a crash (a no-op where unsupported). */
async function syncDir(dir: string, table: string): Promise<void> {
  let handle
  try {
    try {
      handle = await open(dir, 'r')
      await handle.sync()
    } finally {
      await handle?.close()
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'EBADF') throw sinkFsError(e, table, 'write', dir)
  }
}

/**
 * Publishes one pending file under its final name. Idempotent: a file already published is fine.
 * Returns whether it renamed something.
 */
async function publish(dir: string, pending: string, table: string): Promise<boolean> {
  try {
    await rename(join(dir, pending), join(dir, finalNameOf(pending)))
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw sinkFsError(e, table, 'rename', join(dir, pending), join(dir, finalNameOf(pending)))
  }
  const published = await stat(join(dir, finalNameOf(pending))).then(s => s.isFile(), () => false)
  if (published) return false
  throw WeirError.connector(
    `output of table '${table}' promised by a completed checkpoint is missing: neither '${pending}' nor '${finalNameOf(pending)}' is in '${dir}'`,
    {
      help: 'files in a sink directory must stay while a job that writes it can still be recovered; '
        + 'the job cannot resume exactly-once from this checkpoint (start it without the checkpoint, or from a later one)',
    },
  )
}

interface Sealed {
  readonly file: string
  /** The checkpoint that promises it; ROLLED until one is prepared. */
  checkpoint: number
  readonly rows: number
}

/** The checkpoint of a part the rolling policy sealed between checkpoints: the next one prepared. */
const ROLLED = Number.MAX_SAFE_INTEGER

function promisedBy(restored: unknown, table: string): Sealed[] {
  return readCommit(restored, table).pending
}

function readCommit(restored: unknown, table: string): { pending: Sealed[]; overwrite: OverwriteCommit | undefined } {
  const bad = (): WeirError =>
    WeirError.checkpoint(`the checkpoint holds an invalid commit for the filesystem sink of table '${table}': ${JSON.stringify(restored)}`, {
      help: `a filesystem sink commits { pending: [{ file, checkpoint }] }; was the checkpoint taken with another connector for '${table}'?`,
    })
  if (typeof restored !== 'object' || restored === null) throw bad()
  const { pending, overwrite } = restored as Partial<FileSinkCommit>
  if (!Array.isArray(pending)) throw bad()
  if (
    overwrite !== undefined
    && (typeof overwrite !== 'object' || overwrite === null || typeof overwrite.done !== 'boolean' || !Array.isArray(overwrite.replaces)
      || !overwrite.replaces.every(isVisibleName))
  ) throw bad()
  return { overwrite, pending: pending.map((p: unknown) => {
    const file = (p as { file?: unknown } | null)?.file
    // A file name inside the sink directory, never a path that leads elsewhere.
    if (typeof file !== 'string' || !file.startsWith('.part-') || !file.endsWith(PENDING) || /[/\\]/.test(file)) throw bad()
    const { checkpoint, rows } = p as { checkpoint?: unknown; rows?: unknown }
    return { file, checkpoint: typeof checkpoint === 'number' ? checkpoint : 0, rows: typeof rows === 'number' ? rows : 0 }
  }) }
}

/**
 * Recovery, before anything is written: publishes what the restored checkpoint promised, then deletes
 * every other hidden part of this job and operator (written after that checkpoint, or by a run that
 * never completed one; the source replays those rows). Files of other jobs and visible files stay.
 * An INSERT OVERWRITE restored before its input ended keeps its promised parts pending instead.
 */
async function recover(dir: string, prefix: string, restoredCommit: unknown, table: string, log: CommitLog): Promise<Recovered> {
  const restored = restoredCommit === undefined || restoredCommit === null ? undefined : readCommit(restoredCommit, table)
  const overwrite = restored?.overwrite
  // An INSERT OVERWRITE restored before its input ended publishes nothing yet: its parts stay pending.
  const unfinished = overwrite !== undefined && !overwrite.done
  const kept = unfinished ? restored!.pending : []
  if (restored !== undefined && !unfinished) {
    // The commit of an overwrite's last checkpoint, done again, deletes what its rows replace first.
    if (overwrite !== undefined) await removeReplaced(dir, overwrite.replaces, table)
    if (overwrite !== undefined && overwrite.replaces.length > 0) await syncDir(dir, table)
    const promised = restored.pending
    // Published here, these rows are visible too: a later fall back past them must know.
    await log.read()
    await log.record(Math.max(0, ...promised.map(p => p.checkpoint)), promised.map(p => finalNameOf(p.file)))
    let renamed = false
    for (const { file } of promised) renamed = (await publish(dir, file, table)) || renamed
    if (renamed) await syncDir(dir, table)
  } else {
    await log.reset()
  }
  const ours = new RegExp(`^\\.${escapeRegExp(prefix)}${UUID}-\\d+\\.(?:json|csv)(?:${escapeRegExp(IN_PROGRESS)}|${escapeRegExp(PENDING)})$`)
  const names = await readdir(dir).catch((e: unknown) => {
    throw sinkFsError(e, table, 'list', dir)
  })
  const leftovers = names.filter(name => ours.test(name) && !kept.some(k => k.file === name))
  for (const name of leftovers) {
    await rm(join(dir, name), { force: true }).catch((e: unknown) => {
      throw sinkFsError(e, table, 'delete', join(dir, name))
    })
  }
  if (leftovers.length > 0) await syncDir(dir, table)
  return { kept, overwrite }
}

/**
 * Recovery in a folder the sink has no writer for yet (a partition the restored checkpoint promised
 * nothing in): deletes this job's leftover hidden parts there; a fresh start also drops its commit log.
 */
export async function cleanFolder(ctx: SinkContext, dir: string): Promise<void> {
  const prefix = partPrefix(ctx.jobName, ctx.operatorId)
  const nothing = ctx.restoredCommit === undefined || ctx.restoredCommit === null ? undefined : { pending: [] }
  await recover(dir, prefix, nothing, ctx.table, new CommitLog(dir, prefix))
}

/** The visible names of the files a restored commit promises (for committedAfter). */
export function promisedFiles(commit: unknown, table: string): string[] {
  return promisedBy(commit, table).map(p => finalNameOf(p.file))
}

/** What recover() leaves to the writer: an unfinished INSERT OVERWRITE's pending parts and its commit. */
interface Recovered {
  readonly kept: Sealed[]
  readonly overwrite: OverwriteCommit | undefined
}

export async function createExactlyOnceWriter(ctx: SinkContext, dir: string, ext: string, encode: BatchEncoder): Promise<SinkWriter & { idle(): boolean }> {
  const prefix = partPrefix(ctx.jobName, ctx.operatorId)
  const log = new CommitLog(dir, prefix)
  const recovered = await recover(dir, prefix, ctx.restoredCommit, ctx.table, log)
  // INSERT OVERWRITE replaces what the table held when the job first started (restored: what its
  // checkpoint lists, as nothing of the job is visible yet).
  const replaces = ctx.overwrite !== true ? null : recovered.overwrite?.replaces ?? await visibleFiles(dir, ctx.table)
  // A fresh uuid per writer: names never collide with an earlier run's, published or not, and sort after them.
  return new ExactlyOnceFileWriter(dir, `${prefix}${timeOrderedUuid()}`, ext, encode, ctx.table, log, replaces, recovered.kept,
    resolveFsOptions(ctx.options).rolling)
}

/** SinkFactory.committedAfter of the filesystem sink: what its commit log says later commits made visible. */
export async function fileSinkCommittedAfter(query: CommitQuery, checkpointId: number): Promise<CommittedOutput | undefined> {
  const dir = resolve(resolveFsOptions(query.options).path)
  const log = new CommitLog(dir, partPrefix(query.jobName, query.operatorId))
  const restored = query.restoredCommit
  const promised = new Set(restored === undefined || restored === null ? [] : promisedBy(restored, query.table).map(p => finalNameOf(p.file)))
  const { checkpoints, files, unlisted } = await log.visibleAfter(checkpointId, promised)
  return committedOutput(dir, checkpoints, files, unlisted, [log.path])
}

/**
 * What committedAfter reports: the files (relative to `dir`) that commit records (`logs`) say later
 * commits made visible; `unlisted`: older commits were compacted out of a record. Undefined: none.
 */
export function committedOutput(dir: string, checkpoints: readonly number[], files: readonly string[], unlisted: boolean, logs: readonly string[]):
  | CommittedOutput
  | undefined
{
  if (files.length === 0 && !unlisted) return undefined
  const one = logs.length === 1
  const items = unlisted
    ? [...files, one ?
      `files of commits before the record's oldest entry (it keeps the latest commits only)`
      : `files of commits before the records' oldest entries (they keep the latest commits only)`]
    : files
  const n = items.length
  const quoted = (xs: readonly string[]): string => `${xs.slice(0, 2).map(x => `'${x}'`).join(', ')}${xs.length > 2 ? ', …' : ''}`
  return {
    checkpoints: [...checkpoints],
    description: `rows in ${n} file${n === 1 ? '' : 's'} in '${dir}' (${quoted(items)})`,
    remedy: one
      ? `delete the files that '${logs[0]}' lists for ${checkpointList(checkpoints)}`
      : `delete the files that the commit records (${quoted(logs)}) list for ${checkpointList(checkpoints)}`,
  }
}

/** The parts of one writer: `<stem>-<seq>.<ext>`, seq counting the parts it sealed (fixed width: they sort in order). */
class ExactlyOnceFileWriter implements SinkWriter {
  private seq = 0
  private part: PartFile
  /** Sealed, not yet committed: pending file names, the checkpoint each was sealed for and its rows, in order. */
  private sealed: Sealed[]
  /** Input ended (finish()); with INSERT OVERWRITE, the checkpoint prepared after it, whose commit publishes. */
  private finished = false
  private lastCheckpoint: number | undefined
  /** Rows in the in-progress part, and rows this writer published. */
  private partRows = 0
  private committed = 0

  constructor(
    private readonly dir: string,
    private readonly stem: string,
    private readonly ext: string,
    private readonly encode: BatchEncoder,
    private readonly table: string,
    private readonly log: CommitLog,
    /** INSERT OVERWRITE: the files the table held when the job started; null for INSERT INTO. */
    private readonly replaces: readonly string[] | null,
    kept: readonly Sealed[],
    private readonly rolling: FsConfig['rolling'],
  ) {
    this.sealed = [...kept]
    this.part = this.newPart()
  }
  /** Bytes appended to the in-progress part, and when its first row came (rolling policy). */
  private partBytes = 0
  private partStarted = 0

  private get name(): string {
    return `${this.stem}-${partSeq(this.seq)}.${this.ext}`
  }

  private newPart(): PartFile {
    return new PartFile(join(this.dir, `.${this.name}${IN_PROGRESS}`), this.table)
  }

  write(batch: Batch): void | Promise<void> {
    if (batch.rows.length === 0) return
    if (this.partRows === 0) this.partStarted = Date.now()
    this.partRows += batch.rows.length
    const text = this.encode(batch)
    this.partBytes += Buffer.byteLength(text)
    const appended = this.part.append(text)
    if (this.partBytes < this.rolling.fileSize && Date.now() - this.partStarted < this.rolling.rolloverMs) return appended
    return (async () => {
      await appended
      await this.roll(ROLLED)
    })()
  }

  /** Seals the in-progress part as pending for checkpoint `checkpointId` (ROLLED: for the next one prepared); false without rows. */
  private async roll(checkpointId: number): Promise<boolean> {
    if (!await this.part.seal(true)) return false
    const pending = `.${this.name}${PENDING}`
    await rename(this.part.path, join(this.dir, pending)).catch((e: unknown) => {
      throw sinkFsError(e, this.table, 'rename', this.part.path, join(this.dir, pending))
    })
    this.sealed.push({ file: pending, checkpoint: checkpointId, rows: this.partRows })
    this.partRows = 0
    this.partBytes = 0
    this.seq++
    this.part = this.newPart()
    return true
  }

  committedRows(): number {
    return this.committed
  }

  /** Nothing written since the last checkpoint, nothing waiting for a commit, not an overwrite: the writer can go. */
  idle(): boolean {
    return this.partRows === 0 && this.sealed.length === 0 && this.replaces === null && !this.part.created
  }

  /** Only flushes: the rows become visible through the final checkpoint's commit. */
  async finish(): Promise<void> {
    this.finished = true
    await this.part.flush()
  }

  async prepareCommit(checkpointId: number): Promise<FileSinkCommit> {
    // No rows since the last checkpoint: no file. Parts rolled since are this checkpoint's too.
    const rolled = this.sealed.some(s => s.checkpoint === ROLLED)
    for (const s of this.sealed) if (s.checkpoint === ROLLED) s.checkpoint = checkpointId
    // The checkpoint will promise these files: their names must survive a crash.
    if ((await this.roll(checkpointId)) || rolled) await syncDir(this.dir, this.table)
    const pending = this.sealed.map(s => ({ file: s.file, checkpoint: s.checkpoint, rows: s.rows }))
    if (this.replaces === null) return { pending }
    if (this.finished) this.lastCheckpoint ??= checkpointId
    return { pending, overwrite: { replaces: this.replaces, done: this.finished } }
  }

  async commit(checkpointId: number): Promise<void> {
    if (this.replaces !== null) {
      // An INSERT OVERWRITE publishes at the commit of the checkpoint after its input ended only.
      if (this.lastCheckpoint === undefined || checkpointId < this.lastCheckpoint) return
      await removeReplaced(this.dir, this.replaces, this.table)
      // Durable before the new files are: a crash must not bring back what they replace.
      if (this.replaces.length > 0) await syncDir(this.dir, this.table)
    }
    const due = this.sealed.filter(s => s.checkpoint <= checkpointId)
    if (due.length === 0) return
    // Recorded before the renames: a record naming a file that is not visible was never committed.
    await this.log.record(checkpointId, due.map(s => finalNameOf(s.file)))
    let renamed = false
    for (const s of due) renamed = (await publish(this.dir, s.file, this.table)) || renamed
    if (renamed) await syncDir(this.dir, this.table)
    for (const s of due) this.committed += s.rows
    this.sealed = this.sealed.filter(s => s.checkpoint > checkpointId)
  }

  /** Removes the in-progress part; pending parts stay, as a completed checkpoint may promise them. */
  async close(): Promise<void> {
    await this.part.discard()
  }
}
