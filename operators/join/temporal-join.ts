// Temporal joins (`JOIN v FOR SYSTEM_TIME AS OF o.ts`): each probe row (input 0) joins the version
// of its key valid at its time in a versioned table's changelog (input 1), both keyed by the table's
// primary key.
//
// Event time: a probe row waits in state until the watermark (the minimum of both inputs) passes its
// time, then joins the version with the greatest time not after it (a delete there: no version).
// Probe rows wait in a list per (key, time) — the time is the namespace, so a batch loads only the
// times it adds to, however many rows wait (a lagging input holds the watermark back).
// Versions live per key in a MapState keyed by their time; when the watermark passes a time, the
// versions before the one valid then can match nothing any more and go, so a key keeps its latest
// version (none once deleted) and those still ahead of the watermark. A timer per (key, time) of a
// probe row or a version drives both. -U rows of the versioned table are skipped (the +U after
// them carries the new version), as Flink reads a versioned table in upsert form. A probe row that
// arrives behind the watermark joins at once with what state still holds for its time; a version
// behind the watermark is kept only if it is the one valid at the watermark.
//
// Processing time: the latest version per key is kept in a ValueState and each probe row joins it
// on arrival.
//
// Output: [...probe, ...version] with the probe row's kind, so an append-only probe gives an
// append-only result; a LEFT join pads a probe row without a valid version (or whose version fails
// the residual condition) with NULLs.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { TemporalJoinSpec } from '../../core/job-graph.js'
import { listState, mapState, valueState, type KeyRef, type ListState, type MapState, type Namespace, type PrefetchRequest,
  type ValueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { compilePredicate } from '../../expr/index.js'

/** A buffered probe row with its kind. */
type Probe = readonly [number, Row]

abstract class TemporalJoinBase implements Operator {
  protected ctx!: OperatorContext
  protected readonly out = new BatchBuilder()
  private readonly residual: ((row: Row) => boolean) | null
  private readonly nulls: readonly null[]

  constructor(readonly spec: TemporalJoinSpec) {
    this.residual = spec.residual === undefined ? null : compilePredicate(spec.residual)
    this.nulls = new Array<null>(spec.rightWidth).fill(null)
  }

  abstract open(ctx: OperatorContext): void
  abstract processBatch(batch: Batch, input: number): void

  /** Emits `probe` joined with `version` (null: none), with the probe's kind. */
  protected emit(probe: Row, kind: number, version: Row | null | undefined): void {
    if (version != null) {
      const joined = probe.concat(version)
      if (this.residual === null || this.residual(joined)) {
        this.out.push(joined, kind as RowKind)
        return
      }
    }
    if (this.spec.joinType === 'LEFT') this.out.push(probe.concat(this.nulls), kind as RowKind)
  }

  protected flush(): void {
    const batch = this.out.take()
    if (batch !== null) this.ctx.output.emit(batch)
  }

  onWatermark(): void {
    this.flush()
  }

  endInput(): void {
    this.flush()
  }
}

export class EventTimeTemporalJoin extends TemporalJoinBase {
  /** Probe rows waiting for the watermark, per (key, their time as namespace). */
  private probes!: ListState<Probe>
  /** Version rows by their time (namespace ''); null marks a delete. */
  private versions!: MapState<number, Row | null>

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.probes = ctx.state.getListState(listState<Probe>('probe'))
    this.versions = ctx.state.getMapState(mapState<number, Row | null>('versions'))
  }

  /** Each row's key: its versions, and for a probe row that will wait, the list of its time. */
  stateRequests(batch: Batch, input: number, add: (key: KeyRef, namespace: Namespace | undefined) => void): void {
    const rows = batch.rows
    const keys = this.ctx.keysOf(rows, input)
    const wm = this.ctx.timers.currentWatermark()
    const timeIndex = this.spec.leftTime
    for (let i = 0; i < rows.length; i++) {
      add(keys[i]!, '')
      const ts = rows[i]![timeIndex] as number | null
      if (input === 0 && ts != null && ts > wm) add(keys[i]!, ts)
    }
  }

  /** A timer reads the versions and the probe rows of its time. */
  timerStateRequests(key: KeyRef, namespace: Namespace): readonly PrefetchRequest[] {
    return [{ key, namespace: '' }, { key, namespace }]
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    const n = rows.length
    if (n === 0) return
    const ctx = this.ctx
    const keys = ctx.keysOf(rows, input)
    const kinds = batch.kinds
    const state = ctx.state
    const timers = ctx.timers
    const wm = timers.currentWatermark()
    const timeIndex = input === 0 ? this.spec.leftTime : this.spec.rightTime
    for (let i = 0; i < n; i++) {
      const row = rows[i]!
      const kind = kinds === null ? RowKind.INSERT : kinds[i]!
      const key = keys[i]!
      const ts = row[timeIndex] as number | null
      if (input === 0) {
        // A NULL key or time has no version: it matches nothing.
        if (ts == null || hasNull(key.values)) {
          this.emit(row, kind, null)
          continue
        }
        state.setCurrentKey(key)
        if (ts <= wm) {
          this.emit(row, kind, this.versionAt(ts))
          continue
        }
        this.probes.setNamespace(ts)
        this.probes.add([kind, row])
        timers.registerEventTimeTimer(ts, ts)
      } else {
        if (kind === RowKind.UPDATE_BEFORE || ts == null || hasNull(key.values)) continue
        state.setCurrentKey(key)
        this.versions.put(ts, kind === RowKind.DELETE ? null : row)
        if (ts <= wm) this.dropSuperseded(wm)
        else timers.registerEventTimeTimer(ts, ts)
      }
    }
    this.flush()
  }

  /** The watermark passed `timestamp`: the probe rows of that time join, and superseded versions go. */
  onTimer(timestamp: number): void {
    const probes = this.probes
    probes.setNamespace(timestamp)
    const list = probes.get()
    if (list.length > 0) {
      const version = this.versionAt(timestamp)
      for (const [kind, row] of list) this.emit(row, kind, version)
      probes.clear()
    }
    this.dropSuperseded(timestamp)
  }

  /** The current key's version valid at `t`: the one with the greatest time ≤ t; null if deleted or none. */
  private versionAt(t: number): Row | null {
    let best = Number.NEGATIVE_INFINITY
    let found: Row | null = null
    for (const [time, row] of this.versions.entries()) {
      if (time <= t && time > best) {
        best = time
        found = row
      }
    }
    return found
  }

  /** Drops the versions no probe row at or after `t` can match: those before the one valid at `t`, and that one if it is a delete. */
  private dropSuperseded(t: number): void {
    let valid = Number.NEGATIVE_INFINITY
    let older = 0
    for (const time of this.versions.keys()) {
      if (time > t) continue
      if (time > valid) valid = time
      older++
    }
    if (older === 0) return
    if (older > 1) {
      const gone: number[] = []
      for (const time of this.versions.keys()) if (time < valid) gone.push(time)
      for (const time of gone) this.versions.remove(time)
    }
    if (this.versions.get(valid) === null) this.versions.remove(valid)
  }
}

export class ProcessingTimeTemporalJoin extends TemporalJoinBase {
  private latest!: ValueState<Row>

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.latest = ctx.state.getValueState(valueState<Row>('latest'))
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    const n = rows.length
    if (n === 0) return
    const keys = this.ctx.keysOf(rows, input)
    const kinds = batch.kinds
    const state = this.ctx.state
    for (let i = 0; i < n; i++) {
      const row = rows[i]!
      const kind = kinds === null ? RowKind.INSERT : kinds[i]!
      const key = keys[i]!
      if (hasNull(key.values)) {
        if (input === 0) this.emit(row, kind, null)
        continue
      }
      state.setCurrentKey(key)
      if (input === 0) this.emit(row, kind, this.latest.value())
      else if (kind === RowKind.DELETE) this.latest.clear()
      else if (kind !== RowKind.UPDATE_BEFORE) this.latest.update(row)
    }
    this.flush()
  }
}

function hasNull(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] == null) return true
  return false
}

/** Keyed by the versioned table's primary key on both inputs; event time fires on the watermark. */
export const temporalJoin: OperatorDescriptor<TemporalJoinSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: false, timers: spec.timeDomain === 'event' ? ['event'] : [] }),
  create: spec => (spec.timeDomain === 'event' ? new EventTimeTemporalJoin(spec) : new ProcessingTimeTemporalJoin(spec)),
}
