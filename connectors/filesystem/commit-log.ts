// The exactly-once filesystem sink's record of what it made visible, kept beside its output and apart
// from the checkpoints: one JSON line per commit, {"checkpoint": n, "files": [...]}, appended and
// fsynced before the files are renamed into place. So even when checkpoint n is damaged or gone,
// a restore from an older checkpoint can tell that n's rows are already visible and would be
// written twice. A line is written before its renames: a file it names that is not visible was
// never committed (the crash came between the two).
import { open, readFile, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { fsReason } from '../../common/fs-errors.js'

/** One commit: the checkpoint id and the visible names of the files it published. */
export interface CommitEntry {
  readonly checkpoint: number
  readonly files: readonly string[]
}

interface Loaded {
  readonly entries: readonly CommitEntry[]
  /** The highest checkpoint id whose entries were compacted away (0: none). */
  readonly compactedThrough: number
}

/** Entries kept when the record is compacted; older ones only leave their highest checkpoint id. */
const KEEP = 4096

/**
 * The record of one job's sink in its output directory: `.<prefix>commits.jsonl`.
 *
 * @example
 * const log = new CommitLog('/data/out', 'part-clicks-1-4-sink-')   // /data/out/.part-clicks-1-4-sink-commits.jsonl
 * await log.record(7, ['part-clicks-1-4-sink-0f8e…-3.json'])
 */
export class CommitLog {
  readonly path: string
  private appended = 0

  constructor(private readonly dir: string, prefix: string) {
    this.path = join(dir, `.${prefix}commits.jsonl`)
  }

  /** Appends a commit and makes it durable; call before the files are published. */
  async record(checkpoint: number, files: readonly string[]): Promise<void> {
    if (files.length === 0) return
    await this.fs('write', async () => {
      const handle = await open(this.path, 'a')
      try {
        // writeFile, not write: write() may write only part of the text (a full disk) and report success.
        await handle.writeFile(JSON.stringify({ checkpoint, files }) + '\n')
        await handle.sync()
      } finally {
        await handle.close()
      }
    })
    if (++this.appended >= KEEP) await this.compact(await this.load())
  }

  /** A start from scratch: earlier runs' commits are not this run's to replay. */
  async reset(): Promise<void> {
    await this.fs('delete', () => rm(this.path, { force: true }))
  }

  /**
   * The entries, and the highest checkpoint id whose entries were compacted away (0: none). A line
   * torn by a crash is dropped (its renames never began) and the file repaired, so appends go on
   * from a whole line.
   */
  async read(): Promise<Loaded> {
    const loaded = await this.load()
    if (loaded.torn) await this.rewrite(loaded.entries, loaded.compactedThrough)
    else if (loaded.entries.length > KEEP) await this.compact(loaded)
    return loaded
  }

  private async load(): Promise<Loaded & { torn: boolean }> {
    const text = await this.fs('read', () =>
      readFile(this.path, 'utf8').catch(e => {
        // ENOTDIR: a file stands where the sink's folder should be, so there is no record; creating
        // the folder reports that file.
        const code = (e as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
        throw e
      }))
    if (text === undefined) return { entries: [], compactedThrough: 0, torn: false }
    const whole = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1)
    const entries: CommitEntry[] = []
    let compactedThrough = 0
    for (const line of whole.split('\n')) {
      if (line === '') continue
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        continue
      }
      const v = value as { checkpoint?: unknown; files?: unknown; compactedThrough?: unknown }
      if (typeof v.compactedThrough === 'number') compactedThrough = Math.max(compactedThrough, v.compactedThrough)
      else if (typeof v.checkpoint === 'number' && Array.isArray(v.files) && v.files.every(f => typeof f === 'string' && !/[/\\]/.test(f))) {
        entries.push({ checkpoint: v.checkpoint, files: v.files as string[] })
      }
    }
    return { entries, compactedThrough, torn: whole.length !== text.length }
  }

  /**
   * The files that commits after checkpoint `after` published, except `promised` (published by a
   * restore of `after` anyway), that are visible now. `unlisted`: commits after `after` may have
   * been compacted away, so more may be visible than `files` names.
   */
  async visibleAfter(after: number, promised: ReadonlySet<string>): Promise<{ checkpoints: number[]; files: string[]; unlisted: boolean }> {
    const { entries, compactedThrough } = await this.read()
    const checkpoints = new Set<number>()
    const files = new Set<string>()
    for (const entry of entries) {
      if (entry.checkpoint <= after) continue
      for (const file of entry.files) {
        if (promised.has(file) || files.has(file)) continue
        if (!await stat(join(this.dir, file)).then(s => s.isFile(), () => false)) continue
        files.add(file)
        checkpoints.add(entry.checkpoint)
      }
    }
    return { checkpoints: [...checkpoints].sort((a, b) => a - b), files: [...files], unlisted: compactedThrough > after }
  }

  private async compact({ entries, compactedThrough }: Loaded): Promise<void> {
    const dropped = entries.slice(0, Math.max(0, entries.length - KEEP / 2))
    const through = Math.max(compactedThrough, ...dropped.map(e => e.checkpoint))
    await this.rewrite(entries.slice(dropped.length), through)
    this.appended = 0
  }

  /** Replaces the record whole (temporary file, fsync, rename). */
  private async rewrite(entries: readonly CommitEntry[], compactedThrough: number): Promise<void> {
    const lines = (compactedThrough > 0 ? [JSON.stringify({ compactedThrough })] : []).concat(entries.map(e => JSON.stringify(e)))
    const tmp = `${this.path}.tmp`
    await this.fs('write', async () => {
      const handle = await open(tmp, 'w')
      try {
        await handle.writeFile(lines.map(l => l + '\n').join(''))
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(tmp, this.path)
    })
  }

  /** Runs a file-system call on the record; a failure names it and says what it is for. */
  private async fs<T>(verb: 'read' | 'write' | 'delete', call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (e) {
      throw WeirError.connector(`cannot ${verb} the sink's record of commits '${this.path}': ${fsReason(e)}`, {
        help: `the filesystem sink keeps it beside its files to know what it already made visible; the sink's directory must be writable and have free space`,
        cause: e,
      })
    }
  }
}
