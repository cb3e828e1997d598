// A Bloom filter over the stored keys this backend has written, so that a prefetch of a ValueState
// entry that was never written skips the RocksDB read. A false positive only costs the read.

/** Bits per byte of the cache budget: a 64 MB cache gets a 16 MB filter (~0.2% false positives at 10M keys). */
const BITS_PER_CACHE_BYTE = 2
const MIN_BITS = 2 ** 20
const MAX_BITS = 2 ** 31
const HASHES = 7

export class KeyBloom {
  private readonly bits: Uint32Array
  private readonly mask: number

  /** Sized from the cache budget, rounded to a power of two. */
  constructor(cacheBytes: number) {
    let n = MIN_BITS
    while (n < cacheBytes * BITS_PER_CACHE_BYTE && n < MAX_BITS) n *= 2
    this.bits = new Uint32Array(n / 32)
    this.mask = n - 1
  }

  add(key: Uint8Array): void {
    let h1 = fnv(key, 0x811c9dc5)
    const h2 = fnv(key, 0x01000193) | 1
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 >>> 0) & this.mask
      this.bits[bit >>> 5]! |= 1 << (bit & 31)
      h1 = (h1 + h2) | 0
    }
  }

  /** False only if `key` was never added. */
  mayContain(key: Uint8Array): boolean {
    let h1 = fnv(key, 0x811c9dc5)
    const h2 = fnv(key, 0x01000193) | 1
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 >>> 0) & this.mask
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false
      h1 = (h1 + h2) | 0
    }
    return true
  }
}

/** FNV-1a over the bytes, 32 bits, with a chosen offset basis. */
function fnv(key: Uint8Array, seed: number): number {
  let h = seed
  for (let i = 0; i < key.length; i++) {
    h ^= key[i]!
    h = Math.imul(h, 0x01000193)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  return h
}
