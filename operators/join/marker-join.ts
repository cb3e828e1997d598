// The marker join: every left row with the truth value of an `IN` / `EXISTS` subquery as a BOOLEAN
// column, for a subquery whose value is needed rather than only its TRUE (under OR, in CASE, in the
// SELECT list, a row-valued NOT IN). Calcite plans these as a left join with the subquery's distinct
// keys plus a "found" flag and a count of its rows and NULLs; this is that, in one keyed operator.
//
// Per key (correlation columns, and IN values that are never NULL) it keeps the left rows as
// row → count, and of the right side how many rows it has and — when some IN values may be NULL —
// those values as tuple → count, NULL-free tuples apart from tuples with a NULL. The marker, under
// SQL's three-valued logic:
//   - no right row under the key: FALSE (x IN (empty) is FALSE even for a NULL x);
//   - EXISTS, or IN whose values are all keys: TRUE;
//   - IN: TRUE when a right tuple equals x; else NULL when one might (each column equal, or NULL on
//     either side); else FALSE.
// A left row is emitted with its marker; when a right row changes a marker, the row is updated (-U
// old, +U new). Only a change of emptiness or of a tuple's presence can change a marker: only
// then are the left rows under the key examined: those with the tuple's value (the left rows are
// kept in a namespace per value), or all of them when emptiness or a tuple with a NULL changes.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { MarkerJoinSpec } from '../../core/subquery-specs.js'
import type { KeyRef, MapState, PrefetchRequest, ValueState } from '../../core/keyed-state.js'
import { mapState, valueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { encodeKey } from '../../state/key-encoding.js'
import { hasNull, isRetraction, ttlOf } from './row-kinds.js'

type Marker = boolean | null

/** Left rows whose values are all NULL: their marker depends on emptiness alone. */
const ALL_NULL = 'n'
/** Left rows with some NULL values (row-valued IN): any tuple of the right side may change theirs. */
const SOME_NULL = 's'
const LEFT = ['left']

export class MarkerJoinOperator implements Operator {
  /**
   * Left rows → count, in a namespace per value tuple (IN), so that a right value's arrival or
   * departure re-examines only the left rows with that value (and those with NULLs).
   */
  private left!: MapState<Row, number>
  /** IN: the namespaces of `left` in use → distinct rows in them (what "every left row" enumerates). */
  private groups!: MapState<string, number>
  /** Right rows under the key. */
  private rows!: ValueState<number>
  /** Right value tuples without a NULL → count. */
  private values!: MapState<readonly unknown[], number>
  /** Right value tuples with a NULL → count. */
  private partial!: MapState<readonly unknown[], number>
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext
  private readonly compares: boolean

  constructor(readonly spec: MarkerJoinSpec) {
    this.compares = spec.leftValues.length > 0
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    const ttl = ttlOf(this.spec.ttlMs)
    this.left = ctx.state.getMapState(mapState<Row, number>('left', ttl))
    this.groups = ctx.state.getMapState(mapState<string, number>('groups', ttl))
    this.rows = ctx.state.getValueState(valueState<number>('rows', ttl))
    this.values = ctx.state.getMapState(mapState<readonly unknown[], number>('values', ttl))
    this.partial = ctx.state.getMapState(mapState<readonly unknown[], number>('partial', ttl))
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const keys = this.ctx.keysOf(rows, input)
    const kinds = batch.kinds
    const keyed = this.spec.leftKeys.length > 0
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const kind = (kinds === null ? RowKind.INSERT : kinds[i]!) as RowKind
      if (keyed && hasNull(keys[i]!.values)) {
        // A NULL key equals no right row's: the marker is FALSE for good, and such a right row matches nothing.
        if (input === 0) this.out.push(withMarker(row, false), kind)
        continue
      }
      this.ctx.state.setCurrentKey(keys[i]!)
      if (input === 0) this.leftRow(row, kind)
      else this.rightRow(row, kind)
    }
    const out = this.out.take()
    if (out !== null) this.ctx.output.emit(out)
  }

  /**
   * For a disk backend: first each key's right side and groups (namespace ''), then the left rows a
   * batch may touch — a left row's group; for right rows the groups of their tuples and SOME_NULL,
   * or every group where the key's right side may become empty or not, or a tuple has a NULL.
   */
  async prefetchState(batch: Batch, input: number, load: (requests: readonly PrefetchRequest[]) => Promise<void>): Promise<void> {
    const rows = batch.rows
    const keys = this.ctx.keysOf(rows, input)
    const keyed = this.spec.leftKeys.length > 0
    const byKey = new Map<string, { key: KeyRef; rows: Row[]; retractions: number }>()
    for (let i = 0; i < rows.length; i++) {
      const key = keys[i]!
      if (keyed && hasNull(key.values)) continue
      let e = byKey.get(key.encoded)
      if (e === undefined) byKey.set(key.encoded, e = { key, rows: [], retractions: 0 })
      e.rows.push(rows[i]!)
      if (batch.kinds !== null && isRetraction(batch.kinds[i]!)) e.retractions++
    }
    await load([...byKey.values()].map(e => ({ key: e.key, namespace: '' })))
    if (!this.compares) return
    const second: PrefetchRequest[] = []
    const state = this.ctx.state
    for (const { key, rows: keyRows, retractions } of byKey.values()) {
      const groups = new Set<string>()
      if (input === 0) { for (const row of keyRows) groups.add(this.groupOf(row)) }
      else {
        state.setCurrentKey(key)
        const tuples = keyRows.map(row => this.spec.rightValues.map(c => row[c]))
        // A tuple's own groups are read whether or not every group is (even when they hold no row).
        groups.add(SOME_NULL)
        for (const t of tuples) if (!hasNull(t)) groups.add(`v${encodeKey(t)}`)
        if ((this.rows.value() ?? 0) <= retractions || tuples.some(hasNull)) { for (const g of this.groups.keys()) groups.add(g) }
      }
      for (const namespace of groups) second.push({ key, namespace, states: LEFT })
    }
    if (second.length > 0) await load(second)
  }

  /** The namespace of a left row's value tuple. */
  private groupOf(row: Row): string {
    if (!this.compares) return ''
    const x = this.spec.leftValues.map(c => row[c])
    if (!hasNull(x)) return `v${encodeKey(x)}`
    return x.every(v => v === null || v === undefined) ? ALL_NULL : SOME_NULL
  }

  private leftRow(row: Row, kind: RowKind): void {
    const group = this.groupOf(row)
    this.left.setNamespace(group)
    const old = this.left.get(row)
    if (isRetraction(kind)) {
      if (old === undefined) return
      if (old <= 1) {
        this.left.remove(row)
        this.countGroup(group, -1)
      } else this.left.put(row, old - 1)
    } else {
      this.left.put(row, (old ?? 0) + 1)
      if (old === undefined) this.countGroup(group, 1)
    }
    this.out.push(withMarker(row, this.marker(row)), kind)
  }

  private countGroup(group: string, delta: number): void {
    if (!this.compares) return
    const n = (this.groups.get(group) ?? 0) + delta
    if (n === 0) this.groups.remove(group)
    else this.groups.put(group, n)
  }

  private rightRow(row: Row, kind: RowKind): void {
    const rows = this.rows.value() ?? 0
    const delta = isRetraction(kind) ? -1 : 1
    if (delta < 0 && rows === 0) return
    // The groups of left rows whose marker the change may flip: all of them when the key's right
    // side becomes empty or not, or a tuple with a NULL comes or goes; else the tuple's own.
    let affected: Iterable<string> | null = (rows > 0) !== (rows + delta > 0) ? this.allGroups() : null
    let tuple: unknown[] | null = null, map: MapState<readonly unknown[], number> | null = null, old = 0
    if (this.compares) {
      tuple = this.spec.rightValues.map(c => row[c])
      const partial = hasNull(tuple)
      map = partial ? this.partial : this.values
      old = map.get(tuple) ?? 0
      if (delta < 0 && old === 0) return
      if (affected === null && (old > 0) !== (old + delta > 0)) {
        affected = partial ? [...this.groups.keys()].filter(g => g !== ALL_NULL) : [`v${encodeKey(tuple)}`, SOME_NULL]
      }
    }
    const before = affected === null ? null : this.leftMarkers(affected)
    if (rows + delta === 0) this.rows.clear()
    else this.rows.update(rows + delta)
    if (map !== null) {
      if (old + delta === 0) map.remove(tuple!)
      else map.put(tuple!, old + delta)
    }
    if (before === null) return
    for (const [row, count, was] of before) {
      const is = this.marker(row)
      if (was === is) continue
      for (let c = 0; c < count; c++) {
        this.out.push(withMarker(row, was), RowKind.UPDATE_BEFORE)
        this.out.push(withMarker(row, is), RowKind.UPDATE_AFTER)
      }
    }
  }

  private allGroups(): Iterable<string> {
    return this.compares ? [...this.groups.keys()] : ['']
  }

  private leftMarkers(groups: Iterable<string>): [Row, number, Marker][] {
    const rows: [Row, number, Marker][] = []
    for (const g of groups) {
      this.left.setNamespace(g)
      for (const [row, count] of this.left.entries()) rows.push([row, count, this.marker(row)])
    }
    return rows
  }

  private marker(row: Row): Marker {
    if ((this.rows.value() ?? 0) === 0) return false
    if (!this.compares) return true
    const x = this.spec.leftValues.map(c => row[c])
    if (!hasNull(x)) {
      if ((this.values.get(x) ?? 0) > 0) return true
    } else if (x.every(v => v === null || v === undefined)) {
      // Every right tuple might equal an all-NULL one, and there is one.
      return null
    } else {
      for (const [t] of this.values.entries()) if (mightEqual(x, t)) return null
    }
    for (const [t] of this.partial.entries()) if (mightEqual(x, t)) return null
    return false
  }
}

/** Each column equal, or NULL on either side: `x = t` is not FALSE. */
function mightEqual(x: readonly unknown[], t: readonly unknown[]): boolean {
  for (let i = 0; i < x.length; i++) {
    const a = x[i], b = t[i]
    if (a === null || a === undefined || b === null || b === undefined) continue
    if (!sameValue(a, b)) return false
  }
  return true
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  // Integral columns of different widths compare as numbers (INT against BIGINT).
  if (typeof a === 'bigint' && typeof b === 'number') return Number.isInteger(b) && a === BigInt(b)
  if (typeof a === 'number' && typeof b === 'bigint') return Number.isInteger(a) && BigInt(a) === b
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((v, i) => v === b[i])
  return typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && a.valueOf() === b.valueOf()
}

function withMarker(row: Row, marker: Marker): Row {
  const out = row.slice()
  out.push(marker)
  return out
}

/** Keyed by the keys on both inputs (one global key when there are none); swept when its state has a TTL. */
export const markerJoin: OperatorDescriptor<MarkerJoinSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: spec.ttlMs > 0, timers: [] }),
  create: spec => new MarkerJoinOperator(spec),
}
