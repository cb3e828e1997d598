// A chunk's rows built column by column straight from the scanned JSON bytes (the decode worker's
// batches), and turned into rows on the other side. Each column has a layout fixed by its type: a
// Float64Array for the numeric types (TINYINT … BIGINT, DOUBLE, DATE, TIMESTAMP…, INTERVAL: their
// converters give numbers), for STRING a start and end per row into one run of the chunk's line
// bytes, for the rest (BOOLEAN, DECIMAL…) the values v8-serialized; a null bitmap marks NULLs. A
// value its column's layout cannot hold (a bigint beyond 2^53 in a BIGINT column, a string with
// escapes, any value of a column the job does not read, from a record JsonDecoder decoded) is kept
// as an exception: its row and value, v8-serialized, put back over the column's value by `toRows`.
//
// STRING values are never made into strings here: the bytes of the lines they lie in are copied to
// the run in one piece per read block (`line` names the block and line of the record being added),
// so a value costs two numbers, and the main thread makes its string once, from the run.
import v8 from 'node:v8'
import type { Field } from '../../common/types.js'
import type { Row } from '../../core/batch.js'
import type { ColumnSink } from './json-scan.js'

/** A column nothing is stored for but exceptions (the job does not read it: NULL but for records JsonDecoder decoded). */
const NONE = 0
const F64 = 1
const STR = 2
const ANY = 3

/** Where a column's data lies in the batch's buffer (byte offsets, -1: absent). */
export interface ColumnLayout {
  readonly kind: number
  /** The null bitmap (bit r: row r is NULL), or -1 when no row is (F64, STR). */
  readonly nulls: number
  /** F64: the values; STR: the starts then the ends (Int32, into the run); ANY: the serialized values. */
  readonly at: number
  /** ANY: the serialized values' length; STR: whether some string has bytes beyond ASCII (1). */
  readonly length: number
  /** Exceptions: rows and values serialized, and their length. */
  readonly exceptions: number
  readonly exceptionsLength: number
}

/** What travels with the buffer: a few numbers per column, none per row. */
export interface BatchLayout {
  readonly rows: number
  /** The STRING columns' run of line bytes. */
  readonly run: number
  readonly runLength: number
  readonly columns: readonly ColumnLayout[]
}

export interface EncodedBatch {
  readonly layout: BatchLayout
  readonly buffer: ArrayBuffer
}

/** Node's Buffer slicing without toString's argument checks. */
type Slicing = Buffer & { latin1Slice(start: number, end: number): string; utf8Slice(start: number, end: number): string }

/** The column kind a value of each type is stored as, when the job reads it. */
function kindOf(field: Field): number {
  switch (field.type.kind) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'DOUBLE':
    case 'DATE':
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
    case 'INTERVAL':
      return F64
    case 'STRING':
      return STR
    default:
      return ANY
  }
}

/** Builds batches of up to `capacity` rows of `schema` (the columns `read` marks stored, the others NONE); used again after `finish`. */
export class ColumnBatchBuilder implements ColumnSink {
  /** Rows added (committed). */
  length = 0
  private readonly kinds: Uint8Array
  private readonly f64: (Float64Array | null)[]
  private readonly starts: (Int32Array | null)[]
  private readonly ends: (Int32Array | null)[]
  private readonly any: (unknown[] | null)[]
  private readonly nulls: Uint8Array[]
  private readonly anyNull: Uint8Array
  private readonly wide: Uint8Array
  private readonly exceptionRows: number[][]
  private readonly exceptionValues: unknown[][]
  /** The run of line bytes STRING spans point into, and how much of it is used. */
  private run: Uint8Array = new Uint8Array(1 << 18)
  private runLength = 0
  /**
   * The record being added lies in `block` from `lineStart` to `lineEnd`. Its spans lie in the
   * segment of `segment` (from `segStart` to `segEnd`) that becomes the run's bytes from `segAt` on
   * (copied when the block changes, or by `release`/`finish`).
   */
  private block: Uint8Array | null = null
  private lineStart = 0
  private lineEnd = 0
  private segment: Uint8Array | null = null
  private segStart = 0
  private segEnd = 0
  private segAt = 0

  constructor(schema: readonly Field[], read: readonly boolean[], private readonly capacity: number) {
    const n = schema.length
    this.kinds = Uint8Array.from(schema, (f, c) => (read[c] === true ? kindOf(f) : NONE))
    const kinds = this.kinds
    this.f64 = schema.map((_, c) => (kinds[c] === F64 ? new Float64Array(capacity) : null))
    this.starts = schema.map((_, c) => (kinds[c] === STR ? new Int32Array(capacity) : null))
    this.ends = schema.map((_, c) => (kinds[c] === STR ? new Int32Array(capacity) : null))
    this.any = schema.map((_, c) => (kinds[c] === ANY ? new Array<unknown>(capacity).fill(null) : null))
    this.nulls = schema.map(() => new Uint8Array((capacity + 7) >>> 3))
    this.anyNull = new Uint8Array(n)
    this.wide = new Uint8Array(n)
    this.exceptionRows = schema.map(() => [])
    this.exceptionValues = schema.map(() => [])
  }

  /** The next record lies in `block` from `start` to `end` (its spans are offsets into `block`). */
  line(block: Uint8Array, start: number, end: number): void {
    this.block = block
    this.lineStart = start
    this.lineEnd = end
  }

  putSpan(c: number, start: number, end: number, wide: boolean): void {
    const block = this.block!
    if (block !== this.segment) {
      this.release()
      this.segment = block
      this.segStart = this.lineStart
      this.segAt = this.runLength
    }
    if (this.lineEnd > this.segEnd) this.segEnd = this.lineEnd
    const r = this.length
    this.starts[c]![r] = this.segAt + start - this.segStart
    this.ends[c]![r] = this.segAt + end - this.segStart
    if (wide) this.wide[c] = 1
    this.nulls[c]![r >>> 3]! &= ~(1 << (r & 7))
  }

  put(c: number, value: unknown): void {
    if (value === null) return this.putNull(c)
    const r = this.length
    const kind = this.kinds[c]
    if (kind === ANY) {
      this.any[c]![r] = value
      return
    }
    this.nulls[c]![r >>> 3]! &= ~(1 << (r & 7))
    if (kind === F64 && typeof value === 'number') this.f64[c]![r] = value
    else {
      // The span left from an earlier batch must still lie in the run (toRows slices it before the exception replaces it).
      if (kind === STR) this.starts[c]![r] = this.ends[c]![r] = 0
      this.exceptionRows[c]!.push(r)
      this.exceptionValues[c]!.push(value)
    }
  }

  putNull(c: number): void {
    const r = this.length
    if (this.kinds[c] === ANY) this.any[c]![r] = null
    else {
      this.nulls[c]![r >>> 3]! |= 1 << (r & 7)
      this.anyNull[c] = 1
    }
  }

  /** Whether column `c` of the record being added is NULL. */
  isNull(c: number): boolean {
    const r = this.length
    if (this.kinds[c] === ANY) return this.any[c]![r] === null
    return (this.nulls[c]![r >>> 3]! & (1 << (r & 7))) !== 0 && this.exceptionRows[c]!.at(-1) !== r
  }

  /** The record being added is complete. */
  commit(): void {
    this.length++
  }

  /** Forgets what was put of the record being added (it failed): its exceptions, the only thing the next record does not overwrite. */
  dropRow(): void {
    const r = this.length
    for (let c = 0; c < this.kinds.length; c++) {
      const rows = this.exceptionRows[c]!
      while (rows.length > 0 && rows.at(-1) === r) {
        rows.pop()
        this.exceptionValues[c]!.pop()
      }
    }
  }

  /** Adds a row JsonDecoder decoded (a record the scanner left to it). */
  add(row: Row): void {
    for (let c = 0; c < row.length; c++) this.put(c, row[c] ?? null)
    this.commit()
  }

  /** Copies the bytes the spans so far point into to the run: call before the block they lie in is given up. */
  release(): void {
    const segment = this.segment
    if (segment === null) return
    this.segment = null
    const size = this.segEnd - this.segStart
    if (this.segAt + size > this.run.length) {
      const larger = new Uint8Array(Math.max(this.run.length * 2, this.segAt + size))
      larger.set(this.run.subarray(0, this.runLength))
      this.run = larger
    }
    this.run.set(segment.subarray(this.segStart, this.segEnd), this.segAt)
    this.runLength = this.segAt + size
    this.segEnd = 0
  }

  /** The rows added so far as one buffer (`spare` when large enough) and its layout; the builder starts over empty. */
  finish(spare: ArrayBuffer | null): EncodedBatch {
    this.release()
    const n = this.length
    const parts: Uint8Array[] = []
    let size = 0
    const add = (bytes: Uint8Array): number => {
      const at = size
      parts.push(bytes)
      size = at + ((bytes.byteLength + 7) & ~7)
      return at
    }
    const columns: ColumnLayout[] = []
    for (let c = 0; c < this.kinds.length; c++) {
      const kind = this.kinds[c]!
      const nulls = (kind === F64 || kind === STR) && this.anyNull[c] === 1 ? add(this.nulls[c]!.subarray(0, (n + 7) >>> 3)) : -1
      let at = -1
      let length = 0
      if (kind === F64) at = add(new Uint8Array(this.f64[c]!.buffer, 0, n * 8))
      else if (kind === STR) {
        at = add(new Uint8Array(this.starts[c]!.buffer, 0, n * 4))
        add(new Uint8Array(this.ends[c]!.buffer, 0, n * 4))
        length = this.wide[c]!
      } else if (kind === ANY) {
        const serialized = v8.serialize(this.any[c]!.slice(0, n))
        at = add(serialized)
        length = serialized.byteLength
      }
      let exceptions = -1
      let exceptionsLength = 0
      if (this.exceptionRows[c]!.length > 0) {
        const serialized = v8.serialize([this.exceptionRows[c], this.exceptionValues[c]])
        exceptions = add(serialized)
        exceptionsLength = serialized.byteLength
      }
      columns.push({ kind, nulls, at, length, exceptions, exceptionsLength })
    }
    const runLength = this.runLength
    const run = runLength > 0 ? add(this.run.subarray(0, runLength)) : -1
    const out = spare !== null && spare.byteLength >= size ? new Uint8Array(spare) : new Uint8Array(Math.max(size, 1 << 16))
    let at = 0
    for (const p of parts) {
      out.set(p, at)
      at += (p.byteLength + 7) & ~7
    }
    this.reset()
    return { layout: { rows: n, run, runLength, columns }, buffer: out.buffer }
  }

  private reset(): void {
    this.length = 0
    this.runLength = 0
    this.segment = null
    this.segEnd = 0
    this.block = null
    this.anyNull.fill(0)
    this.wide.fill(0)
    for (let c = 0; c < this.kinds.length; c++) {
      this.nulls[c]!.fill(0)
      this.exceptionRows[c]!.length = 0
      this.exceptionValues[c]!.length = 0
    }
  }
}

/**
 * The rows of a batch: fresh arrays the engine owns (strings and numbers are copied out of the buffer).
 * Where a batch has several ASCII STRING columns, each row's text from its first to its last such value
 * is made one string, and the values are substrings of it (one native slice a row instead of one a
 * value: v8 shares a long substring's characters with its parent, so a value keeps at most its own
 * record's text alive, never the batch's).
 */
export function toRows(layout: BatchLayout, buffer: ArrayBuffer): Row[] {
  const n = layout.rows
  const width = layout.columns.length
  const rows = new Array<Row>(n)
  for (let r = 0; r < n; r++) rows[r] = new Array<unknown>(width).fill(null)
  const run = (layout.run === -1 ? Buffer.alloc(0) : Buffer.from(buffer, layout.run, layout.runLength)) as Slicing
  const narrow: number[] = []
  for (let c = 0; c < width; c++) {
    const col = layout.columns[c]!
    const bitmap = nullsOf(col, buffer, n)
    switch (col.kind) {
      case F64: {
        const values = new Float64Array(buffer, col.at, n)
        if (bitmap === null) { for (let r = 0; r < n; r++) rows[r]![c] = values[r] }
        else for (let r = 0; r < n; r++) if ((bitmap[r >>> 3]! & (1 << (r & 7))) === 0) rows[r]![c] = values[r]
        break
      }
      case STR: {
        if (col.length !== 1) {
          narrow.push(c)
          break
        }
        const starts = new Int32Array(buffer, col.at, n)
        const ends = new Int32Array(buffer, col.at + ((n * 4 + 7) & ~7), n)
        for (let r = 0; r < n; r++) {
          if (bitmap !== null && (bitmap[r >>> 3]! & (1 << (r & 7))) !== 0) continue
          rows[r]![c] = run.utf8Slice(starts[r]!, ends[r]!)
        }
        break
      }
      case ANY: {
        const values = v8.deserialize(Buffer.from(buffer, col.at, col.length)) as unknown[]
        for (let r = 0; r < n; r++) rows[r]![c] = values[r]
        break
      }
    }
  }
  if (narrow.length > 0) asciiStrings(layout, buffer, run, narrow, rows)
  // Exceptions last: they replace what the column's layout held for their rows.
  for (let c = 0; c < width; c++) {
    const col = layout.columns[c]!
    if (col.exceptions === -1) continue
    const [at, values] = v8.deserialize(Buffer.from(buffer, col.exceptions, col.exceptionsLength)) as [number[], unknown[]]
    for (let i = 0; i < at.length; i++) rows[at[i]!]![c] = values[i]
  }
  return rows
}

function nullsOf(col: ColumnLayout, buffer: ArrayBuffer, n: number): Uint8Array | null {
  return col.nulls === -1 ? null : new Uint8Array(buffer, col.nulls, (n + 7) >>> 3)
}

/** The values of the STRING columns `columns` (all ASCII) into `rows`: one latin1 slice of the run a row, the values its substrings. */
function asciiStrings(layout: BatchLayout, buffer: ArrayBuffer, run: Slicing, columns: readonly number[], rows: Row[]): void {
  const n = layout.rows
  const k = columns.length
  const starts = columns.map(c => new Int32Array(buffer, layout.columns[c]!.at, n))
  const ends = columns.map(c => new Int32Array(buffer, layout.columns[c]!.at + ((n * 4 + 7) & ~7), n))
  const nulls = columns.map(c => nullsOf(layout.columns[c]!, buffer, n))
  const present = new Uint8Array(k)
  for (let r = 0; r < n; r++) {
    const row = rows[r]!
    // The row's text spans its non-empty values (an empty one is '', wherever its span points).
    let lo = 0x7fffffff
    let hi = -1
    for (let j = 0; j < k; j++) {
      const bitmap = nulls[j]!
      const isPresent = bitmap === null || (bitmap[r >>> 3]! & (1 << (r & 7))) === 0
      present[j] = isPresent ? 1 : 0
      if (!isPresent) continue
      const s = starts[j]![r]!
      const e = ends[j]![r]!
      if (s === e) continue
      if (s < lo) lo = s
      if (e > hi) hi = e
    }
    if (hi < 0) {
      for (let j = 0; j < k; j++) if (present[j] === 1) row[columns[j]!] = ''
      continue
    }
    const text = run.latin1Slice(lo, hi)
    for (let j = 0; j < k; j++) if (present[j] === 1) row[columns[j]!] = text.slice(starts[j]![r]! - lo, ends[j]![r]! - lo)
  }
}
