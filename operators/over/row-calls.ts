// The calls of an OVER aggregate that look at rows rather than a frame: ROW_NUMBER, RANK and
// DENSE_RANK (counts kept in the key's meta) and LAG (the key's last values, in a ValueState).
import type { Row } from '../../core/batch.js'
import type { KeyedStateStore, ValueState } from '../../core/keyed-state.js'
import { valueState } from '../../core/keyed-state.js'
import type { OverAggCallSpec, OverLagSpec } from '../../core/over-aggregate.js'

/**
 * Computes the row calls of a peer group (a key's rows at one time, in arrival order): ROW_NUMBER
 * numbers them one by one, RANK gives each 1 + the rows before the group, DENSE_RANK 1 + the groups
 * before it, and LAG reads `offset` rows back through the group, then the key's earlier rows.
 *
 * @example
 * // LAG(v, 2) after rows v = 1, 2, 3 of a key: 1, and the LAG state holds [2, 3].
 */
export class OverRowCalls {
  /** Output columns (from the first call column) of each kind of call. */
  private readonly rowNumbers: Int32Array
  private readonly ranks: Int32Array
  private readonly denseRanks: Int32Array
  private readonly lags: readonly (OverLagSpec & { readonly output: number })[]
  /** The meta slot counting peer groups (DENSE_RANK), or -1. */
  private readonly denseSlot: number
  readonly metaLength: number
  /** No call of these kinds. */
  readonly empty: boolean
  /**
   * Per key, for each LAG call, the values of its argument in the last `offset` rows, oldest first
   * (one entry for all LAG calls: a peer group reads and writes it once).
   */
  private lagState!: ValueState<unknown[][]>

  constructor(calls: readonly OverAggCallSpec[], metaSlot: number) {
    const of = (fn: string) => Int32Array.from(calls.flatMap((c, i) => (c.fn === fn ? [i] : [])))
    this.rowNumbers = of('ROW_NUMBER')
    this.ranks = of('RANK')
    this.denseRanks = of('DENSE_RANK')
    this.lags = calls.flatMap((c, i) => (c.fn === 'LAG' ? [{ ...c, output: i }] : []))
    this.denseSlot = this.denseRanks.length > 0 ? metaSlot : -1
    this.metaLength = metaSlot + (this.denseSlot >= 0 ? 1 : 0)
    this.empty = this.rowNumbers.length + this.ranks.length + this.denseRanks.length + this.lags.length === 0
  }

  open(store: KeyedStateStore): void {
    if (this.lags.length > 0) this.lagState = store.getValueState(valueState<unknown[][]>('lag'))
  }

  /**
   * Fills the row calls' columns of `out` (the peers' output rows, input columns first) for the
   * input `rows`; `first` is the number of the key's rows before them. Counts the group in `meta`.
   */
  compute(rows: readonly Row[], out: Row[], width: number, first: number, meta: number[]): void {
    const m = rows.length
    for (const c of this.rowNumbers) for (let j = 0; j < m; j++) out[j]![width + c] = first + j + 1
    for (const c of this.ranks) for (let j = 0; j < m; j++) out[j]![width + c] = first + 1
    if (this.denseSlot >= 0) {
      const dense = (meta[this.denseSlot] ?? 0) + 1
      meta[this.denseSlot] = dense
      for (const c of this.denseRanks) for (let j = 0; j < m; j++) out[j]![width + c] = dense
    }
    if (this.lags.length > 0) this.computeLags(rows, out, width)
  }

  clear(): void {
    if (this.lags.length > 0) this.lagState.clear()
  }

  stateNames(): string[] {
    return this.lags.length > 0 ? ['lag'] : []
  }

  private computeLags(rows: readonly Row[], out: Row[], width: number): void {
    const lags = this.lags
    const stored = this.lagState.value()
    // A copy: a state's value is not changed in place.
    const buffers = stored === undefined ? lags.map(() => []) : stored.map(b => b.slice())
    for (let l = 0; l < lags.length; l++) {
      const { arg, offset, default: dflt, output } = lags[l]!
      const buffer = buffers[l]!
      for (let j = 0; j < rows.length; j++) {
        const row = rows[j]!
        let value: unknown
        if (offset === 0) value = row[arg]
        else if (buffer.length >= offset) value = buffer[buffer.length - offset]
        else value = dflt === null ? null : row[dflt]
        out[j]![width + output] = value ?? null
        if (offset > 0) {
          buffer.push(row[arg] ?? null)
          if (buffer.length > offset) buffer.shift()
        }
      }
    }
    this.lagState.update(buffers)
  }
}
