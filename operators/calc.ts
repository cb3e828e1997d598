// Calc: projection and filter in one compiled function per query. Stateless.
import type { Batch } from '../core/batch.js'
import { STATELESS, type Operator, type OperatorContext, type OperatorDescriptor } from '../core/operator.js'
import type { CalcSpec } from '../core/job-graph.js'
import { compileCalc } from '../expr/index.js'

export class CalcOperator implements Operator {
  private readonly run: (batch: Batch) => Batch | null
  private ctx!: OperatorContext

  constructor(spec: CalcSpec) {
    this.run = compileCalc(spec.projection, spec.condition)
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
  }

  processBatch(batch: Batch): void {
    const out = this.run(batch)
    if (out !== null) this.ctx.output.emit(out)
  }
}

export const calc: OperatorDescriptor<CalcSpec> = {
  traits: () => STATELESS,
  create: spec => new CalcOperator(spec),
}
