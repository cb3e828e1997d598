// The frames of one OVER aggregate: its calls grouped by frame (one accumulator per group and key),
// and the computation of a peer group — a key's rows at one time — against the rows still retained.
import type { Row } from '../../core/batch.js'
import type { KeyedStateStore, MapState } from '../../core/keyed-state.js'
import { mapState } from '../../core/keyed-state.js'
import type { AggCall } from '../../core/aggregates.js'
import type { OverAggCallSpec, OverFrameSpec } from '../../core/over-aggregate.js'
import { isFrameCall } from '../../core/over-aggregate.js'
import { OverRowCalls } from './row-calls.js'
import { AggregateHandler, type Accumulator } from '../aggregates.js'

/**
 * Per key, one number array (a ValueState): the next row's sequence number (rows are numbered in
 * time order; it is ROW_NUMBER − 1), the oldest retained row, the time of the last peer group,
 * the cleanup timer pending (0/1) and its time, then one head per bounded frame: the oldest row
 * still inside that frame, then (with DENSE_RANK) the number of peer groups so far.
 */
export const NEXT = 0
export const FLOOR = 1
export const LAST = 2
export const HAS_CLEANUP = 3
export const CLEANUP_AT = 4
const HEADS = 5

/** A retained row: the time it was computed at (its timestamp, or the processing time) and the row. */
export type Retained = [number, Row]

/** The calls sharing one frame. */
interface FrameGroup {
  readonly rows: boolean
  /** Rows or ms before the current row; Infinity for UNBOUNDED PRECEDING. */
  readonly preceding: number
  readonly handler: AggregateHandler
  /** Output column of each call of the group, counted from the first call column. */
  readonly outputs: Int32Array
  /** Meta slot of the group's head; -1 for an UNBOUNDED frame (it needs no rows). */
  readonly head: number
  readonly values: unknown[]
}

/**
 * The compiled calls of one OVER aggregate. `retained` holds the rows some bounded frame still
 * needs, under their sequence number (one map entry per row: adding and evicting a row touch one
 * entry each, never the whole collection).
 */
export class OverFrames {
  readonly groups: readonly FrameGroup[]
  /** ROW_NUMBER, RANK, DENSE_RANK and LAG: computed row by row, apart from the frames. */
  private readonly rowCalls: OverRowCalls
  readonly callCount: number
  /** Some frame is bounded: rows are retained until they leave every frame. */
  readonly retains: boolean
  /** The widest bounded RANGE frame (ms), or -1: rows of a RANGE frame are freed by time, through a cleanup timer. */
  readonly rangeReach: number
  /** Every call is over a bounded RANGE frame: once no row is retained, a key's state is empty and goes entirely. */
  readonly freeable: boolean
  retained!: MapState<number, Retained>

  constructor(calls: readonly OverAggCallSpec[]) {
    this.callCount = calls.length
    const byFrame = new Map<string, { frame: OverFrameSpec; aggs: AggCall[]; outputs: number[] }>()
    calls.forEach((c, i) => {
      if (!isFrameCall(c)) return
      const key = `${c.frame.unit} ${c.frame.preceding}`
      let g = byFrame.get(key)
      if (g === undefined) byFrame.set(key, g = { frame: c.frame, aggs: [], outputs: [] })
      g.aggs.push(c.agg)
      g.outputs.push(i)
    })
    let heads = HEADS
    this.groups = [...byFrame.values()].map((g, i) => {
      const bounded = g.frame.preceding !== null
      return {
        rows: g.frame.unit === 'ROWS',
        preceding: g.frame.preceding ?? Number.POSITIVE_INFINITY,
        // A bounded frame retracts the rows that leave it: MIN and MAX then keep value counts.
        handler: new AggregateHandler(g.aggs, { retracting: bounded, statePrefix: `f${i}-` }),
        outputs: Int32Array.from(g.outputs),
        head: bounded ? heads++ : -1,
        values: new Array<unknown>(g.aggs.length),
      }
    })
    this.retains = this.groups.some(g => g.head >= 0)
    const ranges = this.groups.filter(g => !g.rows && g.head >= 0)
    this.rangeReach = ranges.length > 0 ? Math.max(...ranges.map(g => g.preceding)) : -1
    const metaSlot = HEADS + this.groups.filter(g => g.head >= 0).length
    this.rowCalls = new OverRowCalls(calls, metaSlot)
    // A rank or LAG call needs the key's count of rows (or last values) for ever: its state never goes by time.
    this.freeable = this.rowCalls.empty && this.groups.length === ranges.length
  }

  open(store: KeyedStateStore): void {
    for (const g of this.groups) g.handler.open(store)
    if (this.retains) this.retained = store.getMapState(mapState<number, Retained>('retained'))
    this.rowCalls.open(store)
  }

  /** A new key's meta: nothing numbered, nothing retained, no peer group seen. */
  newMeta(): number[] {
    return new Array<number>(this.rowCalls.metaLength).fill(0)
  }

  /**
   * Computes the peers `rows` (the current key's rows at time `t`, in arrival order) and pushes one
   * output row each — the input row, then the calls' values — to `emit`. Updates `meta` in place.
   * Every earlier row of the key had a time at or before `t`.
   */
  computePeers(rows: readonly Row[], t: number, meta: number[], emit: (row: Row) => void): void {
    const m = rows.length
    const first = meta[NEXT]!
    if (this.retains) { for (let j = 0; j < m; j++) this.retained.put(first + j, [t, rows[j]!]) }
    meta[NEXT] = first + m
    meta[LAST] = t
    const width = rows[0]!.length
    const out: Row[] = new Array<Row>(m)
    for (let j = 0; j < m; j++) {
      const src = rows[j]!
      const row: Row = new Array<unknown>(width + this.callCount)
      for (let c = 0; c < width; c++) row[c] = src[c]
      out[j] = row
    }
    this.rowCalls.compute(rows, out, width, first, meta)
    for (const g of this.groups) {
      const h = g.handler
      const acc = h.accState.value() ?? h.createAccumulator()
      if (g.rows) {
        // ROWS: each row is its own frame, the `preceding` rows before it and itself.
        for (let j = 0; j < m; j++) {
          h.accumulate(acc, rows[j]!)
          if (g.head >= 0) this.evictRows(g, acc, meta, first + j - g.preceding)
          this.scatter(g, acc, out[j]!, width)
        }
      } else {
        // RANGE: the peers are in each other's frame, so all of them count before any result.
        for (let j = 0; j < m; j++) h.accumulate(acc, rows[j]!)
        if (g.head >= 0) this.evictBefore(g, acc, meta, t - g.preceding)
        for (let j = 0; j < m; j++) this.scatter(g, acc, out[j]!, width)
      }
      h.accState.update(acc)
    }
    this.dropUnneeded(meta)
    for (let j = 0; j < m; j++) emit(out[j]!)
  }

  /**
   * Time `now` has come for the key's bounded RANGE frames: rows older than `now` − reach are in no
   * future frame (every later row is at `now` or after). Returns true when the key's state is now
   * empty (freeable: the caller clears it).
   */
  expire(now: number, meta: number[]): boolean {
    for (const g of this.groups) {
      if (g.rows || g.head < 0) continue
      const h = g.handler
      const acc = h.accState.value()
      if (acc === undefined) continue
      this.evictBefore(g, acc, meta, now - g.preceding)
      h.accState.update(acc)
    }
    this.dropUnneeded(meta)
    return this.freeable && meta[FLOOR] === meta[NEXT]
  }

  /** Clears every state of the current key but the meta (the caller's). */
  clear(): void {
    for (const g of this.groups) g.handler.clear()
    if (this.retains) this.retained.clear()
    this.rowCalls.clear()
  }

  /** ROWS: moves the head to `to`, retracting the rows it passes. */
  private evictRows(g: FrameGroup, acc: Accumulator, meta: number[], to: number): void {
    let head = meta[g.head]!
    while (head < to) g.handler.retract(acc, this.retained.get(head++)![1])
    meta[g.head] = head
  }

  /** RANGE: moves the head past the rows whose time is before `bound`, retracting them. */
  private evictBefore(g: FrameGroup, acc: Accumulator, meta: number[], bound: number): void {
    let head = meta[g.head]!
    const next = meta[NEXT]!
    while (head < next) {
      const r = this.retained.get(head)!
      if (r[0] >= bound) break
      g.handler.retract(acc, r[1])
      head++
    }
    meta[g.head] = head
  }

  /** Removes the rows every bounded frame has left. */
  private dropUnneeded(meta: number[]): void {
    if (!this.retains) return
    let floor = meta[NEXT]!
    for (const g of this.groups) if (g.head >= 0 && meta[g.head]! < floor) floor = meta[g.head]!
    for (let s = meta[FLOOR]!; s < floor; s++) this.retained.remove(s)
    meta[FLOOR] = floor
  }

  private scatter(g: FrameGroup, acc: Accumulator, row: Row, width: number): void {
    const values = g.values
    g.handler.getValue(acc, values, 0)
    const outputs = g.outputs
    for (let c = 0; c < outputs.length; c++) row[width + outputs[c]!] = values[c]
  }

  /** The state names (for the prefetch of a batch's pending rows, which needs none of these). */
  stateNames(): string[] {
    return [...this.groups.flatMap(g => g.handler.stateNames()), ...(this.retains ? ['retained'] : []), ...this.rowCalls.stateNames()]
  }
}
