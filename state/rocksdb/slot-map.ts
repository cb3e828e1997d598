// Resident slots of one RocksDB state table by encoded key (cache.ts's Table.slots), and the hash of a key.
import { murmurFinish } from '../../common/murmur3.js'
import { WeirError } from '../../common/errors.js'
import type { Slot } from './cache.js'

const EMPTY = 0
const TOMBSTONE = 1
const MIN_CAPACITY = 64

/**
 * Resident slots by encoded key: open addressing with linear probing over 32-bit hashes (a probe
 * reads one Int32Array element; strings are compared only when hashes match), and a slot records its
 * position, so evicting it needs no lookup. Under the cache's steady churn (insert the new key,
 * delete the oldest) a JS Map of a few 100k string keys costs about three times as much.
 */
export class SlotMap {
  private hashes = new Int32Array(MIN_CAPACITY)
  private entries: (Slot | undefined)[] = new Array<Slot | undefined>(MIN_CAPACITY).fill(undefined)
  /** Live entries plus tombstones: a probe stops only at an empty position, so both count toward the load. */
  private used = 0
  size = 0

  get(encoded: string, h = hashOf(encoded)): Slot | undefined {
    const hashes = this.hashes
    const mask = hashes.length - 1
    for (let i = h & mask;; i = (i + 1) & mask) {
      const x = hashes[i]!
      if (x === EMPTY) return undefined
      if (x === h) {
        const slot = this.entries[i]!
        if (slot.encoded === encoded) return slot
      }
    }
  }

  /**
   * Loads the first positions a get or set of hash `h` probes, and returns something of them to keep
   * the loads from being optimized away. For a batch of keys: touching all of them in one loop, loads
   * that do not depend on each other, overlaps their memory misses (a table of a few 100k slots is
   * far outside the CPU's caches), where get after get takes them one after another.
   */
  touch(h: number): number {
    const i = h & (this.hashes.length - 1)
    return this.hashes[i]! ^ (this.entries[i] === undefined ? 0 : 1)
  }

  /** Adds a slot under its encoded key, which must not be present (`h`: hashOf(slot.encoded), if known). */
  set(slot: Slot, h = hashOf(slot.encoded)): void {
    if ((this.used + 1) * 2 > this.hashes.length) this.rehash()
    const hashes = this.hashes
    const mask = hashes.length - 1
    let i = h & mask
    for (let x = hashes[i]!; x !== EMPTY && x !== TOMBSTONE; x = hashes[i]!) i = (i + 1) & mask
    if (hashes[i] === EMPTY) this.used++
    hashes[i] = h
    this.entries[i] = slot
    slot.pos = i
    this.size++
  }

  /** Forgets every slot at once (a closing store's: its slots are not marked evicted, nothing uses them after). */
  clear(): void {
    this.hashes = new Int32Array(MIN_CAPACITY)
    this.entries = new Array<Slot | undefined>(MIN_CAPACITY).fill(undefined)
    this.used = 0
    this.size = 0
  }

  /** Removes a slot that is present (as `get(slot.encoded) === slot`). */
  delete(slot: Slot): void {
    const i = slot.pos
    if (this.entries[i] !== slot) throw WeirError.internal('a resident slot is missing from its table')
    this.hashes[i] = TOMBSTONE
    this.entries[i] = undefined
    this.size--
  }

  /** Every slot, in no particular order; deleting the slots seen so far is allowed, adding is not. */
  *values(): IterableIterator<Slot> {
    const entries = this.entries
    for (let i = 0; i < entries.length; i++) {
      const slot = entries[i]
      if (slot !== undefined) yield slot
    }
  }

  /** Into a table with room for at least as many insertions as it holds entries before the next rehash. */
  private rehash(): void {
    const oldHashes = this.hashes
    const oldEntries = this.entries
    let capacity = MIN_CAPACITY
    while (capacity < this.size * 3) capacity *= 2
    const hashes = new Int32Array(capacity)
    const entries = new Array<Slot | undefined>(capacity).fill(undefined)
    const mask = capacity - 1
    for (let j = 0; j < oldEntries.length; j++) {
      const slot = oldEntries[j]
      if (slot === undefined) continue
      const h = oldHashes[j]!
      let i = h & mask
      while (hashes[i] !== EMPTY) i = (i + 1) & mask
      hashes[i] = h
      entries[i] = slot
      slot.pos = i
    }
    this.hashes = hashes
    this.entries = entries
    this.used = this.size
  }
}

/** FNV-1a over the UTF-16 code units, finished with murmur3's mix; 0 and 1 are reserved (empty, tombstone). */
export function hashOf(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  h = murmurFinish(h)
  return h === EMPTY || h === TOMBSTONE ? h + 2 : h
}
