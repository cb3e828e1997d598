// One part file being written by the filesystem sink: encoded text is buffered and appended in
// blocks; the file is created by the first block, so a part without rows never exists on disk.
// Also the error for any failed file-system call of the sink.
import { open, rm, type FileHandle } from 'node:fs/promises'
import type { WeirError } from '../../common/errors.js'
import { fsError, type FsOperation } from '../../common/fs-errors.js'

const FLUSH_CHARS = 1 << 20

/** A failed file-system call on table `table`'s sink folder or one of its files, as the user sees it. */
export function sinkFsError(e: unknown, table: string, op: FsOperation, path: string, to?: string): WeirError {
  const setting = `the 'path' option of table '${table}'`
  return fsError(e, {
    kind: 'connector',
    op,
    path,
    to,
    what: `the sink of table '${table}'`,
    setting,
    // mkdir of the sink folder: a file stands where it or a folder above it should be.
    help: { EEXIST: `'${path}' is a file, but the filesystem sink writes part files into a folder: change ${setting}` },
  })
}

/** Buffered appends to one file at `path`, opened lazily. */
export class PartFile {
  private handle: FileHandle | null = null
  private buffered: string[] = []
  private bufferedChars = 0

  /** `table`: whose sink writes it, for errors. */
  constructor(readonly path: string, private readonly table: string) {}

  /** Whether the file exists on disk (some text was flushed to it). */
  get created(): boolean {
    return this.handle !== null
  }

  /** Buffers `text`; writes the buffer out once it is large (the promise, if any, must be awaited). */
  append(text: string): void | Promise<void> {
    if (text.length === 0) return
    this.buffered.push(text)
    this.bufferedChars += text.length
    if (this.bufferedChars >= FLUSH_CHARS) return this.flush()
  }

  async flush(): Promise<void> {
    if (this.buffered.length === 0) return
    const text = this.buffered.join('')
    this.buffered = []
    this.bufferedChars = 0
    try {
      this.handle ??= await open(this.path, 'w')
    } catch (e) {
      throw sinkFsError(e, this.table, 'create', this.path)
    }
    try {
      // writeFile, not write: one write(2) may write only part of the text (a disk that fills up
      // mid-write), and write() reports that as success; writeFile writes on until all is written or fails.
      await this.handle.writeFile(text)
    } catch (e) {
      throw sinkFsError(e, this.table, 'write', this.path)
    }
  }

  /**
   * Flushes and closes; with `sync`, first makes the data durable (before a rename publishes it).
   * Returns whether the file exists (false: no text was ever appended).
   */
  async seal(sync: boolean): Promise<boolean> {
    await this.flush()
    const handle = this.handle
    this.handle = null
    if (handle === null) return false
    try {
      try {
        if (sync) await handle.sync()
      } finally {
        await handle.close()
      }
    } catch (e) {
      throw sinkFsError(e, this.table, 'write', this.path)
    }
    return true
  }

  /** Drops buffered text and removes the file if it was created. */
  async discard(): Promise<void> {
    const handle = this.handle
    this.handle = null
    this.buffered = []
    this.bufferedChars = 0
    if (handle !== null) {
      try {
        await handle.close()
        await rm(this.path, { force: true })
      } catch (e) {
        throw sinkFsError(e, this.table, 'delete', this.path)
      }
    }
  }
}
