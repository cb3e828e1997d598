// Stable encoding of grouping keys and their key groups. A key's hash comes from its encoded
// bytes, never from JS object identity, so it is the same in every process and after a restore.
import type { KeyRef } from '../core/keyed-state.js'
import { MAX_PARALLELISM } from '../common/config/options.js'
import { murmurFinish, murmurRound } from '../common/murmur3.js'

/** Key groups when a caller names none: 'pipeline.max-parallelism''s default. */
export const DEFAULT_MAX_PARALLELISM = MAX_PARALLELISM.default

/**
 * Encodes key values to a string that is equal for equal keys and, for keys of one JS type,
 * orders like the values. Tags: \x00 NULL, \x01 false, \x02 true, \x03 number, \x04 string, \x05 bigint,
 * \x09 … \x0a a nested value (ROW, ARRAY, MAP as [k, v] pairs: common/types.ts), its elements encoded
 * in between, \x0b bytes (BYTES values: each byte as 0x100 + byte, then \x00) (\x06–\x08 stay free: they tag RocksDB map user keys, state/rocksdb/codec.ts).
 * A BIGINT is a number while safe and a bigint beyond 2^53 (common/int64.ts): one encoding per value,
 * though those beyond 2^53 sort after the numbers (nothing relies on key order across forms).
 */
export function encodeKey(values: readonly unknown[]): string {
  let out = ''
  for (const v of values) out += encodeValue(v)
  return out
}

function encodeValue(v: unknown): string {
  if (v === null || v === undefined) return '\x00'
  switch (typeof v) {
    case 'boolean':
      return v ? '\x02' : '\x01'
    case 'number':
      return encodeNumber(v)
    case 'bigint':
      return '\x05' + v.toString() + '\x00'
    case 'string':
      // Most keys hold no NUL: the scan is cheaper than the regular expression's replace.
      return '\x04' + (v.indexOf('\x00') < 0 ? v : v.replace(/\x00/g, '\x00\xff')) + '\x00\x00'
    default:
      // BYTES: each byte as the code unit 0x100 + byte, then \x00 (shorter sorts first, as Flink orders them).
      if (v instanceof Uint8Array) {
        let out = '\x0b'
        for (let i = 0; i < v.length; i++) out += String.fromCharCode(0x100 + v[i]!)
        return out + '\x00'
      }
      if (Array.isArray(v)) {
        let out = '\x09'
        for (const e of v) out += encodeValue(e)
        return out + '\x0a'
      }
      return '\x04' + JSON.stringify(v) + '\x00\x00'
  }
}

const f64 = new Float64Array(1)
const u32 = new Uint32Array(f64.buffer)

/** Tag \x03, then 8 bytes of an order-preserving transform of the IEEE-754 bits as 4 UTF-16 code units (one string, no concatenation). */
function encodeNumber(n: number): string {
  f64[0] = n === 0 ? 0 : n // normalize -0
  let hi = u32[1]!, lo = u32[0]!
  if (hi & 0x80000000) {
    hi = ~hi >>> 0
    lo = ~lo >>> 0
  } else hi = (hi | 0x80000000) >>> 0
  return String.fromCharCode(3, hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff)
}

/** murmur3 (32-bit) of the UTF-16 code units of `s`, two to a block. */
export function hashString(s: string, seed = 0x9747b28c): number {
  let h = seed | 0
  const len = s.length
  let i = 0
  for (; i + 1 < len; i += 2) h = murmurRound(h, s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16))
  if (i < len) {
    let k = s.charCodeAt(i)
    k = Math.imul(k, 0xcc9e2d51)
    k = (k << 15) | (k >>> 17)
    h ^= Math.imul(k, 0x1b873593)
  }
  return murmurFinish(h ^ (len * 2)) >>> 0
}

export function keyGroupOf(encoded: string, maxParallelism = DEFAULT_MAX_PARALLELISM): number {
  return hashString(encoded) % maxParallelism
}

export function makeKey(values: readonly unknown[], maxParallelism = DEFAULT_MAX_PARALLELISM): KeyRef {
  const encoded = encodeKey(values)
  return { values, encoded, group: keyGroupOf(encoded, maxParallelism) }
}

/** The contiguous key-group range [start, end] owned by `subtask` of `parallelism` (Flink's assignment). */
export function keyGroupRange(subtask: number, parallelism: number, maxParallelism = DEFAULT_MAX_PARALLELISM): { start: number; end: number } {
  const start = Math.ceil((subtask * maxParallelism) / parallelism)
  const end = Math.ceil(((subtask + 1) * maxParallelism) / parallelism) - 1
  return { start, end }
}

/** The subtask that owns key group `group`. */
export function subtaskOf(group: number, parallelism: number, maxParallelism = DEFAULT_MAX_PARALLELISM): number {
  return Math.floor((group * parallelism) / maxParallelism)
}
