// APPROX_COUNT_DISTINCT's HyperLogLog sketch (Flajolet et al. 2007, with linear counting for small
// cardinalities): 2^14 registers, a relative standard error of 1.04 / √16384 ≈ 0.81%. The registers
// live in a MapState (register → rank; absent = 0) so a row reads and writes one entry; the
// accumulator keeps what the estimate needs — registers still at 0 and Σ 2^-rank, the latter as an
// exact bigint scaled by 2^RMAX — so reading the estimate never scans the registers.
import type { MapState } from '../core/keyed-state.js'
import type { Accumulator } from './aggregates.js'
import { int64 } from '../common/int64.js'
import { murmurFinish, murmurRound } from '../common/murmur3.js'

/** Register index bits (precision): m = 2^P registers. */
export const HLL_PRECISION = 14
const M = 1 << HLL_PRECISION
/** The largest rank: the 64 − P bits after the index all zero, plus one. */
const RMAX = 64 - HLL_PRECISION + 1
const ALPHA = 0.7213 / (1 + 1.079 / M)

/** The accumulator slots of an empty sketch: [registers at 0, Σ 2^(RMAX − rank) over all registers]. */
export function HLL_INITIAL(): unknown[] {
  return [M, BigInt(M) << BigInt(RMAX)]
}

/**
 * Adds a value (or, with `value` null, raises register `at` to `rank`: merging sketches) to the sketch
 * whose slots start at `s`.
 */
export function hllAdd(acc: Accumulator, s: number, registers: MapState<number, number>, value: unknown, at = 0, rank = 0): void {
  if (value !== null) {
    const text = canonical(value)
    const h1 = murmur(text, 0x9747b28c), h2 = murmur(text, 0x5f3759df)
    at = h1 >>> (32 - HLL_PRECISION)
    // Rank: leading zeros of the remaining 64 − P bits (18 of h1, then 32 of h2), plus one.
    const rest = (h1 << HLL_PRECISION) >>> 0
    rank = rest !== 0 ? Math.clz32(rest) + 1 : h2 !== 0 ? 32 - HLL_PRECISION + Math.clz32(h2) + 1 : RMAX
  }
  const old = registers.get(at) ?? 0
  if (rank <= old) return
  registers.put(at, rank)
  if (old === 0) acc[s] = (acc[s] as number) - 1
  acc[s + 1] = (acc[s + 1] as bigint) - (1n << BigInt(RMAX - old)) + (1n << BigInt(RMAX - rank))
}

/** The estimated number of distinct values (BIGINT). */
export function hllEstimate(acc: Accumulator, s: number): unknown {
  const zeros = acc[s] as number
  const sum = Number(acc[s + 1] as bigint) / 2 ** RMAX
  let e = (ALPHA * M * M) / sum
  // Small range: linear counting over the registers still at 0 is the better estimate.
  if (e <= 2.5 * M && zeros > 0) e = M * Math.log(M / zeros)
  return int64(BigInt(Math.round(e)))
}

/** One text per SQL value, so equal values hash equally whatever their JS form. */
function canonical(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return `s${v}`
    case 'number':
    case 'bigint':
      return `n${String(v)}`
    case 'boolean':
      return v ? 't' : 'f'
    default:
      return `j${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x.toString()}n` : x))}`
  }
}

/** MurmurHash3 (x86, 32-bit) with one block per UTF-16 code unit of `text`. */
function murmur(text: string, seed: number): number {
  let h = seed | 0
  const n = text.length
  for (let i = 0; i < n; i++) h = murmurRound(h, text.charCodeAt(i))
  return murmurFinish(h ^ n) >>> 0
}
