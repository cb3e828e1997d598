// The interval join: an equi-join whose rows pair only where lower <= left time - right time <= upper.
// Each side keeps its rows per join key in time buckets (as wide as the interval, at least 1 ms): one
// list per (key, bucket, side), an element per row. A row touches its own bucket and the one or two
// buckets of the other side its interval spans (its own only to append to, in event time on an inner
// side: a disk backend leaves it unread); a disk backend answers a list it never wrote from its
// written-keys filter with no read (the common case: most join keys see few rows), where a map per
// key cost a prefix scan per side and row, and a row added writes only itself (a bucket kept as one
// value was rewritten whole at each write-back: the hottest keys' buckets hold hundreds of rows). A row is dropped once
// the other side can no longer send a match: no row of the other side behind the watermark is
// accepted (late rows are dropped and counted), so a left row at tl waits until the watermark passes
// tl - lower, a right row at tr until it passes tr + upper. An inner side's bucket goes whole, by one
// timer per (key, bucket, side) at the expiry of its last possible row, a blind clear that reads
// nothing back (ListState.clear needs no prefetch: on disk it is a delete); an outer side
// keeps a timer per distinct expiry, so each unmatched row is emitted NULL-padded on time (never
// behind the output watermark). At the final watermark (a bounded input's end) every bucket expires
// at once: with both sides inner they go in one ListState.dropAll (on disk a range delete per key
// group, not one per bucket), and their timers are deleted unfired. Matching checks the exact bounds, so rows a bucket keeps a little past
// their expiry never pair. The output is insert-only.
//
// The output keeps the left time as its time attribute. A right row at tr >= watermark can still
// pair with a stored left row as early as tr + lower, so when lower < 0 the output watermark is
// held back by -lower: no output row is ever behind the watermark that follows it.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { IntervalJoinSpec } from '../../core/job-graph.js'
import { listState, type KeyRef, type ListState, type Namespace, type PrefetchRequest } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor, TimerDomain } from '../../core/operator.js'
import { hasNull, JoinRows } from './join-rows.js'
import { WeirError } from '../../common/errors.js'

/**
 * One stored row of a bucket: on an inner side in event time the row itself (its time is in its time
 * column); in processing time [time, row]; on an outer side [time, row, matched (0 | 1)], whose mark
 * is set in place and written by rewriting the bucket (once per row at most).
 */
type Stored = Row | [number, Row] | [number, Row, 0 | 1]

export class IntervalJoinOperator implements Operator {
  private readonly rows: JoinRows
  private readonly eventTime: boolean
  private readonly timeCols: readonly [number, number]
  private readonly outer: readonly [boolean, boolean]
  private readonly lower: number
  private readonly upper: number
  private readonly delay: number
  /** Both sides inner in event time: every stored bucket has its timer, and all of them go at the final watermark (onFinalWatermark). */
  private readonly innerOnly: boolean
  /**
   * The bounds are empty (lower > upper, e.g. `a.ts >= b.ts AND a.ts < b.ts`): no pair can match, so
   * nothing is stored and an outer side's rows are emitted NULL-padded as they come (as Flink does).
   */
  private readonly never: boolean
  /** Bucket width in ms: the interval's width, so a row's matches lie in at most two buckets. */
  private readonly width: number
  private buckets!: ListState<Stored>
  /**
   * Batches whose state was requested (stateRequests) and that may not be processed yet: the runtime
   * reads one batch ahead, so a batch's requests are made before the batch in front of it has stored
   * its rows, and every batch before that one is processed. So two at most: the last one requested
   * and the one being requested. (Processed ones leave at processBatch; with mini-batch off the
   * runtime processes each row as a batch of its own, and the two kept then are merely stale.)
   */
  private readonly requested: { readonly batch: Batch; readonly input: number }[] = []
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext

  constructor(readonly spec: IntervalJoinSpec) {
    this.rows = new JoinRows(spec.residual, [spec.left.width, spec.right.width])
    this.eventTime = spec.timeDomain === 'event'
    this.timeCols = [spec.leftTime, spec.rightTime]
    this.outer = [spec.left.outer, spec.right.outer]
    this.lower = spec.lower
    this.upper = spec.upper
    this.delay = Math.max(0, -spec.lower)
    this.width = Math.max(1, spec.upper - spec.lower)
    this.innerOnly = this.eventTime && !spec.left.outer && !spec.right.outer
    this.never = spec.lower > spec.upper
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.buckets = ctx.state.getListState(listState<Stored>('rows'))
  }

  /** An outer side's expiring rows are read back to pad the unmatched ones; an inner side's bucket is cleared blind. */
  timerStateRequests(key: KeyRef, namespace: Namespace): readonly PrefetchRequest[] {
    return this.outer[(namespace as number) & 1] ? [{ key, namespace }] : []
  }

  /** Whether side `input` stores its rows bare (inner, event time: the row's time column is its time). */
  private bare(input: number): boolean {
    return this.eventTime && !this.outer[input]
  }

  /**
   * Whether side `side`'s buckets are known stored from the timers alone: an inner side in event time
   * has exactly one timer per stored (key, bucket), at bucketExpiry, registered when the bucket gets
   * its first row and fired when it is cleared. A row then reads only the other side's buckets that
   * exist (most join keys of one side have none on the other: q7's bids never meet a window's
   * maximum but under its price), with no state request for the others.
   */
  private knownByTimers(side: number): boolean {
    return this.eventTime && !this.outer[side]
  }

  /** When an inner side's bucket `b` goes: the expiry of its last possible row. */
  private bucketExpiry(b: number, side: number): number {
    return this.expiry((b + 1) * this.width - 1, side)
  }

  /** The namespace of side `input`'s bucket `b`. */
  private static ns(b: number, input: number): number {
    return b * 2 + input
  }

  /**
   * Each row's own bucket and the buckets of the other side its interval spans. In processing time a
   * row's time is the clock when it is processed, not known yet: every bucket of its key.
   */
  stateRequests(batch: Batch, input: number, add: (key: KeyRef, namespace: Namespace | undefined, appendOnly?: boolean) => void): void {
    if (this.never) return
    const rows = batch.rows
    const keys = this.ctx.keysOf(rows, input)
    const timeCol = this.timeCols[input]!
    const w = this.width
    const other = 1 - input
    const byTimers = this.knownByTimers(other)
    // A row of an inner side in event time only appends to its own bucket (whether it is new, its
    // timer says): a disk backend need not read it.
    const appendOnly = this.knownByTimers(input)
    // A batch of the other input requested before this one and not processed yet may still store rows
    // in buckets no timer shows yet: its keys' buckets are requested too. (What that batch requested
    // itself is resident only until the flush after it, not necessarily while this one runs.)
    let pending: Set<string> | null = null
    const requested = this.requested
    for (let i = requested.length - 1; i >= 0; i--) if (requested[i]!.batch === batch) requested.splice(i, 1)
    if (requested.length > 1) requested.splice(0, requested.length - 1)
    if (byTimers) {
      for (const r of requested) {
        if (r.input !== other) continue
        pending ??= new Set()
        for (const k of this.ctx.keysOf(r.batch.rows, other)) pending.add(k.encoded)
      }
    }
    requested.push({ batch, input })
    const timers = this.ctx.timers
    // The watermark can only have advanced when the batch is processed: a row already expired now is
    // not stored then, and its bucket may be one an expiry dropped (ListState.drop: never asked for again).
    const watermark = timers.currentWatermark()
    for (let i = 0; i < rows.length; i++) {
      const key = keys[i]!
      if (!this.eventTime) {
        add(key, undefined)
        continue
      }
      const t = rows[i]![timeCol] as number | null
      if (t === null || t === undefined || hasNull(key.values)) continue
      if (this.expiry(t, input) > watermark) add(key, IntervalJoinOperator.ns(Math.floor(t / w), input), appendOnly)
      const last = Math.floor(this.to(t, input) / w)
      for (let b = Math.floor(this.from(t, input) / w); b <= last; b++) {
        const ns = IntervalJoinOperator.ns(b, other)
        if (!byTimers || timers.hasEventTimeTimer(this.bucketExpiry(b, other), ns, key) || pending?.has(key.encoded) === true) add(key, ns)
      }
    }
  }

  /** The earliest time of a row of the other side that `t` (of `input`) pairs with. */
  private from(t: number, input: number): number {
    return input === 0 ? t - this.upper : t + this.lower
  }

  private to(t: number, input: number): number {
    return input === 0 ? t - this.lower : t + this.upper
  }

  /** The time at which no row of the other side can match a row of `input` at `t` any more. */
  private expiry(t: number, input: number): number {
    return input === 0 ? t - this.lower + 1 : t + this.upper + 1
  }

  /** The watermark to forward: held back by how far before the watermark a left row may still pair. */
  outputWatermark(watermark: number): number {
    return this.eventTime ? watermark - this.delay : watermark
  }

  processBatch(batch: Batch, input: number): void {
    const requested = this.requested
    if (requested.length > 0) {
      let j = 0
      for (let i = 0; i < requested.length; i++) if (requested[i]!.batch !== batch) requested[j++] = requested[i]!
      requested.length = j
    }
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
    if (this.never) {
      if (this.outer[input]) { for (let i = 0; i < n; i++) this.out.push(this.rows.padded(rows[i]!, input), RowKind.INSERT) }
      this.flush()
      return
    }
    const ctx = this.ctx
    const state = ctx.state
    const timers = ctx.timers
    const keys = ctx.keysOf(rows, input)
    const timeCol = this.timeCols[input]!
    const outer = this.outer[input]!
    const eventTime = this.eventTime
    const buckets = this.buckets
    const w = this.width
    const bare = this.bare(input)
    // Own buckets known from their timers: only appended to, never read (stateRequests asks so).
    const ownByTimers = this.knownByTimers(input)
    // Rows of the other side from here on are at or after `clock`.
    const clock = eventTime ? timers.currentWatermark() : timers.currentProcessingTime()
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
      const matched = this.matchStored(row, key, t, input)
      const expiry = this.expiry(t, input)
      if (expiry <= clock) {
        if (outer && !matched) this.out.push(this.rows.padded(row, input), RowKind.INSERT)
        continue
      }
      const b = Math.floor(t / w)
      const ns = IntervalJoinOperator.ns(b, input)
      buckets.setNamespace(ns)
      const created = ownByTimers ? !timers.hasEventTimeTimer(this.bucketExpiry(b, input), ns, key) : buckets.get().length === 0
      buckets.add(outer ? [t, row, matched ? 1 : 0] : bare ? row : [t, row])
      // An outer side's rows each expire on time (padded ones must not trail the watermark); an
      // inner side's bucket goes whole when its last possible row expires.
      if (!outer && !created) continue
      const at = outer ? expiry : this.bucketExpiry(b, input)
      if (eventTime) timers.registerEventTimeTimer(at, ns)
      else timers.registerProcessingTimeTimer(at, ns)
    }
    ctx.metrics.lateRecordsDropped += late
    this.flush()
  }

  /** Emits `row` (of `input`, at time `t`) with every stored row of the other side in its interval; true if any paired. */
  private matchStored(row: Row, key: KeyRef, t: number, input: number): boolean {
    const otherSide = 1 - input
    const byTimers = this.knownByTimers(otherSide)
    const timers = this.ctx.timers
    const from = this.from(t, input)
    const to = this.to(t, input)
    const markOther = this.outer[otherSide]!
    const bare = this.bare(otherSide)
    const timeCol = this.timeCols[otherSide]!
    const rows = this.rows
    const out = this.out
    const buckets = this.buckets
    const w = this.width
    let matched = false
    const last = Math.floor(to / w)
    for (let b = Math.floor(from / w); b <= last; b++) {
      const ns = IntervalJoinOperator.ns(b, otherSide)
      // No timer, no row: the bucket was not requested (stateRequests) and holds nothing.
      if (byTimers && !timers.hasEventTimeTimer(this.bucketExpiry(b, otherSide), ns, key)) continue
      buckets.setNamespace(ns)
      const bucket = buckets.get()
      if (bucket.length === 0) continue
      let changed = false
      for (let e = 0; e < bucket.length; e++) {
        const el = bucket[e]!
        const ts = (bare ? el[timeCol] : el[0]) as number
        if (ts < from || ts > to) continue
        const stored = bare ? el : el[1] as Row
        const joined = input === 0 ? rows.joined(row, stored) : rows.joined(stored, row)
        if (joined === null) continue
        matched = true
        out.push(joined, RowKind.INSERT)
        if (markOther && el[2] === 0) {
          el[2] = 1
          changed = true
        }
      }
      // The marks were set in place: an outer side's bucket is written again whole (a row is marked once at most).
      if (changed) buckets.update(bucket)
    }
    return matched
  }

  /** A bucket of side `namespace % 2` expires (an outer side's: its rows expiring now): they go, an outer side's unmatched ones padded. */
  onTimer(timestamp: number, namespace: Namespace, domain: TimerDomain): void {
    const ns = namespace as number
    // The side is the namespace's parity (& keeps it for any integer, negative or past 2^31).
    const input = ns & 1
    const buckets = this.buckets
    buckets.setNamespace(ns)
    if (!this.outer[input]) {
      // Blind: nothing of the bucket was prefetched (timerStateRequests). And for good: once the
      // watermark passed its last row's expiry no row lands in it (a row at t >= watermark expires
      // after it: its own bucket is later) and no row of the other side reaches back to it. In
      // processing time a row asks for every bucket of its key (a scan), so there it is a clear.
      if (!this.eventTime) buckets.clear()
      else buckets.drop()
      return
    }
    const bucket = buckets.get()
    if (bucket.length === 0) return
    // Rows expiring now are padded if they never matched; later ones stay for their own timers.
    const kept: Stored[] = []
    for (const el of bucket) {
      if (this.expiry(el[0] as number, input) > timestamp) kept.push(el)
      else if (el[2] === 0) this.out.push(this.rows.padded(el[1] as Row, input), RowKind.INSERT)
    }
    if (kept.length === 0) buckets.clear()
    else if (kept.length !== bucket.length) buckets.update(kept)
    if (domain === 'processing') this.flush()
  }

  /**
   * The final watermark (a bounded input's end): every bucket of both sides expires now, and no row is
   * stored after it (any later row is late). With both sides inner they all go in one ListState.dropAll
   * (on disk a range delete per key group, not one per bucket), and their timers, one per bucket, are
   * deleted unfired (Nexmark q7: ~280K). An outer side's rows are padded at their timers.
   */
  onFinalWatermark(): boolean {
    if (!this.innerOnly) return false
    this.buckets.dropAll()
    return true
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
