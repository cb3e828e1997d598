// LocalGroupAggregate: the first phase of a two-phase GROUP BY, chained to its input ahead of the
// hash exchange. Each input batch is a mini-batch: its rows are folded per group key into a fresh
// accumulator and every key emits one partial row ([...keys, ...accumulator]) before processBatch
// returns, so nothing is held across batches, watermarks or checkpoint barriers, and there is no
// state to snapshot. The GlobalGroupAggregate after the exchange merges the partial rows
// (group-aggregate.ts), so fewer rows cross the exchange and fewer reach keyed state.
import { BatchBuilder, type Batch, type Row } from '../core/batch.js'
import type { LocalGroupAggregateSpec } from '../core/job-graph.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../core/operator.js'
import { partialColumns } from '../core/partial-aggregate.js'
import { invariant } from '../common/assert.js'
import { AggregateHandler, KeyGrouper } from './aggregates.js'

/**
 * Output row: [...key values, ...accumulator] (core/partial-aggregate.ts names its columns).
 *
 * @example
 * const op = new LocalGroupAggregateOperator({ kind: 'LocalGroupAggregate', keys: [0], aggs })
 * op.open(ctx) // ctx.keysOf(rows) keys rows by spec.keys (the descriptor's groupKeys)
 */
export class LocalGroupAggregateOperator implements Operator {
  private readonly handler: AggregateHandler
  private readonly keyIdx: Int32Array
  private readonly grouper = new KeyGrouper()
  private readonly out = new BatchBuilder()
  private ctx!: OperatorContext

  constructor(readonly spec: LocalGroupAggregateSpec) {
    this.keyIdx = Int32Array.from(spec.keys)
    this.handler = new AggregateHandler(spec.aggs, { retracting: false })
    // The global aggregate reads the accumulator by the planner's layout: both must agree.
    invariant(this.handler.plainOnly && this.handler.width === partialColumns(spec.aggs).fields.length,
      'a local aggregate computes only calls whose accumulators merge, in the layout of core/partial-aggregate.ts')
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    invariant(batch.kinds === null || batch.kinds.every(k => k === 0), 'a local aggregate takes an insert-only input')
    const grouper = this.grouper
    const ng = grouper.group(rows, this.ctx.keysOf(rows, input))
    const next = grouper.next
    const handler = this.handler
    const keyIdx = this.keyIdx
    const nk = keyIdx.length
    const out = this.out
    for (let g = 0; g < ng; g++) {
      let i = grouper.first[g]!
      const keyRow = rows[i]!
      const acc = handler.createAccumulator()
      for (; i !== -1; i = next[i]!) handler.accumulate(acc, rows[i]!)
      const row: Row = new Array(nk + acc.length)
      for (let k = 0; k < nk; k++) row[k] = keyRow[keyIdx[k]!]
      for (let s = 0; s < acc.length; s++) row[nk + s] = acc[s]
      out.push(row)
    }
    grouper.release()
    const partial = out.take()
    if (partial !== null) this.ctx.output.emit(partial)
  }
}

/** No keyed state and no timers: its keys are only for grouping one batch's rows. Mini-batch off, each row is its own batch. */
export const localGroupAggregate: OperatorDescriptor<LocalGroupAggregateSpec> = {
  traits: (spec, config) => ({ keyedState: false, input: config.miniBatch ? 'batch' : 'row', ttlSweep: false, timers: [], groupKeys: spec.keys }),
  create: spec => new LocalGroupAggregateOperator(spec),
}
