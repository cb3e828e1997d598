// Upsert materialization, before a sink that writes updates as upserts by its PRIMARY KEY (it drops
// -U rows: the +U after one replaces it under the same key). That holds only when the query's rows are
// unique by the sink's key. When they are not — the key is a column the query computes, or the
// query's unique key is another one — a -U can retract a row under one sink key while its +U lands
// under another, and the first key's row would stay in the sink for ever. This operator, keyed by the
// sink's key, keeps the live rows of each key in arrival order and hands the sink one change per key
// and batch: the newest live row (+I or +U), or a delete when the key has none left (as Flink's
// SinkUpsertMaterializer). A retraction of a row it does not hold (its insert expired by TTL) changes
// nothing.
//
// With `upsertInput` it normalizes an upsert stream (a process function's changelog: 'upsert') for
// consumers that need retractions, as Flink's ChangelogNormalize: a +I/+U replaces the key's row, a -D
// removes it whatever its other columns hold, and each batch's change of a key goes out as -U of the
// old row then +U of the new one, or -D of the stored row.
import { BatchBuilder, RowKind, type Batch, type Row } from '../core/batch.js'
import type { UpsertMaterializeSpec } from '../core/job-graph.js'
import { valueState, type StateTtlConfig, type ValueState } from '../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../core/operator.js'
import { KeyGrouper } from './aggregates.js'
import { rowsEqual } from './join/row-hash.js'

export class UpsertMaterializeOperator implements Operator {
  private ctx!: OperatorContext
  /** The live rows of the current sink key, oldest first (a key holds more than one only while rows collide on it). */
  private live!: ValueState<Row[]>
  private readonly grouper = new KeyGrouper()
  private readonly out = new BatchBuilder()
  private readonly ttl: StateTtlConfig | undefined

  constructor(readonly spec: UpsertMaterializeSpec) {
    this.ttl = spec.ttlMs > 0 ? { ttlMs: spec.ttlMs, updateType: 'OnCreateAndWrite' } : undefined
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.live = ctx.state.getValueState(valueState<Row[]>('upsert-rows', this.ttl))
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const { ctx, grouper, out, live } = this
    const kinds = batch.kinds
    const upsertInput = this.spec.upsertInput === true
    const ng = grouper.group(rows, ctx.keysOf(rows, input))
    const next = grouper.next
    for (let g = 0; g < ng; g++) {
      ctx.state.setCurrentKey(grouper.keys[g]!)
      const stored = live.value()
      const list = stored === undefined ? [] : stored.slice()
      const before = list.length > 0 ? list[list.length - 1] : undefined
      let changed = false
      for (let i = grouper.first[g]!; i !== -1; i = next[i]!) {
        const row = rows[i]!
        const kind = kinds === null ? RowKind.INSERT : kinds[i]!
        if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
          if (upsertInput) list.length = 0
          list.push(row)
          changed = true
          continue
        }
        if (upsertInput) {
          changed ||= list.length > 0
          list.length = 0
          continue
        }
        // The newest equal row goes: retractions come newest first for a key that holds duplicates.
        for (let j = list.length - 1; j >= 0; j--) {
          if (rowsEqual(list[j]!, row)) {
            list.splice(j, 1)
            changed = true
            break
          }
        }
      }
      if (!changed) continue
      const after = list.length > 0 ? list[list.length - 1] : undefined
      if (after === undefined) live.clear()
      else live.update(list)
      // An older row (or a copy of the newest) that went leaves the key's row as it was: nothing to say.
      if (after === before || (after !== undefined && before !== undefined && rowsEqual(after, before))) continue
      if (after === undefined) out.push(before!, RowKind.DELETE)
      else if (before === undefined) out.push(after, RowKind.INSERT)
      else {
        if (upsertInput) out.push(before, RowKind.UPDATE_BEFORE)
        out.push(after, RowKind.UPDATE_AFTER)
      }
    }
    grouper.release()
    const b = out.take()
    if (b !== null) ctx.output.emit(b)
  }
}

/** With mini-batch off each row is its own batch, so each emits its own change (as Flink without mini-batch). */
export const upsertMaterialize: OperatorDescriptor<UpsertMaterializeSpec> = {
  traits: (spec, config) => ({ keyedState: true, input: config.miniBatch ? 'batch' : 'row', ttlSweep: spec.ttlMs > 0, timers: [] }),
  create: spec => new UpsertMaterializeOperator(spec),
}
