// Non-windowed GROUP BY (and SELECT DISTINCT) over insert-only or updating input, emitting a
// changelog (+I, -U/+U, -D). Each input batch is a mini-batch: rows of one key are folded
// together and the key emits once, in order of its first appearance in the batch.
import { RowKind, BatchBuilder, type Batch, type Row } from '../core/batch.js'
import type { GroupAggregateSpec } from '../core/job-graph.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../core/operator.js'
import type { StateTtlConfig } from '../core/keyed-state.js'
import { invariant } from '../common/assert.js'
import { AggregateHandler, KeyGrouper, type Accumulator } from './aggregates.js'

/**
 * Output row: [...key values, ...aggregate values].
 *
 * @example
 * const op = new GroupAggregateOperator({ kind: 'GroupAggregate', keys: [0], aggs, inputUpdating: false, ttlMs: 0 })
 * await op.open(ctx) // then processBatch(batch, 0) per batch; ctx.keysOf(rows)[i].encoded must identify spec.keys
 */
export class GroupAggregateOperator implements Operator {
  readonly spec: GroupAggregateSpec
  private readonly handler: AggregateHandler
  private readonly keyIdx: Int32Array
  /** A global aggregate's (spec.phase): its input rows are partial accumulators after the keys, merged. */
  private readonly merging: boolean
  private readonly ttl: StateTtlConfig | undefined
  private ctx!: OperatorContext
  private readonly out = new BatchBuilder()
  private readonly grouper = new KeyGrouper()

  constructor(spec: GroupAggregateSpec) {
    this.spec = spec
    this.keyIdx = Int32Array.from(spec.keys)
    this.ttl = spec.ttlMs > 0 ? { ttlMs: spec.ttlMs, updateType: 'OnCreateAndWrite' } : undefined
    this.handler = new AggregateHandler(spec.aggs, { retracting: spec.inputUpdating, ttl: this.ttl })
    this.merging = spec.phase === 'global'
    invariant(!this.merging || (this.handler.plainOnly && spec.keys.every((k, i) => k === i)),
      'a global aggregate merges plain accumulators, keyed by the first columns of its input')
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.handler.open(ctx.state)
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    const n = rows.length
    if (n === 0) return
    const ctx = this.ctx
    const grouper = this.grouper
    const ng = grouper.group(rows, ctx.keysOf(rows, input))
    const kinds = batch.kinds
    const handler = this.handler
    const state = ctx.state
    const next = grouper.next
    const out = this.out
    // With TTL Flink emits even unchanged results, so downstream state is kept alive too.
    const suppressUnchanged = this.ttl === undefined
    const emitUpdateBefore = this.spec.emitUpdateBefore !== false
    for (let g = 0; g < ng; g++) {
      state.setCurrentKey(grouper.keys[g]!)
      let i = grouper.first[g]!
      const keyRow = rows[i]!
      let acc = handler.accState.value()
      let prev: Row | null = null
      if (acc === undefined) {
        // A group that does not exist (new, or expired) is not created by retractions.
        if (kinds !== null) { while (i !== -1 && isRetraction(kinds[i]!)) i = next[i]! }
        if (i === -1) continue
        acc = handler.createAccumulator()
        // Value counts may outlive an expired accumulator; a new group starts from nothing.
        if (this.ttl !== undefined && handler.hasMaps) handler.clearMaps()
      } else {
        prev = this.result(keyRow, acc)
      }
      if (this.merging) {
        // The local aggregates' partial rows ([...keys, ...accumulator]) of this key, insert-only: merged from
        // the accumulator's first column on (mergePlain's `at`; plain calls only, so no maps or user aggregates).
        const nk = this.keyIdx.length
        for (; i !== -1; i = next[i]!) handler.mergePlain(acc, rows[i]!, nk)
      } else if (kinds === null) {
        for (; i !== -1; i = next[i]!) handler.accumulate(acc, rows[i]!)
      } else {
        for (; i !== -1; i = next[i]!) {
          if (isRetraction(kinds[i]!)) handler.retract(acc, rows[i]!)
          else handler.accumulate(acc, rows[i]!)
        }
      }
      if (handler.rowCount(acc) <= 0) {
        if (prev !== null) out.push(prev, RowKind.DELETE)
        handler.clear()
        continue
      }
      const result = this.result(keyRow, acc)
      handler.accState.update(acc)
      if (prev === null) {
        out.push(result, RowKind.INSERT)
      } else if (!suppressUnchanged || !sameAggs(prev, result, this.keyIdx.length)) {
        if (emitUpdateBefore) out.push(prev, RowKind.UPDATE_BEFORE)
        out.push(result, RowKind.UPDATE_AFTER)
      }
    }
    grouper.release()
    const batchOut = out.take()
    if (batchOut !== null) ctx.output.emit(batchOut)
  }

  private result(keyRow: Row, acc: Accumulator): Row {
    const keyIdx = this.keyIdx
    const nk = keyIdx.length
    const row: Row = new Array(nk + this.handler.calls.length)
    for (let k = 0; k < nk; k++) row[k] = keyRow[keyIdx[k]!]
    this.handler.getValue(acc, row, nk)
    return row
  }
}

function isRetraction(kind: number): boolean {
  return kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE
}

function sameAggs(a: Row, b: Row, from: number): boolean {
  for (let i = from; i < a.length; i++) {
    const x = a[i], y = b[i]
    if (x !== y && !(x !== x && y !== y)) return false
  }
  return true
}

/**
 * An accumulator per group key. With 'table.exec.mini-batch.enabled' off each row is its own batch,
 * so each emits its own changes (as Flink without mini-batch); with a TTL, expired groups are swept.
 */
export const groupAggregate: OperatorDescriptor<GroupAggregateSpec> = {
  traits: (spec, config) => ({ keyedState: true, input: config.miniBatch ? 'batch' : 'row', ttlSweep: spec.ttlMs > 0, timers: [] }),
  create: spec => new GroupAggregateOperator(spec),
}
