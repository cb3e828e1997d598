// A chunk's rows as one compact binary batch, column by column, so the decode worker can hand rows
// to the main thread in a transferred ArrayBuffer instead of structured clones of row objects (which
// cost the main thread as much as decoding the JSON did). Each column of a batch takes the layout
// its values allow: all NULL (nothing stored: a column the job does not read), numbers (a
// Float64Array), booleans (bytes), 64-bit bigints (a BigInt64Array), strings (one byte run plus
// Int32 offsets: latin1 when every string of the column is ASCII, else UTF-16 code units, which
// keep any JavaScript string exactly, lone surrogates too), and else the column's values
// v8-serialized (DECIMALs beyond 64 bits, numbers mixed with bigints). A null bitmap marks NULLs.
// decodeRows gives back rows equal (Object.is per value) to those encoded.
import v8 from 'node:v8'
import type { Row } from '../../core/batch.js'

const NULLS = 0
const F64 = 1
const BOOL = 2
const I64 = 3
const LATIN1 = 4
const UTF16 = 5
const ANY = 6

/** Where a column's data lies in the batch's buffer (byte offsets). */
export interface ColumnLayout {
  readonly kind: number
  /** The null bitmap (bit r: row r is NULL), or -1 when no row is. */
  readonly nulls: number
  /** The values: numbers, bytes, offsets (STRING: n + 1 Int32 offsets into `bytes`), or serialized. */
  readonly at: number
  readonly length: number
  /** Strings: their byte run. */
  readonly bytes: number
}

/** What travels with the buffer: the row count and each column's layout (a few numbers per column, not per row). */
export interface BatchLayout {
  readonly rows: number
  readonly columns: readonly ColumnLayout[]
}

export interface EncodedBatch {
  readonly layout: BatchLayout
  readonly buffer: ArrayBuffer
}

/** The pieces of a batch being encoded, each put at an 8-byte aligned offset. */
class Parts {
  readonly list: Uint8Array[] = []
  size = 0

  add(bytes: Uint8Array): number {
    const at = this.size
    this.list.push(bytes)
    this.size = at + ((bytes.byteLength + 7) & ~7)
    return at
  }

  join(): ArrayBuffer {
    const out = new Uint8Array(this.size)
    let at = 0
    for (const p of this.list) {
      out.set(p, at)
      at += (p.byteLength + 7) & ~7
    }
    return out.buffer
  }
}

/** Encodes `rows` (each of `width` values) into one buffer to transfer. */
export function encodeRows(rows: readonly Row[], width: number): EncodedBatch {
  const parts = new Parts()
  const columns: ColumnLayout[] = []
  for (let c = 0; c < width; c++) columns.push(encodeColumn(rows, c, parts))
  return { layout: { rows: rows.length, columns }, buffer: parts.join() }
}

function encodeColumn(rows: readonly Row[], c: number, parts: Parts): ColumnLayout {
  const n = rows.length
  let nullCount = 0
  let numbers = 0, strings = 0, booleans = 0, bigints = 0
  for (let r = 0; r < n; r++) {
    const v = rows[r]![c]
    if (v === null) nullCount++
    else if (typeof v === 'number') numbers++
    else if (typeof v === 'string') strings++
    else if (typeof v === 'boolean') booleans++
    else if (typeof v === 'bigint' && BigInt.asIntN(64, v) === v) bigints++
  }
  if (nullCount === n) return { kind: NULLS, nulls: -1, at: 0, length: 0, bytes: 0 }
  const present = n - nullCount
  let nulls = -1
  if (nullCount > 0) {
    const bitmap = new Uint8Array((n + 7) >>> 3)
    for (let r = 0; r < n; r++) if (rows[r]![c] === null) bitmap[r >>> 3]! |= 1 << (r & 7)
    nulls = parts.add(bitmap)
  }
  if (numbers === present) {
    const values = new Float64Array(n)
    for (let r = 0; r < n; r++) {
      const v = rows[r]![c]
      if (v !== null) values[r] = v as number
    }
    return { kind: F64, nulls, at: parts.add(new Uint8Array(values.buffer)), length: n, bytes: 0 }
  }
  if (booleans === present) {
    const values = new Uint8Array(n)
    for (let r = 0; r < n; r++) values[r] = rows[r]![c] === true ? 1 : 0
    return { kind: BOOL, nulls, at: parts.add(values), length: n, bytes: 0 }
  }
  if (bigints === present) {
    const values = new BigInt64Array(n)
    for (let r = 0; r < n; r++) {
      const v = rows[r]![c]
      if (v !== null) values[r] = v as bigint
    }
    return { kind: I64, nulls, at: parts.add(new Uint8Array(values.buffer)), length: n, bytes: 0 }
  }
  if (strings === present) return encodeStrings(rows, c, nulls, parts)
  const values = new Array<unknown>(n)
  for (let r = 0; r < n; r++) values[r] = rows[r]![c]
  const serialized = v8.serialize(values)
  return { kind: ANY, nulls, at: parts.add(serialized), length: serialized.byteLength, bytes: 0 }
}

/** Strings as latin1 bytes while every one is ASCII (a UTF-8 write of as many bytes as characters), else as UTF-16. */
function encodeStrings(rows: readonly Row[], c: number, nulls: number, parts: Parts): ColumnLayout {
  const n = rows.length
  const offsets = new Int32Array(n + 1)
  let bytes: Buffer = Buffer.allocUnsafe(4096)
  let at = 0
  let ascii = true
  for (let r = 0; r < n; r++) {
    const v = rows[r]![c]
    if (v !== null) {
      const s = v as string
      if (bytes.length - at < s.length * 3) bytes = grow(bytes, at, s.length * 3)
      const written = bytes.write(s, at, 'utf8')
      if (written !== s.length) {
        ascii = false
        break
      }
      at += written
    }
    offsets[r + 1] = at
  }
  if (!ascii) {
    at = 0
    for (let r = 0; r < n; r++) {
      const v = rows[r]![c]
      if (v !== null) {
        const s = v as string
        if (bytes.length - at < s.length * 2) bytes = grow(bytes, at, s.length * 2)
        at += bytes.write(s, at, 'utf16le')
      }
      offsets[r + 1] = at
    }
  }
  const offsetsAt = parts.add(new Uint8Array(offsets.buffer))
  const bytesAt = parts.add(bytes.subarray(0, at))
  return { kind: ascii ? LATIN1 : UTF16, nulls, at: offsetsAt, length: n + 1, bytes: bytesAt }
}

function grow(bytes: Buffer, used: number, more: number): Buffer {
  const larger = Buffer.allocUnsafe(Math.max(bytes.length * 2, used + more))
  bytes.copy(larger, 0, 0, used)
  return larger
}

/** Node's Buffer slicing without toString's argument checks. */
type Slicing = Buffer & { latin1Slice(start: number, end: number): string; ucs2Slice(start: number, end: number): string }

/** The rows of an encoded batch: fresh arrays the engine owns. */
export function decodeRows(layout: BatchLayout, buffer: ArrayBuffer): Row[] {
  const n = layout.rows
  const width = layout.columns.length
  const rows = new Array<Row>(n)
  for (let r = 0; r < n; r++) rows[r] = new Array<unknown>(width).fill(null)
  for (let c = 0; c < width; c++) {
    const col = layout.columns[c]!
    if (col.kind !== NULLS) decodeColumn(rows, c, col, buffer)
  }
  return rows
}

function decodeColumn(rows: Row[], c: number, col: ColumnLayout, buffer: ArrayBuffer): void {
  const n = rows.length
  const bitmap = col.nulls === -1 ? null : new Uint8Array(buffer, col.nulls, (n + 7) >>> 3)
  const isNull = (r: number): boolean => bitmap !== null && (bitmap[r >>> 3]! & (1 << (r & 7))) !== 0
  switch (col.kind) {
    case F64: {
      const values = new Float64Array(buffer, col.at, n)
      for (let r = 0; r < n; r++) if (!isNull(r)) rows[r]![c] = values[r]
      return
    }
    case BOOL: {
      const values = new Uint8Array(buffer, col.at, n)
      for (let r = 0; r < n; r++) if (!isNull(r)) rows[r]![c] = values[r] === 1
      return
    }
    case I64: {
      const values = new BigInt64Array(buffer, col.at, n)
      for (let r = 0; r < n; r++) if (!isNull(r)) rows[r]![c] = values[r]
      return
    }
    case LATIN1:
    case UTF16: {
      const offsets = new Int32Array(buffer, col.at, n + 1)
      const bytes = Buffer.from(buffer, col.bytes, offsets[n]) as Slicing
      const latin1 = col.kind === LATIN1
      for (let r = 0; r < n; r++) {
        if (isNull(r)) continue
        rows[r]![c] = latin1 ? bytes.latin1Slice(offsets[r]!, offsets[r + 1]!) : bytes.ucs2Slice(offsets[r]!, offsets[r + 1]!)
      }
      return
    }
    case ANY: {
      const values = v8.deserialize(Buffer.from(buffer, col.at, col.length)) as unknown[]
      for (let r = 0; r < n; r++) if (!isNull(r)) rows[r]![c] = values[r]
      return
    }
    default:
      throw new Error(`row codec: unknown column kind ${col.kind}`)
  }
}
