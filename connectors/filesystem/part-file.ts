// One part file being written by the filesystem sink: encoded text is buffered and appended in
// blocks; the file is created by the first block, so a part without rows never exists on disk.
import { open, rm, type FileHandle } from 'node:fs/promises'

const FLUSH_CHARS = 1 << 20

/** Buffered appends to one file at `path`, opened lazily. */
export class PartFile {
  private handle: FileHandle | null = null
  private buffered: string[] = []
  private bufferedChars = 0

  constructor(readonly path: string) {}

  /** Whether the file exists on disk (some text was flushed to it). */
  get created(): boolean { return this.handle !== null }

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
    this.handle ??= await open(this.path, 'w')
    await this.handle.write(text)
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
      if (sync) await handle.sync()
    } finally {
      await handle.close()
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
      await handle.close()
      await rm(this.path, { force: true })
    }
  }
}
