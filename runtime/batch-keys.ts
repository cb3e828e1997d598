// The keys of a batch's rows, computed once per batch and shared by everything that asks while the
// batch is around: the runtime's prefetch (or read-ahead) of its state and the operator's processing.
import type { KeyRef } from '../core/keyed-state.js'
import type { Row } from '../core/batch.js'
import { makeKey } from '../state/key-encoding.js'

/** The keys of a batch's rows, in row order. */
export type KeysOf = (rows: readonly Row[]) => KeyRef[]

const NONE: readonly KeyRef[] = []

/**
 * Per subtask, the keys of the last two batches asked for: the one being processed and the one read
 * ahead. A batch is known by its rows array (batches are never changed once built) and its input.
 *
 * @example
 * const keys = new BatchKeys([keysByColumns([0], 128)])
 * keys.of(batch.rows, 0) === keys.of(batch.rows, 0) // one makeKey per row
 * keys.release(batch.rows) // processed: its rows and keys may die young
 */
export class BatchKeys {
  private rowsA: readonly Row[] | null = null
  private inputA = -1
  private keysA = NONE
  private rowsB: readonly Row[] | null = null
  private inputB = -1
  private keysB = NONE

  constructor(private readonly keyFns: readonly KeysOf[]) {}

  of(rows: readonly Row[], input: number): readonly KeyRef[] {
    if (rows === this.rowsA && input === this.inputA) return this.keysA
    if (rows === this.rowsB && input === this.inputB) return this.keysB
    const keys = this.keyFns[input]!(rows)
    // The newer entry stays; this batch takes the older one's place.
    this.rowsB = this.rowsA
    this.inputB = this.inputA
    this.keysB = this.keysA
    this.rowsA = rows
    this.inputA = input
    this.keysA = keys
    return keys
  }

  /** Forgets a processed batch, so its rows and keys are not kept alive by this cache. */
  release(rows: readonly Row[]): void {
    if (rows === this.rowsA) {
      this.rowsA = null
      this.inputA = -1
      this.keysA = NONE
    }
    if (rows === this.rowsB) {
      this.rowsB = null
      this.inputB = -1
      this.keysB = NONE
    }
  }
}

/**
 * Keys by the values of `columns` (none: one constant key). Rows of a batch that share a key share
 * its KeyRef: a key is encoded and hashed once per batch, not once per row. Batches repeat keys a
 * lot (of 1,000 Nexmark bids, ~150 distinct auctions), and a key's encoding was a third of all that
 * q17 allocated. Only primitives are looked up (a Map compares them by value, as their encodings
 * do); anything else (NaN, -0, objects) is encoded per row as before.
 */
export function keysByColumns(columns: readonly number[], maxParallelism: number): KeysOf {
  if (columns.length === 0) {
    const key = makeKey([], maxParallelism)
    return rows => new Array<KeyRef>(rows.length).fill(key)
  }
  const last = columns.length - 1
  return rows => {
    const keys = new Array<KeyRef>(rows.length)
    // Column values → (next column's map | KeyRef), one level per column.
    const seen = new Map<unknown, unknown>()
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      let level = seen
      let key: KeyRef | undefined
      for (let c = 0; c <= last; c++) {
        const v = row[columns[c]!]
        if (!lookedUp(v)) {
          key = makeKey(columns.map(k => row[k]), maxParallelism)
          break
        }
        const found = level.get(v)
        if (c === last) {
          key = found as KeyRef | undefined
          if (key === undefined) {
            key = makeKey(columns.map(k => row[k]), maxParallelism)
            level.set(v, key)
          }
        } else if (found === undefined) {
          const next = new Map<unknown, unknown>()
          level.set(v, next)
          level = next
        } else level = found as Map<unknown, unknown>
      }
      keys[i] = key!
    }
    return keys
  }
}

/** A value whose Map identity is its key identity: equal under SameValueZero exactly when its encodings are equal. */
function lookedUp(v: unknown): boolean {
  switch (typeof v) {
    case 'number':
      // NaN: one Map entry, several encodings (payloads); -0: the row's own value is kept in KeyRef.values.
      return v === v && (v !== 0 || 1 / v > 0)
    case 'string':
    case 'bigint':
    case 'boolean':
      return true
    default:
      return v === null
  }
}
