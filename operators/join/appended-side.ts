// One input of a regular join whose rows are only ever appended (core/join-layout.ts: inner,
// insert-only, no unique key): a ListState per join key whose elements are chunks of rows, added per
// join key per input batch (`addChunk`: on RocksDB a chunk not yet written takes the next batches'
// rows too). A row is written once and never looked up again by value, so it needs no row hash, no
// read before its write and no count; and the rows of one key share one stored element (on RocksDB
// one key, one write-batch operation and one memtable insert for them all: Nexmark q20's bids come
// ~10 per auction in a batch of 1,024, and a key's chunk gathers the batches between two writes).
// Its own batches only append to it (`appendedState`: a disk backend need not read it for them, and
// on RocksDB, what no read wanted is kept encoded and let go once written: state/rocksdb/encoded-rows.ts).
import type { Row } from '../../core/batch.js'
import type { JoinSideSpec } from '../../core/job-graph.js'
import type { KeyedStateStore, KeyRef, ListState } from '../../core/keyed-state.js'
import { listState } from '../../core/keyed-state.js'
import { WeirError } from '../../common/errors.js'
import type { JoinSideState, SideRecord } from './join-side.js'
import { ttlOf } from './row-kinds.js'

export class AppendedSide implements JoinSideState {
  private state!: KeyedStateStore
  private list!: ListState<Row[]>
  readonly records: SideRecord[] = []
  private used = 0
  /**
   * This batch's join keys in the order they first came, the rows each took (`held` of them), and
   * `index` from a key's encoding to its place: kept from batch to batch, emptied slot by slot when
   * the batch ends. A Map of the batch's rows kept from batch to batch (as this was: key → rows,
   * cleared at the end) held them past their batch: once the Map's table is old, V8 allocates the
   * tables that replace it (a clear, a growth) old too, and what a dead old table holds lives until
   * the next full collection. With the rows encoded at the batch's end, Nexmark q20-rocksdb promoted
   * 447–485 MB over 2M events with that Map, 160–178 MB this way.
   */
  private readonly index = new Map<string, number>()
  private readonly keys: (KeyRef | null)[] = []
  private readonly chunks: Row[][] = []
  private held = 0

  readonly appendedState: readonly string[]

  constructor(private readonly spec: JoinSideSpec, private readonly name: string) {
    // Its own state name: a side kept as a map (join-side.ts) never shares a table with it.
    this.appendedState = [`${name}-rows`]
  }

  get outer(): boolean {
    return false
  }

  get width(): number {
    return this.spec.width
  }

  open(state: KeyedStateStore): void {
    this.state = state
    this.list = state.getListState(listState<Row[]>(this.appendedState[0]!, ttlOf(this.spec.ttlMs)))
  }

  /**
   * Held until `endBatch`: until then nothing reads this side under the batch's keys (a batch comes
   * from one input, and a side is scanned only by the other input's rows).
   */
  insert(row: Row): void {
    const key = this.state.getCurrentKey()!
    const i = this.index.get(key.encoded)
    if (i !== undefined) {
      this.chunks[i]!.push(row)
      return
    }
    const at = this.held++
    this.index.set(key.encoded, at)
    this.keys[at] = key
    // Not an array literal: V8 may allocate a literal's arrays old (allocation-site pretenuring).
    const chunk = NO_ROWS.slice()
    chunk.push(row)
    this.chunks[at] = chunk
  }

  endBatch(): void {
    const n = this.held
    if (n === 0) return
    for (let i = 0; i < n; i++) {
      this.state.setCurrentKey(this.keys[i]!)
      this.list.addChunk(this.chunks[i]!)
      this.keys[i] = null
      this.chunks[i] = NO_ROWS
    }
    this.held = 0
    this.index.clear()
  }

  retract(): boolean {
    throw WeirError.internal(`the ${this.name} input of a join was planned insert-only, but a retraction reached it`)
  }

  scan(): number {
    if (this.held > 0) throw WeirError.internal(`the ${this.name} side of a join was scanned with rows of its own batch held`)
    const chunks = this.list.get()
    const records = this.records
    let n = 0
    for (let c = 0; c < chunks.length; c++) {
      const rows = chunks[c]!
      for (let i = 0; i < rows.length; i++) {
        let r = records[n]
        if (r === undefined) r = records[n] = { key: '', at: 0, alone: true, row: rows[i]!, count: 1, matches: 0 }
        else r.row = rows[i]!
        n++
      }
    }
    // Records past the end keep no rows alive.
    for (let i = n; i < this.used; i++) records[i]!.row = EMPTY
    this.used = n
    return n
  }

  setMatches(): void {
    throw WeirError.internal(`the ${this.name} input of a join is not an outer side, so it keeps no match counts`)
  }
}

const EMPTY: Row = []
/** A key's chunk before its first row, and the slot a chunk handed on leaves behind (never changed). */
const NO_ROWS: Row[] = []
