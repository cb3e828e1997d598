// The heap backend's state as plain data (structured-clonable; values may hold bigints): the
// entries snapshots and checkpoint sections hold, one per (state, key, namespace).
import type { Namespace } from '../../core/keyed-state.js'

/** A value entry in a snapshot: `time` is the TTL clock at its last write. */
export interface HeapValueEntry {
  readonly state: string
  readonly kind: 'value'
  readonly key: readonly unknown[]
  readonly ns: Namespace
  readonly value: unknown
  readonly time: number
}

export interface HeapListEntry {
  readonly state: string
  readonly kind: 'list'
  readonly key: readonly unknown[]
  readonly ns: Namespace
  readonly values: readonly unknown[]
  /** TTL clock per element, parallel to `values`. */
  readonly times: readonly number[]
}

export interface HeapMapEntry {
  readonly state: string
  readonly kind: 'map'
  readonly key: readonly unknown[]
  readonly ns: Namespace
  /** [user key, value, TTL clock at last write]. */
  readonly entries: readonly (readonly [unknown, unknown, number])[]
}

export type HeapEntry = HeapValueEntry | HeapListEntry | HeapMapEntry

/** Plain data (structured-clonable; values may hold bigints): the live entries of each key group. */
export interface HeapSnapshot {
  readonly format: 'weir-heap/1'
  readonly maxParallelism: number
  /** Ascending by group; groups without entries are left out. */
  readonly keyGroups: readonly { readonly group: number; readonly entries: readonly HeapEntry[] }[]
}

/** A (state, key) written or emptied since the previous checkpoint: its live entries now (none: it is gone). */
export interface ChangedSlot {
  readonly state: string
  readonly key: readonly unknown[]
  readonly entries: readonly HeapEntry[]
}
