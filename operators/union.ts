// UNION ALL: forwards every input unchanged. Stateless; the runtime takes the minimum watermark of its inputs.
import type { Batch } from '../core/batch.js'
import { STATELESS, type Operator, type OperatorContext, type OperatorDescriptor } from '../core/operator.js'
import type { UnionSpec } from '../core/job-graph.js'

export class UnionOperator implements Operator {
  private ctx!: OperatorContext

  open(ctx: OperatorContext): void {
    this.ctx = ctx
  }

  processBatch(batch: Batch): void {
    this.ctx.output.emit(batch)
  }
}

export const union: OperatorDescriptor<UnionSpec> = {
  traits: () => STATELESS,
  create: () => new UnionOperator(),
}
