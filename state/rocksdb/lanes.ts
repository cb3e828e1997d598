// Bytes of one length for the native batches, in buffers and views kept from batch to batch: entry j
// of a lane sits at the same place in every batch, so its view is made once and an entry costs no
// allocation. A write batch stages its keys and values here (staged-writes.ts), a read batch its keys.

/** Keys and values up to this long go into lanes (longer ones are copied into buffers of their own). */
export const MAX_LANE = 256
/**
 * Operation objects and views kept for reuse (the first this many of a batch): as many as deferred
 * write-back holds changes (write-back.ts, HELD_CELLS), so a steady run of full batches allocates no
 * operation, view or lane buffer per entry. At 16,384, each full batch of count-10M (131,072 puts)
 * allocated ~115K operations, ~230K views and its lane buffers again, which lived until RocksDB had
 * applied the batch: count-10M-p2 over 4M events, side by side under the same load, 10.23 process
 * CPU-µs/event against 11.16 (2026-12-04).
 */
export const KEEP_OPS = 1 << 17
/**
 * Bytes beyond which a copy is one native call (and a short-lived view) rather than a loop, which
 * costs about a nanosecond a byte: a stored row is ~200 bytes.
 */
export const NATIVE_COPY = 64
const LANE_MIN_BYTES = 4 << 10
/**
 * A lane's buffer of more than this is dropped after its batch, so one large sync does not keep it.
 * 4 MB holds a full deferred write-back batch (KEEP_OPS entries) of keys or values up to 32 bytes.
 */
const KEEP_LANE_BYTES = 4 << 20
const NONE_BUFFER = Buffer.alloc(0)

/**
 * Bytes of one length: entry j of a batch sits at the same place in every batch, so view j has the
 * same buffer, offset and length in every batch and is made once. The entries are held in chunks
 * (each at least as large as all before it): a lane that grows adds a chunk and keeps the ones it
 * has, with their views. One buffer grown by copying into a larger one had to make every view again:
 * q18-rocksdb at 0.5 writes in 3 batches, and made 375K views for 585K entries (each kept, so each
 * promoted to the old generation); by chunk, 219K.
 */
class Lane {
  private readonly chunks: Buffer[] = []
  /** Entries in each chunk. */
  private readonly capacity: number[] = []
  /** The chunk being filled, its buffer, and its first entry and the first entry past it. */
  private c = -1
  private buf: Buffer = NONE_BUFFER
  private start = 0
  private end = 0
  /** views[j]: entry j's bytes, for every entry of the batch (the first KEEP_OPS are kept after it). */
  readonly views: Uint8Array[] = []
  n = 0

  constructor(readonly length: number) {}

  /** Copies src[from, from + length) in as the next entry; returns its index j (its view is views[j]). */
  put(src: Uint8Array, from: number): number {
    const j = this.n++
    if (j >= this.end) this.nextChunk()
    const length = this.length
    const at = (j - this.start) * length
    const buf = this.buf
    if (length > NATIVE_COPY) buf.set(from === 0 && src.length === length ? src : src.subarray(from, from + length), at)
    else for (let i = 0; i < length; i++) buf[at + i] = src[from + i]!
    if (j === this.views.length) this.views.push(new Uint8Array(buf.buffer, buf.byteOffset + at, length))
    return j
  }

  /** Moves on to the next chunk (entries are taken in order), making it if the lane has none there. */
  private nextChunk(): void {
    const c = ++this.c
    this.start = this.end
    if (c === this.chunks.length) {
      // As many bytes as all chunks before it (at least LANE_MIN_BYTES): the lane's room doubles.
      const per = Math.max(1, this.length)
      const entries = Math.max(1, Math.floor(Math.max(LANE_MIN_BYTES, this.start * this.length) / per))
      this.chunks.push(Buffer.allocUnsafeSlow(entries * this.length))
      this.capacity.push(entries)
    }
    this.buf = this.chunks[c]!
    this.end = this.start + this.capacity[c]!
  }

  /**
   * After a batch; true when the lane let chunks or views go (operations holding views of them must
   * let them go too): it keeps the chunks within KEEP_LANE_BYTES, and the first KEEP_OPS of their views.
   */
  reset(): boolean {
    this.n = 0
    this.c = -1
    this.buf = NONE_BUFFER
    this.start = 0
    this.end = 0
    let bytes = 0
    let entries = 0
    let keep = 0
    while (keep < this.chunks.length && bytes + this.chunks[keep]!.length <= KEEP_LANE_BYTES) {
      bytes += this.chunks[keep]!.length
      entries += this.capacity[keep]!
      keep++
    }
    const views = Math.min(entries, KEEP_OPS)
    if (keep === this.chunks.length && this.views.length <= views) return false
    this.chunks.length = keep
    this.capacity.length = keep
    if (this.views.length > views) this.views.length = views
    return true
  }
}

/**
 * The lanes of one batch's bytes, one per length up to MAX_LANE, made when first used and kept from
 * batch to batch; reset() after the batch resets the ones it used.
 */
export class Lanes {
  /** byLength[length]: the lane of that length, once used. */
  readonly byLength: (Lane | undefined)[] = []
  private readonly used: Lane[] = []

  /** Copies src[from, from + length) (length ≤ MAX_LANE) into the lane of its length: its index there (see view). */
  put(src: Uint8Array, from: number, length: number): number {
    let lane = this.byLength[length]
    if (lane === undefined) lane = this.byLength[length] = new Lane(length)
    if (lane.n === 0) this.used.push(lane)
    return lane.put(src, from)
  }

  /** The view of entry j of the lane of `length`, as put returned j. */
  view(length: number, j: number): Uint8Array {
    return this.byLength[length]!.views[j]!
  }

  /** After a batch; true when a lane let chunks or views go (operations holding views of them must let them go too). */
  reset(): boolean {
    let dropped = false
    for (const lane of this.used) if (lane.reset()) dropped = true
    this.used.length = 0
    return dropped
  }
}
