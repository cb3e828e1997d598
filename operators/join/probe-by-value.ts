// NOT IN's probe (left) rows under the current key, indexed by their value: each value's rows are a
// MapState of row → count in a namespace of their own, so when a value enters or leaves the subquery
// only the rows with that value are read — not every row of the key, which made an uncorrelated
// NOT IN (one key) cost probe rows × subquery values. A second map in the default namespace lists the
// values that have rows, for the changes that touch every row (the subquery's first or last row, its
// first or last NULL). Both are ordinary keyed state: checkpointed, rescaled and TTL'd as such.
import type { Row } from '../../core/batch.js'
import type { KeyedStateStore, MapState, Namespace } from '../../core/keyed-state.js'
import { mapState } from '../../core/keyed-state.js'
import { encodeKey } from '../../state/key-encoding.js'
import { ttlOf } from './row-kinds.js'

/**
 * The namespace of a value's rows: a number is its own namespace; anything else (NULL too) is its
 * key encoding, which starts with a type tag, so it is never '' (the default namespace) and two
 * values share a namespace exactly when the subquery's value map (state/map-state.ts mapKeyOf)
 * takes them for equal.
 */
export function valueNamespace(x: unknown): Namespace {
  return typeof x === 'number' ? x : encodeKey([x])
}

/** The states' names, for prefetch requests. */
export const PROBE_ROWS = ['probe-by-value']
export const PROBE_VALUES = 'probe-values'

export class ProbeByValue {
  private rows!: MapState<Row, number>
  /** Namespaces that hold rows (a value's, or NULL's). */
  private values!: MapState<Namespace, true>

  constructor(private readonly ttlMs: number) {}

  open(state: KeyedStateStore): void {
    const ttl = ttlOf(this.ttlMs)
    this.rows = state.getMapState(mapState<Row, number>(PROBE_ROWS[0]!, ttl))
    this.values = state.getMapState(mapState<Namespace, true>(PROBE_VALUES, ttl))
  }

  add(row: Row, x: unknown): void {
    const ns = valueNamespace(x)
    const rows = this.rows
    rows.setNamespace(ns)
    rows.put(row, (rows.get(row) ?? 0) + 1)
    // With a TTL the entry is rewritten so it outlives every row it lists (each write restarts its timer).
    if (this.ttlMs > 0 || !this.values.contains(ns)) this.values.put(ns, true)
  }

  /** Removes one occurrence; false when state holds none (it expired, or never arrived). */
  retract(row: Row, x: unknown): boolean {
    const ns = valueNamespace(x)
    const rows = this.rows
    rows.setNamespace(ns)
    const old = rows.get(row)
    if (old === undefined) return false
    if (old > 1) rows.put(row, old - 1)
    else {
      rows.remove(row)
      if (rows.isEmpty()) this.values.remove(ns)
    }
    return true
  }

  /** The rows whose value is `x`, with their counts. */
  withValue(x: unknown): IterableIterator<[Row, number]> {
    this.rows.setNamespace(valueNamespace(x))
    return this.rows.entries()
  }

  /** The namespaces that hold rows under the key. */
  namespaces(): Namespace[] {
    return [...this.values.keys()]
  }

  /** Every row under the key, with its count. */
  *all(): Generator<[Row, number]> {
    for (const ns of this.namespaces()) {
      this.rows.setNamespace(ns)
      yield* this.rows.entries()
    }
  }
}
