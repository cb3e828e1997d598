// Physical specs of the subquery operators (operators/join/semi-join.ts, set-op.ts, scalar-join.ts).
// Each takes input 0 (left) and input 1 (right), both hashed by the spec's keys (or all to one
// subtask when there are none).
import type { WindowSpec } from './windows.js'

/** A semi join (left rows with a match on the right) or an anti join (left rows without). */
export interface SemiJoinSpec {
  readonly kind: 'SemiJoin'
  readonly anti: boolean
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
  /** NOT IN: left column `left` against right column `right` under SQL's NULL rules, within each key. */
  readonly nullAware?: { readonly left: number; readonly right: number }
  readonly leftUpdating: boolean
  readonly rightUpdating: boolean
  /** State TTL in ms; 0 means its state never expires. */
  readonly ttlMs: number
}

/**
 * A window semi or anti join (operators/join/window-semi-join.ts): keyed by the join keys, among them
 * window_start and window_end; a window's left rows are emitted or dropped, and its state cleared,
 * when the watermark passes its end. Both inputs are append-only.
 */
export interface WindowSemiJoinSpec {
  readonly kind: 'WindowSemiJoin'
  readonly anti: boolean
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
  /** NOT IN: left column `left` against right column `right` under SQL's NULL rules, within each key. */
  readonly nullAware?: { readonly left: number; readonly right: number }
  readonly window: WindowSpec
  /** The window_end column of each input. */
  readonly leftEnd: number
  readonly rightEnd: number
}

/** INTERSECT / EXCEPT [ALL], keyed by the whole row. */
export interface SetOpSpec {
  readonly kind: 'SetOp'
  readonly op: 'INTERSECT' | 'EXCEPT'
  readonly all: boolean
  readonly ttlMs: number
}

/**
 * Every left row with the single row of a scalar subquery (input 1): all rows on one subtask, or
 * per correlation key for a correlated one.
 */
export interface ScalarJoinSpec {
  readonly kind: 'ScalarJoin'
  /** Names the subquery in the error its second row raises. */
  readonly label: string
  readonly rightWidth: number
  /** Correlated: hashed by these keys; a left row whose key holds a NULL matches nothing. */
  readonly keyed: boolean
  /** The right row while a key has none (NULLs when absent). */
  readonly empty?: readonly unknown[]
  readonly ttlMs: number
}

/**
 * Every left row with the truth value of an IN / EXISTS subquery (input 1) as a BOOLEAN column,
 * per key (correlation, and IN values never NULL); all rows on one subtask without keys.
 */
export interface MarkerJoinSpec {
  readonly kind: 'MarkerJoin'
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
  /** IN's values that may be NULL: left columns against right columns, under SQL's NULL rules. */
  readonly leftValues: readonly number[]
  readonly rightValues: readonly number[]
  readonly ttlMs: number
}
