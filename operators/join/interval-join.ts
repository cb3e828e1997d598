// The interval join: an equi-join whose rows pair only where lower <= left time - right time <= upper.
// Each side keeps its rows per join key in a MapState keyed by time (one small list of rows per
// instant, so adding a row touches one entry). A row is dropped once the other side can no longer
// send a match: no row of the other side behind the watermark is accepted (late rows are dropped
// and counted), so a left row at tl waits until the watermark passes tl - lower, a right row at tr
// until it passes tr + upper; an event-time timer (per key, side and instant) then removes it, and an
// outer side emits it NULL-padded if it never matched. The output is insert-only.
//
// The output keeps the left time as its time attribute. A right row at tr >= watermark can still
// pair with a stored left row as early as tr + lower, so when lower < 0 the output watermark is
// held back by -lower: no output row is ever behind the watermark that follows it.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { IntervalJoinSpec } from '../../core/job-graph.js'
import { mapState, type KeyRef, type MapState, type Namespace, type PrefetchRequest } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor, TimerDomain } from '../../core/operator.js'
import { hasNull, JoinRows } from './join-rows.js'
import { WeirError } from '../../common/errors.js'

/** A stored row and whether it has matched (kept up to date on an outer side only). */
type Entry = readonly [Row, 0 | 1]

export class IntervalJoinOperator implements Operator {
  private readonly rows: JoinRows
  private readonly eventTime: boolean
  private readonly timeCols: readonly [number, number]
  private readonly outer: readonly [boolean, boolean]
  private readonly lower: number
  private readonly upper: number
  private readonly delay: number
  private sides!: readonly [MapState<number, Entry[]>, MapState<number, Entry[]>]
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext
  /** Entries of the other side whose matched flag changed while it was scanned. */
  private readonly touched: [number, Entry[]][] = []

  constructor(readonly spec: IntervalJoinSpec) {
    if (spec.lower > spec.upper) throw WeirError.internal(`interval join bounds [${spec.lower}, ${spec.upper}] are empty`)
    this.rows = new JoinRows(spec.residual, [spec.left.width, spec.right.width])
    this.eventTime = spec.timeDomain === 'event'
    this.timeCols = [spec.leftTime, spec.rightTime]
    this.outer = [spec.left.outer, spec.right.outer]
    this.lower = spec.lower
    this.upper = spec.upper
    this.delay = Math.max(0, -spec.lower)
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.sides = [ctx.state.getMapState(mapState<number, Entry[]>('left')), ctx.state.getMapState(mapState<number, Entry[]>('right'))]
  }

  /** A timer touches its key's rows, stored without a namespace. */
  timerStateRequests(key: KeyRef): readonly PrefetchRequest[] {
    return [{ key, namespace: '' }]
  }

  /** The watermark to forward: held back by how far before the watermark a left row may still pair. */
  outputWatermark(watermark: number): number {
    return this.eventTime ? watermark - this.delay : watermark
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    const n = rows.length
    if (n === 0) return
    if (batch.kinds !== null) {
      for (const kind of batch.kinds) {
        if (kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE) {
          throw WeirError.internal('an interval join received a retraction; its inputs must be append-only')
        }
      }
    }
    const ctx = this.ctx
    const state = ctx.state
    const keys = ctx.keysOf(rows, input)
    const timeCol = this.timeCols[input]!
    const outer = this.outer[input]!
    const eventTime = this.eventTime
    // Rows of the other side from here on are at or after `clock`.
    const clock = eventTime ? ctx.timers.currentWatermark() : ctx.timers.currentProcessingTime()
    const me = this.sides[input]!
    let late = 0
    for (let i = 0; i < n; i++) {
      const row = rows[i]!
      const key = keys[i]!
      const t = eventTime ? row[timeCol] as number | null : clock
      if (t === null || t === undefined || hasNull(key.values)) {
        // NULL keys and NULL times match nothing.
        if (outer) this.out.push(this.rows.padded(row, input), RowKind.INSERT)
        continue
      }
      if (eventTime && t < clock) {
        late++
        continue
      }
      state.setCurrentKey(key)
      const matched = this.matchStored(row, t, input)
      // The time at which no row of the other side can match this one any more.
      const expiry = input === 0 ? t - this.lower + 1 : t + this.upper + 1
      if (expiry <= clock) {
        if (outer && !matched) this.out.push(this.rows.padded(row, input), RowKind.INSERT)
        continue
      }
      const list = me.get(t)
      const entry: Entry = [row, outer && matched ? 1 : 0]
      if (list === undefined) {
        me.put(t, [entry])
        if (eventTime) ctx.timers.registerEventTimeTimer(expiry, input)
        else ctx.timers.registerProcessingTimeTimer(expiry, input)
      } else {
        me.put(t, [...list, entry])
      }
    }
    ctx.metrics.lateRecordsDropped += late
    this.flush()
  }

  /** Emits `row` (of `input`, at time `t`) with every stored row of the other side in its interval; true if any paired. */
  private matchStored(row: Row, t: number, input: number): boolean {
    const other = this.sides[1 - input]!
    const from = input === 0 ? t - this.upper : t + this.lower
    const to = input === 0 ? t - this.lower : t + this.upper
    const markOther = this.outer[1 - input]!
    const rows = this.rows
    const out = this.out
    let matched = false
    for (const [ts, list] of other.entries()) {
      if (ts < from || ts > to) continue
      let changed: Entry[] | null = null
      for (let e = 0; e < list.length; e++) {
        const [stored, flag] = list[e]!
        const joined = input === 0 ? rows.joined(row, stored) : rows.joined(stored, row)
        if (joined === null) continue
        matched = true
        out.push(joined, RowKind.INSERT)
        if (markOther && flag === 0) (changed ??= list.slice())[e] = [stored, 1]
      }
      if (changed !== null) this.touched.push([ts, changed])
    }
    for (const [ts, list] of this.touched) other.put(ts, list)
    this.touched.length = 0
    return matched
  }

  /** The rows of side `namespace` stored at the instant this timer expires: they go, an outer side's unmatched ones padded. */
  onTimer(timestamp: number, namespace: Namespace, domain: TimerDomain): void {
    const input = namespace as number
    const side = this.sides[input]!
    const t = input === 0 ? timestamp - 1 + this.lower : timestamp - 1 - this.upper
    if (this.outer[input]) {
      const list = side.get(t)
      if (list !== undefined) { for (const [row, flag] of list) if (flag === 0) this.out.push(this.rows.padded(row, input), RowKind.INSERT) }
    }
    side.remove(t)
    if (domain === 'processing') this.flush()
  }

  onWatermark(): void {
    this.flush()
  }

  endInput(): void {
    this.flush()
  }

  private flush(): void {
    const batch = this.out.take()
    if (batch !== null) this.ctx.output.emit(batch)
  }
}

/** Keyed by the join key on both inputs; timers in the join's time domain free the state. */
export const intervalJoin: OperatorDescriptor<IntervalJoinSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: false, timers: [spec.timeDomain] }),
  create: spec => new IntervalJoinOperator(spec),
}
