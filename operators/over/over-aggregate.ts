// OVER aggregates: `f(…) OVER (PARTITION BY … ORDER BY time ROWS|RANGE … PRECEDING)` appended to
// every input row, keyed by the partition columns. Event time: rows wait in state under their
// timestamp until the watermark passes it (a timer per key and timestamp), then run in time order;
// processing time: rows run when they arrive. Insert-only in and out.
import { WeirError } from '../../common/errors.js'
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { OverAggregateSpec } from '../../core/job-graph.js'
import type { Operator, OperatorContext, OperatorDescriptor, TimerDomain } from '../../core/operator.js'
import { valueState, type KeyRef, type Namespace, type PrefetchRequest, type ValueState } from '../../core/keyed-state.js'
import { KeyGrouper } from '../aggregates.js'
import { CLEANUP_AT, HAS_CLEANUP, LAST, OverFrames } from './frames.js'

/**
 * Timer namespaces: the expiry of retained RANGE rows, or else the timestamp of the rows waiting
 * (their state's namespace too, so a timer names the one entry it reads).
 */
const CLEANUP = 'cleanup'

/** A batch of event-time rows only adds to the waiting rows: its prefetch loads only them, by point reads. */
const PENDING_STATES = ['pending'] as const

/**
 * @example
 * const op = new OverAggregateOperator({ kind: 'OverAggregate', partitionKeys: [0], timeIndex: 2, timeDomain: 'event',
 *   calls: [{ fn: 'SUM', agg, frame: { unit: 'ROWS', preceding: 10 } }] })
 */
export class OverAggregateOperator implements Operator {
  readonly spec: OverAggregateSpec
  private readonly frames: OverFrames
  private readonly eventTime: boolean
  private ctx!: OperatorContext
  private meta!: ValueState<number[]>
  /**
   * Event time: the rows waiting at a timestamp, in arrival order, in the timestamp's namespace (a
   * ValueState, not a MapState: a batch and a timer then read one entry each, never scan a map).
   */
  private pending!: ValueState<Row[]>
  private readonly grouper = new KeyGrouper()
  private readonly out = new BatchBuilder()
  private readonly emit = (row: Row): void => this.out.push(row, RowKind.INSERT)
  /** One key's rows of a batch, by timestamp (event time) — reused. */
  private readonly byTime = new Map<number, Row[]>()

  constructor(spec: OverAggregateSpec) {
    this.spec = spec
    this.eventTime = spec.timeDomain === 'event'
    this.frames = new OverFrames(spec.calls)
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.meta = ctx.state.getValueState(valueState<number[]>('meta'))
    if (this.eventTime) this.pending = ctx.state.getValueState(valueState<Row[]>('pending'))
    this.frames.open(ctx.state)
  }

  /** Event time: a batch only files rows under their timestamps. Processing time: everything of each key. */
  prefetchState(batch: Batch, input: number, load: (requests: readonly PrefetchRequest[]) => Promise<void>): Promise<void> {
    const rows = batch.rows
    const keys = this.ctx.keysOf(rows, input)
    const requests: PrefetchRequest[] = new Array<PrefetchRequest>(keys.length)
    const timeIndex = this.spec.timeIndex
    for (let i = 0; i < keys.length; i++) {
      const ts = rows[i]![timeIndex] as number | null
      requests[i] = this.eventTime ? { key: keys[i]!, namespace: ts ?? '', states: PENDING_STATES } : { key: keys[i]!, namespace: '' }
    }
    return load(requests)
  }

  /** A timer reads the key's states of namespace '' and, for waiting rows, their entry. */
  timerStateRequests(key: KeyRef, namespace: Namespace): readonly PrefetchRequest[] {
    if (namespace === CLEANUP) return [{ key, namespace: '' }]
    return [{ key, namespace, states: PENDING_STATES }, { key, namespace: '' }]
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    if (batch.kinds !== null) {
      for (const kind of batch.kinds) {
        if (kind !== RowKind.INSERT) throw WeirError.internal('an OVER aggregate received an update; its input must be insert-only')
      }
    }
    const ctx = this.ctx
    const ng = this.grouper.group(rows, ctx.keysOf(rows, input))
    if (this.eventTime) this.fileRows(rows, ng)
    else this.computeOnArrival(rows, ng)
    this.grouper.release()
  }

  onTimer(timestamp: number, namespace: Namespace, domain: TimerDomain): void {
    if (namespace === CLEANUP) this.expire(timestamp)
    else this.firePending(timestamp)
    if (domain === 'processing') this.flush()
  }

  onWatermark(): void {
    this.flush()
  }

  endInput(): void {
    this.flush()
  }

  /** Event time: each row waits under its timestamp; a row at or behind the watermark is late (its peers have been computed). */
  private fileRows(rows: Row[], ng: number): void {
    const ctx = this.ctx
    const state = ctx.state
    const grouper = this.grouper
    const next = grouper.next
    const timeIndex = this.spec.timeIndex
    const wm = ctx.timers.currentWatermark()
    const byTime = this.byTime
    let dropped = 0
    for (let g = 0; g < ng; g++) {
      state.setCurrentKey(grouper.keys[g]!)
      for (let i = grouper.first[g]!; i !== -1; i = next[i]!) {
        const row = rows[i]!
        const ts = row[timeIndex] as number | null
        if (ts == null || ts <= wm) {
          dropped++
          continue
        }
        const same = byTime.get(ts)
        if (same === undefined) byTime.set(ts, [row])
        else same.push(row)
      }
      const pending = this.pending
      for (const [ts, add] of byTime) {
        pending.setNamespace(ts)
        const waiting = pending.value()
        if (waiting === undefined) {
          ctx.timers.registerEventTimeTimer(ts, ts)
          pending.update(add)
        } else {
          pending.update(waiting.concat(add))
        }
      }
      byTime.clear()
    }
    ctx.metrics.lateRecordsDropped += dropped
  }

  /** The watermark passed `ts`: the current key's rows at `ts` are complete; compute them. */
  private firePending(ts: number): void {
    const pending = this.pending
    pending.setNamespace(ts)
    const rows = pending.value()
    if (rows === undefined) return
    pending.clear()
    this.compute(rows, ts)
  }

  /** Processing time: a key's rows of one batch are computed at one instant, so they are peers. */
  private computeOnArrival(rows: Row[], ng: number): void {
    const state = this.ctx.state
    const grouper = this.grouper
    const next = grouper.next
    const now = this.ctx.timers.currentProcessingTime()
    for (let g = 0; g < ng; g++) {
      state.setCurrentKey(grouper.keys[g]!)
      const peers: Row[] = []
      for (let i = grouper.first[g]!; i !== -1; i = next[i]!) peers.push(rows[i]!)
      this.compute(peers, now)
    }
    this.flush()
  }

  private compute(rows: readonly Row[], t: number): void {
    const frames = this.frames
    const stored = this.meta.value()
    const meta = stored === undefined ? frames.newMeta() : stored.slice()
    frames.computePeers(rows, t, meta, this.emit)
    // Rows of a bounded RANGE frame leave it by time: a timer frees them even if the key goes quiet.
    if (frames.rangeReach >= 0 && meta[HAS_CLEANUP] === 0) this.scheduleCleanup(meta, t + frames.rangeReach + 1)
    this.meta.update(meta)
  }

  private expire(now: number): void {
    const stored = this.meta.value()
    if (stored === undefined) return
    const meta = stored.slice()
    meta[HAS_CLEANUP] = 0
    if (this.frames.expire(now, meta)) {
      this.frames.clear()
      this.meta.clear()
      return
    }
    // Rows computed since this timer was set leave their frames later.
    const later = meta[LAST]! + this.frames.rangeReach + 1
    if (later > now) this.scheduleCleanup(meta, later)
    this.meta.update(meta)
  }

  private scheduleCleanup(meta: number[], at: number): void {
    meta[HAS_CLEANUP] = 1
    meta[CLEANUP_AT] = at
    if (this.eventTime) this.ctx.timers.registerEventTimeTimer(at, CLEANUP)
    else this.ctx.timers.registerProcessingTimeTimer(at, CLEANUP)
  }

  private flush(): void {
    const batch = this.out.take()
    if (batch !== null) this.ctx.output.emit(batch)
  }
}

/** Keyed by the partition columns; timers in the ORDER BY column's time domain. */
export const overAggregate: OperatorDescriptor<OverAggregateSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: false, timers: [spec.timeDomain] }),
  create: spec => new OverAggregateOperator(spec),
}
