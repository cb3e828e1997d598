// The keys of a batch's rows, computed once per batch and shared by everything that asks while the
// batch is around: the runtime's prefetch (or read-ahead) of its state and the operator's processing.
import type { KeyRef } from '../core/keyed-state.js'
import type { Row } from '../core/batch.js'

const NONE: readonly KeyRef[] = []

/**
 * Per subtask, the keys of the last two batches asked for: the one being processed and the one read
 * ahead. A batch is known by its rows array (batches are never changed once built) and its input.
 *
 * @example
 * const keys = new BatchKeys([row => makeKey([row[0]])])
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

  constructor(private readonly keyFns: readonly ((row: Row) => KeyRef)[]) {}

  of(rows: readonly Row[], input: number): readonly KeyRef[] {
    if (rows === this.rowsA && input === this.inputA) return this.keysA
    if (rows === this.rowsB && input === this.inputB) return this.keysB
    const keyOf = this.keyFns[input]!
    const keys = new Array<KeyRef>(rows.length)
    for (let i = 0; i < rows.length; i++) keys[i] = keyOf(rows[i]!)
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
