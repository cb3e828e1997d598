// The window join: both inputs windowed alike (TUMBLE, HOP, CUMULATE), joined on their equi keys
// with window_start and window_end among the keys, so a key's state is one window's rows. Each side
// appends its rows to a ValueState cell of its own (namespace 0 or 1: a row reads and writes only its
// side's cell, a point read that a disk backend answers from its written-keys filter for a key never
// written, where a list cost a prefix scan per side and row); when the watermark passes the window's
// end an event-time timer joins the two, emits the pairs (and, for an outer side, its unmatched rows
// NULL-padded) and clears both. The output is insert-only, emitted at the window's end. Rows of a
// window that has already fired are late: dropped and counted.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { WindowJoinSpec } from '../../core/job-graph.js'
import { valueState, type KeyRef, type Namespace, type PrefetchRequest, type ValueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { WeirError } from '../../common/errors.js'
import { hasNull, JoinRows } from './join-rows.js'

export class WindowJoinOperator implements Operator {
  private readonly rows: JoinRows
  private readonly ends: readonly [number, number]
  private readonly outer: readonly [boolean, boolean]
  /** A side's rows under the current key, in namespace 0 (left) or 1 (right); appended to in place. */
  private sides!: ValueState<Row[]>
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext
  private leftMatched = new Uint8Array(16)

  constructor(readonly spec: WindowJoinSpec) {
    this.rows = new JoinRows(spec.residual, [spec.left.width, spec.right.width])
    this.ends = [spec.leftEnd, spec.rightEnd]
    this.outer = [spec.left.outer, spec.right.outer]
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.sides = ctx.state.getValueState(valueState<Row[]>('sides'))
  }

  /** A row touches its own side's cell only. */
  stateRequests(batch: Batch, input: number, add: (key: KeyRef, namespace: Namespace | undefined) => void): void {
    const keys = this.ctx.keysOf(batch.rows, input)
    for (let i = 0; i < keys.length; i++) add(keys[i]!, input)
  }

  /** The window's timer joins both sides. */
  timerStateRequests(key: KeyRef): readonly PrefetchRequest[] {
    return [{ key, namespace: 0 }, { key, namespace: 1 }]
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    const n = rows.length
    if (n === 0) return
    if (batch.kinds !== null) {
      for (const kind of batch.kinds) {
        if (kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE) {
          throw WeirError.internal('a window join received a retraction; its inputs must be append-only')
        }
      }
    }
    const ctx = this.ctx
    const state = ctx.state
    const timers = ctx.timers
    const keys = ctx.keysOf(rows, input)
    const endCol = this.ends[input]!
    const outer = this.outer[input]!
    const sides = this.sides
    sides.setNamespace(input)
    const wm = timers.currentWatermark()
    let late = 0
    for (let i = 0; i < n; i++) {
      const row = rows[i]!
      const key = keys[i]!
      const end = row[endCol] as number
      if (end - 1 <= wm) {
        late++
        continue
      }
      if (hasNull(key.values)) {
        // A NULL key matches nothing: an outer side's row is final now.
        if (outer) this.out.push(this.rows.padded(row, input), RowKind.INSERT)
        continue
      }
      state.setCurrentKey(key)
      const list = sides.value()
      if (list === undefined) {
        sides.update([row])
        timers.registerEventTimeTimer(end - 1)
      } else {
        list.push(row)
        sides.update(list)
      }
    }
    ctx.metrics.lateRecordsDropped += late
    this.flush()
  }

  /** The window of the current key ends: its pairs and padded rows go out, its rows leave state. */
  onTimer(): void {
    const sides = this.sides
    sides.setNamespace(0)
    const left = sides.value() ?? NONE
    sides.clear()
    sides.setNamespace(1)
    const right = sides.value() ?? NONE
    sides.clear()
    const rows = this.rows
    const out = this.out
    const [leftOuter, rightOuter] = this.outer
    if (this.leftMatched.length < left.length) this.leftMatched = new Uint8Array(left.length * 2)
    const leftMatched = this.leftMatched
    leftMatched.fill(0, 0, left.length)
    for (let r = 0; r < right.length; r++) {
      const rrow = right[r]!
      let matched = false
      for (let l = 0; l < left.length; l++) {
        const joined = rows.joined(left[l]!, rrow)
        if (joined === null) continue
        matched = true
        leftMatched[l] = 1
        out.push(joined, RowKind.INSERT)
      }
      if (rightOuter && !matched) out.push(rows.padded(rrow, 1), RowKind.INSERT)
    }
    if (leftOuter) { for (let l = 0; l < left.length; l++) if (leftMatched[l] === 0) out.push(rows.padded(left[l]!, 0), RowKind.INSERT) }
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

const NONE: readonly Row[] = []

/** Keyed by the equi keys and the window on both inputs; event-time timers close the windows. */
export const windowJoin: OperatorDescriptor<WindowJoinSpec> = {
  traits: () => ({ keyedState: true, input: 'batch', ttlSweep: false, timers: ['event'] }),
  create: spec => new WindowJoinOperator(spec),
}
