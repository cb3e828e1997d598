// A JSON object's row read straight from its UTF-8 bytes, materializing only the columns the job
// reads: the others' values are checked (the record must still be valid JSON) and skipped, without
// the strings and objects JSON.parse would make of them. Bids carry long 'url' and 'extra' strings
// that q17 never reads: skipping them costs less than parsing them, and leaves nothing to collect.
//
// It gives exactly the row JsonDecoder.decode gives for the record (same converters, same order of
// checks, so the same errors), except that a column the job does not read is NULL and its value is
// not converted (a value of the wrong type there is no error, as in Flink's projected JSON format).
// Anything unusual (invalid JSON, a top-level value that is not an object, an escaped key, a key
// matching a column only case-insensitively, deep nesting) gives FALLBACK: the caller decodes the
// record's text with JsonDecoder, which says precisely what is wrong or resolves the key.
import { parseKeepingDigits } from './exact-json.js'
import type { Row } from '../../core/batch.js'
import { truncateNumberText } from '../../common/int64.js'
import { fastTimestampBytes } from './convert.js'
import type { JsonDecoder } from './json-decoder.js'

/** Returned when the record needs JsonDecoder (see above). */
export const FALLBACK: unique symbol = Symbol('fallback')

/**
 * A column's raw value that is a string without escapes, left in the record's bytes (spanStart /
 * spanEnd): a row makes its text, a ColumnSink may copy its bytes instead.
 */
const SPAN: unique symbol = Symbol('span')

/**
 * Where `appendTo` puts a record's values, column by column (a column batch being built, see
 * column-batch.ts): `span` is a STRING column's value that is the bytes from `start` to `end` of the
 * buffer last scanned (UTF-8, no escapes; `wide`: some byte is beyond ASCII).
 */
export interface ColumnSink {
  put(column: number, value: unknown): void
  putNull(column: number): void
  putSpan(column: number, start: number, end: number, wide: boolean): void
}

/** Nesting deeper than this in a skipped value is left to JSON.parse. */
const MAX_DEPTH = 512

const QUOTE = 34
const BACKSLASH = 92
const COLON = 58
const COMMA = 44
const OPEN_BRACE = 123
const CLOSE_BRACE = 125
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93
const MINUS = 45

/** Node's Buffer slicing without toString's argument checks (the methods behind it). */
type Slicing = Buffer & { latin1Slice(start: number, end: number): string; utf8Slice(start: number, end: number): string }

export class JsonFieldScanner {
  /** Each column's name as UTF-8 bytes, to match keys without making strings of them. */
  private readonly nameBytes: Uint8Array[]
  private readonly lowerNames: Set<string>
  private readonly read: readonly boolean[]
  /** Per column, for the record being read: its value as JSON.parse would give it (undefined: absent). */
  private readonly raw: unknown[]
  /**
   * Per column: raw holds the converted value already (a timestamp read from its bytes). Set by value(),
   * the only writer of a read column's raw value, each time it writes one: row() looks at read columns only.
   */
  private readonly converted: Uint8Array
  /** Per column whose raw value is SPAN: where its text lies in `buf`, and whether a byte is beyond ASCII. */
  private readonly spanStart: Int32Array
  private readonly spanEnd: Int32Array
  private readonly spanWide: Uint8Array
  /** Per column: its type is STRING, whose converter keeps a string as it is (a span can stay bytes). */
  private readonly isString: readonly boolean[]
  /**
   * Per column (and the record's start, at n): the column whose key followed its key in the last
   * record that had one after it, or -1.
   */
  private readonly follow: Int32Array
  /** Each column's name bytes when they can stand in a JSON string as they are (no quote, backslash or control byte), else null. */
  private readonly plainNames: (Uint8Array | null)[]
  /** The buffer of the record last scanned. */
  private buf: Slicing = Buffer.alloc(0) as Slicing
  // Set by the scanning methods (no object per value): the end of the string just scanned, whether it
  // had escapes or bytes beyond ASCII.
  private strEnd = 0
  private strEscaped = false
  private strWide = false
  /** The bytes of the buffer being read as 32-bit words (its whole ArrayBuffer), and where the buffer starts in it. */
  private words: Uint32Array<ArrayBufferLike> = new Uint32Array(0)
  private wordsOf: ArrayBufferLike | null = null
  private base = 0
  /** While `row()` runs: the record's ASCII spans' bytes as one string (see `sliceRecord`), from byte `recordFrom`; else null. */
  private recordText: string | null = null
  private recordFrom = 0

  /** `read[i]`: whether column i of the decoder's schema is read (others give NULL). */
  constructor(private readonly decoder: JsonDecoder, names: readonly string[], read: readonly boolean[], private readonly failOnMissingField: boolean) {
    this.nameBytes = names.map(n => Buffer.from(n, 'utf8'))
    this.lowerNames = new Set(names.map(n => n.toLowerCase()))
    this.read = read
    this.raw = new Array<unknown>(names.length).fill(undefined)
    this.converted = new Uint8Array(names.length)
    this.spanStart = new Int32Array(names.length)
    this.spanEnd = new Int32Array(names.length)
    this.spanWide = new Uint8Array(names.length)
    this.isString = decoder.isString
    this.follow = new Int32Array(names.length + 1).fill(-1)
    this.plainNames = this.nameBytes.map(name => (name.every(x => x >= 32 && x !== QUOTE && x !== BACKSLASH) ? name : null))
  }

  /** The row of the JSON object in `buf` from `start` to `end`, or FALLBACK; a RecordError for a value its column cannot take. */
  decode(buf: Buffer, start: number, end: number): Row | typeof FALLBACK {
    return this.scan(buf, start, end) ? this.row() : FALLBACK
  }

  /**
   * Reads the JSON object in `buf` from `start` to `end`: true when it could, then `appendTo` puts its
   * values in a ColumnSink (as `decode` would give them); false for a record that needs JsonDecoder
   * (FALLBACK). `buf` must stay as it is until then.
   */
  scan(buf: Buffer, start: number, end: number): boolean {
    const b = buf as Slicing
    const raw = this.raw
    const n = raw.length
    for (let c = 0; c < n; c++) raw[c] = undefined
    // A row() that a RecordError cut short leaves its record's text: never that of another record.
    this.recordText = null
    // Lines of one block come in one Buffer: its words are made once per block.
    if (b !== this.buf && b.buffer !== this.wordsOf) {
      this.wordsOf = b.buffer
      this.words = new Uint32Array(b.buffer, 0, b.buffer.byteLength >>> 2)
    }
    this.buf = b
    this.base = b.byteOffset
    let i = skipWs(b, start, end)
    if (i >= end || b[i] !== OPEN_BRACE) return false
    i = skipWs(b, i + 1, end)
    if (i < end && b[i] === CLOSE_BRACE) {
      i++
    } else {
      const follow = this.follow
      // The column of the key before (the record's start: n).
      let prev = this.raw.length
      for (;;) {
        if (i >= end || b[i] !== QUOTE) return false
        const keyStart = i + 1
        // Records of a file mostly have their keys in one order: the key is first compared with the
        // name of the column that followed the previous key last time.
        let column = follow[prev]!
        let keyEnd = column >= 0 ? nameAt(b, keyStart, end, this.plainNames[column]!) : -1
        if (keyEnd < 0) {
          if (!this.scanString(b, keyStart, end) || this.strEscaped) return false
          keyEnd = this.strEnd
          column = this.columnOf(b, keyStart, keyEnd - 1)
          if (column === -2) return false
          if (column >= 0) follow[prev] = column
        }
        if (column >= 0) prev = column
        i = skipWs(b, keyEnd, end)
        if (i >= end || b[i] !== COLON) return false
        i = skipWs(b, i + 1, end)
        if (i >= end) return false
        i = column >= 0 && this.read[column] ? this.value(b, i, end, column) : this.skip(b, i, end, 0, column)
        if (i < 0) return false
        i = skipWs(b, i, end)
        if (i >= end) return false
        const d = b[i++]
        if (d === CLOSE_BRACE) break
        if (d !== COMMA) return false
        i = skipWs(b, i, end)
      }
    }
    if (skipWs(b, i, end) !== end) return false
    return true
  }

  /** The decoder's checks and conversions over the values found, column by column as JsonDecoder does them. */
  private row(): Row {
    const raw = this.raw
    const n = raw.length
    this.sliceRecord()
    const row = new Array<unknown>(n)
    for (let c = 0; c < n; c++) {
      const v = raw[c]
      if (v === undefined && this.failOnMissingField) this.decoder.missing(c)
      if (v === undefined || v === null || !this.read[c]) row[c] = null
      else if (this.converted[c] === 1) row[c] = v
      // A STRING column's converter keeps a string as it is.
      else if (v === SPAN) row[c] = this.isString[c] ? this.spanText(c) : this.decoder.convert(c, this.spanText(c))
      else row[c] = this.decoder.convert(c, v)
    }
    this.recordText = null
    return row
  }

  /**
   * Before `row()` makes the record's values: with two or more ASCII spans to make strings of, one
   * latin1 slice of the bytes from the first to the last (`recordText`), whose substrings the spans'
   * strings are — one native call a record instead of one a value (the calls, not the copying, cost
   * most). v8 shares a long substring's characters with its parent, so a value keeps at most the text
   * of its own record alive, as the decode thread's rows do (column-batch.ts).
   */
  private sliceRecord(): void {
    const raw = this.raw
    let lo = Number.MAX_SAFE_INTEGER
    let hi = -1
    let spans = 0
    for (let c = 0; c < raw.length; c++) {
      if (raw[c] !== SPAN || !this.read[c] || this.spanWide[c] === 1) continue
      spans++
      if (this.spanStart[c]! < lo) lo = this.spanStart[c]!
      if (this.spanEnd[c]! > hi) hi = this.spanEnd[c]!
    }
    if (spans < 2) return
    this.recordText = this.buf.latin1Slice(lo, hi)
    this.recordFrom = lo
  }

  /**
   * After `scan` gave true: the record's values into `sink`, with row()'s checks and conversions in
   * its order (so the same RecordError, after which the sink holds part of the record), but a STRING
   * column's unescaped text as a span of the scanned bytes, made into a string by whoever reads the sink.
   */
  appendTo(sink: ColumnSink): void {
    const raw = this.raw
    const n = raw.length
    for (let c = 0; c < n; c++) {
      const v = raw[c]
      if (v === undefined && this.failOnMissingField) this.decoder.missing(c)
      if (v === undefined || v === null || !this.read[c]) sink.putNull(c)
      else if (this.converted[c] === 1) sink.put(c, v)
      else if (v === SPAN && this.isString[c]) sink.putSpan(c, this.spanStart[c]!, this.spanEnd[c]!, this.spanWide[c] === 1)
      else sink.put(c, this.decoder.convert(c, v === SPAN ? this.spanText(c) : v))
    }
  }

  /** The text of column `c`'s SPAN value. */
  private spanText(c: number): string {
    const s = this.spanStart[c]!
    const e = this.spanEnd[c]!
    if (this.spanWide[c] === 1) return this.buf.utf8Slice(s, e)
    const text = this.recordText
    return text === null ? this.buf.latin1Slice(s, e) : text.slice(s - this.recordFrom, e - this.recordFrom)
  }

  /**
   * The column whose name the key from `s` to `e` is (exact bytes), -1 for a key of no column, -2
   * for a key naming a column only case-insensitively (JsonDecoder resolves those).
   */
  private columnOf(b: Slicing, s: number, e: number): number {
    const len = e - s
    const names = this.nameBytes
    outer: for (let c = 0; c < names.length; c++) {
      const name = names[c]!
      if (name.length !== len) continue
      for (let j = 0; j < len; j++) if (b[s + j] !== name[j]) continue outer
      return c
    }
    return this.lowerNames.has(b.utf8Slice(s, e).toLowerCase()) ? -2 : -1
  }

  /** Reads the value at `i` into column `column`'s raw value; the index past it, or -1 (FALLBACK). */
  private value(b: Slicing, i: number, end: number, column: number): number {
    const c = b[i]!
    // A key may repeat: its last value counts, converted or not.
    this.converted[column] = 0
    if (c === QUOTE) {
      if (!this.scanString(b, i + 1, end)) return -1
      const e = this.strEnd
      if (!this.strEscaped && !this.strWide && this.decoder.isMillisTimestamp[column]) {
        // The common timestamp text converts from its bytes, without a string to parse and collect.
        const ms = fastTimestampBytes(b, i + 1, e - 1)
        if (ms !== null) {
          this.raw[column] = ms
          this.converted[column] = 1
          return e
        }
      }
      if (this.strEscaped) this.raw[column] = JSON.parse(b.utf8Slice(i, e)) as string
      else {
        this.raw[column] = SPAN
        this.spanStart[column] = i + 1
        this.spanEnd[column] = e - 1
        this.spanWide[column] = this.strWide ? 1 : 0
      }
      return e
    }
    if (c === MINUS || (c >= 48 && c <= 57)) {
      if (!this.decoder.isDecimal[column]) {
        // An integer of 1 to 15 digits (exact in a double, below 2^53) is parsed while it is scanned;
        // a fraction, an exponent, more digits or a leading zero take the general path below.
        const first = c === MINUS ? i + 1 : i
        let j = first
        let v = 0
        while (j < end) {
          const x = b[j]! - 48
          if (x < 0 || x > 9) break
          v = v * 10 + x
          j++
        }
        const digits = j - first
        const next = j < end ? b[j]! : 0
        if (digits >= 1 && digits <= 15 && (b[first] !== 48 || digits === 1) && next !== 46 /* . */ && next !== 101 && next !== 69 /* e E */) {
          this.raw[column] = c === MINUS ? -v : v
          return j
        }
      }
      const e = scanNumber(b, i, end)
      if (e < 0) return -1
      this.raw[column] = this.number(b, i, e, column)
      return e
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const e = this.skip(b, i, end, 0, -1)
      if (e < 0) return -1
      this.raw[column] = parseKeepingDigits(b.utf8Slice(i, e))
      return e
    }
    const e = scanLiteral(b, i, end)
    if (e < 0) return -1
    this.raw[column] = c === 110 /* n */ ? null : c === 116 /* t */
    return e
  }

  /** The number from `s` to `e` (valid JSON) as JsonDecoder hands it to the converter: DECIMALs and integers beyond 2^53 from the text. */
  private number(b: Slicing, s: number, e: number, column: number): unknown {
    const d = this.decoder
    if (d.isDecimal[column]) return b.latin1Slice(s, e)
    let v: number
    const neg = b[s] === MINUS
    const first = neg ? s + 1 : s
    if (e - first <= 15 && isDigits(b, first, e)) {
      v = 0
      for (let j = first; j < e; j++) v = v * 10 + b[j]! - 48
      if (neg) v = -v
    } else {
      v = Number(b.latin1Slice(s, e))
    }
    if (d.isInteger[column] && !(v < 9007199254740992 && v > -9007199254740992)) return truncateNumberText(b.latin1Slice(s, e)) ?? v
    return v
  }

  /** Skips the valid JSON value at `i`; the index past it, or -1. `column` ≥ 0: a column's value not read (marked present). */
  private skip(b: Slicing, i: number, end: number, depth: number, column: number): number {
    const c = b[i]!
    let e: number
    if (c === QUOTE) e = this.scanString(b, i + 1, end) ? this.strEnd : -1
    else if (c === MINUS || (c >= 48 && c <= 57)) e = scanNumber(b, i, end)
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) e = depth >= MAX_DEPTH ? -1 : this.skipNested(b, i, end, depth + 1)
    else e = scanLiteral(b, i, end)
    // Present (what fail-on-missing-field looks at); a JSON null is present too, and read columns only convert.
    if (column >= 0 && e >= 0) this.raw[column] = c === 110 /* n */ ? null : true
    return e
  }

  private skipNested(b: Slicing, i: number, end: number, depth: number): number {
    const object = b[i] === OPEN_BRACE
    const close = object ? CLOSE_BRACE : CLOSE_BRACKET
    i = skipWs(b, i + 1, end)
    if (i < end && b[i] === close) return i + 1
    for (;;) {
      if (i >= end) return -1
      if (object) {
        if (b[i] !== QUOTE || !this.scanString(b, i + 1, end)) return -1
        i = skipWs(b, this.strEnd, end)
        if (i >= end || b[i] !== COLON) return -1
        i = skipWs(b, i + 1, end)
        if (i >= end) return -1
      }
      i = this.skip(b, i, end, depth, -1)
      if (i < 0) return -1
      i = skipWs(b, i, end)
      if (i >= end) return -1
      const d = b[i++]
      if (d === close) return i
      if (d !== COMMA) return -1
      i = skipWs(b, i, end)
    }
  }

  /**
   * Scans the string whose content starts at `i` (past its opening quote): false when it is not valid
   * JSON (unterminated, a control character, a bad escape); else strEnd is past its closing quote.
   */
  private scanString(b: Slicing, i: number, end: number): boolean {
    let escaped = false
    let wide = false
    const words = this.words
    const base = this.base
    // Whole 4-byte words lie in the string up to this one (inclusive), as indexes into `words`.
    const lastWord = ((base + end) >>> 2) - 1
    while (i < end) {
      const c = b[i++]!
      if (c !== QUOTE && c !== BACKSLASH && c >= 32 && c < 128) {
        // A plain byte. From a word boundary on, skip words of four plain bytes at once: no byte is
        // below 0x20 or above 0x7f (high bit of x, or of x - 0x20 per byte), a quote or a backslash (a
        // zero byte of x ^ 0x22… or x ^ 0x5c…). Borrows between bytes can flag a plain byte (never
        // miss one): the loop above then reads it byte by byte.
        if (((base + i) & 3) === 0) {
          let w = (base + i) >>> 2
          while (w <= lastWord) {
            const x = words[w]!
            const q = x ^ 0x22222222
            const s = x ^ 0x5c5c5c5c
            if (((((q - 0x01010101) & ~q) | ((s - 0x01010101) & ~s) | (x - 0x20202020) | x) & 0x80808080) !== 0) break
            w++
          }
          i = w * 4 - base
        }
        continue
      }
      if (c === QUOTE) {
        this.strEnd = i
        this.strEscaped = escaped
        this.strWide = wide
        return true
      }
      if (c < 32) return false
      if (c >= 128) wide = true
      else if (c === BACKSLASH) {
        escaped = true
        if (i >= end) return false
        const x = b[i++]!
        if (x === 117 /* u */) {
          if (i + 4 > end || !isHex(b[i]!) || !isHex(b[i + 1]!) || !isHex(b[i + 2]!) || !isHex(b[i + 3]!)) return false
          i += 4
        } else if (!(x === QUOTE || x === BACKSLASH || x === 47 || x === 98 || x === 102 || x === 110 || x === 114 || x === 116)) {
          return false
        }
      }
    }
    return false
  }
}

/**
 * The index past the key at `i` (past its opening quote) when it is `name` (bytes that need no
 * escape) followed by its closing quote, else -1.
 */
function nameAt(b: Uint8Array, i: number, end: number, name: Uint8Array | null): number {
  if (name === null) return -1
  const len = name.length
  if (i + len >= end) return -1
  for (let j = 0; j < len; j++) if (b[i + j] !== name[j]) return -1
  return b[i + len] === QUOTE ? i + len + 1 : -1
}

function skipWs(b: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = b[i]!
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i
    i++
  }
  return i
}

/** The index past the JSON number at `i`, or -1 when it is not one: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
function scanNumber(b: Uint8Array, i: number, end: number): number {
  if (b[i] === MINUS) i++
  if (i >= end) return -1
  if (b[i] === 48) i++
  else if (isDigit(b[i]!)) { while (i < end && isDigit(b[i]!)) i++ }
  else return -1
  if (i < end && b[i] === 46 /* . */) {
    i++
    if (i >= end || !isDigit(b[i]!)) return -1
    while (i < end && isDigit(b[i]!)) i++
  }
  if (i < end && (b[i] === 101 || b[i] === 69) /* e E */) {
    i++
    if (i < end && (b[i] === 43 || b[i] === MINUS)) i++
    if (i >= end || !isDigit(b[i]!)) return -1
    while (i < end && isDigit(b[i]!)) i++
  }
  return i
}

const TRUE = Buffer.from('true')
const FALSE = Buffer.from('false')
const NULL = Buffer.from('null')

/** The index past `true`, `false` or `null` at `i`, or -1. */
function scanLiteral(b: Uint8Array, i: number, end: number): number {
  const c = b[i]
  const word = c === 116 ? TRUE : c === 102 ? FALSE : c === 110 ? NULL : null
  if (word === null || i + word.length > end) return -1
  for (let j = 1; j < word.length; j++) if (b[i + j] !== word[j]) return -1
  return i + word.length
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

function isDigits(b: Uint8Array, s: number, e: number): boolean {
  for (let j = s; j < e; j++) if (!isDigit(b[j]!)) return false
  return true
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
}
