// Weir's one seeded random generator, mulberry32: datagen's random columns, RAND(seed) and
// RAND_INTEGER(seed, bound), and the data of tests and benchmarks. A seed gives the same sequence on
// every run (32-bit integer arithmetic only); datagen's checkpoints store the state and go on from it.

/**
 * mulberry32 with its whole state in one uint32, which a checkpoint can store and restore.
 *
 * @example const g = new Mulberry32(42); g.next(); const saved = g.state // new Mulberry32(saved) goes on from there
 */
export class Mulberry32 {
  state: number
  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** The next uniform 32-bit unsigned integer. */
  next(): number {
    const a = this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }

  /** Passes over the next `n` draws (an integer ≥ 0) at once: the state only counts them. */
  skip(n: number): void {
    this.state = (this.state + Math.imul(n % 4294967296, 0x6d2b79f5)) >>> 0
  }

  /** The next uniform double in [0, 1). */
  nextDouble(): number {
    return this.next() / 4294967296
  }
}

/** Uniform 32-bit unsigned integers from `seed`. @example mulberry32(1)() // 2693262067 */
export function mulberry32(seed: number): () => number {
  const g = new Mulberry32(seed)
  return () => g.next()
}

/** Uniform doubles in [0, 1) from `seed` (any number: it is taken modulo 2^32). */
export function seededRandom(seed: number): () => number {
  const g = new Mulberry32(seed)
  return () => g.nextDouble()
}
