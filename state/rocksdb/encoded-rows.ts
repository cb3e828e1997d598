// A list's chunks of rows (ListState.addChunk: a join's appended side) kept encoded from the end of
// the bundle that added them, where before the cache held the rows themselves until their write and
// after it. Rows that nothing reads back (Nexmark q20's bids: only an auction arriving after them
// would) then die with their bundle, and the cache holds their bytes. Over a JSON file of 1.84M
// bids joined with 120K auctions (q20's SQL, `weir run`), the RocksDB job took 5.89–6.33 s, 8.8–9.5
// CPU-s and 453–484 MB where it took 7.23–7.48 s, 11.3–11.9 CPU-s and 950–990 MB.
//
// - Encoded at the bundle's end, every chunk of the bundle read first in one pass (their memory
//   misses overlap), then each encoded: at the add, a chunk at a time, it cost more.
// - A list that a read found encoded keeps its rows as they are from then on, and so does a state
//   whose lists a read mostly decodes (the side that the other side's rows read at every row:
//   decoding it each time would cost more than its rows do).
// - A segment's bytes are in a slab shared with the segments encoded after it (no allocation per
//   chunk). A list its own batches append to blind (PrefetchRequest.appendOnlyStates) lets its
//   written elements go once the write is applied (write-back.ts, trim), so a slab is held only
//   until then. Any other list keeps a written element in a buffer of its own, exactly its entry.
import { decodeValues, encodedLength, encodeEntryInPlace, EncodedRows, encodeValuesAt, entryScratch, Segment, touchChunks } from './value-codec.js'

/** Bytes a slab takes; a chunk larger than that gets a slab of its own size. */
const SLAB = 1 << 18
/** A slab with less room than this left is not started on by a new chunk. */
const MIN_ROOM = 1 << 12

let slab = Buffer.allocUnsafeSlow(SLAB)
let slabAt = 0

/** Encodes the pending rows of each of `waiting` (elements that took rows this bundle) into a segment. */
export function encodeWaiting(waiting: readonly EncodedRows[]): void {
  const chunks: unknown[][] = []
  for (const e of waiting) if (e.pending !== null) chunks.push(e.pending)
  touchChunks(chunks)
  for (const e of waiting) encodePending(e)
}

/** `e`'s pending rows as a segment of it. */
function encodePending(e: EncodedRows): void {
  const rows = e.pending
  if (rows === null) return
  e.pending = null
  if (slab.length - slabAt < MIN_ROOM) newSlab(SLAB)
  const end = encodeValuesAt(slab, slabAt, rows)
  if (end >= 0) {
    e.appendSegment(new Segment(slab, slabAt, end, rows.length))
    slabAt = end
    return
  }
  // Did not fit: in the scratch buffer.
  const n = encodedLength()
  newSlab(Math.max(SLAB, n))
  entryScratch().copy(slab, 0, 0, n)
  slabAt = n
  e.appendSegment(new Segment(slab, 0, n, rows.length))
}

function newSlab(size: number): void {
  slab = Buffer.allocUnsafeSlow(size)
  slabAt = 0
}

/** The rows of `e`, in the order they were added. */
export function decodeRows(e: EncodedRows): unknown[] {
  const out: unknown[] = []
  for (let seg = e.first; seg !== null; seg = seg.next) decodeValues(seg.bytes, seg.start, seg.rows, out)
  const pending = e.pending
  if (pending !== null) { for (let i = 0; i < pending.length; i++) out.push(pending[i]) }
  return out
}

/**
 * `e` as a stored entry (value-codec.ts, encodeEntry of `time` and its rows) in a buffer of exactly
 * that size, and an element of one segment over it (its segment's `bytes` are the entry), for the
 * cell to keep in `e`'s place.
 */
export function rowsEntry(time: number | null, e: EncodedRows): EncodedRows {
  encodePending(e)
  let body = 0
  for (let seg = e.first; seg !== null; seg = seg.next) body += seg.end - seg.start
  const n = encodeEntryInPlace(time, e)
  const buf = Buffer.allocUnsafeSlow(n)
  entryScratch().copy(buf, 0, 0, n)
  const kept = new EncodedRows()
  kept.count = e.count
  // The rows' bytes are the entry's last `body` bytes (after its header, the tag and the count).
  kept.appendSegment(new Segment(buf, n - body, n, e.count))
  return kept
}
