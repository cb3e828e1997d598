// Write and read batches issued straight to rocksdb-native's binding, without allocating per entry.
//
// rocksdb-native's own batches create an operation object per put or get (its `type` a prototype
// getter that native code calls back into JS for), a promise per get, and take keys and values as
// buffers of their own. The backend writes about one entry per event and reads about one for every
// other, so those objects were a large share of what its processing thread allocated, and they often
// lived long enough (a write is applied while the next bundle runs) to be copied by a young-
// generation GC. Here the operation objects are kept and reused from batch to batch, and the bytes
// of keys and values are copied into buffers kept per length, where entry j of that length always
// has the same offset: its view is made once and reused, and an entry costs no allocation.
//
// Measured over 3M puts in batches of 20K (20-byte keys, 12-byte values): the processing thread's
// CPU per put fell from 1.18–1.29 µs (the library's batch) to 0.72–0.83 µs. count-10M over 5M
// events: GC on the processing thread 7.2 s against 8.5–9.4 s, its busy time 34.7 s against 38.4 s;
// over 20M events, its CPU 116–136 s against 141–142 s.
//
// This reaches into the library's internals (its binding, the database's shared state with its I/O
// counter, the column-family handle), so package.json pins rocksdb-native to one version and
// `checkInternals` refuses a database that lacks them. The lifecycle follows the library's batches:
// count the request as I/O in flight (close() waits for it), wait while the database is suspended,
// and keep the native request alive until its callback has run.

import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type RocksDB from 'rocksdb-native'
import { WeirError } from '../../common/errors.js'
import { KEEP_OPS, Lanes, MAX_LANE } from './lanes.js'
import { HeldBytes, StagedWrites } from './staged-writes.js'

/** One operation as the binding reads it; one shape for every type, so reused objects stay monomorphic. */
interface Op {
  type: number
  key: Uint8Array
  value: Uint8Array
  start: Uint8Array
  end: Uint8Array
  columnFamily: ArrayBuffer
}

interface Binding {
  readonly GET: number
  readonly PUT: number
  readonly DELETE: number
  readonly DELETE_RANGE: number
  writeInit(): ArrayBuffer
  writeBuffer(handle: ArrayBuffer, capacity: number): ArrayBuffer
  write(db: ArrayBuffer, req: ArrayBuffer, ops: readonly Op[], ctx: object, onWrite: (err: Error | null) => void): void
  readInit(): ArrayBuffer
  readBuffer(handle: ArrayBuffer, capacity: number): ArrayBuffer
  read(db: ArrayBuffer, req: ArrayBuffer, ops: readonly Op[], snapshot: undefined, asyncIO: boolean, fillCache: boolean, ctx: object,
    onRead: (errs: readonly (Error | null | undefined)[], values: readonly (ArrayBuffer | null | undefined)[]) => void): void
}

/** The library's shared database state: the parts a request needs. */
interface DbState {
  readonly opened: boolean
  readonly _handle: ArrayBuffer
  readonly io: { inc(): void; dec(): void }
  readonly resumed: unknown
  ready(): Promise<void>
  waitForResume(): Promise<boolean>
}

interface Internals {
  readonly _state: DbState
  readonly _columnFamily: { readonly _handle: ArrayBuffer }
}

const require = createRequire(import.meta.url)
const binding = require(join(dirname(require.resolve('rocksdb-native')), 'binding.js')) as Binding
const { GET, PUT, DELETE, DELETE_RANGE } = binding
const NONE = new Uint8Array(0)

/** Operations of a batch that cost no allocation. */
export const REUSED_OPS = KEEP_OPS

/** Throws unless the database has the internals this module uses (a rocksdb-native other than the pinned one). */
export function checkInternals(db: RocksDB): void {
  const d = db as unknown as Partial<Internals>
  const ok = typeof binding.write === 'function' && typeof binding.read === 'function' && typeof binding.writeBuffer === 'function' &&
    typeof binding.readBuffer === 'function' && typeof PUT === 'number' && typeof GET === 'number' &&
    d._state?._handle instanceof ArrayBuffer && typeof d._state.io?.inc === 'function' && d._columnFamily?._handle instanceof ArrayBuffer
  if (!ok) {
    throw WeirError.internal('the installed rocksdb-native is not the version Weir was built against', {
      help: 'reinstall the dependencies with `npm ci`, which installs the version package-lock.json names',
    })
  }
}

/** Counts a request as I/O in flight, after any suspension. */
async function begin(state: DbState): Promise<void> {
  if (!state.opened) await state.ready()
  state.io.inc()
  if (state.resumed !== null && !(await state.waitForResume())) {
    state.io.dec()
    throw new Error('the database was closed')
  }
}

/** Operation objects and lanes of bytes, kept from batch to batch. */
class Reusable {
  n = 0
  readonly ops: Op[] = []
  private readonly lanes = new Lanes()

  constructor(readonly cf: ArrayBuffer) {}

  /**
   * Whether an operation of this batch holds a buffer other than a lane's view (the caller's, held
   * bytes, a long key's own copy, a range's bounds): reset() lets those go. Lane views are the
   * batch's own and reused, so a batch of them only (a read batch) leaves its
   * operations as they are.
   */
  refs = false
  /** Whether an operation of this batch is a range delete (start and end set). */
  ranges = false

  /** src[from, from + length) copied into the batch: a reused view for lengths up to MAX_LANE, a new buffer beyond. */
  bytes(src: Uint8Array, from: number, length: number): Uint8Array {
    if (length > MAX_LANE) {
      this.refs = true
      return Buffer.from(src.subarray(from, from + length))
    }
    return this.lanes.view(length, this.lanes.put(src, from, length))
  }

  /** The next operation object, filled in. */
  next(type: number, key: Uint8Array, value: Uint8Array, start: Uint8Array, end: Uint8Array): void {
    const i = this.n++
    const op = this.ops[i]
    if (op === undefined) {
      this.ops.push({ type, key, value, start, end, columnFamily: this.cf })
    } else {
      op.type = type
      op.key = key
      op.value = value
      op.start = start
      op.end = end
    }
  }

  /**
   * After a batch: forgets the buffers it held that are not the lanes' (so they can be collected),
   * and keeps the objects. Lane views stay: the next batch writes over them, and they hold nothing
   * else alive.
   */
  reset(): void {
    const ops = this.ops
    if (this.lanes.reset()) this.refs = true
    if (this.refs) {
      for (let i = 0; i < this.n; i++) {
        const op = ops[i]!
        op.key = NONE
        op.value = NONE
      }
    }
    if (this.ranges) {
      for (let i = 0; i < this.n; i++) {
        const op = ops[i]!
        op.start = NONE
        op.end = NONE
      }
    }
    this.refs = false
    this.ranges = false
    if (ops.length > KEEP_OPS) ops.length = KEEP_OPS
    this.n = 0
  }
}

/** What a write batch and a read batch share: reused operations, and one native request at a time. */
abstract class NativeBatch {
  protected readonly r: Reusable
  private busy = false

  constructor(private readonly db: RocksDB, private readonly doing: string) {
    this.r = new Reusable((db as unknown as Internals)._columnFamily._handle)
  }

  get length(): number {
    return this.r.n
  }

  protected check(): void {
    if (this.busy) throw WeirError.internal(`a batch was added to while RocksDB ${this.doing} it`)
  }

  /**
   * Runs one native request over the batch's operations: `call` hands them to the binding with a
   * callback that ends in `done`. Counted as I/O in flight; the batch is empty again after.
   */
  protected async issue<T>(call: (db: ArrayBuffer, ops: Op[], done: (err: unknown, result?: T) => void) => void): Promise<T> {
    const r = this.r
    this.busy = true
    try {
      const state = (this.db as unknown as Internals)._state
      await begin(state)
      const ops = r.ops
      if (ops.length !== r.n) ops.length = r.n
      return await new Promise<T>((resolve, reject) => {
        const done = (err: unknown, result?: T): void => {
          state.io.dec()
          if (err) reject(err)
          else resolve(result as T)
        }
        try {
          call(state._handle, ops, done)
        } catch (e) {
          done(e)
        }
      })
    } finally {
      r.reset()
      this.busy = false
    }
  }
}

/**
 * Puts, deletes and range deletes applied atomically by one native call, in key order (entries of
 * one key, and every entry of a batch with a range delete, in the order they were added: the batch
 * means what the same calls in that order mean). Reusable: fill it, apply(), and fill it again once
 * that resolved.
 *
 * Ordering by key (StagedWrites), measured over 3M random 20-byte keys into an 8 MB memtable in
 * batches of 131,072 puts: 10.2–10.3 CPU-seconds for the whole process, against 12.2–13.5 in the
 * order they were added. count-10M over 20M events: 111.5K events/s with 284 CPU-s (the thread pool
 * that applies writes and reads: 96 s), against 103.6K with 306 CPU-s (109 s).
 */
export class NativeWriteBatch extends NativeBatch {
  private readonly staged = new StagedWrites()
  private readonly held = new HeldBytes()

  constructor(db: RocksDB) {
    super(db, 'applied')
  }

  override get length(): number {
    return this.staged.n
  }

  /** Puts key[0, keyLength) → value[0, valueLength), both copied into the batch. */
  putBytes(key: Uint8Array, keyLength: number, value: Uint8Array, valueLength: number): void {
    this.check()
    this.staged.copy(PUT, key, keyLength, value, valueLength)
  }

  /**
   * Puts key[0, keyLength) → value[0, valueLength), both copied now into bytes the batch holds
   * until it is applied (no buffer per entry; for entries larger than putBytes' lanes take well: rows).
   */
  putHeld(key: Uint8Array, keyLength: number, value: Uint8Array, valueLength: number): void {
    this.check()
    const held = this.held
    this.staged.ref(PUT, held.hold(key, keyLength), held.hold(value, valueLength))
  }

  /**
   * Puts key[0, keyLength) → a state entry (value-codec's encodeEntryInPlace of time, value and
   * userKey): the entry encoded straight into the held bytes, the key copied into the staged bytes
   * as putBytes' are (a lane's reused view at apply()), not held by a view of its own. Returns the
   * entry's length. A view per key lived until RocksDB had applied the batch, and the collector
   * promoted most: Nexmark q19-rocksdb over 1M events (~0.44 such puts an event) promoted 314–324
   * MB with them, 243–248 MB without (96 and 92 scavenges against 110).
   */
  putHeldEntry(key: Uint8Array, keyLength: number, time: number | null, value: unknown, userKey?: { readonly k: unknown }): number {
    this.check()
    // The key goes into the staged bytes (a lane's reused view at apply()), the value into the held bytes.
    const v = this.held.holdEntry(time, value, userKey)
    this.staged.copyKey(PUT, key, keyLength, v)
    return v.length
  }

  /** Puts key[0, keyLength) (copied now) → `entry`, the caller's, which must not change until apply() resolves. */
  putEntry(key: Uint8Array, keyLength: number, entry: Uint8Array): void {
    this.check()
    this.staged.copyKey(PUT, key, keyLength, entry)
  }

  /** Puts key → value; the buffers are the caller's and must not change until apply() resolves. */
  put(key: Uint8Array, value: Uint8Array): void {
    this.check()
    this.staged.ref(PUT, key, value)
  }

  delete(key: Uint8Array): void {
    this.check()
    this.staged.ref(DELETE, key, NONE)
  }

  /** Deletes every key in [start, end). */
  deleteRange(start: Uint8Array, end: Uint8Array): void {
    this.check()
    this.staged.ref(DELETE_RANGE, start, end, true)
  }

  /** Hands the entries to RocksDB; resolves once they are applied, and the batch is empty again. */
  async apply(): Promise<void> {
    const s = this.staged
    const n = s.n
    if (n === 0) return
    try {
      // The operations in key order, each holding the staged views of its key and value (no copy:
      // the staged lanes are the bytes the binding reads, kept until RocksDB has applied them).
      const order = s.order()
      const r = this.r
      const { types, refs } = s
      for (let k = 0; k < n; k++) {
        const i = order[k]!
        const type = types[i]!
        if (type === DELETE_RANGE) {
          r.ranges = true
          r.next(type, NONE, NONE, refs[2 * i]!, refs[2 * i + 1]!)
        } else r.next(type, s.keyOf(i), s.valueOf(i), NONE, NONE)
      }
      // Staged views and callers' buffers: let go after the batch, as a lane may drop its chunks.
      r.refs = true
      await this.issue<void>((db, ops, done) => {
        const handle = binding.writeInit()
        // The receiver holds the native request and its operation array until the callback has run.
        const ctx = { handle, buffer: binding.writeBuffer(handle, ops.length), ops }
        binding.write(db, handle, ops, ctx, err => done(err))
      })
    } finally {
      s.reset()
      this.held.reset()
    }
  }
}

/**
 * Gets many keys in one native call (one MultiGet on a thread of the pool). Reusable: add keys,
 * read(), and add again once that resolved.
 */
export class NativeReadBatch extends NativeBatch {
  constructor(db: RocksDB) {
    super(db, 'read')
  }

  /** Adds key[0, keyLength), copied into the batch. */
  addBytes(key: Uint8Array, keyLength: number): void {
    this.check()
    const r = this.r
    r.next(GET, r.bytes(key, 0, keyLength), NONE, NONE, NONE)
  }

  /**
   * The value of each key added, in order, or null where it is absent; the batch is empty again
   * after. `fillCache` says whether the data blocks read go into RocksDB's block cache.
   */
  async read(fillCache: boolean): Promise<(Buffer | null)[]> {
    const n = this.r.n
    if (n === 0) return []
    return this.issue<(Buffer | null)[]>((db, ops, done) => {
      const handle = binding.readInit()
      const ctx = { handle, buffer: binding.readBuffer(handle, n), ops }
      binding.read(db, handle, ops, undefined, false, fillCache, ctx, (errs, values) => {
        const out = new Array<Buffer | null>(n)
        let failed: Error | null = null
        for (let i = 0; i < n; i++) {
          const err = errs[i]
          if (err) {
            failed ??= err
            out[i] = null
            continue
          }
          // An ArrayBuffer over memory RocksDB allocated, freed when it is collected.
          const v = values[i]
          out[i] = v ? Buffer.from(v) : null
        }
        done(failed, out)
      })
    })
  }
}
