// A Bloom filter over the stored keys this backend has written, so that a prefetch of a ValueState
// entry that was never written skips the RocksDB read. A false positive only costs the read.
import { murmurFinish as fmix } from '../../common/murmur3.js'

/** Bits per byte of the cache budget: a 64 MB cache gets a 16 MB filter (~0.5% false positives at 10M keys). */
const BITS_PER_CACHE_BYTE = 2
const MIN_BITS = 2 ** 20
const MAX_BITS = 2 ** 31
const HASHES = 7
/** A key's bits all fall in one block of 512 bits (a 64-byte cache line): one memory miss per lookup, not seven. */
const BLOCK_WORDS = 16

export class KeyBloom {
  private readonly bits: Uint32Array
  /** Mask of the block index (blocks are a power of two). */
  private readonly blocks: number

  /** Sized from the cache budget, rounded to a power of two. */
  constructor(cacheBytes: number) {
    let n = MIN_BITS
    while (n < cacheBytes * BITS_PER_CACHE_BYTE && n < MAX_BITS) n *= 2
    this.bits = new Uint32Array(n / 32)
    this.blocks = n / 32 / BLOCK_WORDS - 1
  }

  /** Adds `key` (its first `length` bytes). */
  add(key: Uint8Array, length = key.length): void {
    this.locate(key, length)
    const { bits, base, a, step } = this
    for (let i = 0; i < HASHES; i++) {
      const bit = (a + i * step) & 511
      bits[base + (bit >>> 5)]! |= 1 << (bit & 31)
    }
  }

  /** False only if `key` (its first `length` bytes) was never added. */
  mayContain(key: Uint8Array, length = key.length): boolean {
    this.locate(key, length)
    const { bits, base, a, step } = this
    for (let i = 0; i < HASHES; i++) {
      const bit = (a + i * step) & 511
      if ((bits[base + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false
    }
    return true
  }

  /**
   * Hashes the i-th key of a batch (its first `length` bytes) for testBatch or addBatch: keys
   * 0..count-1 are located first, then tested or added together.
   */
  locateBatch(i: number, key: Uint8Array, length: number): void {
    if (3 * i + 3 > this.batch.length) {
      const grown = new Int32Array(Math.max(3 * 1024, 6 * (i + 1)))
      grown.set(this.batch)
      this.batch = grown
    }
    this.locate(key, length)
    this.batch[3 * i] = this.base
    this.batch[3 * i + 1] = this.a
    this.batch[3 * i + 2] = this.step
  }

  /**
   * `out[i]` = 0 if the i-th located key was never added, 1 if it may have been. The filter is far
   * larger than the CPU's caches, so each key's block is a memory miss: loadBlocks overlaps them,
   * and the bits are tested after, in cache.
   */
  testBatch(count: number, out: Uint8Array): void {
    this.loadBlocks(count)
    const { bits, batch } = this
    for (let i = 0; i < count; i++) {
      const b = batch[3 * i]!, a = batch[3 * i + 1]!, step = batch[3 * i + 2]!
      let may = 1
      for (let j = 0; j < HASHES; j++) {
        const bit = (a + j * step) & 511
        if ((bits[b + (bit >>> 5)]! & (1 << (bit & 31))) === 0) {
          may = 0
          break
        }
      }
      out[i] = may
    }
  }

  /** Adds the located keys 0..count-1 (see locateBatch), their blocks loaded first as testBatch does. */
  addBatch(count: number): void {
    this.loadBlocks(count)
    const { bits, batch } = this
    for (let i = 0; i < count; i++) {
      const b = batch[3 * i]!, a = batch[3 * i + 1]!, step = batch[3 * i + 2]!
      for (let j = 0; j < HASHES; j++) {
        const bit = (a + j * step) & 511
        bits[b + (bit >>> 5)]! |= 1 << (bit & 31)
      }
    }
  }

  /**
   * Loads one word of each located key's block, in a loop of loads that do not depend on each other,
   * so their memory misses overlap. (One key at a time, hashing between them, they came one after another.)
   */
  private loadBlocks(count: number): void {
    const { bits, batch } = this
    let touched = 0
    for (let i = 0; i < count; i++) touched ^= bits[batch[3 * i]!]!
    this.touched = touched
  }

  // Where a key's bits are, set by locate (fields, not a returned object: this runs per key read or written).
  private base = 0
  private a = 0
  private step = 1
  /** The same for each key of a batch (locateBatch): base, a, step of key i at 3i, 3i + 1, 3i + 2. */
  private batch = new Int32Array(0)
  /** What loadBlocks loaded, kept so the loads are not optimized away. */
  private touched = 0

  /** Hashes the key's first `length` bytes: its block, and double hashing inside it, bit (a + i·step) mod 512. */
  private locate(key: Uint8Array, length: number): void {
    let h1 = 0x811c9dc5
    let h2 = 0x01000193
    for (let i = 0; i < length; i++) {
      const b = key[i]!
      h1 = Math.imul(h1 ^ b, 0x01000193)
      h2 = Math.imul(h2 ^ b, 0x5bd1e995)
    }
    this.base = (fmix(h1) & this.blocks) * BLOCK_WORDS
    h2 = fmix(h2)
    this.a = h2 & 511
    this.step = (h2 >>> 9) | 1
  }
}
