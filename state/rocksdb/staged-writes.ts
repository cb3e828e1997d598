// The entries of a write batch before they go to RocksDB, and the order they go in: by key.
//
// RocksDB inserts a batch into its memtable (a skip list) one key at a time. It keeps the path of
// the last insert and reuses it while the next key falls inside it: in random order every insert
// walks the list from the top, in key order most start near the bottom. With deferred write-back a
// bundle writes up to 131,072 entries at once, so this is most of what applying it costs.
//
// Keys and values are copied once, as they are added, into lanes (lanes.ts: bytes of one length,
// views made once and reused from batch to batch); the batch's operations hold those views in key
// order, so the binding reads the bytes out of memory order. They were copied into one staging
// buffer and then again, in key order, into lanes: over 3M puts in batches of 100K (20-byte keys,
// 100–199-byte values), the processing thread's CPU was 4.5–4.8 s that way, 3.75–3.9 s copied once.
import { Lanes, MAX_LANE, NATIVE_COPY } from './lanes.js'
import { encodeEntryAt, encodedLength, entryScratch } from './value-codec.js'

/** Key bytes the order looks at. Past them, keys with the same first bytes keep the order they were added in. */
const ORDER_BYTES = 16
/** Batches this small go in the order they were added: ordering them saves little. */
const ORDER_MIN = 256
/** From this many entries on, the sort takes two key bytes a pass (65,536 buckets) instead of one. */
const WIDE_MIN = 1 << 14
/** Arrays for up to this many entries are kept from batch to batch. */
const KEEP_ENTRIES = 1 << 18

/**
 * Entries in the order they were added, each a type, a key and a value (for a range delete: its
 * start and end). `order()` gives the order to write them in. The views keyOf and valueOf give are
 * the stage's until reset().
 *
 * @example
 * const s = new StagedWrites()
 * s.copy(PUT, keyScratch, kn, valueScratch, vn) // bytes copied now
 * s.ref(DELETE, key, NONE)                       // the caller's buffer, kept until reset()
 * for (const i of s.order().subarray(0, s.n)) … s.keyOf(i) … // key order, stable
 */
export class StagedWrites {
  n = 0
  /** Range deletes staged (a batch with any keeps the order it was added in). */
  ranges = 0
  types = new Uint8Array(64)
  /** Entry i's key is view keyAt[i] of the lane of its length, or refs[2i] when keyAt[i] is -1. */
  keyAt = new Int32Array(64)
  /** Entry i's value is view valueAt[i] of the lane of its length, or refs[2i + 1] when valueAt[i] is -1. */
  valueAt = new Int32Array(64)
  keyLength = new Int32Array(64)
  valueLength = new Int32Array(64)
  /** refs[2i], refs[2i + 1]: key and value (or range start and end) of an entry that holds them by reference. */
  refs: (Uint8Array | undefined)[] = []
  /** Where entries' keys and values are copied (keyAt, valueAt index them in the lane of their length). */
  readonly lanes = new Lanes()
  private readonly sorter = new KeySort()

  /** Adds an entry whose key[0, keyLength) and value[0, valueLength) are copied now. */
  copy(type: number, key: Uint8Array, keyLength: number, value: Uint8Array, valueLength: number): void {
    const i = this.grow()
    this.types[i] = type
    this.keyLength[i] = keyLength
    this.valueLength[i] = valueLength
    this.keyAt[i] = this.take(key, keyLength, 2 * i)
    this.valueAt[i] = this.take(value, valueLength, 2 * i + 1)
  }

  /**
   * Adds an entry whose key[0, keyLength) is copied now and whose value is held by reference (it
   * must not change until the batch is applied): a stored row's key then costs no view of its own.
   */
  copyKey(type: number, key: Uint8Array, keyLength: number, value: Uint8Array): void {
    const i = this.grow()
    this.types[i] = type
    this.keyLength[i] = keyLength
    this.valueLength[i] = value.length
    this.keyAt[i] = this.take(key, keyLength, 2 * i)
    this.valueAt[i] = -1
    this.refs[2 * i + 1] = value
  }

  /** Adds an entry holding the caller's buffers (they must not change until the batch is applied). */
  ref(type: number, key: Uint8Array, value: Uint8Array, range = false): void {
    const i = this.grow()
    this.types[i] = type
    this.keyAt[i] = -1
    this.valueAt[i] = -1
    this.keyLength[i] = key.length
    this.valueLength[i] = value.length
    this.refs[2 * i] = key
    this.refs[2 * i + 1] = value
    if (range) this.ranges++
  }

  /** Entry i's key. */
  keyOf(i: number): Uint8Array {
    const j = this.keyAt[i]!
    return j < 0 ? this.refs[2 * i]! : this.lanes.view(this.keyLength[i]!, j)
  }

  /** Entry i's value. */
  valueOf(i: number): Uint8Array {
    const j = this.valueAt[i]!
    return j < 0 ? this.refs[2 * i + 1]! : this.lanes.view(this.valueLength[i]!, j)
  }

  /**
   * src[0, length) copied into the lane of its length: its index there; or, longer than a lane
   * takes, into a buffer of its own held at refs[ref] (-1).
   */
  private take(src: Uint8Array, length: number, ref: number): number {
    if (length > MAX_LANE) {
      this.refs[ref] = Buffer.from(src.subarray(0, length))
      return -1
    }
    return this.lanes.put(src, 0, length)
  }

  /**
   * The order to write entries 0..n-1 in: order()[0, n) is a permutation, by key (the first
   * ORDER_BYTES bytes of each), stable, so entries of one key keep the order they were added in.
   * A batch with a range delete, or a small one, keeps the order it was added in.
   */
  order(): Uint32Array {
    return this.sorter.sort(this, this.n >= ORDER_MIN && this.ranges === 0)
  }

  /** Empties the stage (only once nothing reads its views any more); buffers held by reference are let go. */
  reset(): void {
    if (this.refs.length > 0) this.refs.length = 0
    this.lanes.reset()
    this.n = 0
    this.ranges = 0
    if (this.types.length > KEEP_ENTRIES) {
      this.types = new Uint8Array(64)
      this.keyAt = new Int32Array(64)
      this.valueAt = new Int32Array(64)
      this.keyLength = new Int32Array(64)
      this.valueLength = new Int32Array(64)
    }
    this.sorter.release()
  }

  /** Index of a new entry, with room for it. */
  private grow(): number {
    const i = this.n++
    if (i === this.types.length) {
      const size = i * 2
      this.types = grown(this.types, new Uint8Array(size))
      this.keyAt = grown(this.keyAt, new Int32Array(size))
      this.valueAt = grown(this.valueAt, new Int32Array(size))
      this.keyLength = grown(this.keyLength, new Int32Array(size))
      this.valueLength = grown(this.valueLength, new Int32Array(size))
    }
    return i
  }
}

/** A slab of HeldBytes: kept from batch to batch up to this many bytes in all. */
const SLAB_BYTES = 1 << 20
/** holdEntry starts a new slab when the current one has less room than this (an entry past it is copied). */
const ENTRY_ROOM = 4 << 10
const KEEP_SLABS = 4

/**
 * Bytes a write batch holds by reference until RocksDB has applied it, copied into slabs reused
 * from batch to batch: a stored row costs a view, not a buffer of its own. Buffer.allocUnsafe per
 * row cut an 8 KB pool (a new ArrayBuffer) every ~40 rows, ~15% of q20-rocksdb's processing thread.
 * reset() only once nothing can read the views handed out (the batch was applied).
 */
export class HeldBytes {
  private slabs: Buffer[] = []
  private slab = 0
  private used = 0

  /** A view of src[0, n) copied into the current slab. */
  hold(src: Uint8Array, n: number): Uint8Array {
    const buf = this.room(n)
    const at = this.used
    copyInto(buf, at, src, n)
    this.used = at + n
    return new Uint8Array(buf.buffer, buf.byteOffset + at, n)
  }

  /**
   * A view of a state entry (value-codec's encodeEntryInPlace) encoded straight into the current
   * slab, rather than into the codec's scratch buffer and copied here. An entry that does not fit
   * in the slab's room left is copied into the next slab.
   */
  holdEntry(time: number | null, value: unknown, userKey?: { readonly k: unknown }): Uint8Array {
    const buf = this.room(ENTRY_ROOM)
    const at = this.used
    const end = encodeEntryAt(buf, at, time, value, userKey)
    if (end < 0) return this.hold(entryScratch(), encodedLength())
    this.used = end
    return new Uint8Array(buf.buffer, buf.byteOffset + at, end - at)
  }

  /** The slab to write into with at least n bytes free from `used`: the current one, else the next (made, or grown, as needed). */
  private room(n: number): Buffer {
    let buf = this.slabs[this.slab]
    if (buf !== undefined && this.used + n <= buf.length) return buf
    if (buf !== undefined) this.slab++
    buf = this.slabs[this.slab]
    if (buf === undefined || n > buf.length) {
      buf = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, n))
      this.slabs[this.slab] = buf
    }
    this.used = 0
    return buf
  }

  /** Every view handed out is let go (their bytes are written over from here on). */
  reset(): void {
    this.slab = 0
    this.used = 0
    if (this.slabs.length > KEEP_SLABS) this.slabs.length = KEEP_SLABS
  }
}

/** src[0, n) into dst at `at`: a loop for a few bytes, one native call for more (NATIVE_COPY). */
function copyInto(dst: Uint8Array, at: number, src: Uint8Array, n: number): void {
  if (n > NATIVE_COPY) dst.set(n === src.length ? src : src.subarray(0, n), at)
  else for (let k = 0; k < n; k++) dst[at + k] = src[k]!
}

function grown<T extends Uint8Array | Int32Array>(old: T, into: T): T {
  into.set(old)
  return into
}

/**
 * Stable LSD radix sort of staged entries by their first ORDER_BYTES key bytes (a key that ends
 * sooner counts as padded with zero bytes). Bytes every key shares cost one counting pass and no
 * scatter; large batches take two bytes a pass.
 */
class KeySort {
  private idx = new Uint32Array(64)
  private tmp = new Uint32Array(64)
  private digits = new Uint16Array(0)
  private readonly narrow = new Int32Array(256)
  private wide: Int32Array | null = null
  private readonly varies = new Uint8Array(ORDER_BYTES)
  private readonly first = new Uint16Array(ORDER_BYTES)

  sort(s: StagedWrites, ordered: boolean): Uint32Array {
    const n = s.n
    if (this.idx.length < n) {
      const size = Math.max(n, this.idx.length * 2)
      this.idx = new Uint32Array(size)
      this.tmp = new Uint32Array(size)
    }
    let idx = this.idx, tmp = this.tmp
    for (let i = 0; i < n; i++) idx[i] = i
    if (!ordered) return idx
    const wide = n >= WIDE_MIN
    // Columns of digits, one per key byte (or pair of bytes): digits[c·n + i]. Gathered in one
    // sequential pass over the entries, so the sort's passes read typed arrays only.
    const cols = wide ? ORDER_BYTES / 2 : ORDER_BYTES
    if (this.digits.length < cols * n) this.digits = new Uint16Array(cols * Math.max(n, 64))
    const digits = this.digits
    const varies = this.varies
    if (wide) gatherWide(s, n, digits, varies, this.first)
    else gatherNarrow(s, n, digits, varies, this.first)
    // Entries added in key order already (a restore reads snapshot files in key order) need no passes.
    if (inOrder(digits, n, cols)) return idx
    const count = wide ? (this.wide ??= new Int32Array(65536)) : this.narrow
    for (let c = cols - 1; c >= 0; c--) {
      if (varies[c] === 0) continue
      countingPass(digits, c * n, n, count, idx, tmp)
      const t = idx
      idx = tmp
      tmp = t
    }
    this.idx = idx
    this.tmp = tmp
    return idx
  }

  /** After a large batch, its arrays go. */
  release(): void {
    if (this.idx.length > KEEP_ENTRIES) {
      this.idx = new Uint32Array(64)
      this.tmp = new Uint32Array(64)
    }
    if (this.digits.length > KEEP_ENTRIES * (ORDER_BYTES / 2)) this.digits = new Uint16Array(0)
  }
}

// Each loop of the sort is a function of its own: the sort runs a few times a run (q18-rocksdb at
// 0.5 sorts 3 batches of ~100K), so its loops mostly run before they are optimized. In one function,
// each loop reached for the first time deoptimized the code compiled on the stack for the loop
// before it (no type feedback yet: --trace-deopt), and went back to the interpreter. The first sort
// of 100K 30-byte keys took 55–91 ms so, 18–52 ms split (machine loaded, 3 runs each).
// The two gathers share their first lines on purpose: one gather taking the width as a parameter
// (the width tested inside the column loop) sorted 100K 30-byte keys in 9.1–10.6 ms and 7.4–8.7 ms
// on the second and third sort against 7.9–9.0 and 7.1–7.4 for the two (6 alternating runs each).

/** Digit columns of two key bytes each (wide): digits[c·n + i]; varies[c] set where they differ. */
function gatherWide(s: StagedWrites, n: number, digits: Uint16Array, varies: Uint8Array, first: Uint16Array): void {
  const { keyAt, keyLength, refs, lanes } = s
  const cols = ORDER_BYTES / 2
  varies.fill(0)
  for (let i = 0; i < n; i++) {
    const j = keyAt[i]!
    const len = keyLength[i]!
    const src = j < 0 ? refs[2 * i]! : lanes.view(len, j)
    for (let c = 0; c < cols; c++) {
      const p = 2 * c
      const d = ((p < len ? src[p]! : 0) << 8) | (p + 1 < len ? src[p + 1]! : 0)
      digits[c * n + i] = d
      if (i === 0) first[c] = d
      else if (d !== first[c]) varies[c] = 1
    }
  }
}

/** Digit columns of one key byte each: digits[c·n + i]; varies[c] set where they differ. */
function gatherNarrow(s: StagedWrites, n: number, digits: Uint16Array, varies: Uint8Array, first: Uint16Array): void {
  const { keyAt, keyLength, refs, lanes } = s
  varies.fill(0)
  for (let i = 0; i < n; i++) {
    const j = keyAt[i]!
    const len = keyLength[i]!
    const src = j < 0 ? refs[2 * i]! : lanes.view(len, j)
    for (let c = 0; c < ORDER_BYTES; c++) {
      const d = c < len ? src[c]! : 0
      digits[c * n + i] = d
      if (i === 0) first[c] = d
      else if (d !== first[c]) varies[c] = 1
    }
  }
}

/** One stable counting pass: idx[0, n) scattered into tmp by the digit column at `base` (a loop a function, as above). */
function countingPass(digits: Uint16Array, base: number, n: number, count: Int32Array, idx: Uint32Array, tmp: Uint32Array): void {
  countDigits(digits, base, n, count)
  startsOfBuckets(count)
  scatter(digits, base, n, count, idx, tmp)
}

function countDigits(digits: Uint16Array, base: number, n: number, count: Int32Array): void {
  count.fill(0)
  for (let i = 0; i < n; i++) count[digits[base + i]!]!++
}

/** Each bucket's count replaced by where it starts. */
function startsOfBuckets(count: Int32Array): void {
  let sum = 0
  for (let d = 0; d < count.length; d++) {
    const k = count[d]!
    count[d] = sum
    sum += k
  }
}

function scatter(digits: Uint16Array, base: number, n: number, count: Int32Array, idx: Uint32Array, tmp: Uint32Array): void {
  for (let i = 0; i < n; i++) {
    const j = idx[i]!
    tmp[count[digits[base + j]!]!++] = j
  }
}

/** Whether the digit columns of entries 0..n-1 never descend from one entry to the next. */
function inOrder(digits: Uint16Array, n: number, cols: number): boolean {
  for (let i = 1; i < n; i++) {
    for (let c = 0; c < cols; c++) {
      const a = digits[c * n + i - 1]!, b = digits[c * n + i]!
      if (a < b) break
      if (a > b) return false
    }
  }
  return true
}
