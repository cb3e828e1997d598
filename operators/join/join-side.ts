// One input of a regular join as its keyed state holds it: under the current join key, a MapState
// with one entry per unique key (when the planner knows the input's unique key) or one entry per
// distinct row with its count. Each entry also carries, for an outer side, how many rows of the
// other side it matches: the join emits a NULL-padded row exactly while that number is 0.
import type { Row } from '../../core/batch.js'
import type { JoinSideSpec } from '../../core/job-graph.js'
import type { KeyedStateStore, MapState, StateTtlConfig } from '../../core/keyed-state.js'
import { mapState } from '../../core/keyed-state.js'

/** A stored row of one side under the current join key, as `scan` reads it. */
export interface SideRecord {
  /** The MapState key: the unique key's values, or the row itself. */
  key: unknown
  row: Row
  /** How many times the row is in the input (1 under a unique key). */
  count: number
  /** Rows (with multiplicity) of the other side this row joins with; kept on an outer side only. */
  matches: number
}

/** Entry value under a unique key: [row, matches]; per distinct row: [count, matches]. */
type Entry = readonly [Row, number] | readonly [number, number]

export class JoinSide {
  private map!: MapState<unknown, Entry>
  private readonly uniqueKey: Int32Array | null
  /** What the last `scan` read (its first `scan()` records). */
  readonly records: SideRecord[] = []
  private used = 0

  constructor(private readonly spec: JoinSideSpec, private readonly name: string) {
    this.uniqueKey = spec.uniqueKey === undefined ? null : Int32Array.from(spec.uniqueKey)
  }

  get outer(): boolean {
    return this.spec.outer
  }

  get width(): number {
    return this.spec.width
  }

  open(state: KeyedStateStore): void {
    const ttl: StateTtlConfig | undefined = this.spec.ttlMs > 0 ? { ttlMs: this.spec.ttlMs, updateType: 'OnCreateAndWrite' } : undefined
    this.map = state.getMapState(mapState<unknown, Entry>(this.name, ttl))
  }

  private keyOf(row: Row): unknown {
    const uk = this.uniqueKey
    if (uk === null) return row
    const k = new Array<unknown>(uk.length)
    for (let i = 0; i < uk.length; i++) k[i] = row[uk[i]!]
    return k
  }

  /** Adds one occurrence of `row` under the current key; `matches` is what it joins with now. */
  insert(row: Row, matches: number): void {
    if (this.uniqueKey !== null) {
      this.map.put(this.keyOf(row), [row, matches])
      return
    }
    const old = this.map.get(row) as readonly [number, number] | undefined
    this.map.put(row, [old === undefined ? 1 : old[0] + 1, matches])
  }

  /** Removes one occurrence of `row`; false when state holds none (it expired, or never arrived). */
  retract(row: Row): boolean {
    const key = this.keyOf(row)
    const old = this.map.get(key)
    if (old === undefined) return false
    if (this.uniqueKey !== null || (old[0] as number) <= 1) this.map.remove(key)
    else this.map.put(key, [(old[0] as number) - 1, old[1]])
    return true
  }

  /**
   * Reads the rows stored under the current key into `records` (reused by the next scan: read them
   * before scanning again) and returns how many there are.
   */
  scan(): number {
    let n = 0
    const unique = this.uniqueKey !== null
    const records = this.records
    for (const [key, v] of this.map.entries()) {
      let r = records[n]
      if (r === undefined) r = records[n] = { key: null, row: EMPTY, count: 0, matches: 0 }
      r.key = key
      if (unique) {
        r.row = v[0] as Row
        r.count = 1
      } else {
        r.row = key as Row
        r.count = v[0] as number
      }
      r.matches = v[1]
      n++
    }
    // Records past the end keep no rows alive.
    for (let i = n; i < this.used; i++) {
      records[i]!.row = EMPTY
      records[i]!.key = null
    }
    this.used = n
    return n
  }

  /** Stores a new match count for a record of the last `scan`. */
  setMatches(r: SideRecord, matches: number): void {
    r.matches = matches
    this.map.put(r.key, this.uniqueKey !== null ? [r.row, matches] : [r.count, matches])
  }
}

const EMPTY: Row = []
