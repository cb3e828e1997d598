// Counter-based randomness for the Nexmark generator: every random choice of event n is a hash of
// (seed, n, slot), so an event's fields do not depend on which columns or tables are generated.

/** A strong 32-bit integer mixer (lowbias32, by Chris Wellons): a bijection on uint32. */
export function mix32(x: number): number {
  x ^= x >>> 16
  x = Math.imul(x, 0x7feb352d)
  x ^= x >>> 15
  x = Math.imul(x, 0x846ca68b)
  x ^= x >>> 16
  return x >>> 0
}

const GOLDEN = 0x9e3779b9
export const TWO_32 = 4294967296

/** Per-generator hashing of event numbers into keys, and of (key, slot) into uniform 32-bit draws. */
export class EventRandom {
  private readonly s1: number
  private readonly s2: number

  constructor(seed: number) {
    const lo = seed >>> 0
    const hi = Math.floor(seed / TWO_32) >>> 0
    this.s1 = mix32(lo ^ 0x2545f491)
    this.s2 = (mix32((hi + GOLDEN) >>> 0) ^ 0x5bd1e995) >>> 0
    this.hiMix = mix32(this.s2)
  }

  private hi = 0
  private hiMix: number

  /** The key of event number n (n may exceed 2^32). */
  key(n: number): number {
    const hi = n < TWO_32 ? 0 : Math.floor(n / TWO_32)
    if (hi !== this.hi) {
      this.hi = hi
      this.hiMix = mix32((hi + this.s2) >>> 0)
    }
    return (mix32(((n >>> 0) ^ this.s1) >>> 0) ^ this.hiMix) >>> 0
  }
}

/** The uniform 32-bit draw for `slot` of the event with `key`. */
export function draw(key: number, slot: number): number {
  return mix32((key + Math.imul(slot + 1, GOLDEN)) >>> 0)
}

/** A draw mapped to [0, n): the same as Java's nextInt(n) in distribution. */
export function below(u: number, n: number): number {
  return Math.floor((u / TWO_32) * n)
}

/** A small sequential generator for strings, seeded by one draw. */
export function stream(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + GOLDEN) >>> 0
    return mix32(s)
  }
}
