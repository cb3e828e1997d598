// Bytes of the RocksDB state backend: the stored key layout [key group][state id][key][namespace][user key | seq],
// the value header [format|flags][f64 LE time?], a compact value serializer (numbers, strings, arrays, plain
// objects; v8 for anything unusual),
// and a decoder for the key encoding of state/key-encoding.ts.
import v8 from 'node:v8'
import { WeirError } from '../../common/errors.js'
import type { Namespace } from '../../core/keyed-state.js'
import { encodeKey } from '../key-encoding.js'

/** Key group of the backend's own metadata (state ids); real key groups are below it. */
export const META_GROUP = 0xffff

// ------------------------------------------------------------------ UTF-16BE strings

/** Writes the UTF-16 code units of `s` big-endian, so byte order is code-unit order. Returns the end offset. */
export function writeUtf16be(buf: Uint8Array, offset: number, s: string): number {
  let o = offset
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    buf[o++] = c >>> 8
    buf[o++] = c & 0xff
  }
  return o
}

/** The string whose UTF-16 code units are the big-endian pairs in buf[start, end). */
export function readUtf16be(buf: Uint8Array, start: number, end: number): string {
  let out = ''
  const units: number[] = []
  for (let i = start; i + 1 < end; i += 2) {
    units.push((buf[i]! << 8) | buf[i + 1]!)
    if (units.length === 4096) {
      out += String.fromCharCode(...units)
      units.length = 0
    }
  }
  return out + String.fromCharCode(...units)
}

// ------------------------------------------------------------------ stored keys

/** [key group u16 BE][state id u16 BE][key encoding as UTF-16BE]: everything one state keeps for one key starts with this. */
export function slotPrefix(group: number, stateId: number, encodedKey: string): Buffer {
  const buf = Buffer.allocUnsafe(4 + encodedKey.length * 2)
  buf.writeUInt16BE(group, 0)
  buf.writeUInt16BE(stateId, 2)
  writeUtf16be(buf, 4, encodedKey)
  return buf
}

/** slotPrefix(group, stateId, encodedKey) followed by `ns`, built in one buffer: the stored key of a value, the prefix of a list or map. */
export function cellKey(group: number, stateId: number, encodedKey: string, ns: Buffer): Buffer {
  const buf = Buffer.allocUnsafe(4 + encodedKey.length * 2 + ns.length)
  writeCellKey(buf, group, stateId, encodedKey, ns)
  return buf
}

/** Writes cellKey(group, stateId, encodedKey, ns) at the start of `buf` (which must have room) and returns its length. */
export function writeCellKey(buf: Uint8Array, group: number, stateId: number, encodedKey: string, ns: Buffer): number {
  buf[0] = group >>> 8
  buf[1] = group & 0xff
  buf[2] = stateId >>> 8
  buf[3] = stateId & 0xff
  const at = writeUtf16be(buf, 4, encodedKey)
  for (let i = 0; i < ns.length; i++) buf[at + i] = ns[i]!
  return at + ns.length
}

/** [key group]: everything stored for one key group. */
export function groupPrefix(group: number): Buffer {
  const buf = Buffer.allocUnsafe(2)
  buf.writeUInt16BE(group, 0)
  return buf
}

const DEFAULT_NS = Buffer.from(utf16beOf(encodeKey([''])), 'latin1')

function utf16beOf(s: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    out += String.fromCharCode(c >>> 8, c & 0xff)
  }
  return out
}

// Namespaces repeat (a window's end for every key of the window, a join's side 0 or 1): their bytes
// are kept, up to this many, rather than encoded for every cell key built.
const KEPT_NAMESPACES = 4096
const namespaces = new Map<Namespace, Buffer>()

/**
 * The namespace component: encodeKey([ns]) as UTF-16BE (self-delimiting, so a namespace never
 * prefixes another). Shared: callers copy it, never change it.
 */
export function namespaceBytes(ns: Namespace): Buffer {
  if (ns === '') return DEFAULT_NS
  // A Map takes -0 for 0: the key encoding does too.
  let buf = namespaces.get(ns)
  if (buf !== undefined) return buf
  const enc = encodeKey([ns])
  buf = Buffer.allocUnsafe(enc.length * 2)
  writeUtf16be(buf, 0, enc)
  if (namespaces.size >= KEPT_NAMESPACES) namespaces.clear()
  namespaces.set(ns, buf)
  return buf
}

/** prefix + ns (+ suffix): the stored key of a value, the prefix of a list or map. */
export function joinKey(prefix: Buffer, ns: Buffer, suffix?: Uint8Array): Buffer {
  const n = prefix.length + ns.length + (suffix === undefined ? 0 : suffix.length)
  const buf = Buffer.allocUnsafe(n)
  prefix.copy(buf, 0)
  ns.copy(buf, prefix.length)
  if (suffix !== undefined) buf.set(suffix, prefix.length + ns.length)
  return buf
}

/** A list element's key: its (key, namespace) prefix and a u32 BE sequence number. */
export function listElementKey(prefix: Buffer, seq: number): Buffer {
  const buf = Buffer.allocUnsafe(prefix.length + 4)
  prefix.copy(buf, 0)
  buf.writeUInt32BE(seq >>> 0, prefix.length)
  return buf
}

/** Writes listElementKey(prefix, seq) at the start of `buf` (room: prefix.length + 4); returns its length. */
export function writeListElementKey(buf: Uint8Array, prefix: Buffer, seq: number): number {
  const n = prefix.length
  if (n > 64) buf.set(prefix, 0)
  else for (let i = 0; i < n; i++) buf[i] = prefix[i]!
  const s = seq >>> 0
  buf[n] = s >>> 24
  buf[n + 1] = (s >>> 16) & 0xff
  buf[n + 2] = (s >>> 8) & 0xff
  buf[n + 3] = s & 0xff
  return n + 4
}

/** A map entry's key: its (key, namespace) prefix and the user key's encoding as UTF-16BE. */
export function mapEntryKey(prefix: Buffer, encodedUserKey: string): Buffer {
  const buf = Buffer.allocUnsafe(prefix.length + encodedUserKey.length * 2)
  prefix.copy(buf, 0)
  writeUtf16be(buf, prefix.length, encodedUserKey)
  return buf
}

/**
 * mapEntryKey(prefix, encodeUserKey(k)) for a string user key, written in one pass: no escaped copy
 * of the string, no concatenation (a join side's user keys are whole encoded rows, hundreds of units).
 */
export function stringEntryKey(prefix: Buffer, k: string): Buffer {
  const buf = Buffer.allocUnsafe(stringEntryKeyLength(prefix, k))
  writeStringEntryKey(buf, prefix, k)
  return buf
}

/** Length of stringEntryKey(prefix, k). */
export function stringEntryKeyLength(prefix: Buffer, k: string): number {
  let nuls = 0
  for (let i = k.indexOf('\x00'); i >= 0; i = k.indexOf('\x00', i + 1)) nuls++
  return prefix.length + 2 * (k.length + nuls + 3)
}

/** Writes stringEntryKey(prefix, k) at the start of `buf` (room: stringEntryKeyLength); returns its length. */
export function writeStringEntryKey(buf: Uint8Array, prefix: Buffer, k: string): number {
  let o = prefix.length
  for (let i = 0; i < o; i++) buf[i] = prefix[i]!
  buf[o++] = 0
  buf[o++] = 4
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i)
    buf[o++] = c >>> 8
    buf[o++] = c & 0xff
    if (c === 0) {
      buf[o++] = 0
      buf[o++] = 0xff
    }
  }
  buf[o++] = 0
  buf[o++] = 0
  buf[o++] = 0
  buf[o++] = 0
  return o
}

/** The smallest key greater than every key starting with `prefix` (the exclusive end of a prefix scan). */
export function prefixEnd(prefix: Uint8Array): Buffer {
  const end = Buffer.from(prefix)
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] !== 0xff) {
      end[i]!++
      return end.subarray(0, i + 1)
    }
  }
  throw WeirError.internal('no key follows an all-0xff prefix')
}

// ------------------------------------------------------------------ the key encoding, read back

/**
 * The index just past the one encoded value that starts at `i` of an encodeKey string
 * (tags: \x00 null, \x01 false, \x02 true, \x03 number + 4 units, \x04 string …\x00\x00, \x05 bigint …\x00, \x09 nested … \x0a, \x0b bytes …\x00).
 */
export function skipEncoded(s: string, i: number): number {
  switch (s.charCodeAt(i)) {
    case 0:
    case 1:
    case 2:
      return i + 1
    case 3:
      return i + 5
    case 4: {
      let j = i + 1
      for (;;) {
        const z = s.indexOf('\x00', j)
        if (z < 0 || z + 1 >= s.length) return s.length
        if (s.charCodeAt(z + 1) === 0) return z + 2
        j = z + 2 // \x00\xff: an escaped NUL inside the text
      }
    }
    case 5:
    case 11: {
      const z = s.indexOf('\x00', i + 1)
      return z < 0 ? s.length : z + 1
    }
    case 9: {
      // A nested value: its elements up to the closing \x0a.
      let j = i + 1
      while (j < s.length && s.charCodeAt(j) !== 10) j = skipEncoded(s, j)
      return j + 1
    }
    default:
      throw WeirError.internal(`unknown key encoding tag ${s.charCodeAt(i)}`)
  }
}

const f64 = new Float64Array(1)
const u32 = new Uint32Array(f64.buffer)
/** f64's bytes: as writeDoubleLE writes them where the platform is little-endian (else writeDoubleLE is used). */
const f64Bytes = new Uint8Array(f64.buffer)
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** Decodes the one value that starts at `i` (a string encoded from an object comes back as its JSON text). */
export function decodeEncoded(s: string, i: number): unknown {
  switch (s.charCodeAt(i)) {
    case 0:
      return null
    case 1:
      return false
    case 2:
      return true
    case 3: {
      let hi = ((s.charCodeAt(i + 1) << 16) | s.charCodeAt(i + 2)) >>> 0
      let lo = ((s.charCodeAt(i + 3) << 16) | s.charCodeAt(i + 4)) >>> 0
      if (hi & 0x80000000) hi = (hi & 0x7fffffff) >>> 0
      else {
        hi = ~hi >>> 0
        lo = ~lo >>> 0
      }
      u32[1] = hi
      u32[0] = lo
      return f64[0]
    }
    case 4:
      return s.slice(i + 1, skipEncoded(s, i) - 2).replace(/\x00\xff/g, '\x00')
    case 5:
      return BigInt(s.slice(i + 1, skipEncoded(s, i) - 1))
    case 11: {
      const end = skipEncoded(s, i) - 1
      const out = new Uint8Array(end - i - 1)
      for (let j = i + 1; j < end; j++) out[j - i - 1] = s.charCodeAt(j) - 0x100
      return out
    }
    case 9: {
      const out: unknown[] = []
      for (let j = i + 1; j < s.length && s.charCodeAt(j) !== 10; j = skipEncoded(s, j)) out.push(decodeEncoded(s, j))
      return out
    }
    default:
      throw WeirError.internal(`unknown key encoding tag ${s.charCodeAt(i)}`)
  }
}

/** Decodes every value of an encodeKey string. */
export function decodeKey(s: string): unknown[] {
  const out: unknown[] = []
  for (let i = 0; i < s.length; i = skipEncoded(s, i)) out.push(decodeEncoded(s, i))
  return out
}

// ------------------------------------------------------------------ map user keys

// A user key's encoding: a primitive is encodeKey([k]); an array gets a tag of its own before
// encodeKey(k), so 'a' and ['a'] stay apart; undefined and other objects get tags too.
const ARRAY_TAG = '\x06'
const UNDEFINED_TAG = '\x07'
const OBJECT_TAG = '\x08'

function isPrimitiveKey(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean'
}

/** Equal for equal user keys (as the heap backend compares them), and decodable unless `userKeyNeedsCopy`. */
export function encodeUserKey(k: unknown): string {
  if (isPrimitiveKey(k)) return encodeKey([k])
  if (k === undefined) return UNDEFINED_TAG
  if (Array.isArray(k)) return ARRAY_TAG + encodeKey(k)
  return OBJECT_TAG + encodeKey([k])
}

/** True when the encoding loses the key (objects, nested arrays): the value then carries a copy of it. */
export function userKeyNeedsCopy(k: unknown): boolean {
  if (isPrimitiveKey(k) || k === undefined) return false
  if (!Array.isArray(k)) return true
  for (const e of k) if (!isPrimitiveKey(e)) return true
  return false
}

/** The user key back from its encoding (an object key comes from the copy its value carries instead). */
export function decodeUserKey(s: string): unknown {
  switch (s.charAt(0)) {
    case UNDEFINED_TAG:
      return undefined
    case ARRAY_TAG:
      return decodeKey(s.slice(1))
    case OBJECT_TAG:
      throw WeirError.internal('an object map key was stored without its copy')
    default:
      return decodeEncoded(s, 0)
  }
}

// ------------------------------------------------------------------ values

const FORMAT = 0x10
const HAS_TIME = 0x01
const HAS_KEY = 0x02

/** Serializes [header][f64 LE time?][user key?][value]: `time` is the TTL clock (null without TTL). */
export function encodeEntry(time: number | null, value: unknown, userKey?: { readonly k: unknown }): Buffer {
  const n = encodeEntryInPlace(time, value, userKey)
  const out = Buffer.allocUnsafe(n)
  scratch.copy(out, 0, 0, n)
  return out
}

/**
 * encodeEntry without the copy: the entry is entryScratch()[0, returned length), valid until the
 * next encode (for a write batch that copies it into buffers of its own).
 */
export function encodeEntryInPlace(time: number | null, value: unknown, userKey?: { readonly k: unknown }): number {
  pos = 0
  ensure(9)
  scratch[pos++] = FORMAT | (time === null ? 0 : HAS_TIME) | (userKey === undefined ? 0 : HAS_KEY)
  if (time !== null) {
    scratch.writeDoubleLE(time, pos)
    pos += 8
  }
  if (userKey !== undefined) write(userKey.k)
  write(value)
  return pos
}

/** The buffer encodeEntryInPlace wrote into (it grows, so ask after encoding). */
export function entryScratch(): Buffer {
  return scratch
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
  rbuf = buf
  rpos = (h & HAS_TIME) === 0 ? 1 : 9
  if ((h & HAS_KEY) !== 0) read()
  return read()
}

/** The user-key copy a map entry carries, or `none` if it has none. */
export function decodeEntryKey<T>(buf: Buffer, none: T): unknown {
  const h = checkHeader(buf)
  if ((h & HAS_KEY) === 0) return none
  rbuf = buf
  rpos = (h & HAS_TIME) === 0 ? 1 : 9
  return read()
}

// The serializer writes into one growing scratch buffer; values are copied out at the end.
// Tags: 0 null, 1 undefined, 2 false, 3 true, 4 int32, 5 f64, 6 string (u32 length + UTF-8),
// 7 int64 bigint, 8 other bigint (decimal text), 9 array (u32 count + items), 10 anything else (v8).
let scratch = Buffer.allocUnsafe(1 << 16)
let pos = 0

function ensure(n: number): void {
  if (pos + n <= scratch.length) return
  let size = scratch.length * 2
  while (size < pos + n) size *= 2
  const next = Buffer.allocUnsafe(size)
  scratch.copy(next, 0, 0, pos)
  scratch = next
}

const I64_MIN = -(2n ** 63n)
const I64_MAX = 2n ** 63n - 1n

function write(v: unknown): void {
  switch (typeof v) {
    case 'number':
      if ((v | 0) === v && (v !== 0 || 1 / v > 0)) {
        ensure(5)
        scratch[pos] = 4
        putU32(scratch, pos + 1, v)
        pos += 5
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
        pos += scratch.write(text, pos, 'latin1')
      }
      return
    case 'object':
      if (v === null) {
        ensure(1)
        scratch[pos++] = 0
        return
      }
      if (Array.isArray(v)) {
        ensure(5)
        scratch[pos] = 9
        putU32(scratch, pos + 1, v.length)
        pos += 5
        for (let i = 0; i < v.length; i++) write(v[i])
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

/** ASCII text up to this length is copied by hand (8–16 units ~3× faster than native; 24–47 1.5–6× slower). */
const SHORT_TEXT = 16

function writeString(s: string): void {
  const n = s.length
  ensure(5 + n * 3)
  scratch[pos] = 6
  const start = pos + 5
  if (n <= SHORT_TEXT) {
    // Short ASCII text is the common case; copying it by hand beats a native call.
    let i = 0
    for (; i < n; i++) {
      const c = s.charCodeAt(i)
      if (c >= 0x80) break
      scratch[start + i] = c
    }
    if (i === n) {
      putU32(scratch, pos + 1, n)
      pos = start + n
      return
    }
  }
  const len = scratch.write(s, start, 'utf8')
  putU32(scratch, pos + 1, len)
  pos = start + len
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

let rbuf: Buffer = scratch
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
      return n <= SHORT_TEXT ? asciiOrUtf8(b, start, start + n) : b.toString('utf8', start, start + n)
    }
    case 7: {
      const v = b.readBigInt64LE(rpos)
      rpos += 8
      return v
    }
    case 8: {
      const n = b.readUInt32LE(rpos)
      const text = b.toString('latin1', rpos + 4, rpos + 4 + n)
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

function asciiOrUtf8(b: Buffer, start: number, end: number): string {
  let out = ''
  for (let i = start; i < end; i++) {
    const c = b[i]!
    if (c >= 0x80) return b.toString('utf8', start, end)
    out += String.fromCharCode(c)
  }
  return out
}

/** Whether `buf` holds `part` at byte `at`. */
export function startsWithAt(buf: Buffer, part: Buffer, at: number): boolean {
  if (buf.length < at + part.length) return false
  return buf.compare(part, 0, part.length, at, at + part.length) === 0
}

// ------------------------------------------------------------------ a stored entry's (key, namespace) prefix

/**
 * Where the (key, namespace) prefix of a stored map entry or list element ends — the prefix a prefetch
 * scans for, which the written-keys filter records — or -1 if the key does not parse. A list element
 * ends in a 4-byte sequence number. A map entry: after [key group][state id] come self-delimiting
 * encoded values (the key's, the namespace), then the user key: a tag of its own (array, undefined,
 * object), or else one encoded value, the last.
 */
export function cellPrefixLength(key: Uint8Array, kind: 'list' | 'map'): number {
  if (kind === 'list') return key.length >= 8 ? key.length - 4 : -1
  let i = 4
  let last = -1
  while (i + 1 < key.length) {
    const tag = (key[i]! << 8) | key[i + 1]!
    if (tag >= 6 && tag <= 8) return i
    const end = encodedEnd(key, i, tag)
    if (end < 0) return -1
    last = i
    i = end
  }
  return i === key.length && last > 4 ? last : -1
}

/** The end of the encoded value (UTF-16BE, see skipEncoded) with tag `tag` at byte `i`, or -1. */
function encodedEnd(key: Uint8Array, i: number, tag: number): number {
  switch (tag) {
    case 0:
    case 1:
    case 2:
      return i + 2
    case 3:
      return i + 10 <= key.length ? i + 10 : -1
    case 4:
    case 5:
    case 11:
      for (let j = i + 2; j + 1 < key.length; j += 2) {
        if (key[j] !== 0 || key[j + 1] !== 0) continue
        if (tag !== 4) return j + 2
        // \0\0 ends a string; \0\xff is an escaped NUL inside it.
        if (j + 3 < key.length && key[j + 2] === 0 && key[j + 3] === 0) return j + 4
        if (j + 3 < key.length && key[j + 2] === 0 && key[j + 3] === 0xff) {
          j += 2
          continue
        }
        return -1
      }
      return -1
    case 9:
      // A nested value: its elements up to the closing tag 10.
      for (let j = i + 2; j + 1 < key.length;) {
        const t = (key[j]! << 8) | key[j + 1]!
        if (t === 10) return j + 2
        j = encodedEnd(key, j, t)
        if (j < 0) return -1
      }
      return -1
    default:
      return -1
  }
}
