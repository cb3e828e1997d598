// A join side's rows without a unique key are stored under a 53-bit hash of the row, not under the
// row's encoding: on disk a stored key of ~10 bytes instead of the row again in UTF-16 (a bid of q20
// took ~520 bytes of key beside its ~200 bytes of value), and no encoded string built per row. Rows
// whose hashes collide share one entry (join-side.ts), told apart by rowsEqual.
import { murmurFinish as fmix, murmurRound as mix } from '../../common/murmur3.js'
import type { Row } from '../../core/batch.js'

const f64 = new Float64Array(1)
const u32 = new Uint32Array(f64.buffer)

/**
 * A hash of the row's values that is equal for rows rowsEqual calls equal (NULL and undefined alike,
 * 0 and -0 alike, a number and a bigint apart): a safe integer of 53 bits from two 32-bit hashes.
 */
export function rowHash(row: Row): number {
  let a = 0x9747b28c | 0
  let b = 0x2545f491
  for (let i = 0; i < row.length; i++) {
    const v = row[i]
    let tag: number
    if (v === null || v === undefined) tag = 0
    else {
      switch (typeof v) {
        case 'boolean':
          tag = v ? 2 : 1
          break
        case 'number':
          tag = 3
          f64[0] = v === 0 ? 0 : v
          a = mix(a, u32[0]!)
          b = mix(b ^ 0x5bd1e995, u32[1]!)
          a = mix(a, u32[1]!)
          b = mix(b, u32[0]!)
          break
        case 'string':
          tag = 4
          hashText(a, b, v)
          a = textA
          b = textB
          break
        case 'bigint':
          tag = 5
          hashText(a, b, v.toString())
          a = textA
          b = textB
          break
        default:
          tag = 6
          hashText(a, b, JSON.stringify(v))
          a = textA
          b = textB
      }
    }
    a = mix(a, tag + 16 * i)
    b = mix(b, tag ^ (i << 8))
  }
  a = fmix(a ^ row.length)
  b = fmix(b ^ row.length)
  return (b & 0x1fffff) * 4294967296 + (a >>> 0)
}

/** Whether two rows hold the same values as rowHash sees them. */
export function rowsEqual(x: Row, y: Row): boolean {
  if (x.length !== y.length) return false
  for (let i = 0; i < x.length; i++) {
    const a = x[i], b = y[i]
    if (a === b) continue
    if (a == null) {
      if (b == null) continue
      return false
    }
    if (typeof a === 'number' && typeof b === 'number' && a !== a && b !== b) continue // NaN
    if (typeof a === 'object' && typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b)) continue
    return false
  }
  return true
}

// What hashText returns (fields, not an array: it runs per string value of every row).
let textA = 0
let textB = 0

function hashText(a: number, b: number, s: string): void {
  const n = s.length
  let i = 0
  // Two units a step; the high bits (b) from a cheaper multiplicative hash: rows whose hashes collide
  // are still told apart, so b only has to spread them.
  for (; i + 1 < n; i += 2) {
    const k = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16)
    a = mix(a, k)
    b = Math.imul(b ^ k, 0x01000193)
  }
  if (i < n) {
    a = mix(a, s.charCodeAt(i))
    b = mix(b, s.charCodeAt(i) ^ 0x27d4eb2f)
  }
  textA = mix(a, n)
  textB = mix(b, n)
}
