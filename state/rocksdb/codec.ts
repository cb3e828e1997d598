// Bytes of the RocksDB state backend: the stored key layout [key group][state id][key][namespace][user key | seq]
// and a decoder for the key encoding of state/key-encoding.ts; values are value-codec.ts's (re-exported here).
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

/**
 * A list element's key: its (key, namespace) prefix and its sequence number (writeSeq: 4 bytes below
 * 2^31, as every element was stored before blind appends; 8 bytes from there).
 */
export function listElementKey(prefix: Buffer, seq: number): Buffer {
  const buf = Buffer.allocUnsafe(prefix.length + seqBytes(seq))
  prefix.copy(buf, 0)
  writeSeq(buf, prefix.length, seq)
  return buf
}

/** Sequence numbers from this one on are stored in 8 bytes (WIDE_MARK set in the first), smaller ones in 4. */
export const WIDE_SEQ = 2 ** 31
const WIDE_MARK = 0x80000000
const U32 = 2 ** 32

/** Bytes a list element's sequence number takes in its key. */
export function seqBytes(seq: number): number {
  return seq < WIDE_SEQ ? 4 : 8
}

/**
 * Writes sequence number `seq` (an integer below 2^53) at byte `at` of `buf`; returns where it ends.
 * Below 2^31 a u32 BE (the only form before blind appends: stored elements of older checkpoints read
 * back as they are); from there [WIDE_MARK + seq / 2^32 u32 BE][seq mod 2^32 u32 BE]. Byte order is
 * numeric order across both forms (a short one starts below 0x80, a wide one at 0x80 or above), so
 * a list's elements still come back from a scan in sequence order.
 */
export function writeSeq(buf: Uint8Array, at: number, seq: number): number {
  if (seq < WIDE_SEQ) return putU32BE(buf, at, seq)
  putU32BE(buf, at, WIDE_MARK + Math.floor(seq / U32))
  return putU32BE(buf, at + 4, seq % U32)
}

/** The sequence number of a list element's key whose (key, namespace) prefix ends at byte `at` (writeSeq's forms). */
export function readSeq(key: Uint8Array, at: number): number {
  const hi = u32BE(key, at)
  if (key.length - at === 4) return hi
  if (key.length - at !== 8 || hi < WIDE_MARK) throw WeirError.internal(`a list element's key ends in ${key.length - at} bytes that are no sequence number`)
  return (hi - WIDE_MARK) * U32 + u32BE(key, at + 4)
}

/** Writes `v` (below 2^32) as 4 bytes big-endian at `at`; returns where they end (no bounds checks: room is the caller's). */
function putU32BE(buf: Uint8Array, at: number, v: number): number {
  buf[at] = v >>> 24
  buf[at + 1] = (v >>> 16) & 0xff
  buf[at + 2] = (v >>> 8) & 0xff
  buf[at + 3] = v & 0xff
  return at + 4
}

/** The 4 bytes big-endian at `at`, unsigned. */
function u32BE(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0
}

/** A map entry's key: its (key, namespace) prefix and the user key's encoding as UTF-16BE. */
export function mapEntryKey(prefix: Buffer, encodedUserKey: string): Buffer {
  const buf = Buffer.allocUnsafe(prefix.length + encodedUserKey.length * 2)
  writeMapEntryKey(buf, prefix, encodedUserKey)
  return buf
}

/** Writes mapEntryKey(prefix, encodedUserKey) at the start of `buf` (room: prefix.length + 2 × its length); returns its length. */
export function writeMapEntryKey(buf: Uint8Array, prefix: Buffer, encodedUserKey: string): number {
  const n = prefix.length
  for (let i = 0; i < n; i++) buf[i] = prefix[i]!
  return writeUtf16be(buf, n, encodedUserKey)
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

// ------------------------------------------------------------------ values (value-codec.ts)

export { decodeEntry, decodeEntryKey, encodeEntry, encodeEntryInPlace, entryScratch, entryTime } from './value-codec.js'

/** Whether `buf` holds `part` at byte `at`. */
export function startsWithAt(buf: Buffer, part: Buffer, at: number): boolean {
  if (buf.length < at + part.length) return false
  return buf.compare(part, 0, part.length, at, at + part.length) === 0
}

// ------------------------------------------------------------------ a stored entry's (key, namespace) prefix

/**
 * Where the (key, namespace) prefix of a stored map entry or list element ends — the prefix a prefetch
 * scans for, which the written-keys filter records — or -1 if the key does not parse. A list element
 * ends in a sequence number (writeSeq: 4 or 8 bytes). A map entry: after [key group][state id] come self-delimiting
 * encoded values (the key's, the namespace), then the user key: a tag of its own (array, undefined,
 * object), or else one encoded value, the last.
 */
export function cellPrefixLength(key: Uint8Array, kind: 'list' | 'map'): number {
  if (kind === 'list') return shortSeq(key) ? key.length - 4 : listPrefixLength(key)
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

/**
 * Where a list element's (key, namespace) prefix ends, or -1. Its self-delimiting values are walked
 * until what is left is a sequence number: 4 bytes, or 8 whose first byte has the wide mark (an
 * encoded value's first byte, its tag's high byte, is 0, so the two never meet).
 */
export function listPrefixLength(key: Uint8Array): number {
  let i = 4
  let values = 0
  while (i + 1 < key.length) {
    const left = key.length - i
    if (values >= 2 && (left === 4 || (left === 8 && key[i]! >= 0x80))) return i
    const end = encodedEnd(key, i, (key[i]! << 8) | key[i + 1]!)
    if (end < 0) return -1
    values++
    i = end
  }
  return -1
}

/**
 * A list element's key that ends in a 4-byte sequence number for sure: its 8th byte from the end is
 * below the wide mark (a wide number's first byte has it; a short number's is the namespace's).
 */
function shortSeq(key: Uint8Array): boolean {
  return key.length >= 8 && key[key.length - 8]! < 0x80
}

/** listPrefixLength, or for a key that does not parse all but its last 4 bytes (as every element was stored before wide sequence numbers). */
export function elementPrefixLength(key: Uint8Array): number {
  if (shortSeq(key)) return key.length - 4
  const n = listPrefixLength(key)
  return n < 0 ? key.length - 4 : n
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
