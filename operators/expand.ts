// Expand (GROUPING SETS): each input row once per grouping set, the keys outside the set NULL and
// the set's id appended, for the one group aggregate above it. Stateless. A batch becomes one batch
// per set, each in input order with the input's row kinds, so a key's changes (-U before +U) keep
// their order: rows of different sets never share a key (their ids differ).
import type { Batch } from '../core/batch.js'
import { STATELESS, type Operator, type OperatorContext, type OperatorDescriptor } from '../core/operator.js'
import type { ExpandSpec } from '../core/job-graph.js'
import { compileCalc } from '../expr/index.js'

export class ExpandOperator implements Operator {
  private readonly projections: readonly ((batch: Batch) => Batch | null)[]
  private ctx!: OperatorContext

  constructor(spec: ExpandSpec) {
    this.projections = spec.projections.map(p => compileCalc(p, undefined))
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
  }

  processBatch(batch: Batch): void {
    for (const project of this.projections) {
      const out = project(batch)
      if (out !== null) this.ctx.output.emit(out)
    }
  }
}

export const expand: OperatorDescriptor<ExpandSpec> = {
  traits: () => STATELESS,
  create: spec => new ExpandOperator(spec),
}
