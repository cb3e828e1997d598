// Helpers the two-input operators of subqueries share.
import { RowKind } from '../../core/batch.js'
import type { StateTtlConfig } from '../../core/keyed-state.js'

export function isRetraction(kind: number): boolean {
  return kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE
}

/** True when a key value is NULL: such a key matches nothing. */
export function hasNull(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] === null || values[i] === undefined) return true
  return false
}

export function ttlOf(ttlMs: number): StateTtlConfig | undefined {
  return ttlMs > 0 ? { ttlMs, updateType: 'OnCreateAndWrite' } : undefined
}
