// One input of a regular join whose rows are only ever appended (core/join-layout.ts: inner,
// insert-only, no unique key): a ListState per join key whose elements are chunks of rows, added per
// join key per input batch (`addChunk`: on RocksDB a chunk not yet written takes the next batches'
// rows too). A row is written once and never looked up again by value, so it needs no row hash, no
// read before its write and no count; and the rows of one key share one stored element (on RocksDB
// one key, one write-batch operation and one memtable insert for them all: Nexmark q20's bids come
// ~10 per auction in a batch of 1,024, and a key's chunk gathers the batches between two writes).
import type { Row } from '../../core/batch.js'
import type { JoinSideSpec } from '../../core/job-graph.js'
import type { KeyedStateStore, KeyRef, ListState } from '../../core/keyed-state.js'
import { listState } from '../../core/keyed-state.js'
import { WeirError } from '../../common/errors.js'
import type { JoinSideState, SideRecord } from './join-side.js'
import { ttlOf } from './row-kinds.js'

/** The rows a batch added under one join key, stored as one list element when the batch ends. */
interface Pending {
  readonly key: KeyRef
  readonly rows: Row[]
}

export class AppendedSide implements JoinSideState {
  private state!: KeyedStateStore
  private list!: ListState<Row[]>
  readonly records: SideRecord[] = []
  private used = 0
  /** This batch's rows by encoded join key, in the order their keys first came. */
  private readonly pending = new Map<string, Pending>()

  constructor(private readonly spec: JoinSideSpec, private readonly name: string) {}

  get outer(): boolean {
    return false
  }

  get width(): number {
    return this.spec.width
  }

  open(state: KeyedStateStore): void {
    this.state = state
    // Its own state name: a side kept as a map (join-side.ts) never shares a table with it.
    this.list = state.getListState(listState<Row[]>(`${this.name}-rows`, ttlOf(this.spec.ttlMs)))
  }

  /**
   * Held until `endBatch`: until then nothing reads this side under the batch's keys (a batch comes
   * from one input, and a side is scanned only by the other input's rows).
   */
  insert(row: Row): void {
    const key = this.state.getCurrentKey()!
    const p = this.pending.get(key.encoded)
    if (p === undefined) this.pending.set(key.encoded, { key, rows: [row] })
    else p.rows.push(row)
  }

  endBatch(): void {
    if (this.pending.size === 0) return
    for (const p of this.pending.values()) {
      this.state.setCurrentKey(p.key)
      this.list.addChunk(p.rows)
    }
    this.pending.clear()
  }

  retract(): boolean {
    throw WeirError.internal(`the ${this.name} input of a join was planned insert-only, but a retraction reached it`)
  }

  scan(): number {
    if (this.pending.size > 0) throw WeirError.internal(`the ${this.name} side of a join was scanned with rows of its own batch held`)
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
