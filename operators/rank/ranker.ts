// One partition of a Top-N, loaded from its MapState into a sorted array for a batch: rows are added
// and retracted in memory, ranks computed, and only the entries whose count changed are written back
// (one MapState entry per distinct row, never the whole partition). An entry is stored under a small
// integer of its partition, not under the row: the row as a map key was the row again in every
// stored key (~500 bytes of UTF-16 for a Nexmark bid) and an encoded string built per put; the
// partition is always loaded whole before it changes, so a free integer is known. A bounded Top-N
// (see `packs`) keeps its partition in one entry instead.
import type { Row } from '../../core/batch.js'
import { WeirError } from '../../common/errors.js'
import type { MapState } from '../../core/keyed-state.js'
import type { RankSpec } from '../../core/rank.js'
import { orderCompare, totalCompare, type RowCompare } from './row-order.js'

/** The MapState of a partition's rows: a small integer → [row, how many times it is there]. */
export const ROWS_STATE = 'rank-rows'

/** A stored entry's value. */
export type StoredRow = readonly [Row, number]

/** A stored value: an entry's [row, count], or a packed partition's rows (under PACKED_KEY). */
export type StoredValue = StoredRow | readonly Row[]

/** The map state of a partition's rows. */
export type RowsState = MapState<number, StoredValue>

/**
 * The key of a packed partition's one entry: its rows in order, a row that is there twice stored
 * twice. Entry keys are never negative, so state of either layout is read by both.
 */
export const PACKED_KEY = -1

/**
 * The largest `end` a Top-N packs its partition for. Packed, a partition changed by a batch is one
 * put of its (at most `end`) rows instead of a put per row that came: Nexmark q19-rocksdb (top 10
 * per auction) put ~3.4 entries per changed partition, each a key, a cache entry and a write
 * operation of its own. Past a small `end` the rows rewritten per change would cost more than that.
 */
export const PACK_MAX_END = 16

/**
 * Whether a Top-N keeps each partition as one packed entry: only where a partition holds at most
 * `end` rows (ROW_NUMBER over an insert-only input, which `trim` bounds; RANK's ties are unbounded,
 * and an updating input keeps every row), `end` is small, and no TTL runs per row (a packed entry
 * has one clock).
 */
export function packs(spec: RankSpec): boolean {
  return spec.fn === 'ROW_NUMBER' && !spec.inputUpdating && spec.end <= PACK_MAX_END && spec.ttlMs === 0 && spec.window === undefined
}

export interface Entry {
  readonly row: Row
  count: number
  /** The count in state when loaded (0 for a row new in this batch). */
  stored: number
  /** Its key in the MapState, or -1 while it has none (new in this batch). */
  key: number
}

/**
 * A row of the output with its rank: `pos` is its entry's place in the sorted array and `copy` tells
 * apart identical rows (count > 1). Reused between batches: read them before the next `visible`.
 */
export interface Ranked {
  entry: Entry
  pos: number
  copy: number
  rank: number
}

export class Ranker {
  entries: Entry[] = []
  private readonly total: RowCompare
  private readonly peer: RowCompare
  private readonly fn: 0 | 1 | 2
  /** Keys of entries taken out by `persist`, for new entries to take (a put then replaces a delete). */
  private readonly freed: number[] = []
  /** Keys in use, while `persist` looks for an unused one. */
  private readonly used = new Set<number>()
  /** ROW_NUMBER over an insert-only input: `add` drops a row `end` rows follow no later than `trim` would (see there). */
  private readonly dropPastEnd: boolean
  /** Whether the partition is written as one packed entry (see `packs`). */
  private readonly packed: boolean
  /**
   * Whether the loaded partition is stored in the other layout (a checkpoint taken with it, e.g.
   * before a TTL was set): its next persist writes it whole in this one and removes the old entries.
   */
  private relayout = false
  /** Keys of the loaded entries (a rewrite removes those it does not write over). */
  private readonly loadedKeys: number[] = []

  constructor(private readonly spec: RankSpec) {
    this.total = totalCompare(spec.orderKeys, spec.width)
    this.peer = orderCompare(spec.orderKeys)
    this.fn = spec.fn === 'ROW_NUMBER' ? 0 : spec.fn === 'RANK' ? 1 : 2
    this.dropPastEnd = this.fn === 0 && !spec.inputUpdating
    this.packed = packs(spec)
  }

  /** Loads the current key's (and namespace's) rows, sorted. */
  load(map: RowsState): void {
    const entries = this.entries
    entries.length = 0
    this.relayout = false
    const loadedKeys = this.loadedKeys
    loadedKeys.length = 0
    let sorted = true
    for (const [key, v] of map.entries()) {
      if (!Array.isArray(v)) throw staleFormat()
      if (key === PACKED_KEY) sorted = this.unpack(v as readonly Row[]) && sorted
      else {
        const [row, count] = v as unknown as StoredRow
        entries.push({ row, count, stored: count, key })
      }
      loadedKeys.push(key)
      if ((key === PACKED_KEY) !== this.packed) this.relayout = true
    }
    if (entries.length > 1 && (!this.packed || this.relayout || !sorted)) entries.sort((a, b) => this.total(a.row, b.row))
  }

  /** Adds a packed partition's rows as entries (adjacent equal rows as one); false if they were not in order. */
  private unpack(rows: readonly Row[]): boolean {
    const entries = this.entries
    let sorted = true
    let last: Entry | undefined
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const c = last === undefined ? -1 : this.total(last.row, row)
      if (c === 0) {
        last!.count++
        last!.stored++
        continue
      }
      if (c > 0) sorted = false
      last = { row, count: 1, stored: 1, key: PACKED_KEY }
      entries.push(last)
    }
    return sorted
  }

  /** Adds (delta 1) or retracts (delta -1) a row; retracting a row that is not there (expired) is ignored. */
  add(row: Row, delta: number): void {
    const entries = this.entries
    let lo = 0, hi = entries.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const c = this.total(entries[mid]!.row, row)
      if (c < 0) lo = mid + 1
      else if (c > 0) hi = mid
      else {
        const e = entries[mid]!
        e.count = Math.max(0, e.count + delta)
        return
      }
    }
    if (delta <= 0) return
    // Over an insert-only input every entry holds at least one row, so `end` entries before this row
    // give it a ROW_NUMBER past `end`, which only grows: trim would drop it. Most rows of a long-running
    // Top-N (Nexmark q9: a bid below its auction's best) go here without an entry or a splice.
    if (this.dropPastEnd && lo >= this.spec.end) return
    entries.splice(lo, 0, { row, count: delta, stored: 0, key: -1 })
  }

  /** True when some row's count differs from the one in state (so the ranking may have changed). */
  changed(): boolean {
    for (const e of this.entries) if (e.count !== e.stored) return true
    return false
  }

  /** The rows ranked within [start, end], in rank order: as in state (`stored`) or as now. */
  visible(out: Ranked[], stored = false): Ranked[] {
    let n = 0
    const { start, end } = this.spec
    const fn = this.fn
    let pos = 0, rank = 0, dense = 0
    let prev: Entry | undefined
    const entries = this.entries
    for (let p = 0; p < entries.length; p++) {
      const e = entries[p]!
      const count = stored ? e.stored : e.count
      if (count <= 0) continue
      if (prev === undefined || this.peer(prev.row, e.row) !== 0) {
        dense++
        rank = pos + 1
      }
      prev = e
      for (let c = 0; c < count; c++) {
        pos++
        const r = fn === 0 ? pos : fn === 1 ? rank : dense
        if (r > end) {
          out.length = n
          return out
        }
        if (r >= start) {
          const slot = out[n++] ??= { entry: e, pos: 0, copy: 0, rank: 0 }
          slot.entry = e
          slot.pos = p
          slot.copy = c
          slot.rank = r
        }
      }
    }
    out.length = n
    return out
  }

  /**
   * Over an insert-only input a row ranked past `end` can never come back: drops those rows, so a
   * partition keeps at most `end` rows (plus the peers tied at the last rank).
   */
  trim(): void {
    const { end } = this.spec
    const fn = this.fn
    let pos = 0, dense = 0, groupRank = 0
    let prev: Entry | undefined
    for (const e of this.entries) {
      if (e.count <= 0) continue
      if (prev === undefined || this.peer(prev.row, e.row) !== 0) {
        dense++
        groupRank = pos + 1
      }
      const first = fn === 0 ? pos + 1 : fn === 1 ? groupRank : dense
      if (first > end) e.count = 0
      else if (fn === 0 && pos + e.count > end) e.count = end - pos
      pos += e.count
      prev = e
    }
  }

  /**
   * Writes back the entries whose count changed, and forgets the removed ones. A new entry takes the
   * key of one removed in the same batch where there is one (the usual case over an insert-only input:
   * the row that enters pushes one out), so one put replaces a delete and a put.
   */
  persist(map: RowsState): void {
    if (this.packed || this.relayout) {
      this.rewrite(map)
      return
    }
    const entries = this.entries
    const freed = this.freed
    freed.length = 0
    let gone = false
    for (const e of entries) {
      if (e.count !== 0 || e.stored === 0) continue
      freed.push(e.key)
      e.stored = 0
      gone = true
    }
    let probe = 0
    for (const e of entries) {
      if (e.count === e.stored) continue
      if (e.key < 0) {
        if (freed.length > 0) e.key = freed.pop()!
        else {
          if (probe === 0) this.collectUsed()
          while (this.used.has(probe)) probe++
          e.key = probe++
        }
      }
      map.put(e.key, [e.row, e.count])
      e.stored = e.count
    }
    for (const k of freed) map.remove(k)
    if (gone) this.entries = entries.filter(e => e.count > 0)
  }

  /**
   * Writes the partition whole: packed, one entry of its rows; or (a packed partition read by a
   * Top-N that keeps entries) an entry per row. Entries of the layout it was loaded in go.
   */
  private rewrite(map: RowsState): void {
    const live = this.entries.filter(e => e.count > 0)
    this.entries = live
    let written = 0
    if (this.packed) {
      let n = 0
      for (const e of live) n += e.count
      const rows = new Array<Row>(n)
      let i = 0
      for (const e of live) for (let c = 0; c < e.count; c++) rows[i++] = e.row
      if (n > 0) map.put(PACKED_KEY, rows)
      for (const e of live) {
        e.stored = e.count
        e.key = PACKED_KEY
      }
    } else {
      for (let k = 0; k < live.length; k++) {
        const e = live[k]!
        map.put(k, [e.row, e.count])
        e.stored = e.count
        e.key = k
      }
      written = live.length
    }
    // Whatever was loaded and not written over now goes.
    for (const k of this.loadedKeys) if (this.packed ? k !== PACKED_KEY || live.length === 0 : k < 0 || k >= written) map.remove(k)
    this.relayout = false
  }

  /** The keys of this batch's entries (stored, or given by this persist so far). */
  private collectUsed(): void {
    const used = this.used
    used.clear()
    for (const e of this.entries) if (e.key >= 0) used.add(e.key)
  }
}

/** A stored entry that is not [row, count]: state written by a Weir whose Top-N stored rows as map keys. */
function staleFormat(): WeirError {
  return WeirError.execution("the Top-N state restored is in an older format ('rank-rows' stored rows as map keys)", {
    help: 'start the job without this checkpoint or savepoint (its Top-N state cannot be read by this version)',
  })
}

/** The output row of a ranked row: the row itself, or the row and its rank. */
export function outputRow(r: Ranked, outputRank: boolean): Row {
  return outputRank ? [...r.entry.row, r.rank] : r.entry.row
}
