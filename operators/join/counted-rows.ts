// A multiset of rows under the current key: a MapState of row → count, one entry per distinct row,
// so adding or retracting a row touches one entry (never the whole collection).
import type { Row } from '../../core/batch.js'
import type { KeyedStateStore, MapState } from '../../core/keyed-state.js'
import { mapState } from '../../core/keyed-state.js'
import { ttlOf } from './row-kinds.js'

export class CountedRows {
  private map!: MapState<Row, number>

  constructor(private readonly name: string, private readonly ttlMs: number) {}

  open(state: KeyedStateStore): void {
    this.map = state.getMapState(mapState<Row, number>(this.name, ttlOf(this.ttlMs)))
  }

  add(row: Row): void {
    this.map.put(row, (this.map.get(row) ?? 0) + 1)
  }

  /** Removes one occurrence; false when state holds none (it expired, or never arrived). */
  retract(row: Row): boolean {
    const old = this.map.get(row)
    if (old === undefined) return false
    if (old <= 1) this.map.remove(row)
    else this.map.put(row, old - 1)
    return true
  }

  entries(): IterableIterator<[Row, number]> {
    return this.map.entries()
  }

  clear(): void {
    this.map.clear()
  }
}
