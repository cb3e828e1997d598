// UNION ALL: forwards every input unchanged. Stateless; the runtime takes the minimum watermark of its inputs.
import type { Batch } from '../core/batch.js'
import type { Operator, OperatorContext } from '../core/operator.js'

export class UnionOperator implements Operator {
  private ctx!: OperatorContext

  open(ctx: OperatorContext): void {
    this.ctx = ctx
  }

  processBatch(batch: Batch): void {
    this.ctx.output.emit(batch)
  }
}
