// Row orders for Top-N: by the ORDER BY keys (ties are peers for RANK and DENSE_RANK), then by every
// column, so that a partition's rows have one total order in which equal rows are the same row —
// ROW_NUMBER among peers is then the same in every run, after a restore and at any parallelism.
import type { Row } from '../../core/batch.js'
import type { OrderKey } from '../../core/rank.js'
import { after, before, compareBytes } from '../../common/values.js'

export type RowCompare = (a: Row, b: Row) => number

/** SQL values of one column type compare with < and > (numbers and bigints mix correctly; NaN after every number); NULL is placed by the caller. */
function compareValues(x: unknown, y: unknown): number {
  if (x instanceof Uint8Array) return compareBytes(x, y as Uint8Array)
  return before(x, y) ? -1 : after(x, y) ? 1 : 0
}

/** Compares rows by the ORDER BY keys only: 0 for peers. */
export function orderCompare(keys: readonly OrderKey[]): RowCompare {
  const idx = Int32Array.from(keys.map(k => k.index))
  const sign = Int8Array.from(keys.map(k => (k.descending ? -1 : 1)))
  const nullSign = Int8Array.from(keys.map(k => (k.nullsFirst ? -1 : 1)))
  const n = idx.length
  return (a, b) => {
    for (let k = 0; k < n; k++) {
      const i = idx[k]!
      const x = a[i], y = b[i]
      if (x === y) continue
      if (x === null) return nullSign[k]!
      if (y === null) return -nullSign[k]!
      const c = compareValues(x, y)
      if (c !== 0) return c * sign[k]!
    }
    return 0
  }
}

/** The ORDER BY keys, then all columns (NULL first): 0 only for equal rows. */
export function totalCompare(keys: readonly OrderKey[], width: number): RowCompare {
  const byKeys = orderCompare(keys)
  return (a, b) => {
    const c = byKeys(a, b)
    if (c !== 0) return c
    for (let i = 0; i < width; i++) {
      const x = a[i], y = b[i]
      if (x === y) continue
      if (x === null) return -1
      if (y === null) return 1
      const d = compareValues(x, y)
      if (d !== 0) return d
    }
    return 0
  }
}
