// Semi and anti joins (IN / EXISTS / NOT IN / NOT EXISTS subqueries), keyed by the join key. Per key
// it keeps the left (probe) rows as row → count, and of the right (build) side only how many rows
// it has — or, for NOT IN, how many of each value and how many NULLs. A left row is emitted while it
// qualifies; when a right row makes it start or stop qualifying it is emitted (+I) or retracted (-D),
// so the changelog is exact whether either side is append-only or updating.
//
// NOT IN follows SQL: under a key whose subquery is empty every row qualifies (a NULL one too);
// otherwise a row qualifies only when its value is not NULL, the subquery holds no NULL and no equal
// value. Its key is the correlation alone, so a change of the NULL count or of emptiness re-examines
// every left row of the key; a value entering or leaving the subquery re-examines only the left rows
// with that value (ProbeByValue indexes them), so an uncorrelated NOT IN is not probe × build.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { SemiJoinSpec } from '../../core/subquery-specs.js'
import type { KeyRef, MapState, Namespace, PrefetchRequest, ValueState } from '../../core/keyed-state.js'
import { mapState, valueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { CountedRows } from './counted-rows.js'
import { PROBE_ROWS, PROBE_VALUES, ProbeByValue, valueNamespace } from './probe-by-value.js'
import { hasNull, isRetraction, ttlOf } from './row-kinds.js'

/** NOT IN's right side under a key: [rows, rows whose value is NULL]. */
type Totals = readonly [number, number]

export class SemiJoinOperator implements Operator {
  /** Left rows (IN / EXISTS / NOT EXISTS). */
  private readonly probe: CountedRows
  /** NOT IN: left rows by value. */
  private readonly byValue: ProbeByValue
  /** NOT IN reaches the namespaces of its left rows' values (ProbeByValue): a disk backend loads those a batch can touch. */
  readonly prefetchState?: (batch: Batch, input: number, load: (requests: readonly PrefetchRequest[]) => Promise<void>) => Promise<void>
  /** Right rows under the key (IN / EXISTS / NOT EXISTS). */
  private matches!: ValueState<number>
  /** NOT IN: right values → count, and the totals. */
  private values!: MapState<unknown, number>
  private totals!: ValueState<Totals>
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext

  constructor(readonly spec: SemiJoinSpec) {
    this.probe = new CountedRows('probe', spec.ttlMs)
    this.byValue = new ProbeByValue(spec.ttlMs)
    if (spec.nullAware !== undefined) this.prefetchState = (batch, input, load) => this.prefetchNotIn(batch, input, load)
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    const ttl = ttlOf(this.spec.ttlMs)
    if (this.spec.nullAware === undefined) this.probe.open(ctx.state)
    else this.byValue.open(ctx.state)
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

  /**
   * NOT IN on a disk backend: each key's right side and value list (namespace '') with, for left
   * rows, their values' rows; then for right rows the left rows of their values — or of every value
   * where the right side may become empty or not, or a NULL comes or goes (see buildValue).
   */
  private async prefetchNotIn(batch: Batch, input: number, load: (requests: readonly PrefetchRequest[]) => Promise<void>): Promise<void> {
    const rows = batch.rows
    const keys = this.ctx.keysOf(rows, input)
    const na = this.spec.nullAware!
    const first: PrefetchRequest[] = []
    const byKey = new Map<string, { key: KeyRef; values: unknown[]; retractions: number }>()
    for (let i = 0; i < rows.length; i++) {
      const key = keys[i]!
      if (hasNull(key.values)) continue
      if (input === 0) {
        first.push({ key, namespace: '', states: KEY_STATES })
        first.push({ key, namespace: valueNamespace(rows[i]![na.left]), states: PROBE_ROWS })
        continue
      }
      let e = byKey.get(key.encoded)
      if (e === undefined) {
        byKey.set(key.encoded, e = { key, values: [], retractions: 0 })
        first.push({ key, namespace: '', states: KEY_STATES })
      }
      e.values.push(rows[i]![na.right])
      if (batch.kinds !== null && isRetraction(batch.kinds[i]!)) e.retractions++
    }
    if (first.length > 0) await load(first)
    if (input === 0) return
    const second: PrefetchRequest[] = []
    const state = this.ctx.state
    for (const { key, values, retractions } of byKey.values()) {
      state.setCurrentKey(key)
      const namespaces = new Set<Namespace>()
      const anyNull = values.some(y => y === null || y === undefined)
      // A value's own rows are read whether or not every value's are (even when none has rows yet: the
      // batch's first right row may flip every left row, its second only those of its value).
      for (const y of values) if (y !== null && y !== undefined) namespaces.add(valueNamespace(y))
      if ((this.totals.value() ?? EMPTY)[0] <= retractions || anyNull) { for (const ns of this.byValue.namespaces()) namespaces.add(ns) }
      for (const namespace of namespaces) second.push({ key, namespace, states: PROBE_ROWS })
    }
    if (second.length > 0) await load(second)
  }

  private probeRow(row: Row, kind: RowKind): void {
    const na = this.spec.nullAware
    if (na === undefined) {
      if (isRetraction(kind)) {
        if (!this.probe.retract(row)) return
      } else this.probe.add(row)
    } else if (isRetraction(kind)) {
      if (!this.byValue.retract(row, row[na.left])) return
    } else this.byValue.add(row, row[na.left])
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
    // The subquery's first or last row, or its first or last NULL, can flip every left row; a value
    // that comes or goes, only the left rows with that value (the others compare unequal to it).
    const flipsAll = (rows > 0) !== (rows + delta > 0) || (isNull && (old > 0) !== (old + delta > 0))
    const flipsValue = !flipsAll && !isNull && (old > 0) !== (old + delta > 0)
    // The rows the change can flip, with whether they qualify before it.
    const before = flipsAll ? this.withQualifies(this.byValue.all()) : flipsValue ? this.withQualifies(this.byValue.withValue(y)) : null
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

  private withQualifies(entries: Iterable<[Row, number]>): [Row, number, boolean][] {
    const rows: [Row, number, boolean][] = []
    for (const [row, count] of entries) rows.push([row, count, this.qualifies(row)])
    return rows
  }
}

const EMPTY: Totals = [0, 0]
/** NOT IN's state in namespace '': the right side's values and totals, and the list of left values. */
const KEY_STATES = ['values', 'totals', PROBE_VALUES]

/** Keyed by the join key on both inputs; swept when its state has a TTL. */
export const semiJoin: OperatorDescriptor<SemiJoinSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: spec.ttlMs > 0, timers: [] }),
  create: spec => new SemiJoinOperator(spec),
}
