// The window semi and anti join: `IN` / `EXISTS` / `NOT IN` / `NOT EXISTS` subqueries whose inputs
// are windowed alike and whose correlation equates window_start and window_end, keyed by the join
// keys (the window among them), so a key's state is one window's rows. The left rows wait in a
// ListState; of the right side the key keeps only whether it has a row (or, for NOT IN, its values).
// When the watermark passes the window's end an event-time timer emits the left rows that qualify
// and clears the key: the output is insert-only and final, as Flink's window join emits. Rows of a
// window that has already fired are late: dropped and counted.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { WindowSemiJoinSpec } from '../../core/subquery-specs.js'
import { listState, valueState, type ListState, type ValueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { WeirError } from '../../common/errors.js'
import { encodeKey } from '../../state/key-encoding.js'
import { hasNull, isRetraction } from './row-kinds.js'

export class WindowSemiJoinOperator implements Operator {
  private left!: ListState<Row>
  /** IN / EXISTS / NOT EXISTS: set once the window has a right row under the key. */
  private seen!: ValueState<boolean>
  /** NOT IN: the right values of the window under the key, NULLs included. */
  private values!: ListState<unknown>
  private readonly ends: readonly [number, number]
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext

  constructor(readonly spec: WindowSemiJoinSpec) {
    this.ends = [spec.leftEnd, spec.rightEnd]
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.left = ctx.state.getListState(listState<Row>('left'))
    if (this.spec.nullAware === undefined) this.seen = ctx.state.getValueState(valueState<boolean>('right'))
    else this.values = ctx.state.getListState(listState<unknown>('right-values'))
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    const n = rows.length
    if (n === 0) return
    if (batch.kinds !== null) {
      for (const kind of batch.kinds) {
        if (isRetraction(kind)) throw WeirError.internal('a window semi/anti join received a retraction; its inputs must be append-only')
      }
    }
    const ctx = this.ctx
    const state = ctx.state
    const timers = ctx.timers
    const keys = ctx.keysOf(rows, input)
    const endCol = this.ends[input]!
    const wm = timers.currentWatermark()
    const na = this.spec.nullAware
    let late = 0
    for (let i = 0; i < n; i++) {
      const row = rows[i]!
      const end = row[endCol] as number
      if (end - 1 <= wm) {
        late++
        continue
      }
      const key = keys[i]!
      if (hasNull(key.values)) {
        // No right row has a NULL key: an anti join's row is final now, a semi join's never qualifies.
        if (input === 0 && this.spec.anti) this.out.push(row, RowKind.INSERT)
        continue
      }
      state.setCurrentKey(key)
      if (input === 0) this.left.add(row)
      else if (na !== undefined) this.values.add(row[na.right])
      else if (this.seen.value() === true) continue
      else this.seen.update(true)
      timers.registerEventTimeTimer(end - 1)
    }
    ctx.metrics.lateRecordsDropped += late
    this.flush()
  }

  /** The window of the current key ends: its qualifying left rows go out, its state goes. */
  onTimer(): void {
    const left = this.left.get()
    if (left.length > 0) {
      const na = this.spec.nullAware
      if (na === undefined) {
        if ((this.seen.value() === true) !== this.spec.anti) { for (const row of left) this.out.push(row, RowKind.INSERT) }
      } else {
        this.emitNotIn(left, na.left)
      }
    }
    this.left.clear()
    if (this.spec.nullAware === undefined) this.seen.clear()
    else this.values.clear()
  }

  /**
   * NOT IN under SQL's NULL rules: with no right row in the window every left row qualifies (a NULL
   * one too); otherwise a row qualifies only when its value is not NULL, the window's right values
   * hold no NULL and no equal value.
   */
  private emitNotIn(left: readonly Row[], col: number): void {
    const values = this.values.get()
    if (values.length === 0) {
      for (const row of left) this.out.push(row, RowKind.INSERT)
      return
    }
    const present = new Set<string>()
    for (const v of values) {
      if (v === null || v === undefined) return
      present.add(encodeKey([v]))
    }
    for (const row of left) {
      const x = row[col]
      if (x !== null && x !== undefined && !present.has(encodeKey([x]))) this.out.push(row, RowKind.INSERT)
    }
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

/** Keyed by the join keys and the window on both inputs; event-time timers close the windows. */
export const windowSemiJoin: OperatorDescriptor<WindowSemiJoinSpec> = {
  traits: () => ({ keyedState: true, input: 'batch', ttlSweep: false, timers: ['event'] }),
  create: spec => new WindowSemiJoinOperator(spec),
}
