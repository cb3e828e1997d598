// The cells of the heap backend: a stored value with its TTL clock, a map entry, and a key's slot of
// one state holding its namespaces.
import type { KeyRef, Namespace } from '../../core/keyed-state.js'

/** A stored value and the TTL clock at its last write (or read, under OnReadAndWrite). */
export class Cell {
  constructor(public v: unknown, public t: number) {}
}

/** A map-state entry; `k` keeps the caller's key when the Map is keyed by its encoding (object keys). */
export class MapCell {
  constructor(readonly k: unknown, public v: unknown, public t: number) {}
}

/**
 * All namespaces of one state for one key. The default namespace '' lives in a field so that
 * un-namespaced state (the common case) costs no second Map lookup.
 * Cell payloads: value state → the value; list → unknown[] (or Cell[] with TTL); map → Map<unknown, MapCell>.
 */
export class KeySlot {
  d: Cell | undefined = undefined
  ns: Map<Namespace, Cell> | null = null
  /** The table's epoch when the slot was last recorded as changed (see touch). */
  mark = 0
  constructor(readonly key: KeyRef) {}

  get(ns: Namespace): Cell | undefined {
    return ns === '' ? this.d : this.ns === null ? undefined : this.ns.get(ns)
  }

  set(ns: Namespace, cell: Cell): void {
    if (ns === '') this.d = cell
    else (this.ns ??= new Map()).set(ns, cell)
  }

  delete(ns: Namespace): void {
    if (ns === '') this.d = undefined
    else if (this.ns !== null) this.ns.delete(ns)
  }

  isEmpty(): boolean {
    return this.d === undefined && (this.ns === null || this.ns.size === 0)
  }

  *cells(): IterableIterator<[Namespace, Cell]> {
    if (this.d !== undefined) yield ['', this.d]
    if (this.ns !== null) yield* this.ns
  }
}
