// Rows, row kinds and the batches that move between operators.

/** A row: column values in schema order (see common/types.ts for the representation). */
export type Row = unknown[]

/**
 * Makes rows of `width` nulls to fill in, as copies of one template, for a source that makes its rows
 * in a loop of its own (a generator). Not an array literal or `new Array`: V8 tracks the rows made at
 * such a site and, when a few hundred of them happen to be alive at one collection (a chunk not yet
 * handed on), decides for the rest of the process to allocate every later row of the site in the old
 * generation (the Nexmark and datagen rows were, in every benchmark run sampled). A row that passes
 * through a query and dies then waits for a full collection, and keeps the young strings and numbers
 * it holds alive until then, so they are promoted too: bids read beside auctions promoted ~90 MB per
 * 2M events into a blackhole instead of ~15 MB. A copy made by `slice()` is always young, as the rows
 * of the file source measured (and a row a join keeps is then copied by young-generation collections,
 * as theirs are).
 */
export function blankRows(width: number): () => Row {
  const template: unknown[] = Array.from({ length: width }, () => null)
  return () => template.slice()
}

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
