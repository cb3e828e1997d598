// Semi and anti joins (IN / EXISTS / NOT IN / NOT EXISTS subqueries), keyed by the join key. Per key
// it keeps the left (probe) rows as row → count, and of the right (build) side only how many rows
// it has — or, for NOT IN, how many of each value and how many NULLs. A left row is emitted while it
// qualifies; when a right row makes it start or stop qualifying it is emitted (+I) or retracted (-D),
// so the changelog is exact whether either side is append-only or updating.
//
// NOT IN follows SQL: under a key whose subquery is empty every row qualifies (a NULL one too);
// otherwise a row qualifies only when its value is not NULL, the subquery holds no NULL and no equal
// value. Its key is the correlation alone, so a change of the NULL count or of emptiness re-examines
// every left row of the key.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { SemiJoinSpec } from '../../core/subquery-specs.js'
import type { MapState, ValueState } from '../../core/keyed-state.js'
import { mapState, valueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { CountedRows } from './counted-rows.js'
import { hasNull, isRetraction, ttlOf } from './row-kinds.js'

/** NOT IN's right side under a key: [rows, rows whose value is NULL]. */
type Totals = readonly [number, number]

export class SemiJoinOperator implements Operator {
  private readonly probe: CountedRows
  /** Right rows under the key (IN / EXISTS / NOT EXISTS). */
  private matches!: ValueState<number>
  /** NOT IN: right values → count, and the totals. */
  private values!: MapState<unknown, number>
  private totals!: ValueState<Totals>
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext

  constructor(readonly spec: SemiJoinSpec) {
    this.probe = new CountedRows('probe', spec.ttlMs)
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    const ttl = ttlOf(this.spec.ttlMs)
    this.probe.open(ctx.state)
    this.matches = ctx.state.getValueState(valueState<number>('matches', ttl))
    this.values = ctx.state.getMapState(mapState<unknown, number>('values', ttl))
    this.totals = ctx.state.getValueState(valueState<Totals>('totals', ttl))
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const keys = this.ctx.keysOf(rows, input)
    const state = this.ctx.state
    const kinds = batch.kinds
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const kind = (kinds === null ? RowKind.INSERT : kinds[i]!) as RowKind
      const key = keys[i]!
      if (hasNull(key.values)) {
        // No right row has this key: an anti join keeps the row, a semi join drops it.
        if (input === 0 && this.spec.anti) this.out.push(row, kind)
        continue
      }
      state.setCurrentKey(key)
      if (input === 0) this.probeRow(row, kind)
      else if (this.spec.nullAware === undefined) this.buildRow(kind)
      else this.buildValue(row[this.spec.nullAware.right], kind)
    }
    const out = this.out.take()
    if (out !== null) this.ctx.output.emit(out)
  }

  private probeRow(row: Row, kind: RowKind): void {
    if (isRetraction(kind)) {
      if (!this.probe.retract(row)) return
    } else this.probe.add(row)
    if (this.qualifies(row)) this.out.push(row, kind)
  }

  private qualifies(row: Row): boolean {
    const na = this.spec.nullAware
    if (na === undefined) return ((this.matches.value() ?? 0) > 0) !== this.spec.anti
    const [rows, nulls] = this.totals.value() ?? EMPTY
    if (rows === 0) return true
    const x = row[na.left]
    if (x === null || x === undefined || nulls > 0) return false
    return (this.values.get(x) ?? 0) === 0
  }

  private buildRow(kind: RowKind): void {
    const old = this.matches.value() ?? 0
    let now: number
    if (isRetraction(kind)) {
      if (old === 0) return
      now = old - 1
    } else now = old + 1
    if (now === 0) this.matches.clear()
    else this.matches.update(now)
    if ((old > 0) === (now > 0)) return
    // The key gained its first match or lost its last: every left row under it flips.
    const emit = (now > 0) !== this.spec.anti ? RowKind.INSERT : RowKind.DELETE
    for (const [row, count] of this.probe.entries()) for (let c = 0; c < count; c++) this.out.push(row, emit)
  }

  private buildValue(y: unknown, kind: RowKind): void {
    const [rows, nulls] = this.totals.value() ?? EMPTY
    const isNull = y === null || y === undefined
    const old = isNull ? nulls : this.values.get(y) ?? 0
    const delta = isRetraction(kind) ? -1 : 1
    if (delta < 0 && old === 0) return
    const flips = (rows > 0) !== (rows + delta > 0) || (old > 0) !== (old + delta > 0)
    // The rows under the key with whether they qualify before the change, when it can change that.
    const before = flips ? this.probeRows() : null
    this.totals.update([rows + delta, isNull ? nulls + delta : nulls])
    if (!isNull) {
      if (old + delta === 0) this.values.remove(y)
      else this.values.put(y, old + delta)
    }
    if (before === null) return
    for (const [row, count, was] of before) {
      const is = this.qualifies(row)
      if (was === is) continue
      for (let c = 0; c < count; c++) this.out.push(row, is ? RowKind.INSERT : RowKind.DELETE)
    }
  }

  private probeRows(): [Row, number, boolean][] {
    const rows: [Row, number, boolean][] = []
    for (const [row, count] of this.probe.entries()) rows.push([row, count, this.qualifies(row)])
    return rows
  }
}

const EMPTY: Totals = [0, 0]

/** Keyed by the join key on both inputs; swept when its state has a TTL. */
export const semiJoin: OperatorDescriptor<SemiJoinSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: spec.ttlMs > 0, timers: [] }),
  create: spec => new SemiJoinOperator(spec),
}
