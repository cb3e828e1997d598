// The sliced event-time HOP window aggregate's state and timers (core/window-slicing.ts says which HOPs
// slice). A slice is one slide wide and named by its end; window e (its end) is the merge of the slices
// in (e − size, e]. Each key keeps ONE state entry, in namespace '': [timer, end₀, acc₀, end₁, acc₁, …],
// its live slices in end order and the end of the window its one pending timer fires; as Flink's
// sliced windows do, a key has one timer at a time, for the next window with a slice in it.
//
// A batch reads and writes a key's entry once, however many rows and slices it brings; a firing reads
// the same one entry (not one read per slice of the window), emits the window, drops the slice no later
// window holds, and registers the next window: max(e + slide, the oldest slice left), the first window
// after e that holds a slice. When the watermark passes several windows at once that timer is due in the
// same advance and fires there, on the entry the first timer's prefetch made resident. A row's new slice
// moves the timer earlier only if its first unfired window comes before the pending one; otherwise the
// chain reaches it, since it fires every window up to the last one its slices are in.
//
// Checkpoints hold the entries and the timers together (the entry's timer is always the pending one).
import { invariant } from '../common/assert.js'
import type { Row } from '../core/batch.js'
import { valueState, type KeyRef, type PrefetchRequest, type ValueState } from '../core/keyed-state.js'
import type { OperatorContext } from '../core/operator.js'
import type { Accumulator, AggregateHandler, KeyGrouper } from './aggregates.js'
import { floorMod } from './windows.js'

/** The name of the per-key entry (a layout of its own: core/signature.ts refuses a checkpoint of slices per (key, slice)). */
export const HOP_SLICES_STATE = 'hop-slices'
const STATES = [HOP_SLICES_STATE] as const

/** [timer window end, slice end, accumulator, slice end, accumulator, …], slices in end order. */
type Entry = unknown[]

export class HopSlices {
  private state!: ValueState<Entry>
  private ctx!: OperatorContext
  /** stateRequests: the keys asked for in the batch being requested. */
  private readonly asked = new Set<KeyRef>()

  constructor(
    private readonly handler: AggregateHandler,
    private readonly size: number,
    private readonly slide: number,
    private readonly offset: number,
    private readonly timeIndex: number,
    /** Emits window [start, end) of the current key with its merged accumulator. */
    private readonly emit: (key: KeyRef, acc: Accumulator, start: number, end: number) => void,
  ) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.state = ctx.state.getValueState(valueState<Entry>(HOP_SLICES_STATE))
  }

  /** The end of the slice holding `ts` (the earliest end of a window holding it). */
  private sliceEnd(ts: number): number {
    return ts - floorMod(ts - this.offset, this.slide) + this.slide
  }

  /** A timer's window reads its key's one entry. */
  timerStateRequests(key: KeyRef): readonly PrefetchRequest[] {
    return [{ key, namespace: '', states: STATES }]
  }

  /** Each key of the batch once (its entry), if one of its rows is not late now (the watermark only advances). */
  stateRequests(rows: readonly Row[], keys: readonly KeyRef[], add: (key: KeyRef, namespace: string) => void): void {
    const wm = this.ctx.timers.currentWatermark()
    const last = this.size - this.slide
    const asked = this.asked
    for (let i = 0; i < rows.length; i++) {
      const ts = rows[i]![this.timeIndex] as number | null
      if (ts == null) continue
      const key = keys[i]!
      if (asked.has(key) || this.sliceEnd(ts) + last - 1 <= wm) continue
      asked.add(key)
      add(key, '')
    }
    asked.clear()
  }

  /**
   * Each row into its slice's accumulator; a row whose last window has fired is late. Returns the
   * rows dropped (late or without a time).
   */
  process(rows: readonly Row[], grouper: KeyGrouper, ng: number): number {
    const state = this.ctx.state
    const handler = this.handler
    const next = grouper.next
    const timeIndex = this.timeIndex
    const wm = this.ctx.timers.currentWatermark()
    const slide = this.slide
    const last = this.size - slide
    let dropped = 0
    for (let g = 0; g < ng; g++) {
      state.setCurrentKey(grouper.keys[g]!)
      let entry: Entry | undefined
      // The slice the previous row went to (most rows of a key in a batch share one).
      let curEnd = Number.NaN
      let cur: Accumulator | null = null
      for (let i = grouper.first[g]!; i !== -1; i = next[i]!) {
        const row = rows[i]!
        const ts = row[timeIndex] as number | null
        if (ts == null) {
          dropped++
          continue
        }
        const end = this.sliceEnd(ts)
        if (end + last - 1 <= wm) {
          dropped++
          continue
        }
        if (end !== curEnd) {
          entry ??= this.state.value() ?? [Number.NaN]
          cur = this.sliceOf(entry, end, wm)
          curEnd = end
        }
        handler.accumulate(cur!, row)
      }
      if (entry !== undefined) this.state.update(entry)
    }
    return dropped
  }

  /** Slice `end`'s accumulator in `entry`, added (in end order) if new; a new slice may move the key's timer earlier. */
  private sliceOf(entry: Entry, end: number, wm: number): Accumulator {
    let at = entry.length
    for (let j = 1; j < entry.length; j += 2) {
      const e = entry[j] as number
      if (e === end) return entry[j + 1] as Accumulator
      if (e > end) {
        at = j
        break
      }
    }
    const acc = this.handler.createAccumulator()
    entry.splice(at, 0, end, acc)
    // The first window holding the slice that has not fired (window e fires when the watermark reaches e − 1).
    const first = end - 1 > wm ? end : end + (Math.floor((wm + 1 - end) / this.slide) + 1) * this.slide
    const timer = entry[0] as number
    if (Number.isNaN(timer) || first < timer) {
      const timers = this.ctx.timers
      if (!Number.isNaN(timer)) timers.deleteEventTimeTimer(timer - 1, timer)
      timers.registerEventTimeTimer(first - 1, first)
      entry[0] = first
    }
    return acc
  }

  /** Window `end` of the current key: emitted if a slice holds a row; its oldest slice goes; the next window's timer. */
  fire(key: KeyRef, end: number): void {
    const entry = this.state.value()
    invariant(entry !== undefined && entry[0] === end, `a sliced HOP window's timer at ${end} is not its key's pending one (${entry?.[0]})`)
    const handler = this.handler
    const oldest = end - this.size + this.slide
    let acc: Accumulator | null = null
    let expired = 0
    for (let j = 1; j < entry.length; j += 2) {
      const e = entry[j] as number
      if (e > end) break
      if (e <= oldest) expired += 2
      // (None is older than the oldest: each went when the last window holding it fired.)
      if (e <= end - this.size) continue
      acc ??= handler.createAccumulator()
      handler.mergePlain(acc, entry[j + 1] as Accumulator)
    }
    if (acc !== null) this.emit(key, acc, end - this.size, end)
    if (expired > 0) entry.splice(1, expired)
    if (entry.length === 1) {
      this.state.clear()
      return
    }
    const nextEnd = Math.max(end + this.slide, entry[1] as number)
    entry[0] = nextEnd
    this.ctx.timers.registerEventTimeTimer(nextEnd - 1, nextEnd)
    this.state.update(entry)
  }
}
