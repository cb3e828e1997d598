// Row helpers shared by the time-bounded joins (interval and window joins): the output row of a
// pair and the NULL-padded row of an unmatched outer row.
import type { Row } from '../../core/batch.js'
import type { Rex } from '../../core/rex.js'
import { compilePredicate } from '../../expr/index.js'

export class JoinRows {
  private readonly residual: ((row: Row) => boolean) | null
  private readonly nulls: readonly [Row, Row]

  /** `widths`: the column counts of the left and right input. */
  constructor(residual: Rex | undefined, widths: readonly [number, number]) {
    this.residual = residual === undefined ? null : compilePredicate(residual)
    this.nulls = [new Array<unknown>(widths[0]).fill(null), new Array<unknown>(widths[1]).fill(null)]
  }

  /** The output row of `left` with `right`, or null when the rest of the condition rejects the pair. */
  joined(left: Row, right: Row): Row | null {
    const row = left.concat(right)
    return this.residual === null || this.residual(row) ? row : null
  }

  /** `row` of `input` with NULLs for the other side's columns. */
  padded(row: Row, input: number): Row {
    return input === 0 ? row.concat(this.nulls[1]) : this.nulls[0].concat(row)
  }
}

export function hasNull(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] === null || values[i] === undefined) return true
  return false
}
