// Unnest: each input row once per element of the collection it holds, with the input row's kind
// (a retracted row retracts each of its elements' rows). Stateless; one pass over the batch, the
// output rows built as flat arrays (the input's columns, then the element's, then the position).
import { RowKind, type Batch, type Row } from '../core/batch.js'
import { STATELESS, type Operator, type OperatorContext, type OperatorDescriptor } from '../core/operator.js'
import type { UnnestSpec } from '../core/unnest.js'
import { compileScalar } from '../expr/index.js'

export class UnnestOperator implements Operator {
  private readonly collection: (row: Row) => unknown
  private ctx!: OperatorContext

  constructor(private readonly spec: UnnestSpec) {
    this.collection = compileScalar(spec.collection)
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
  }

  processBatch(batch: Batch): void {
    const { shape, width, ordinality, outer } = this.spec
    const inKinds = batch.kinds
    const rows: Row[] = []
    const kinds: number[] | null = inKinds === null ? null : []
    for (let i = 0; i < batch.rows.length; i++) {
      const row = batch.rows[i]!
      const n = row.length
      const outWidth = n + width + (ordinality ? 1 : 0)
      // ARRAY and MAP values are both JS arrays (a map's entries are [key, value] pairs).
      const elements = this.collection(row) as readonly unknown[] | null | undefined
      const count = elements == null ? 0 : elements.length
      if (count === 0) {
        if (!outer) continue
        const out = copyOf(row, outWidth)
        for (let c = n; c < outWidth; c++) out[c] = null
        rows.push(out)
        if (kinds !== null) kinds.push(inKinds![i]!)
        continue
      }
      const kind = inKinds === null ? RowKind.INSERT : inKinds[i]!
      for (let j = 0; j < count; j++) {
        const e = elements![j]
        const out = copyOf(row, outWidth)
        if (shape === 'scalar') {
          out[n] = e ?? null
        } else {
          // A NULL ROW element gives NULL fields; a map entry is never NULL.
          const fields = e as readonly unknown[] | null | undefined
          for (let c = 0; c < width; c++) out[n + c] = fields == null ? null : fields[c] ?? null
        }
        if (ordinality) out[n + width] = j + 1
        rows.push(out)
        if (kinds !== null) kinds.push(kind)
      }
    }
    if (rows.length > 0) this.ctx.output.emit({ rows, kinds: kinds === null ? null : Uint8Array.from(kinds) })
  }
}

/**
 * A new row of `width` holding `row`'s values first: allocated at its final size and filled by a loop
 * (about a third less CPU per output row than `row.slice()` and pushes, measured in the same run).
 */
function copyOf(row: Row, width: number): Row {
  const out = new Array<unknown>(width)
  for (let c = 0; c < row.length; c++) out[c] = row[c]
  return out
}

export const unnest: OperatorDescriptor<UnnestSpec> = {
  traits: () => STATELESS,
  create: spec => new UnnestOperator(spec),
}
