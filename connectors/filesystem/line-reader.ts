// Streams a text file as lines: reads fixed-size blocks (1 MB), decodes each up to its last newline
// and hands out lines synchronously, so the caller awaits once per block and never per line. Knows
// the byte offset after the last line it handed out, and can start at such an offset. In byte mode it
// does not decode blocks: it hands out each line's byte range, for a decoder that reads bytes (JSON
// lines, json-scan.ts), and makes a line's text only when asked.
import { isAscii } from 'node:buffer'
import { open, type FileHandle } from 'node:fs/promises'

const NEWLINE = 10

/** Where to start reading: a byte offset just after a line, and the number of lines before it. */
export interface LineStart {
  readonly offset: number
  readonly line: number
}

/**
 * How a LineReader reads: block size in bytes, whether it hands out byte ranges (`nextRange`) instead
 * of strings (`nextLine`), and for a byte range of the file (splits.ts): `skipFirst`, the first line
 * (the rest of the line that `start.offset` is in) is passed over, not counted; `limit`, a line
 * starting at or after this offset is not read (the file ends there for the caller).
 */
export interface LineReaderOptions {
  readonly blockBytes?: number
  readonly bytes?: boolean
  readonly skipFirst?: boolean
  readonly limit?: number
}

/** Lines of one UTF-8 file, without their '\n' / '\r\n' terminators. */
export class LineReader {
  private handle: FileHandle | null = null
  /**
   * Two read buffers: `buf` holds the block in hand, then the start of the next line (tailStart to
   * tailEnd); `spare` takes the next read, which starts (`ahead`) as soon as a block is in hand, so the
   * file is read while the caller decodes (the read runs on libuv's thread pool).
   */
  private buf: Buffer
  private spare: Buffer
  private tailStart = 0
  private tailEnd = 0
  /** The read into `spare` under way, after the `aheadHave` bytes of the partial line copied to its front. */
  private ahead: Promise<number> | null = null
  private aheadHave = 0
  private text = ''
  private pos = 0
  private eof = false
  /** Only a file read from its start can begin with a byte order mark. */
  private first: boolean
  /** File offset of the next byte to read. */
  private readPos: number
  /**
   * The block in hand: the bytes `text` was decoded from (byte mode: not decoded, and `pos` is a byte
   * index), their file offsets, and whether they are all ASCII (one byte per character).
   */
  private bytes: Buffer = Buffer.alloc(0)
  private blockStart: number
  private blockEnd: number
  private blockAscii = true
  /** `lineNo` when the current block was set. */
  private blockFirstLine: number
  /** A cursor for `offset` in a non-ASCII block: `scanLines` lines of the block end before byte `scanByte`. */
  private scanLines = 0
  private scanByte = 0
  /** 1-based number of the line last returned by `nextLine` (counting from the file's start, also after a seek). */
  lineNo: number
  /** Bytes read from the file by this reader. */
  bytesRead = 0
  /** Byte mode: the line `nextRange` last gave is `block` from `lineStart` to `lineEnd` (without its terminator). */
  lineStart = 0
  lineEnd = 0
  private readonly byteMode: boolean
  private skipFirst: boolean
  private readonly limit: number
  /** A line at or after `limit` was reached: the range has ended (`fill()` closes the file and says so). */
  private limited = false
  /** Text mode with a limit: the file offset where the line `nextLine` last gave starts. */
  private textLineOffset = 0

  constructor(private readonly path: string, start: LineStart = { offset: 0, line: 0 }, options: LineReaderOptions = {}) {
    this.buf = Buffer.allocUnsafe(options.blockBytes ?? 1 << 20)
    this.spare = Buffer.allocUnsafe(this.buf.length)
    this.byteMode = options.bytes ?? false
    this.skipFirst = options.skipFirst ?? false
    this.limit = options.limit ?? Infinity
    this.first = start.offset === 0
    this.readPos = start.offset
    this.blockStart = start.offset
    this.blockEnd = start.offset
    // The line passed over is counted while it is read (so the offsets of a non-ASCII block count right), then not.
    this.lineNo = this.skipFirst ? start.line - 1 : start.line
    this.blockFirstLine = this.lineNo
  }

  /**
   * The next line of the block in hand, or null when the block is used up; then call `fill()`
   * (false once the file has ended).
   */
  nextLine(): string | null {
    if (this.skipFirst) {
      if (this.nextLineText() === null) return null
      this.skipFirst = false
    }
    if (this.limit !== Infinity) {
      if (this.pos >= this.text.length) return null
      const at = this.offset
      if (at >= this.limit) {
        this.limited = true
        this.text = ''
        this.pos = 0
        this.blockEnd = at
        return null
      }
      this.textLineOffset = at
    }
    return this.nextLineText()
  }

  private nextLineText(): string | null {
    const text = this.text
    const pos = this.pos
    if (pos >= text.length) return null
    let end = text.indexOf('\n', pos)
    let next: number
    if (end === -1) {
      end = text.length
      next = end
    } else next = end + 1
    this.pos = next
    this.lineNo++
    // Strip a '\r' of a '\r\n' ending.
    return end > pos && text.charCodeAt(end - 1) === 13 ? text.slice(pos, end - 1) : text.slice(pos, end)
  }

  /**
   * Byte mode: moves to the next line of the block in hand and sets `lineStart` / `lineEnd`; false
   * when the block is used up (then call `fill()`, false once the file has ended).
   */
  nextRange(): boolean {
    if (this.skipFirst) {
      if (!this.nextLineRange()) return false
      this.skipFirst = false
    }
    if (this.limit !== Infinity && this.blockStart + this.pos >= this.limit && this.pos < this.bytes.length) {
      this.limited = true
      this.bytes = this.bytes.subarray(0, this.pos)
      return false
    }
    return this.nextLineRange()
  }

  /** The file offset where the line last handed out starts (with a `limit`, in text mode too). */
  get lineOffset(): number {
    return this.byteMode ? this.blockStart + this.lineStart : this.textLineOffset
  }

  private nextLineRange(): boolean {
    const bytes = this.bytes
    const pos = this.pos
    const length = bytes.length
    if (pos >= length) return false
    let end = bytes.indexOf(NEWLINE, pos)
    if (end === -1) {
      end = length
      this.pos = length
    } else this.pos = end + 1
    this.lineNo++
    this.lineStart = pos
    // Strip a '\r' of a '\r\n' ending.
    this.lineEnd = end > pos && bytes[end - 1] === 13 ? end - 1 : end
    return true
  }

  /** Byte mode: the bytes of the block in hand, valid until the next `fill()`. */
  get block(): Buffer {
    return this.bytes
  }

  /** Byte mode: the text of the line `nextRange` last gave, as `nextLine` would have returned it. */
  lineText(): string {
    return this.bytes.toString('utf8', this.lineStart, this.lineEnd)
  }

  /**
   * The byte offset just after the last line `nextLine` (or `nextRange`) returned (after its '\n'): where a reader
   * started with `{ offset, line: lineNo }` continues with the next line.
   */
  get offset(): number {
    if (this.byteMode) return this.blockStart + this.pos
    if (this.pos >= this.text.length) return this.blockEnd
    if (this.blockAscii) return this.blockStart + this.pos
    // Line k of the block ends at the block's k-th newline byte: UTF-8 never has a 0x0A inside a
    // character, and decoding (also of invalid bytes) keeps every newline, so counting works where
    // character and byte positions differ (multi-byte characters, a BOM, invalid bytes).
    const lines = this.lineNo - this.blockFirstLine
    while (this.scanLines < lines) {
      this.scanByte = this.bytes.indexOf(NEWLINE, this.scanByte) + 1
      this.scanLines++
    }
    return this.blockStart + this.scanByte
  }

  /** Reads the next block of whole lines; false at end of file. */
  async fill(): Promise<boolean> {
    if (this.limited && !this.eof) await this.close()
    if (this.eof) return false
    if (this.handle === null) this.handle = await open(this.path, 'r')
    // The block in hand is given up: the next goes to the spare buffer, after the partial line that
    // followed the block (copied there by `readAhead`, or now).
    let buf = this.spare
    let have: number
    let pending = this.ahead
    this.ahead = null
    if (pending !== null) have = this.aheadHave
    else {
      have = this.tailEnd - this.tailStart
      if (have > buf.length) buf = Buffer.allocUnsafe(this.buf.length)
      this.buf.copy(buf, 0, this.tailStart, this.tailEnd)
    }
    this.spare = this.buf
    this.buf = buf
    this.tailStart = 0
    this.tailEnd = 0
    for (;;) {
      if (pending === null) {
        if (have === buf.length) {
          // A line longer than the buffer: keep collecting in a larger one.
          const larger = Buffer.allocUnsafe(buf.length * 2)
          buf.copy(larger, 0, 0, have)
          this.buf = buf = larger
        }
        pending = this.read(buf, have)
      }
      const bytesRead = await pending
      pending = null
      this.readPos += bytesRead
      this.bytesRead += bytesRead
      if (bytesRead === 0) {
        this.eof = true
        await this.closeHandle()
        if (have === 0) return false
        // The last line, without a newline.
        this.setBlock(buf.subarray(0, have), this.readPos - have)
        return true
      }
      const end = have + bytesRead
      // The partial line before the read has no newline, so one found is in the bytes just read.
      const last = buf.lastIndexOf(NEWLINE, end - 1)
      if (last === -1) {
        have = end
        continue
      }
      this.setBlock(buf.subarray(0, last + 1), this.readPos - end)
      this.tailStart = last + 1
      this.tailEnd = end
      this.readAhead()
      return true
    }
  }

  /** `buf.length - at` bytes (at most) of the file from `readPos` into `buf` at `at`; how many were read. */
  private read(buf: Buffer, at: number): Promise<number> {
    return this.handle!.read(buf, at, buf.length - at, this.readPos).then(r => r.bytesRead)
  }

  /** Starts the next block's read into the spare buffer, after the partial line following the block in hand. */
  private readAhead(): void {
    const have = this.tailEnd - this.tailStart
    if (have >= this.spare.length) return
    this.buf.copy(this.spare, 0, this.tailStart, this.tailEnd)
    this.aheadHave = have
    const ahead = this.read(this.spare, have)
    // A failed read is reported by the `fill()` that awaits it (or dropped by `close()`), not as unhandled.
    ahead.catch(() => undefined)
    this.ahead = ahead
  }

  /**
   * Makes `bytes` (starting at file offset `start`) the block in hand. `bytes` is a view of `buf`,
   * which stays valid until the next `fill()`, i.e. for as long as the block is in hand.
   */
  private setBlock(bytes: Buffer, start: number): void {
    this.bytes = bytes
    this.blockStart = start
    this.blockEnd = start + bytes.length
    this.blockFirstLine = this.lineNo
    if (this.byteMode) {
      // A UTF-8 byte order mark is the bytes EF BB BF.
      this.pos = this.first && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
      this.first = false
      return
    }
    let text = bytes.toString('utf8')
    if (this.first) {
      this.first = false
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    // Every line of a block but the file's last ends with '\n', so `nextLine` stops exactly at the block's end.
    this.text = text
    this.pos = 0
    this.blockAscii = isAscii(bytes)
    this.scanLines = 0
    this.scanByte = 0
  }

  private async closeHandle(): Promise<void> {
    const h = this.handle
    this.handle = null
    if (h !== null) await h.close()
  }

  async close(): Promise<void> {
    this.eof = true
    // The handle must outlive a read under way on it.
    const ahead = this.ahead
    this.ahead = null
    if (ahead !== null) await ahead.catch(() => undefined)
    await this.closeHandle()
  }
}
