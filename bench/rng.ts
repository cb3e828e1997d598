// The benchmarks' deterministic PRNG, so every run writes and draws the same data.

/** xorshift32: numbers in [0, 1) from `seed`. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13; x >>>= 0
    x ^= x >>> 17
    x ^= x << 5; x >>>= 0
    return x / 0x1_0000_0000
  }
}
