// Streams a text file as lines: reads fixed-size blocks (1 MB), decodes each up to its last newline
// and hands out lines synchronously, so the caller awaits once per block and never per line.
import { open, type FileHandle } from 'node:fs/promises'

const NEWLINE = 10

/** Lines of one UTF-8 file, without their '\n' / '\r\n' terminators. */
export class LineReader {
  private handle: FileHandle | null = null
  private readonly buf: Buffer
  private carry: Buffer | null = null
  private text = ''
  private pos = 0
  private eof = false
  private first = true
  /** 1-based number of the line last returned by `nextLine`. */
  lineNo = 0
  bytesRead = 0

  constructor(private readonly path: string, blockBytes = 1 << 20) {
    this.buf = Buffer.allocUnsafe(blockBytes)
  }

  /**
   * The next line of the block in hand, or null when the block is used up; then call `fill()`
   * (false once the file has ended).
   */
  nextLine(): string | null {
    const text = this.text
    const pos = this.pos
    if (pos >= text.length) return null
    let end = text.indexOf('\n', pos)
    let next: number
    if (end === -1) { end = text.length; next = end } else next = end + 1
    this.pos = next
    this.lineNo++
    // Strip a '\r' of a '\r\n' ending.
    return end > pos && text.charCodeAt(end - 1) === 13 ? text.slice(pos, end - 1) : text.slice(pos, end)
  }

  /** Reads the next block of whole lines; false at end of file. */
  async fill(): Promise<boolean> {
    if (this.eof) return false
    if (this.handle === null) this.handle = await open(this.path, 'r')
    for (;;) {
      const { bytesRead } = await this.handle.read(this.buf, 0, this.buf.length, null)
      this.bytesRead += bytesRead
      if (bytesRead === 0) {
        this.eof = true
        await this.closeHandle()
        const rest = this.carry
        this.carry = null
        if (rest === null || rest.length === 0) return false
        this.setText(rest.toString('utf8'))
        return true
      }
      const data = this.carry === null ? this.buf.subarray(0, bytesRead) : Buffer.concat([this.carry, this.buf.subarray(0, bytesRead)])
      const last = data.lastIndexOf(NEWLINE)
      if (last === -1) {
        // A line longer than a block: keep collecting.
        this.carry = Buffer.from(data)
        continue
      }
      this.setText(data.toString('utf8', 0, last + 1))
      // The carry must be copied: `buf` is reused by the next read.
      this.carry = last + 1 < data.length ? Buffer.from(data.subarray(last + 1)) : null
      return true
    }
  }

  private setText(text: string): void {
    if (this.first) {
      this.first = false
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    // Every line of a block but the file's last ends with '\n', so `nextLine` stops exactly at the block's end.
    this.text = text
    this.pos = 0
  }

  private async closeHandle(): Promise<void> {
    const h = this.handle
    this.handle = null
    if (h !== null) await h.close()
  }

  async close(): Promise<void> {
    this.eof = true
    await this.closeHandle()
  }
}
