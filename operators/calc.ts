// Calc: projection and filter in one compiled function per query. Stateless.
import type { Batch } from '../core/batch.js'
import { STATELESS, type Operator, type OperatorContext, type OperatorDescriptor } from '../core/operator.js'
import type { CalcSpec } from '../core/job-graph.js'
import { compileCalc } from '../expr/index.js'

export class CalcOperator implements Operator {
  private readonly run: (batch: Batch) => Batch | null
  /** The projection's width when it is each input column in order and there is no condition (a rename). */
  private readonly identityWidth: number
  private ctx!: OperatorContext

  constructor(spec: CalcSpec) {
    this.run = compileCalc(spec.projection, spec.condition, { currentWatermark: () => this.ctx.timers.currentWatermark() })
    const identity = spec.condition === undefined && spec.projection.every((r, i) => r.kind === 'Input' && r.index === i)
    this.identityWidth = identity ? spec.projection.length : -1
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
  }

  processBatch(batch: Batch): void {
    // A rename (e.g. the columns of an aggregate given the sink's names) hands the rows on as they
    // are (rows are never changed once emitted) when they are exactly as wide as the projection.
    const first = batch.rows[0]
    if (first !== undefined && first.length === this.identityWidth) {
      this.ctx.output.emit(batch)
      return
    }
    const out = this.run(batch)
    if (out !== null) this.ctx.output.emit(out)
  }
}

export const calc: OperatorDescriptor<CalcSpec> = {
  traits: () => STATELESS,
  create: spec => new CalcOperator(spec),
}
