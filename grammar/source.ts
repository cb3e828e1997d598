// SQL text with a line index: turns 0-based offsets into the 1-based line/column Positions of spans.
// Columns count characters (code points), so a line with an emoji still puts the caret right.
import type { Position, Span } from '../common/span.js'

const SURROGATE = /[\uD800-\uDFFF]/

export class SourceText {
  readonly text: string
  /** Offset of the first character of each line. */
  private readonly lineStarts: number[]
  private readonly hasSurrogates: boolean

  constructor(text: string) {
    this.text = text
    const starts = [0]
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1)
    this.lineStarts = starts
    this.hasSurrogates = SURROGATE.test(text)
  }

  position(offset: number): Position {
    const starts = this.lineStarts
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (starts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    const lineStart = starts[lo]!
    return { offset, line: lo + 1, column: this.columnOf(lineStart, offset) }
  }

  /** The span of text [start, end). */
  span(start: number, end: number): Span {
    return { start: this.position(start), end: this.position(end) }
  }

  private columnOf(lineStart: number, offset: number): number {
    if (!this.hasSurrogates) return offset - lineStart + 1
    let column = 1
    for (let i = lineStart; i < offset; i++) {
      const c = this.text.charCodeAt(i)
      // The second half of a surrogate pair does not start a new character.
      const lowHalf = c >= 0xdc00 && c <= 0xdfff
      const prev = i > lineStart ? this.text.charCodeAt(i - 1) : 0
      if (!(lowHalf && prev >= 0xd800 && prev <= 0xdbff)) column++
    }
    return column
  }
}
