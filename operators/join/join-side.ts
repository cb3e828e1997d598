// One input of a regular join as its keyed state holds it: under the current join key, a MapState
// with one entry per unique key (when the planner knows the input's unique key: the key's encoding,
// one row) or else one entry per distinct row with its count, under the row's hash (row-hash.ts: a
// small stored key, where the row's encoding repeated the row in every stored key). Rows whose hashes
// collide share the entry: its value is a flat list of (row, count, matches) triples. Each row also
// carries, for an outer side, how many rows of the other side it matches: the join emits a NULL-padded
// row exactly while that number is 0.
import type { Row } from '../../core/batch.js'
import type { JoinSideSpec } from '../../core/job-graph.js'
import type { KeyedStateStore, MapState, StateTtlConfig } from '../../core/keyed-state.js'
import { mapState } from '../../core/keyed-state.js'
import { keepsAppendedRows } from '../../core/join-layout.js'
import { AppendedSide } from './appended-side.js'
import { encodeKey } from '../../state/key-encoding.js'
import { rowHash, rowsEqual } from './row-hash.js'

/** A stored row of one side under the current join key, as `scan` reads it. */
export interface SideRecord {
  /** The MapState key: the encoded unique key, or the row's hash. */
  key: string | number
  /** Where the row's triple starts in the entry's value. */
  at: number
  /** The entry's value holds this row only. */
  alone: boolean
  row: Row
  /** How many times the row is in the input (1 under a unique key). */
  count: number
  /** Rows (with multiplicity) of the other side this row joins with; kept on an outer side only. */
  matches: number
}

/** What the regular join asks of one side's state (this file's MapState, or appended-side.ts's list). */
export interface JoinSideState {
  readonly outer: boolean
  readonly width: number
  /** The list state this side keeps its rows in, if its own batches only append to it (appended-side.ts). */
  readonly appendedState: readonly string[] | undefined
  /** What the last `scan` read (its first `scan()` records). */
  readonly records: SideRecord[]
  open(state: KeyedStateStore): void
  /** Adds one occurrence of `row` under the current key; `matches` is what it joins with now (an outer side's). */
  insert(row: Row, matches: number): void
  /** Removes one occurrence of `row`; false when state holds none. */
  retract(row: Row): boolean
  /** Reads the rows under the current key into `records`; returns how many. */
  scan(): number
  /** Stores a new match count for a record of the last `scan` (an outer side only). */
  setMatches(r: SideRecord, matches: number): void
  /** The end of an input batch: whatever `insert` held back goes to state (the current key changes). */
  endBatch(): void
}

/** The state of one side, as core/join-layout.ts decides from its spec. */
export function joinSide(spec: JoinSideSpec, name: string, hash?: (row: Row) => number): JoinSideState {
  return keepsAppendedRows(spec) ? new AppendedSide(spec, name) : new JoinSide(spec, name, hash)
}

/** Entry value: [row, count, matches] triples, one per row of the entry (more than one only for rows whose hashes collide). */
type Entry = readonly unknown[]

export class JoinSide implements JoinSideState {
  readonly appendedState = undefined
  private map!: MapState<string | number, Entry>
  private readonly uniqueKey: Int32Array | null
  private readonly ukValues: unknown[]
  /** What the last `scan` read (its first `scan()` records). */
  readonly records: SideRecord[] = []
  private used = 0

  /** @param hash the rows' hash (tests pass one that collides) */
  constructor(private readonly spec: JoinSideSpec, private readonly name: string, private readonly hash: (row: Row) => number = rowHash) {
    this.uniqueKey = spec.uniqueKey === undefined ? null : Int32Array.from(spec.uniqueKey)
    this.ukValues = new Array<unknown>(this.uniqueKey?.length ?? 0)
  }

  get outer(): boolean {
    return this.spec.outer
  }

  get width(): number {
    return this.spec.width
  }

  open(state: KeyedStateStore): void {
    const ttl: StateTtlConfig | undefined = this.spec.ttlMs > 0 ? { ttlMs: this.spec.ttlMs, updateType: 'OnCreateAndWrite' } : undefined
    this.map = state.getMapState(mapState<string | number, Entry>(this.name, ttl))
  }

  private uniqueKeyOf(row: Row): string {
    const uk = this.uniqueKey!
    const values = this.ukValues
    for (let i = 0; i < uk.length; i++) values[i] = row[uk[i]!]
    return encodeKey(values)
  }

  /** Adds one occurrence of `row` under the current key; `matches` is what it joins with now. */
  insert(row: Row, matches: number): void {
    if (this.uniqueKey !== null) {
      this.map.put(this.uniqueKeyOf(row), [row, 1, matches])
      return
    }
    const h = this.hash(row)
    const old = this.map.get(h)
    if (old === undefined) {
      this.map.put(h, [row, 1, matches])
      return
    }
    const at = find(old, row)
    if (at < 0) {
      this.map.put(h, old.concat([row, 1, matches]))
      return
    }
    const next = old.slice()
    next[at] = row
    next[at + 1] = (old[at + 1] as number) + 1
    next[at + 2] = matches
    this.map.put(h, next)
  }

  /** Removes one occurrence of `row`; false when state holds none (it expired, or never arrived). */
  retract(row: Row): boolean {
    const key = this.uniqueKey !== null ? this.uniqueKeyOf(row) : this.hash(row)
    const old = this.map.get(key)
    if (old === undefined) return false
    const at = this.uniqueKey !== null ? 0 : find(old, row)
    if (at < 0) return false
    const count = old[at + 1] as number
    if (count > 1) {
      const next = old.slice()
      next[at + 1] = count - 1
      this.map.put(key, next)
    } else if (old.length === 3) {
      this.map.remove(key)
    } else {
      this.map.put(key, old.slice(0, at).concat(old.slice(at + 3)))
    }
    return true
  }

  /**
   * Reads the rows stored under the current key into `records` (reused by the next scan: read them
   * before scanning again) and returns how many there are.
   */
  scan(): number {
    let n = 0
    const records = this.records
    for (const [key, v] of this.map.entries()) {
      for (let at = 0; at < v.length; at += 3) {
        let r = records[n]
        if (r === undefined) r = records[n] = { key: '', at: 0, alone: true, row: EMPTY, count: 0, matches: 0 }
        r.key = key
        r.at = at
        r.alone = v.length === 3
        r.row = v[at] as Row
        r.count = v[at + 1] as number
        r.matches = v[at + 2] as number
        n++
      }
    }
    // Records past the end keep no rows alive.
    for (let i = n; i < this.used; i++) {
      records[i]!.row = EMPTY
      records[i]!.key = ''
    }
    this.used = n
    return n
  }

  endBatch(): void {}

  /** Stores a new match count for a record of the last `scan`. */
  setMatches(r: SideRecord, matches: number): void {
    r.matches = matches
    if (r.alone) {
      this.map.put(r.key, [r.row, r.count, matches])
      return
    }
    // Rows of colliding hashes: the entry as it is now (another of its rows may have changed since the scan).
    const next = this.map.get(r.key)!.slice()
    next[r.at + 2] = matches
    this.map.put(r.key, next)
  }
}

/** Where `row`'s triple starts in an entry's value, or -1. */
function find(v: Entry, row: Row): number {
  for (let at = 0; at < v.length; at += 3) if (rowsEqual(v[at] as Row, row)) return at
  return -1
}

const EMPTY: Row = []
