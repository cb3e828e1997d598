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

  /** The pieces in one buffer: `spare` when it is large enough (a buffer given back to be used again), else a new one. */
  join(spare: ArrayBuffer | null): ArrayBuffer {
    // Unfilled: padding between the pieces is never read.
    const out = spare !== null && spare.byteLength >= this.size ? new Uint8Array(spare) : Buffer.allocUnsafeSlow(Math.max(this.size, 1 << 18))
    let at = 0
    for (const p of this.list) {
      out.set(p, at)
      at += (p.byteLength + 7) & ~7
    }
    return out.buffer as ArrayBuffer
  }
}

/**
 * Encodes `rows` (each of `width` values) into one buffer to transfer: `spare` if it is large enough (a
 * buffer decoded before: reusing it spares the worker an allocation per batch), else a new one.
 */
export function encodeRows(rows: readonly Row[], width: number, spare: ArrayBuffer | null = null): EncodedBatch {
  const parts = new Parts()
  const columns: ColumnLayout[] = []
  for (let c = 0; c < width; c++) columns.push(encodeColumn(rows, c, parts))
  return { layout: { rows: rows.length, columns }, buffer: parts.join(spare) }
}

function encodeColumn(rows: readonly Row[], c: number, parts: Parts): ColumnLayout {
  const n = rows.length
  let first: unknown = null
  for (let r = 0; r < n && first === null; r++) first = rows[r]![c]
  if (first === null) return { kind: NULLS, nulls: -1, at: 0, length: 0, bytes: 0 }
  // One pass in the layout the first value suggests; another value gives the general layout.
  const bitmap = new Uint8Array((n + 7) >>> 3)
  let anyNull = false
  let layout: ColumnLayout | null = null
  if (typeof first === 'number') {
    const values = new Float64Array(n)
    let r = 0
    for (; r < n; r++) {
      const v = rows[r]![c]
      if (typeof v === 'number') values[r] = v
      else if (v === null) {
        bitmap[r >>> 3]! |= 1 << (r & 7)
        anyNull = true
      } else break
    }
    if (r === n) layout = { kind: F64, nulls: -1, at: parts.add(new Uint8Array(values.buffer)), length: n, bytes: 0 }
  } else if (typeof first === 'string') {
    const strings: string[] = []
    const offsets = new Int32Array(n + 1)
    let at = 0
    let r = 0
    for (; r < n; r++) {
      const v = rows[r]![c]
      if (typeof v === 'string') {
        strings.push(v)
        at += v.length
      } else if (v === null) {
        bitmap[r >>> 3]! |= 1 << (r & 7)
        anyNull = true
      } else break
      offsets[r + 1] = at
    }
    if (r === n) layout = encodeStrings(strings, offsets, parts)
  } else if (typeof first === 'boolean') {
    const values = new Uint8Array(n)
    let r = 0
    for (; r < n; r++) {
      const v = rows[r]![c]
      if (typeof v === 'boolean') values[r] = v ? 1 : 0
      else if (v === null) {
        bitmap[r >>> 3]! |= 1 << (r & 7)
        anyNull = true
      } else break
    }
    if (r === n) layout = { kind: BOOL, nulls: -1, at: parts.add(values), length: n, bytes: 0 }
  } else if (typeof first === 'bigint') {
    const values = new BigInt64Array(n)
    let r = 0
    for (; r < n; r++) {
      const v = rows[r]![c]
      if (typeof v === 'bigint' && BigInt.asIntN(64, v) === v) values[r] = v
      else if (v === null) {
        bitmap[r >>> 3]! |= 1 << (r & 7)
        anyNull = true
      } else break
    }
    if (r === n) layout = { kind: I64, nulls: -1, at: parts.add(new Uint8Array(values.buffer)), length: n, bytes: 0 }
  }
  if (layout === null) {
    const values = new Array<unknown>(n)
    for (let r = 0; r < n; r++) values[r] = rows[r]![c]
    const serialized = v8.serialize(values)
    return { kind: ANY, nulls: -1, at: parts.add(serialized), length: serialized.byteLength, bytes: 0 }
  }
  return anyNull ? { ...layout, nulls: parts.add(bitmap) } : layout
}

/**
 * Strings as latin1 bytes while every one is ASCII, else as UTF-16. The column's strings are joined
 * and written in one call (a write per string costs more than the string): when the UTF-8 write gives
 * as many bytes as characters, every character was ASCII and the offsets are character offsets.
 */
function encodeStrings(strings: readonly string[], offsets: Int32Array, parts: Parts): ColumnLayout {
  const n = offsets.length - 1
  const joined = strings.join('')
  let bytes = Buffer.allocUnsafeSlow(joined.length * 3)
  const written = bytes.write(joined, 0, 'utf8')
  const ascii = written === joined.length
  if (!ascii) {
    bytes = Buffer.allocUnsafeSlow(joined.length * 2)
    bytes.write(joined, 0, 'utf16le')
    for (let r = 1; r <= n; r++) offsets[r] = offsets[r]! * 2
  }
  const offsetsAt = parts.add(new Uint8Array(offsets.buffer))
  const bytesAt = parts.add(bytes.subarray(0, ascii ? written : joined.length * 2))
  return { kind: ascii ? LATIN1 : UTF16, nulls: -1, at: offsetsAt, length: n + 1, bytes: bytesAt }
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
