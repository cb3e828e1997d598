// APPROX_PERCENTILE's sketch: DDSketch (Masson, Rim and Lee, VLDB 2019). A value x ≠ 0 falls in the
// bucket i = ⌈log_γ |x|⌉ of its sign, γ = (1 + α) / (1 − α), which holds every value in (γ^(i−1), γ^i];
// the bucket's estimate 2γ^i / (γ + 1) is within relative error α of each of them. The buckets live
// in a MapState (bucket key → count; a positive bucket i is key 2i, a negative one 2i + 1), so a row
// reads and writes one entry, a retraction is a decrement, and sketches merge by adding counts. The
// accumulator keeps the number of values and of zeros; a percentile walks the buckets in value order.
import type { MapState } from '../core/keyed-state.js'
import type { Accumulator } from './aggregates.js'

/** The accumulator slots of an empty sketch: [values held, zeros held]. */
export function SKETCH_INITIAL(): unknown[] {
  return [0, 0]
}

/** The key of the bucket of `x` (not 0). */
function keyOf(x: number, logGamma: number): number {
  const i = Math.ceil(Math.log(Math.abs(x)) / logGamma)
  return x > 0 ? 2 * i : 2 * i + 1
}

/** Adds `delta` rows holding `x` (a finite double) to the sketch whose slots start at `s`. A retraction of a value not held changes nothing. */
export function sketchAdd(acc: Accumulator, s: number, buckets: MapState<number, number>, x: number, delta: number, logGamma: number): void {
  if (x === 0) {
    if ((acc[s + 1] as number) + delta < 0) return
    acc[s + 1] = (acc[s + 1] as number) + delta
    acc[s] = (acc[s] as number) + delta
    return
  }
  addToBucket(acc, s, buckets, keyOf(x, logGamma), delta)
}

/** Adds `delta` to the bucket `key` (merging sketches). */
export function addToBucket(acc: Accumulator, s: number, buckets: MapState<number, number>, key: number, delta: number): void {
  const old = buckets.get(key) ?? 0
  const now = old + delta
  if (now < 0) return
  if (now === 0) buckets.remove(key)
  else buckets.put(key, now)
  acc[s] = (acc[s] as number) + delta
}

/**
 * The estimate of the value at 0-based rank ⌊q·(n − 1)⌋ in ascending order (the lower of the two
 * values an interpolating percentile would use), within relative error α of it; NULL for no values.
 */
export function sketchPercentile(acc: Accumulator, s: number, buckets: MapState<number, number>, q: number, gamma: number): number | null {
  const n = acc[s] as number
  if (n <= 0) return null
  const rank = Math.floor(q * (n - 1))
  const negative: [number, number][] = []
  const positive: [number, number][] = []
  for (const [key, count] of buckets.entries()) {
    if (key % 2 === 0) positive.push([key / 2, count])
    else negative.push([(key - 1) / 2, count])
  }
  // Ascending values: negative buckets from the largest magnitude down, the zeros, positive buckets up.
  negative.sort((a, b) => b[0] - a[0])
  positive.sort((a, b) => a[0] - b[0])
  let seen = 0
  for (const [i, count] of negative) {
    seen += count
    if (rank < seen) return -estimate(i, gamma)
  }
  seen += acc[s + 1] as number
  if (rank < seen) return 0
  for (const [i, count] of positive) {
    seen += count
    if (rank < seen) return estimate(i, gamma)
  }
  // Only when the counts disagree with n (state expired by TTL): the largest value held.
  const last = positive[positive.length - 1]
  return last ? estimate(last[0], gamma) : null
}

/** The value standing for bucket i: the point of (γ^(i−1), γ^i] at relative distance α from both ends. */
function estimate(i: number, gamma: number): number {
  return (2 * gamma ** i) / (gamma + 1)
}
