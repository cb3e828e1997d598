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
      // ARRAY and MAP values are both JS arrays (a map's entries are [key, value] pairs).
      const elements = this.collection(row) as readonly unknown[] | null | undefined
      const count = elements == null ? 0 : elements.length
      if (count === 0) {
        if (!outer) continue
        const out = row.slice()
        for (let c = 0; c < width; c++) out.push(null)
        if (ordinality) out.push(null)
        rows.push(out)
        if (kinds !== null) kinds.push(inKinds![i]!)
        continue
      }
      const kind = inKinds === null ? RowKind.INSERT : inKinds[i]!
      for (let j = 0; j < count; j++) {
        const e = elements![j]
        const out = row.slice()
        if (shape === 'scalar') {
          out.push(e ?? null)
        } else {
          // A NULL ROW element gives NULL fields; a map entry is never NULL.
          const fields = e as readonly unknown[] | null | undefined
          for (let c = 0; c < width; c++) out.push(fields == null ? null : fields[c] ?? null)
        }
        if (ordinality) out.push(j + 1)
        rows.push(out)
        if (kinds !== null) kinds.push(kind)
      }
    }
    if (rows.length > 0) this.ctx.output.emit({ rows, kinds: kinds === null ? null : Uint8Array.from(kinds) })
  }
}

export const unnest: OperatorDescriptor<UnnestSpec> = {
  traits: () => STATELESS,
  create: spec => new UnnestOperator(spec),
}
