// One input of a regular join as its keyed state holds it: under the current join key, a MapState
// with one entry per unique key (when the planner knows the input's unique key) or one entry per
// distinct row with its count, each under its encoding (computed once per row, not per state call). Each entry also carries, for an outer side, how many rows of the
// other side it matches: the join emits a NULL-padded row exactly while that number is 0.
import type { Row } from '../../core/batch.js'
import type { JoinSideSpec } from '../../core/job-graph.js'
import type { KeyedStateStore, MapState, StateTtlConfig } from '../../core/keyed-state.js'
import { mapState } from '../../core/keyed-state.js'
import { encodeKey } from '../../state/key-encoding.js'

/** A stored row of one side under the current join key, as `scan` reads it. */
export interface SideRecord {
  /** The MapState key: the encoded unique key, or the encoded row. */
  key: string
  row: Row
  /** How many times the row is in the input (1 under a unique key). */
  count: number
  /** Rows (with multiplicity) of the other side this row joins with; kept on an outer side only. */
  matches: number
}

/** Entry value: [row, count, matches]. The map key is the row's (or its unique key's) encoding, computed once per row. */
type Entry = readonly [Row, number, number]

export class JoinSide {
  private map!: MapState<string, Entry>
  private readonly uniqueKey: Int32Array | null
  private readonly ukValues: unknown[]
  /** What the last `scan` read (its first `scan()` records). */
  readonly records: SideRecord[] = []
  private used = 0

  constructor(private readonly spec: JoinSideSpec, private readonly name: string) {
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
    this.map = state.getMapState(mapState<string, Entry>(this.name, ttl))
  }

  private keyOf(row: Row): string {
    const uk = this.uniqueKey
    if (uk === null) return encodeKey(row)
    const values = this.ukValues
    for (let i = 0; i < uk.length; i++) values[i] = row[uk[i]!]
    return encodeKey(values)
  }

  /** Adds one occurrence of `row` under the current key; `matches` is what it joins with now. */
  insert(row: Row, matches: number): void {
    const key = this.keyOf(row)
    if (this.uniqueKey !== null) {
      this.map.put(key, [row, 1, matches])
      return
    }
    const old = this.map.get(key)
    this.map.put(key, [row, old === undefined ? 1 : old[1] + 1, matches])
  }

  /** Removes one occurrence of `row`; false when state holds none (it expired, or never arrived). */
  retract(row: Row): boolean {
    const key = this.keyOf(row)
    const old = this.map.get(key)
    if (old === undefined) return false
    if (old[1] <= 1) this.map.remove(key)
    else this.map.put(key, [old[0], old[1] - 1, old[2]])
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
      let r = records[n]
      if (r === undefined) r = records[n] = { key: '', row: EMPTY, count: 0, matches: 0 }
      r.key = key
      r.row = v[0]
      r.count = v[1]
      r.matches = v[2]
      n++
    }
    // Records past the end keep no rows alive.
    for (let i = n; i < this.used; i++) {
      records[i]!.row = EMPTY
      records[i]!.key = ''
    }
    this.used = n
    return n
  }

  /** Stores a new match count for a record of the last `scan`. */
  setMatches(r: SideRecord, matches: number): void {
    r.matches = matches
    this.map.put(r.key, [r.row, r.count, matches])
  }
}

const EMPTY: Row = []
