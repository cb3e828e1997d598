// The two steps of MurmurHash3 (x86, 32-bit) that Weir's hashes are built from: a round that mixes a
// 32-bit word into the running hash, and the finalizer that spreads the bits of a finished one.

/** One murmur3 round of the 32-bit word `k` into the hash `h`. */
export function murmurRound(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, 0x1b873593)
  h ^= k
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

/** murmur3's finalizer: every input bit affects every output bit. */
export function murmurFinish(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h
}
