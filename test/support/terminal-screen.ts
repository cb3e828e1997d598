// A terminal's screen as escape codes leave it, for tests of what is drawn with cursor movements
// (the REPL's ScreenRegion beside Ink): the codes Ink and the region write — text, CR, LF (a new
// line, scrolling at the bottom), cursor up/down/column, erase line and erase below, autowrap on and off; colours
// and other modes are read and ignored. One cell per character (no wide characters).
import { EventEmitter } from 'node:events'

export class TerminalScreen extends EventEmitter {
  readonly isTTY = true
  /** Everything written, in order. */
  readonly written: string[] = []
  private lines: string[]
  private row = 0
  private col = 0
  private wrap = true
  /** The cursor is past the last column (the next character wraps, as terminals do). */
  private pendingWrap = false

  constructor(public columns: number, readonly rows: number) {
    super()
    this.lines = Array.from({ length: rows }, () => '')
  }

  /** The terminal made narrower or wider (lines are not re-wrapped: what is past the edge is cut off). */
  resize(columns: number): void {
    this.columns = columns
    this.lines = this.lines.map(l => l.slice(0, columns))
    this.col = Math.min(this.col, columns - 1)
    this.emit('resize')
  }

  /** The screen's lines, trailing blanks cut, and the blank lines at its end dropped. */
  screen(): string[] {
    const out = this.lines.map(l => l.trimEnd())
    while (out.length > 0 && out.at(-1) === '') out.pop()
    return out
  }

  get cursor(): { readonly row: number; readonly col: number } {
    return { row: this.row, col: this.col }
  }

  write(text: string | Uint8Array): boolean {
    const s = typeof text === 'string' ? text : Buffer.from(text).toString('utf8')
    this.written.push(s)
    for (let i = 0; i < s.length;) {
      const c = s[i]!
      if (c === '\x1b') {
        const m = /^\x1b\[(\??)([\d;]*)([A-Za-z])/.exec(s.slice(i))
        if (m === null) throw new Error(`an escape code this screen does not know: ${JSON.stringify(s.slice(i, i + 10))}`)
        this.csi(m[1]!, m[2]!, m[3]!)
        i += m[0].length
        continue
      }
      if (c === '\r') this.col = 0
      else if (c === '\n') {
        // As a terminal's driver sends it (onlcr): a carriage return, then the line feed.
        this.col = 0
        this.lineFeed()
      } else this.put(c)
      if (c === '\r' || c === '\n') this.pendingWrap = false
      i++
    }
    return true
  }

  private put(c: string): void {
    if (this.pendingWrap) {
      this.pendingWrap = false
      this.col = 0
      this.lineFeed()
    }
    const line = this.lines[this.row]!.padEnd(this.col)
    this.lines[this.row] = line.slice(0, this.col) + c + line.slice(this.col + 1)
    if (this.col < this.columns - 1) this.col++
    else if (this.wrap) this.pendingWrap = true
  }

  private lineFeed(): void {
    if (this.row < this.rows - 1) this.row++
    else {
      this.lines.shift()
      this.lines.push('')
    }
  }

  private csi(privateMode: string, params: string, op: string): void {
    const n = params === '' ? 1 : Number(params.split(';')[0])
    if (privateMode === '?') {
      if (params === '7') this.wrap = op === 'h'
      return // cursor visibility, synchronized output
    }
    this.pendingWrap = false
    if (op === 'A') this.row = Math.max(0, this.row - n)
    else if (op === 'B') this.row = Math.min(this.rows - 1, this.row + n)
    else if (op === 'G') this.col = n - 1
    else if (op === 'K' && params === '2') this.lines[this.row] = ''
    else if (op === 'K') this.lines[this.row] = this.lines[this.row]!.slice(0, this.col)
    else if (op === 'J') {
      this.lines[this.row] = this.lines[this.row]!.slice(0, this.col)
      for (let r = this.row + 1; r < this.rows; r++) this.lines[r] = ''
    } else if (op !== 'm') throw new Error(`an escape code this screen does not know: CSI ${params}${op}`)
  }
}
