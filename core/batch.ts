// Rows, row kinds and the batches that move between operators.

/** A row: column values in schema order (see common/types.ts for the representation). */
export type Row = unknown[]

/** Changelog row kinds, as Flink prints them: +I, -U, +U, -D. */
export const RowKind = { INSERT: 0, UPDATE_BEFORE: 1, UPDATE_AFTER: 2, DELETE: 3 } as const
export type RowKind = (typeof RowKind)[keyof typeof RowKind]

export const ROW_KIND_SHORT = ['+I', '-U', '+U', '-D'] as const

/**
 * The unit of data flow. `kinds` is null for an insert-only batch (every row +I), so
 * insert-only pipelines never allocate or check row kinds.
 */
export interface Batch {
  readonly rows: Row[]
  readonly kinds: Uint8Array | null
}

/** Accumulates output rows with kinds and hands them on as one batch. */
export class BatchBuilder {
  private rows: Row[] = []
  private kinds: number[] = []
  private allInsert = true

  get size(): number {
    return this.rows.length
  }

  push(row: Row, kind: RowKind = RowKind.INSERT): void {
    this.rows.push(row)
    this.kinds.push(kind)
    if (kind !== RowKind.INSERT) this.allInsert = false
  }

  /** Takes what has been pushed, or null if nothing was. */
  take(): Batch | null {
    if (this.rows.length === 0) return null
    const batch: Batch = { rows: this.rows, kinds: this.allInsert ? null : Uint8Array.from(this.kinds) }
    this.rows = []
    this.kinds = []
    this.allInsert = true
    return batch
  }
}
