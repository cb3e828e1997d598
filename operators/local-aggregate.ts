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
import type { KeyRef } from '../core/keyed-state.js'
import { AggregateHandler, type Accumulator } from './aggregates.js'

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
  /** The batch's accumulator per key, and each group's accumulator and first row, in order of first appearance. */
  private readonly groups = new Map<KeyRef, Accumulator>()
  private readonly accs: Accumulator[] = []
  private readonly keyRows: Row[] = []
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
    const n = rows.length
    if (n === 0) return
    invariant(batch.kinds === null || batch.kinds.every(k => k === 0), 'a local aggregate takes an insert-only input')
    // Rows of equal plain keys share one KeyRef (runtime/batch-keys.ts), so grouping by the KeyRef
    // itself needs no string hashing; a key that is not plain (NaN, -0, a nested value) has a KeyRef
    // per row, and its rows then make a partial row each, which the global aggregate merges alike.
    const keys = this.ctx.keysOf(rows, input)
    const groups = this.groups, accs = this.accs, keyRows = this.keyRows
    const handler = this.handler
    for (let i = 0; i < n; i++) {
      const key = keys[i]!
      let acc = groups.get(key)
      if (acc === undefined) {
        acc = handler.createAccumulator()
        groups.set(key, acc)
        accs.push(acc)
        keyRows.push(rows[i]!)
      }
      handler.accumulate(acc, rows[i]!)
    }
    const keyIdx = this.keyIdx
    const nk = keyIdx.length
    const out = this.out
    for (let g = 0; g < accs.length; g++) {
      const acc = accs[g]!, keyRow = keyRows[g]!
      const row: Row = new Array(nk + acc.length)
      for (let k = 0; k < nk; k++) row[k] = keyRow[keyIdx[k]!]
      for (let c = 0; c < acc.length; c++) row[nk + c] = acc[c]
      out.push(row)
    }
    groups.clear()
    accs.length = 0
    keyRows.length = 0
    const partial = out.take()
    if (partial !== null) this.ctx.output.emit(partial)
  }
}

/** No keyed state and no timers: its keys are only for grouping one batch's rows. Mini-batch off, each row is its own batch. */
export const localGroupAggregate: OperatorDescriptor<LocalGroupAggregateSpec> = {
  traits: (spec, config) => ({ keyedState: false, input: config.miniBatch ? 'batch' : 'row', ttlSweep: false, timers: [], groupKeys: spec.keys }),
  create: spec => new LocalGroupAggregateOperator(spec),
}
