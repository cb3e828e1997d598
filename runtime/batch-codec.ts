// A batch as bytes, for crossing threads (a transferred ArrayBuffer or a shared ring, never a structured
// clone of row objects). Column by column, each in the layout its values allow, NULLs in a bitmap: a
// column of numbers is a Float64Array; of bigints within 64 bits (BIGINT beyond 2^53, DECIMAL's
// unscaled values) a BigInt64Array; of strings one run of UTF-8 bytes with an end offset per row
// (Latin-1 when every character is one byte, so decoding is a plain slice); of BYTES (plain
// Uint8Arrays) one run of bytes with ends; of booleans a byte a row. Any other column — nested values,
// bigints beyond 64 bits, a mix — is v8-serialized as one array. Row kinds follow as one byte per row.
// Every value comes back as it went: the same JS type, -0 and NaN included. The rows' keys may follow
// (a hash exchange computed them to route the rows: the receiver takes them instead of computing them
// again): the batch's distinct keys, each once, and a key number per row.
import v8 from 'node:v8'
import type { Batch, Row } from '../core/batch.js'
import type { KeyRef } from '../core/keyed-state.js'
import { wellFormed } from '../common/values.js'

const F64 = 1
const STR = 2
const ANY = 3
const BOOL = 4
const I64 = 5
const BYTES = 6

const I64_MIN = -(1n << 63n)
const I64_MAX = (1n << 63n) - 1n
/** Characters of strings joined for one write (the joined string stays out of V8's large-object space). */
const JOIN_CHARS = 16_384

/** Node's Buffer slicing without toString's argument checks. */
type Slicing = Buffer & {
  latin1Slice(start: number, end: number): string
  utf8Slice(start: number, end: number): string
  utf8Write(s: string, offset: number, length: number): number
  ucs2Slice(start: number, end: number): string
  ucs2Write(s: string, offset: number, length: number): number
}

/** Bytes being appended to, grown by doubling. */
class Writer {
  buf: Slicing
  pos = 0
  constructor(size: number) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(64, size)) as Slicing
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.pos + n) size *= 2
    const next = Buffer.allocUnsafeSlow(size) as Slicing
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

function kindOf(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return F64
    case 'string':
      return STR
    case 'boolean':
      return BOOL
    case 'bigint':
      return v >= I64_MIN && v <= I64_MAX ? I64 : ANY
    default:
      return v instanceof Uint8Array && v.constructor === Uint8Array ? BYTES : ANY
  }
}

function columnKind(rows: readonly Row[], c: number): number {
  let kind = 0
  for (let r = 0; r < rows.length; r++) {
    const v = rows[r]![c]
    if (v === null) continue
    const k = kindOf(v)
    if (k === ANY || (kind !== 0 && k !== kind)) return ANY
    kind = k
  }
  return kind === 0 ? F64 : kind
}

/** Writes column c's NULL bitmap: bit r set when row r is NULL. */
function nullBitmap(w: Writer, rows: readonly Row[], c: number): void {
  const n = rows.length
  const size = (n + 7) >> 3
  w.ensure(size)
  const at = w.pos
  w.buf.fill(0, at, at + size)
  for (let r = 0; r < n; r++) if (rows[r]![c] === null) w.buf[at + (r >> 3)]! |= 1 << (r & 7)
  w.pos += size
}

/** Strings as UTF-8 with an end per row (ends first, at a multiple of 8), and a flag: all one byte a character. */
function writeStrings(w: Writer, rows: readonly Row[], c: number): void {
  const n = rows.length
  let chars = 0
  for (let r = 0; r < n; r++) {
    const v = rows[r]![c]
    if (v !== null) chars += (v as string).length
  }
  const flagAt = w.pos
  w.u8(0)
  w.align()
  // One ensure for the lot (UTF-8 takes at most 3 bytes per UTF-16 unit), so the view of the ends stays valid.
  w.ensure(n * 4 + chars * 3)
  const ends = new Uint32Array(w.buf.buffer, w.buf.byteOffset + w.pos, n)
  w.pos += n * 4
  const buf = w.buf
  const start = w.pos
  // The strings joined, up to JOIN_CHARS characters at a time, each run written in one call (a call into
  // C++ per value cost more than the copying); while a run's characters are one byte each, its ends
  // follow from the lengths, else its values are written again one by one.
  let pos = start
  let joined = ''
  let from = 0
  for (let r = 0; r < n; r++) {
    const v = rows[r]![c]
    if (v !== null) joined += v as string
    ends[r] = joined.length
    if (joined.length < JOIN_CHARS && r < n - 1) continue
    const written = joined.length === 0 ? 0 : buf.utf8Write(joined, pos, joined.length * 3)
    if (written === joined.length) {
      const base = pos - start
      for (let i = from; i <= r; i++) ends[i]! += base
      pos += written
    } else if (!wellFormed(joined)) {
      // A lone surrogate (SUBSTRING of an emoji, JSON's "\ud800") has no UTF-8: the whole column goes as UTF-16.
      buf[flagAt] = UTF16
      w.pos = writeUtf16(buf, rows, c, start, ends)
      return
    } else {
      for (let i = from; i <= r; i++) {
        const u = rows[i]![c]
        if (u !== null) pos += buf.utf8Write(u as string, pos, (u as string).length * 3)
        ends[i] = pos - start
      }
    }
    joined = ''
    from = r + 1
  }
  buf[flagAt] = pos - start === chars ? ASCII : UTF8
  w.pos = pos
}

/** A string column's text: one byte a character, UTF-8, or UTF-16 (a value holds a lone surrogate, which UTF-8 would turn into U+FFFD). */
const UTF8 = 0, ASCII = 1, UTF16 = 2

/** The column's values from `start` as UTF-16 (2 bytes a unit: within the 3 a unit the writer reserved); returns the end. */
function writeUtf16(buf: Slicing, rows: readonly Row[], c: number, start: number, ends: Uint32Array): number {
  let pos = start
  for (let r = 0; r < rows.length; r++) {
    const u = rows[r]![c]
    if (u !== null) pos += buf.ucs2Write(u as string, pos, (u as string).length * 2)
    ends[r] = pos - start
  }
  return pos
}

/** Plain Uint8Arrays: ends (at a multiple of 8), then the bytes. */
function writeBytes(w: Writer, rows: readonly Row[], c: number): void {
  const n = rows.length
  let total = 0
  for (let r = 0; r < n; r++) {
    const v = rows[r]![c]
    if (v !== null) total += (v as Uint8Array).length
  }
  w.align()
  w.ensure(n * 4 + total)
  const ends = new Uint32Array(w.buf.buffer, w.buf.byteOffset + w.pos, n)
  w.pos += n * 4
  const start = w.pos
  for (let r = 0; r < n; r++) {
    const v = rows[r]![c]
    if (v !== null) {
      w.buf.set(v as Uint8Array, w.pos)
      w.pos += (v as Uint8Array).length
    }
    ends[r] = w.pos - start
  }
}

/** One writer per thread, reused: what it encodes is copied out before the next batch. */
const scratch = new Writer(1 << 16)

/** The batch as one ArrayBuffer (of its own: it can be transferred), with its rows' keys when given. */
export function encodeBatch(batch: Batch, keys?: readonly KeyRef[]): ArrayBuffer {
  const bytes = encodeBatchBytes(batch, keys)
  const out = new ArrayBuffer(bytes.length)
  new Uint8Array(out).set(bytes)
  return out
}

/**
 * The batch's bytes, in a scratch buffer valid until the next call (copy them out). Offsets within are
 * multiples of 8 where typed arrays read them: put them at a multiple of 8.
 */
export function encodeBatchBytes(batch: Batch, keys?: readonly KeyRef[]): Uint8Array {
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
    } else if (kind === I64) {
      nullBitmap(w, rows, c)
      w.align()
      w.ensure(n * 8)
      const f = new BigInt64Array(w.buf.buffer, w.buf.byteOffset + w.pos, n)
      for (let r = 0; r < n; r++) {
        const v = rows[r]![c]
        f[r] = v === null ? 0n : (v as bigint)
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
      writeStrings(w, rows, c)
    } else if (kind === BYTES) {
      nullBitmap(w, rows, c)
      writeBytes(w, rows, c)
    } else {
      const values = new Array<unknown>(n)
      for (let r = 0; r < n; r++) values[r] = rows[r]![c]
      const bytes = v8.serialize(values)
      w.u32(bytes.length)
      w.bytes(bytes)
    }
  }
  writeKeys(w, keys)
  return w.buf.subarray(0, w.pos)
}

/** Key numbers by row, reused from batch to batch. */
let keyIds = new Uint32Array(1024)

/**
 * After the columns: 0, or 1 and the rows' keys — the number of distinct keys; each one's key group
 * and encoding (its length, then its UTF-16 code units); at a multiple of 8, each row's key number.
 * Rows of one key share one KeyRef (batch-keys.ts), so a key goes once per batch.
 */
function writeKeys(w: Writer, keys: readonly KeyRef[] | undefined): void {
  if (keys === undefined) {
    w.u8(0)
    return
  }
  w.u8(1)
  const n = keys.length
  if (keyIds.length < n) keyIds = new Uint32Array(n)
  const ids = new Map<KeyRef, number>()
  const distinct: KeyRef[] = []
  for (let r = 0; r < n; r++) {
    const key = keys[r]!
    let id = ids.get(key)
    if (id === undefined) {
      id = distinct.length
      ids.set(key, id)
      distinct.push(key)
    }
    keyIds[r] = id
  }
  w.u32(distinct.length)
  for (const key of distinct) {
    w.u32(key.group)
    w.u32(key.encoded.length)
    w.ensure(key.encoded.length * 2)
    w.pos += w.buf.ucs2Write(key.encoded, w.pos, key.encoded.length * 2)
  }
  w.align()
  w.ensure(n * 4)
  new Uint32Array(w.buf.buffer, w.buf.byteOffset + w.pos, n).set(keyIds.subarray(0, n))
  w.pos += n * 4
}

/** The batch `encodeBatch` made (or the bytes `encodeBatchBytes` made, at `offset`, a multiple of 8, of `data`). */
export function decodeBatch(data: ArrayBufferLike, offset = 0, length = data.byteLength - offset): Batch {
  return decodeBatchKeys(data, offset, length, null).batch
}

/**
 * The batch and, when it came with its rows' keys and `keyColumns` names the columns they are of, those
 * keys (a KeyRef per distinct key, its values taken from the first row that has it); else null.
 */
export function decodeBatchKeys(data: ArrayBufferLike, offset: number, length: number, keyColumns: readonly number[] | null): {
  batch: Batch
  keys: KeyRef[] | null
} {
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
  // Filled with NULLs first: the rows start with elements of any type, so storing a value never changes their kind.
  for (let r = 0; r < n; r++) rows[r] = new Array(cols).fill(null)
  const align = (): void => {
    pos += (8 - (pos & 7)) & 7
  }
  for (let c = 0; c < cols; c++) {
    const kind = buf[pos++]
    if (kind === BOOL) {
      for (let r = 0; r < n; r++) {
        const b = buf[pos + r]
        rows[r]![c] = b === 2 ? null : b === 1
      }
      pos += n
    } else if (kind === ANY) {
      const len = buf.readUInt32LE(pos)
      pos += 4
      const values = v8.deserialize(buf.subarray(pos, pos + len)) as unknown[]
      for (let r = 0; r < n; r++) rows[r]![c] = values[r]
      pos += len
    } else {
      const bitmap = pos
      pos += (n + 7) >> 3
      const isNull = (r: number): boolean => (buf[bitmap + (r >> 3)]! & (1 << (r & 7))) !== 0
      if (kind === F64) {
        align()
        const f = new Float64Array(data, offset + pos, n)
        for (let r = 0; r < n; r++) rows[r]![c] = isNull(r) ? null : f[r]!
        pos += n * 8
      } else if (kind === I64) {
        // A loop of its own: one element type per typed-array read keeps it monomorphic.
        align()
        const f = new BigInt64Array(data, offset + pos, n)
        for (let r = 0; r < n; r++) rows[r]![c] = isNull(r) ? null : f[r]!
        pos += n * 8
      } else if (kind === STR) {
        const text = buf[pos++]!
        align()
        const ends = new Uint32Array(data, offset + pos, n)
        const start = pos + n * 4
        let prev = 0
        // A value whose bytes are the last one's (a short string repeated: a day, a channel) is that string again, not a new one.
        let last: string | null = null
        let lastAt = 0
        let lastLength = -1
        for (let r = 0; r < n; r++) {
          const end = ends[r]!
          if (isNull(r)) rows[r]![c] = null
          else {
            const at = start + prev, len = end - prev
            if (len === lastLength && len <= REPEAT_BYTES && sameBytes(buf, at, lastAt, len)) rows[r]![c] = last
            else {
              last = text === ASCII ? buf.latin1Slice(at, start + end) : text === UTF8 ? buf.utf8Slice(at, start + end) : buf.ucs2Slice(at, start + end)
              rows[r]![c] = last
              lastAt = at
              lastLength = len
            }
          }
          prev = end
        }
        pos = start + prev
      } else if (kind === BYTES) {
        align()
        const ends = new Uint32Array(data, offset + pos, n)
        const start = pos + n * 4
        let prev = 0
        for (let r = 0; r < n; r++) {
          const end = ends[r]!
          // A copy of its own (slice), not a view that would keep the ring or the whole batch alive.
          rows[r]![c] = isNull(r) ? null : new Uint8Array(buf.subarray(start + prev, start + end))
          prev = end
        }
        pos = start + prev
      } else {
        throw new Error(`a batch that crossed threads has column ${c} of unknown kind ${kind} (the sender's batch codec differs from this thread's)`)
      }
    }
  }
  if (buf[pos++] !== 1 || keyColumns === null) return { batch: { rows, kinds }, keys: null }
  const count = buf.readUInt32LE(pos)
  pos += 4
  const groups = new Array<number>(count)
  const encodings = new Array<string>(count)
  for (let k = 0; k < count; k++) {
    groups[k] = buf.readUInt32LE(pos)
    const units = buf.readUInt32LE(pos + 4)
    pos += 8
    encodings[k] = buf.ucs2Slice(pos, pos + units * 2)
    pos += units * 2
  }
  pos += (8 - (pos & 7)) & 7
  const ids = new Uint32Array(data, offset + pos, n)
  const made = new Array<KeyRef | undefined>(count)
  const keys = new Array<KeyRef>(n)
  for (let r = 0; r < n; r++) {
    const id = ids[r]!
    let key = made[id]
    if (key === undefined) {
      const row = rows[r]!
      key = made[id] = { values: keyColumns.map(c => row[c]), encoded: encodings[id]!, group: groups[id]! }
    }
    keys[r] = key
  }
  return { batch: { rows, kinds }, keys }
}

/** Strings up to this many bytes are compared with the last one before a new one is made. */
const REPEAT_BYTES = 32

function sameBytes(buf: Uint8Array, a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (buf[a + i] !== buf[b + i]) return false
  return true
}
