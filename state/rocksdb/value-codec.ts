// The values of the RocksDB state backend: [format|flags][f64 LE time?][user key copy?][value], the value
// in a compact serializer (numbers, strings, arrays, plain objects; v8 for anything unusual).
import v8 from 'node:v8'
import { WeirError } from '../../common/errors.js'
import { wellFormed } from '../../common/values.js'

const f64 = new Float64Array(1)
/** f64's bytes: as writeDoubleLE writes them where the platform is little-endian (else writeDoubleLE is used). */
const f64Bytes = new Uint8Array(f64.buffer)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

const FORMAT = 0x10
const HAS_TIME = 0x01
const HAS_KEY = 0x02

/** Serializes [header][f64 LE time?][user key?][value]: `time` is the TTL clock (null without TTL). */
export function encodeEntry(time: number | null, value: unknown, userKey?: { readonly k: unknown }): Buffer {
  const n = encodeEntryInPlace(time, value, userKey)
  const out = Buffer.allocUnsafe(n)
  own.copy(out, 0, 0, n)
  return out
}

/**
 * encodeEntry without the copy: the entry is entryScratch()[0, returned length), valid until the
 * next encode (for a write batch that copies it into buffers of its own).
 */
export function encodeEntryInPlace(time: number | null, value: unknown, userKey?: { readonly k: unknown }): number {
  pos = 0
  writeEntry(time, value, userKey)
  return pos
}

/** The buffer encodeEntryInPlace wrote into (it grows, so ask after encoding). */
export function entryScratch(): Buffer {
  return own
}

/**
 * encodeEntryInPlace straight into `buf` from `at` (a write batch's held bytes: no copy from the
 * scratch buffer). Returns the entry's end in `buf`, or -1 when it did not fit before buf's end:
 * then the whole entry is in entryScratch()[0, encodedLength()).
 */
export function encodeEntryAt(buf: Buffer, at: number, time: number | null, value: unknown, userKey?: { readonly k: unknown }): number {
  scratch = buf as Raw
  base = pos = at
  try {
    writeEntry(time, value, userKey)
    return scratch === own ? -1 : pos
  } finally {
    scratch = own
    base = 0
  }
}

/** The length of the entry encodeEntryAt moved to the scratch buffer (after it returned -1). */
export function encodedLength(): number {
  return pos
}

/**
 * Each of `values` as write encodes an array's items, one after another (no tag, no count: a
 * segment of EncodedRows), into `buf` from `at`, as encodeEntryAt does: their end, or -1 when they
 * did not fit (then they are in entryScratch()[0, encodedLength())).
 */
export function encodeValuesAt(buf: Buffer, at: number, values: readonly unknown[]): number {
  scratch = buf as Raw
  base = pos = at
  try {
    for (let i = 0; i < values.length; i++) write(values[i])
    return scratch === own ? -1 : pos
  } finally {
    scratch = own
    base = 0
  }
}

/** Appends the `n` values encoded in `buf` from `at` (encodeValuesAt's) to `out`. */
export function decodeValues(buf: Buffer, at: number, n: number, out: unknown[]): void {
  rbuf = buf as Raw
  rpos = at
  for (let i = 0; i < n; i++) out.push(read())
}

/** Rows encoded by encodeValuesAt: `bytes[start, end)` holds `rows` of them. */
export class Segment {
  next: Segment | null = null
  constructor(readonly bytes: Buffer, readonly start: number, readonly end: number, readonly rows: number) {}
}

/**
 * A list element of rows kept encoded (encoded-rows.ts): the segments encoded so far, then the rows
 * added since (`pending`, encoded at the bundle's end). Written as one array (tag 15, the count,
 * the segments' bytes, the pending rows), as its rows would have been; read back, it is that array.
 */
export class EncodedRows {
  /** Rows in the segments and pending. */
  count = 0
  first: Segment | null = null
  last: Segment | null = null
  pending: unknown[] | null = null
  /** Bytes of its stored entry, once a write batch has put it (0 before). */
  written = 0

  /** Appends `seg` after the last segment (its rows must be the first of pending's, now encoded). */
  appendSegment(seg: Segment): void {
    if (this.last === null) this.first = seg
    else this.last.next = seg
    this.last = seg
  }
}

/** Tag 15 with `e`'s count, the bytes of its segments, then its pending rows. */
function writeEncodedRows(e: EncodedRows): void {
  ensure(6)
  scratch[pos++] = 15
  putVarint(e.count)
  for (let seg = e.first; seg !== null; seg = seg.next) {
    const n = seg.end - seg.start
    ensure(n)
    const b = seg.bytes
    scratch.set(new Uint8Array(b.buffer, b.byteOffset + seg.start, n), pos)
    pos += n
  }
  const rows = e.pending
  if (rows !== null) { for (let i = 0; i < rows.length; i++) write(rows[i]) }
}

/** Reads every row of the chunks about to be encoded before any is (touchRows, over several chunks). */
export function touchChunks(chunks: readonly (readonly unknown[])[]): void {
  for (let i = 0; i < chunks.length; i++) touchRows(chunks[i]!)
}

function writeEntry(time: number | null, value: unknown, userKey: { readonly k: unknown } | undefined): void {
  ensure(9)
  scratch[pos++] = FORMAT | (time === null ? 0 : HAS_TIME) | (userKey === undefined ? 0 : HAS_KEY)
  if (time !== null) {
    scratch.writeDoubleLE(time, pos)
    pos += 8
  }
  if (userKey !== undefined) write(userKey.k)
  write(value)
}

function checkHeader(buf: Uint8Array): number {
  const h = buf[0]!
  if ((h & 0xf0) !== FORMAT) throw WeirError.internal(`unknown state value format 0x${h.toString(16)}`)
  return h
}

/** The TTL clock stored with a value, or null if it has none. */
export function entryTime(buf: Buffer): number | null {
  return (checkHeader(buf) & HAS_TIME) === 0 ? null : buf.readDoubleLE(1)
}

/** The stored value (after any user-key copy). */
export function decodeEntry(buf: Buffer): unknown {
  const h = checkHeader(buf)
  rbuf = buf as Raw
  rpos = (h & HAS_TIME) === 0 ? 1 : 9
  if ((h & HAS_KEY) !== 0) read()
  return read()
}

/** The user-key copy a map entry carries, or `none` if it has none. */
export function decodeEntryKey<T>(buf: Buffer, none: T): unknown {
  const h = checkHeader(buf)
  if ((h & HAS_KEY) === 0) return none
  rbuf = buf as Raw
  rpos = (h & HAS_TIME) === 0 ? 1 : 9
  return read()
}

// The serializer writes into one growing scratch buffer; values are copied out at the end.
// Tags: 0 null, 1 undefined, 2 false, 3 true, 4 int32, 5 f64, 6 string (u32 length + UTF-8),
// 7 int64 bigint, 8 other bigint (decimal text), 9 array (u32 count + items), 10 anything else (v8),
// 11 plain object, and with LEB128 varints (LEB: least significant 7 bits first, high bit = more):
// 12 int32 (zigzag), 13 integer past int32 below 2^48 in magnitude (zigzag), 14 string (byte length
// + UTF-8), 15 array (count + items). A Nexmark bid row takes ~15 of its ~200 bytes less than with
// 4, 5, 6 and 9 (still read: values written before them are).
/** The scratch buffer, where entries are encoded unless encodeEntryAt names another. */
let own = Buffer.allocUnsafe(1 << 16) as Raw
/** Where the serializer writes: `own`, or encodeEntryAt's buffer from `base` on. */
let scratch = own
let base = 0
let pos = 0

/**
 * Node's Buffer writers and readers without Buffer.prototype.write's and toString's argument
 * handling (the same native code): over Nexmark bid rows (a URL and a ~100-character extra each),
 * that handling took about as long as writing the text.
 */
type Raw = Buffer & {
  utf8Write(s: string, offset: number, length: number): number
  latin1Write(s: string, offset: number, length: number): number
  ucs2Write(s: string, offset: number, length: number): number
  utf8Slice(start: number, end: number): string
  latin1Slice(start: number, end: number): string
  ucs2Slice(start: number, end: number): string
}

function ensure(n: number): void {
  if (pos + n <= scratch.length) return
  if (scratch !== own) {
    // encodeEntryAt's buffer has no room: the entry so far moves to the scratch buffer and goes on there.
    const used = pos - base
    if (own.length < used + n) own = Buffer.allocUnsafe(roomFor(own.length, used + n)) as Raw
    scratch.copy(own, 0, base, pos)
    scratch = own
    base = 0
    pos = used
    return
  }
  const next = Buffer.allocUnsafe(roomFor(scratch.length, pos + n)) as Raw
  scratch.copy(next, 0, 0, pos)
  scratch = own = next
}

/** Doubles `size` until it holds `need`. */
function roomFor(size: number, need: number): number {
  size *= 2
  while (size < need) size *= 2
  return size
}

const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n

function write(v: unknown): void {
  switch (typeof v) {
    case 'number':
      writeNumber(v)
      return
    case 'string':
      writeString(v)
      return
    case 'boolean':
      ensure(1)
      scratch[pos++] = v ? 3 : 2
      return
    case 'undefined':
      ensure(1)
      scratch[pos++] = 1
      return
    case 'bigint':
      if (v >= I64_MIN && v <= I64_MAX) {
        ensure(9)
        scratch[pos++] = 7
        scratch.writeBigInt64LE(v, pos)
        pos += 8
      } else {
        const text = v.toString()
        ensure(5 + text.length)
        scratch[pos++] = 8
        scratch.writeUInt32LE(text.length, pos)
        pos += 4
        pos += scratch.latin1Write(text, pos, text.length)
      }
      return
    case 'object':
      if (v === null) {
        ensure(1)
        scratch[pos++] = 0
        return
      }
      if (Array.isArray(v)) {
        writeArray(v)
        return
      }
      if (v instanceof EncodedRows) {
        writeEncodedRows(v)
        return
      }
      if (Object.getPrototypeOf(v) === Object.prototype) {
        // A plain object (a process function's or a user aggregate's value): its own enumerable keys
        // and their values, as v8's serializer would keep them, without its cost (~10 µs a value). An
        // own '__proto__' key would set the prototype when read back: v8 keeps such an object.
        const keys = Object.keys(v)
        if (keys.includes('__proto__')) {
          writeV8(v)
          return
        }
        ensure(5)
        scratch[pos] = 11
        putU32(scratch, pos + 1, keys.length)
        pos += 5
        for (const k of keys) {
          writeString(k)
          write((v as Record<string, unknown>)[k])
        }
        return
      }
      writeV8(v)
      return
    default:
      throw WeirError.internal(`cannot store a ${typeof v} in state`)
  }
}

/** Positive integers below this are written by writeArray itself (tag 12, as writeNumber would). */
const SMALL_POSITIVE = 1 << 20

/**
 * Tag 15: an array (a row, a chunk of rows). Its numbers and strings skip write's dispatch, and a
 * small positive integer (most of a row's ids and amounts) is written here: over Nexmark bid rows,
 * a row's three ids took ~50 ns less.
 */
function writeArray(v: readonly unknown[]): void {
  const n = v.length
  if (n > 1 && Array.isArray(v[0])) touchRows(v)
  ensure(6)
  scratch[pos++] = 15
  putVarint(n)
  for (let i = 0; i < n; i++) {
    const x = v[i]
    if (typeof x === 'number') {
      if ((x | 0) === x && x > 0 && x < SMALL_POSITIVE) {
        // Tag 12 and the zigzag varint of x (2x, below 2^21: at most 3 bytes).
        if (pos + 4 > scratch.length) ensure(4)
        const b = scratch, p = pos, z = x * 2
        b[p] = 12
        if (z < 0x80) {
          b[p + 1] = z
          pos = p + 2
        } else if (z < 0x4000) {
          b[p + 1] = (z & 0x7f) | 0x80
          b[p + 2] = z >>> 7
          pos = p + 3
        } else {
          b[p + 1] = (z & 0x7f) | 0x80
          b[p + 2] = ((z >>> 7) & 0x7f) | 0x80
          b[p + 3] = z >>> 14
          pos = p + 4
        }
      } else {
        writeNumber(x)
      }
    } else if (typeof x === 'string') {
      writeString(x)
    } else {
      write(x)
    }
  }
}

/** What touchRows read (kept, so that its reads are not left out). */
let touched = 0

/**
 * Reads every row of a chunk about to be encoded, each value and the first and last unit of each
 * string, before any of it is written. The rows are written at the flush, long after they came:
 * out of the CPU's caches, scattered over the heap (a row, its values, a URL, an 'extra' sliced out
 * of a 1 MB text). Read by this short loop, their cache misses overlap; read by the encoder, each
 * waits for the one before (between them a native write of a string).
 *
 * Tried and dropped (q20-rocksdb at 0.5, 2026-12-05, load ~8): reading the chunk breadth first (every
 * row's values, then every string's text) measured the same (3.99–4.16 CPU-µs/event against
 * 3.92–4.17, 4 alternating pairs). Encoding a chunk's rows as they are added (warm: ~310 ns a bid
 * row, against ~0.85 µs at the flush) into arenas for the flush to copy needs their bytes kept until
 * then, past 21 MB of rows encoded after them at the median, 67 MB at the 99th percentile: 16 MB of arenas lost most
 * chunks and encoded them twice (4.29–4.32 against 3.59–3.63, 2 pairs), 96 MB kept all and still
 * cost more (4.56–4.75, peak RSS 691–714 MB; base alone had measured 3.59–4.17, 612–679 MB).
 */
function touchRows(v: readonly unknown[]): void {
  let acc = 0
  for (let i = 0; i < v.length; i++) {
    const r = v[i]
    if (!Array.isArray(r)) return
    for (let j = 0; j < r.length; j++) {
      const x: unknown = r[j]
      if (typeof x === 'string') {
        const m = x.length
        if (m > 0) acc += x.charCodeAt(0) + x.charCodeAt(m - 1)
      } else if (typeof x === 'number') {
        acc += x
      }
    }
  }
  touched = acc
}

function writeNumber(v: number): void {
  if ((v | 0) === v && (v !== 0 || 1 / v > 0)) {
    ensure(5)
    const z = ((v << 1) ^ (v >> 31)) >>> 0
    if (z < SMALL_INT) {
      scratch[pos++] = 12
      putVarint(z)
    } else {
      scratch[pos] = 4
      putU32(scratch, pos + 1, v)
      pos += 5
    }
  } else if (Number.isInteger(v) && v !== 0 && v < WIDE_INT && v > -WIDE_INT) {
    // An integer past int32 (a millisecond timestamp: 41 bits) in 7 bytes rather than 9.
    ensure(9)
    scratch[pos++] = 13
    putVarint(v > 0 ? v * 2 : -v * 2 - 1)
  } else {
    ensure(9)
    const b = scratch, p = pos
    b[p] = 5
    if (LITTLE_ENDIAN) {
      f64[0] = v
      for (let i = 0; i < 8; i++) b[p + 1 + i] = f64Bytes[i]!
    } else {
      b.writeDoubleLE(v, p + 1)
    }
    pos = p + 9
  }
}

/**
 * ASCII text up to this length is copied by hand (8–16 units ~3× faster than native; 24–47 1.5–6× slower).
 * A longer string's write is mostly the native call: over ~67-unit slices of a 1 MB text, utf8Write
 * took ~90–110 CPU-ns a string and latin1Write ~95 (Buffer.byteLength's ASCII check first: ~120).
 * Writing a chunk's long strings joined, in one call (a new tag with their text ahead of the rows),
 * measured slower on Nexmark bid chunks: 328–389 ns a row warm against 304–365 (the join's copy).
 */
const SHORT_TEXT = 16

function writeString(s: string): void {
  const n = s.length
  ensure(5 + n * 3)
  if (n <= SHORT_TEXT) {
    // Short ASCII text is the common case; copying it by hand beats a native call.
    const start = pos + 2
    let i = 0
    for (; i < n; i++) {
      const c = s.charCodeAt(i)
      if (c >= 0x80) break
      scratch[start + i] = c
    }
    if (i === n) {
      scratch[pos] = 14
      scratch[pos + 1] = n
      pos = start + n
      return
    }
  }
  if (n * 3 < 1 << 14) {
    // At most 16,383 UTF-8 bytes: the length in two LEB128 bytes (the first with its continuation
    // bit, whatever the value), written after the text.
    const len = scratch.utf8Write(s, pos + 3, scratch.length - pos - 3)
    if (len !== n && !wellFormed(s)) return writeUtf16(s)
    scratch[pos] = 14
    scratch[pos + 1] = (len & 0x7f) | 0x80
    scratch[pos + 2] = len >>> 7
    pos += 3 + len
    return
  }
  const start = pos + 5
  const len = scratch.utf8Write(s, start, scratch.length - start)
  if (len !== n && !wellFormed(s)) return writeUtf16(s)
  scratch[pos] = 6
  putU32(scratch, pos + 1, len)
  pos = start + len
}

/**
 * Tag 16: a string with a lone surrogate (SUBSTRING of an emoji, JSON's "\ud800"), which UTF-8
 * cannot hold (it would read back as U+FFFD): its UTF-16 code units, their count a varint. The room
 * writeString ensured (5 + 3 a unit) holds the tag, the count and 2 bytes a unit.
 */
function writeUtf16(s: string): void {
  scratch[pos++] = 16
  putVarint(s.length)
  pos += scratch.ucs2Write(s, pos, 2 * s.length)
}

/** int32s whose zigzag is below this take tag 12 (a LEB128 varint of at most 3 bytes) rather than tag 4's 4 bytes. */
const SMALL_INT = 1 << 21
/** Integers past int32 of magnitude below this take tag 13 (zigzag LEB128, at most 7 bytes) rather than an f64's 8. */
const WIDE_INT = 2 ** 48

/**
 * Writes `n` (a non-negative integer below 2^53) as LEB128 at pos (the room is ensured: up to 8
 * bytes). Integer operations throughout: a loop of % and Math.floor over a millisecond timestamp
 * made encoding a Nexmark bid row ~100 ns (14%) slower.
 */
function putVarint(n: number): void {
  const b = scratch
  if (n < 0x80) {
    b[pos++] = n
  } else if (n < 0x4000) {
    b[pos] = (n & 0x7f) | 0x80
    b[pos + 1] = n >>> 7
    pos += 2
  } else if (n < 0x200000) {
    b[pos] = (n & 0x7f) | 0x80
    b[pos + 1] = ((n >>> 7) & 0x7f) | 0x80
    b[pos + 2] = n >>> 14
    pos += 3
  } else if (n < 0x10000000) {
    b[pos] = (n & 0x7f) | 0x80
    b[pos + 1] = ((n >>> 7) & 0x7f) | 0x80
    b[pos + 2] = ((n >>> 14) & 0x7f) | 0x80
    b[pos + 3] = n >>> 21
    pos += 4
  } else {
    // The low 28 bits, then the rest (below 2^25) as a varint of its own.
    const hi = Math.floor(n / 0x10000000)
    const lo = n - hi * 0x10000000
    b[pos] = (lo & 0x7f) | 0x80
    b[pos + 1] = ((lo >>> 7) & 0x7f) | 0x80
    b[pos + 2] = ((lo >>> 14) & 0x7f) | 0x80
    b[pos + 3] = (lo >>> 21) | 0x80
    pos += 4
    putVarint(hi)
  }
}

/**
 * Writes `v` as 4 bytes little-endian (as writeInt32LE / writeUInt32LE, without their checks: the
 * room is ensured). Every value of a stored row goes through here or the f64 bytes below, and
 * Buffer's checked writers were a third of what encoding a row cost.
 */
function putU32(b: Buffer, p: number, v: number): void {
  b[p] = v & 0xff
  b[p + 1] = (v >>> 8) & 0xff
  b[p + 2] = (v >>> 16) & 0xff
  b[p + 3] = v >>> 24
}

function writeV8(v: object): void {
  const bytes = v8.serialize(v)
  ensure(5 + bytes.length)
  scratch[pos++] = 10
  scratch.writeUInt32LE(bytes.length, pos)
  pos += 4
  scratch.set(bytes, pos)
  pos += bytes.length
}

let rbuf: Raw = own
let rpos = 0

function read(): unknown {
  const b = rbuf
  switch (b[rpos++]) {
    case 0:
      return null
    case 1:
      return undefined
    case 2:
      return false
    case 3:
      return true
    case 4: {
      const v = b.readInt32LE(rpos)
      rpos += 4
      return v
    }
    case 5: {
      const v = b.readDoubleLE(rpos)
      rpos += 8
      return v
    }
    case 6: {
      const n = b.readUInt32LE(rpos)
      const start = rpos + 4
      rpos = start + n
      return n <= SHORT_TEXT ? asciiOrUtf8(b, start, start + n) : b.utf8Slice(start, start + n)
    }
    case 7: {
      const v = b.readBigInt64LE(rpos)
      rpos += 8
      return v
    }
    case 8: {
      const n = b.readUInt32LE(rpos)
      const text = b.latin1Slice(rpos + 4, rpos + 4 + n)
      rpos += 4 + n
      return BigInt(text)
    }
    case 9: {
      const n = b.readUInt32LE(rpos)
      rpos += 4
      const out = new Array<unknown>(n)
      for (let i = 0; i < n; i++) out[i] = read()
      return out
    }
    case 12: {
      const z = readVarint(b)
      return (z >>> 1) ^ -(z & 1)
    }
    case 13: {
      const z = readVarint(b)
      return z % 2 === 0 ? z / 2 : -(z + 1) / 2
    }
    case 14:
      return readText(b)
    case 15: {
      const n = readVarint(b)
      const out = new Array<unknown>(n)
      for (let i = 0; i < n; i++) {
        // Small integers and strings (most of a row) without read()'s switch.
        const tag = b[rpos]!
        if (tag === 12) {
          rpos++
          const z = readVarint(b)
          out[i] = (z >>> 1) ^ -(z & 1)
        } else if (tag === 14) {
          rpos++
          out[i] = readText(b)
        } else {
          out[i] = read()
        }
      }
      return out
    }
    case 16: {
      const n = readVarint(b) * 2
      const start = rpos
      rpos = start + n
      return b.ucs2Slice(start, start + n)
    }
    case 10: {
      const n = b.readUInt32LE(rpos)
      const v = v8.deserialize(b.subarray(rpos + 4, rpos + 4 + n))
      rpos += 4 + n
      return v
    }
    case 11: {
      const n = b.readUInt32LE(rpos)
      rpos += 4
      const out: Record<string, unknown> = {}
      for (let i = 0; i < n; i++) {
        const k = read() as string
        out[k] = read()
      }
      return out
    }
    default:
      throw WeirError.internal(`unknown state value tag ${b[rpos - 1]}`)
  }
}

function readVarint(b: Buffer): number {
  let c = b[rpos++]!
  if (c < 0x80) return c
  let n = c & 0x7f
  for (let scale = 0x80;; scale *= 0x80) {
    c = b[rpos++]!
    n += (c & 0x7f) * scale
    if (c < 0x80) return n
  }
}

/** Tag 14's byte length and UTF-8 text (rpos past the tag). */
function readText(b: Raw): string {
  const n = readVarint(b)
  const start = rpos
  rpos = start + n
  return n <= SHORT_TEXT ? asciiOrUtf8(b, start, start + n) : b.utf8Slice(start, start + n)
}

function asciiOrUtf8(b: Raw, start: number, end: number): string {
  let out = ''
  for (let i = start; i < end; i++) {
    const c = b[i]!
    if (c >= 0x80) return b.utf8Slice(start, end)
    out += String.fromCharCode(c)
  }
  return out
}
