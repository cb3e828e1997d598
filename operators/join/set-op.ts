// INTERSECT [ALL] and EXCEPT [ALL] on streams, keyed by the whole row: per row, how many times it is
// in each input. The output holds a row min(l, r) times (INTERSECT ALL), max(l - r, 0) times (EXCEPT
// ALL), or once where the set form's condition holds; each change of that number is emitted as
// insertions (+I) or retractions (-D), so the changelog is exact over updating inputs too.
import { BatchBuilder, RowKind, type Batch } from '../../core/batch.js'
import type { SetOpSpec } from '../../core/subquery-specs.js'
import type { ValueState } from '../../core/keyed-state.js'
import { valueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { isRetraction, ttlOf } from './row-kinds.js'

/** [times in the left input, times in the right input]. */
type Counts = readonly [number, number]

export class SetOpOperator implements Operator {
  private counts!: ValueState<Counts>
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext
  private readonly times: (l: number, r: number) => number

  constructor(readonly spec: SetOpSpec) {
    this.times = spec.op === 'INTERSECT'
      ? (spec.all ? (l, r) => Math.min(l, r) : (l, r) => (l > 0 && r > 0 ? 1 : 0))
      : (spec.all ? (l, r) => Math.max(l - r, 0) : (l, r) => (l > 0 && r === 0 ? 1 : 0))
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.counts = ctx.state.getValueState(valueState<Counts>('counts', ttlOf(this.spec.ttlMs)))
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const keys = this.ctx.keysOf(rows, input)
    const state = this.ctx.state
    const kinds = batch.kinds
    for (let i = 0; i < rows.length; i++) {
      state.setCurrentKey(keys[i]!)
      const old = this.counts.value() ?? ZERO
      const delta = kinds !== null && isRetraction(kinds[i]!) ? -1 : 1
      // A retraction of a row state does not hold (expired) changes nothing.
      if (delta < 0 && old[input] === 0) continue
      const now: Counts = input === 0 ? [old[0] + delta, old[1]] : [old[0], old[1] + delta]
      if (now[0] === 0 && now[1] === 0) this.counts.clear()
      else this.counts.update(now)
      const diff = this.times(now[0], now[1]) - this.times(old[0], old[1])
      for (let c = 0; c < Math.abs(diff); c++) this.out.push(rows[i]!, diff > 0 ? RowKind.INSERT : RowKind.DELETE)
    }
    const out = this.out.take()
    if (out !== null) this.ctx.output.emit(out)
  }
}

const ZERO: Counts = [0, 0]

export const setOp: OperatorDescriptor<SetOpSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: spec.ttlMs > 0, timers: [] }),
  create: spec => new SetOpOperator(spec),
}
