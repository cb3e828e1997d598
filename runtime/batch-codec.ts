// A batch as bytes, for crossing threads (a transferred ArrayBuffer, never a structured clone of row
// objects). Column by column, each in the layout its values allow: a column of numbers (and NULLs) is
// a Float64Array with a null bitmap; a column of strings (and NULLs) one run of UTF-8 bytes with an
// end offset per row (Latin-1 when every character is one byte, so decoding is a plain slice); a
// column of booleans a byte a row; any other column — bigints (BIGINT beyond 2^53, DECIMAL), nested
// values, a mix — is v8-serialized as one array. Row kinds follow as one byte per row. Every value comes back as it went:
// the same JS type, -0 and NaN included.
import v8 from 'node:v8'
import type { Batch, Row } from '../core/batch.js'

const F64 = 1
const STR = 2
const ANY = 3
const BOOL = 4

/** Node's Buffer slicing without toString's argument checks. */
type Slicing = Buffer & { latin1Slice(start: number, end: number): string; utf8Slice(start: number, end: number): string }

/** Bytes being appended to, grown by doubling. */
class Writer {
  buf: Buffer
  pos = 0
  constructor(size: number) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(64, size))
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.pos + n) size *= 2
    const next = Buffer.allocUnsafeSlow(size)
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
  }
  /** Moves to a multiple of 8 (typed arrays over the buffer need aligned offsets). */
  align(): void {
    const pad = (8 - (this.pos & 7)) & 7
    this.ensure(pad)
    this.pos += pad
  }
  u32(v: number): void {
    this.ensure(4)
    this.buf.writeUInt32LE(v, this.pos)
    this.pos += 4
  }
  u8(v: number): void {
    this.ensure(1)
    this.buf[this.pos++] = v
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length)
    this.buf.set(b, this.pos)
    this.pos += b.length
  }
}

function columnKind(rows: readonly Row[], c: number): number {
  let kind = 0
  for (let r = 0; r < rows.length; r++) {
    const v = rows[r]![c]
    if (v === null) continue
    const k = typeof v === 'number' ? F64 : typeof v === 'string' ? STR : typeof v === 'boolean' ? BOOL : ANY
    if (k === ANY || (kind !== 0 && k !== kind)) return ANY
    kind = k
  }
  return kind === 0 ? F64 : kind
}

/** Marks row r NULL in the bitmap at `at`, if it is; true when some row is. */
function nullBitmap(w: Writer, rows: readonly Row[], c: number): void {
  const n = rows.length
  const size = (n + 7) >> 3
  w.ensure(size)
  const at = w.pos
  w.buf.fill(0, at, at + size)
  for (let r = 0; r < n; r++) if (rows[r]![c] === null) w.buf[at + (r >> 3)]! |= 1 << (r & 7)
  w.pos += size
}

/** One writer per thread, reused: what it encodes is copied out before the next batch. */
const scratch = new Writer(1 << 16)

/** The batch as one ArrayBuffer (of its own: it can be transferred). */
export function encodeBatch(batch: Batch): ArrayBuffer {
  const bytes = encodeBatchBytes(batch)
  const out = new ArrayBuffer(bytes.length)
  new Uint8Array(out).set(bytes)
  return out
}

/**
 * The batch's bytes, in a scratch buffer valid until the next call (copy them out). Offsets within are
 * multiples of 8 where typed arrays read them: put them at a multiple of 8.
 */
export function encodeBatchBytes(batch: Batch): Uint8Array {
  const { rows, kinds } = batch
  const n = rows.length
  const cols = n === 0 ? 0 : rows[0]!.length
  const w = scratch
  w.pos = 0
  w.u32(n)
  w.u32(cols)
  w.u8(kinds === null ? 0 : 1)
  if (kinds !== null) w.bytes(kinds)
  for (let c = 0; c < cols; c++) {
    const kind = columnKind(rows, c)
    w.u8(kind)
    if (kind === F64) {
      nullBitmap(w, rows, c)
      w.align()
      w.ensure(n * 8)
      const f = new Float64Array(w.buf.buffer, w.buf.byteOffset + w.pos, n)
      for (let r = 0; r < n; r++) {
        const v = rows[r]![c]
        f[r] = v === null ? 0 : (v as number)
      }
      w.pos += n * 8
    } else if (kind === BOOL) {
      // One byte a row: 0 false, 1 true, 2 NULL.
      w.ensure(n)
      for (let r = 0; r < n; r++) {
        const v = rows[r]![c]
        w.buf[w.pos + r] = v === null ? 2 : v === true ? 1 : 0
      }
      w.pos += n
    } else if (kind === STR) {
      nullBitmap(w, rows, c)
      // Ends first (known size), then the bytes; the flag says whether they are all one byte a character.
      const flagAt = w.pos
      w.u8(0)
      w.align()
      const endsAt = w.pos
      w.ensure(n * 4)
      w.pos += n * 4
      const start = w.pos
      let ascii = true
      for (let r = 0; r < n; r++) {
        const v = rows[r]![c]
        if (v !== null) {
          const s = v as string
          w.ensure(s.length * 3)
          const len = w.buf.write(s, w.pos, 'utf8')
          if (len !== s.length) ascii = false
          w.pos += len
        }
        w.buf.writeUInt32LE(w.pos - start, endsAt + r * 4)
      }
      w.buf[flagAt] = ascii ? 1 : 0
    } else {
      const values = new Array<unknown>(n)
      for (let r = 0; r < n; r++) values[r] = rows[r]![c]
      const bytes = v8.serialize(values)
      w.u32(bytes.length)
      w.bytes(bytes)
    }
  }
  return w.buf.subarray(0, w.pos)
}

/** The batch `encodeBatch` made (or the bytes `encodeBatchBytes` made, at `offset`, a multiple of 8, of `data`). */
export function decodeBatch(data: ArrayBufferLike, offset = 0, length = data.byteLength - offset): Batch {
  const buf = Buffer.from(data, offset, length) as Slicing
  let pos = 0
  const n = buf.readUInt32LE(0)
  const cols = buf.readUInt32LE(4)
  pos = 8
  const hasKinds = buf[pos++] === 1
  let kinds: Uint8Array | null = null
  if (hasKinds) {
    kinds = Uint8Array.prototype.slice.call(buf, pos, pos + n)
    pos += n
  }
  const rows: Row[] = new Array(n)
  for (let r = 0; r < n; r++) rows[r] = new Array(cols)
  const align = (): void => {
    pos += (8 - (pos & 7)) & 7
  }
  for (let c = 0; c < cols; c++) {
    const kind = buf[pos++]
    if (kind === F64 || kind === STR) {
      const bitmap = pos
      pos += (n + 7) >> 3
      const isNull = (r: number): boolean => (buf[bitmap + (r >> 3)]! & (1 << (r & 7))) !== 0
      if (kind === F64) {
        align()
        const f = new Float64Array(data, offset + pos, n)
        for (let r = 0; r < n; r++) rows[r]![c] = isNull(r) ? null : f[r]
        pos += n * 8
      } else {
        const ascii = buf[pos++] === 1
        align()
        const ends = pos
        pos += n * 4
        const start = pos
        let prev = 0
        for (let r = 0; r < n; r++) {
          const end = buf.readUInt32LE(ends + r * 4)
          rows[r]![c] = isNull(r) ? null : ascii ? buf.latin1Slice(start + prev, start + end) : buf.utf8Slice(start + prev, start + end)
          prev = end
        }
        pos = start + prev
      }
    } else if (kind === BOOL) {
      for (let r = 0; r < n; r++) {
        const b = buf[pos + r]
        rows[r]![c] = b === 2 ? null : b === 1
      }
      pos += n
    } else {
      const len = buf.readUInt32LE(pos)
      pos += 4
      const values = v8.deserialize(buf.subarray(pos, pos + len)) as unknown[]
      for (let r = 0; r < n; r++) rows[r]![c] = values[r]
      pos += len
    }
  }
  return { rows, kinds }
}
