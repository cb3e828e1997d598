// ORDER BY a rowtime attribute ascending (then any other keys) over a stream (core/sort.ts, emit
// 'time'): each row waits under its timestamp — a value in the namespace of that timestamp, with an
// event-time timer there — and when the watermark passes the timestamp its rows come out sorted by
// the other keys (then by every column, so reruns agree). Rows at or behind the watermark can no
// longer be placed: they are dropped and counted as late.
import { BatchBuilder, type Batch, type Row } from '../../core/batch.js'
import type { SortSpec } from '../../core/sort.js'
import { valueState, type KeyRef, type Namespace, type ValueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext } from '../../core/operator.js'
import { totalCompare, type RowCompare } from './row-order.js'

export class TemporalSortOperator implements Operator {
  private ctx!: OperatorContext
  private pending!: ValueState<Row[]>
  private readonly out = new BatchBuilder()
  private readonly timeIndex: number
  private readonly compare: RowCompare
  /** This batch's rows by timestamp. */
  private readonly byTime = new Map<number, Row[]>()

  constructor(spec: SortSpec) {
    this.timeIndex = spec.orderKeys[0]!.index
    this.compare = totalCompare(spec.orderKeys.slice(1), spec.width)
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.pending = ctx.state.getValueState(valueState<Row[]>('sort-pending'))
  }

  stateRequests(batch: Batch, input: number, add: (key: KeyRef, namespace: Namespace | undefined) => void): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const key = this.ctx.keysOf(rows, input)[0]!
    const seen = new Set<number>()
    for (const r of rows) {
      const ts = r[this.timeIndex] as number | null
      if (ts !== null && !seen.has(ts)) {
        seen.add(ts)
        add(key, ts)
      }
    }
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const { ctx, byTime } = this
    ctx.state.setCurrentKey(ctx.keysOf(rows, input)[0]!)
    const watermark = ctx.timers.currentWatermark()
    let late = 0
    for (const r of rows) {
      const ts = r[this.timeIndex] as number | null
      // A NULL time cannot be placed in time order either.
      if (ts === null || ts <= watermark) {
        late++
        continue
      }
      const list = byTime.get(ts)
      if (list === undefined) byTime.set(ts, [r])
      else list.push(r)
    }
    for (const [ts, list] of byTime) {
      this.pending.setNamespace(ts)
      const before = this.pending.value()
      if (before === undefined) ctx.timers.registerEventTimeTimer(ts, ts)
      this.pending.update(before === undefined ? list : [...before, ...list])
    }
    byTime.clear()
    ctx.metrics.lateRecordsDropped += late
  }

  onTimer(_timestamp: number, namespace: Namespace): void {
    this.pending.setNamespace(namespace)
    const rows = this.pending.value()
    if (rows === undefined) return
    this.pending.clear()
    for (const r of [...rows].sort(this.compare)) this.out.push(r)
  }

  /** The rows of every timestamp the watermark passed, in time order (timers fire in it). */
  onWatermark(): void {
    const b = this.out.take()
    if (b !== null) this.ctx.output.emit(b)
  }
}
