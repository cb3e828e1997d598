// Deduplication: ROW_NUMBER() OVER (PARTITION BY k ORDER BY time ASC|DESC) = 1 keeps the first or
// the last row per key. One ValueState entry per key: a marker (keep-first on processing time, whose
// first row is final) or the kept row. Each batch is a mini-batch: per key, the batch's winner
// against the kept row, and one change out.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { DeduplicateSpec } from '../../core/rank.js'
import { valueState, type StateTtlConfig, type ValueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext } from '../../core/operator.js'
import { KeyGrouper } from '../aggregates.js'

export class DeduplicateOperator implements Operator {
  private ctx!: OperatorContext
  private kept!: ValueState<Row | 1>
  private readonly grouper = new KeyGrouper()
  private readonly out = new BatchBuilder()
  private readonly ttl: StateTtlConfig | undefined
  /** Keep-first on processing time: the first row is final, so only a marker is stored. */
  private readonly firstIsFinal: boolean

  constructor(private readonly spec: DeduplicateSpec) {
    this.ttl = spec.ttlMs > 0 ? { ttlMs: spec.ttlMs, updateType: 'OnCreateAndWrite' } : undefined
    this.firstIsFinal = !spec.keepLast && spec.timeDomain === 'processing'
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.kept = ctx.state.getValueState(valueState<Row | 1>('dedup-row', this.ttl))
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const { ctx, grouper, out, kept } = this
    const ng = grouper.group(rows, ctx.keysOf(rows, input))
    const next = grouper.next
    const t = this.spec.timeIndex
    const keepLast = this.spec.keepLast
    const byProcessingTime = this.spec.timeDomain === 'processing'
    for (let g = 0; g < ng; g++) {
      ctx.state.setCurrentKey(grouper.keys[g]!)
      const prev = kept.value()
      let i = grouper.first[g]!
      if (this.firstIsFinal) {
        if (prev !== undefined) continue
        kept.update(1)
        out.push(rows[i]!, RowKind.INSERT)
        continue
      }
      let best = prev as Row | undefined
      for (; i !== -1; i = next[i]!) {
        const row = rows[i]!
        if (best === undefined) best = row
        else if (keepLast) {
          // Processing time: every later row wins; event time: a row at the same time or later (Flink's rule).
          if (byProcessingTime || (row[t] as number) >= (best[t] as number)) best = row
        } else if ((row[t] as number) < (best[t] as number)) {
          best = row
        }
      }
      if (best === prev) continue
      kept.update(best!)
      if (prev === undefined) {
        out.push(best!, RowKind.INSERT)
      } else {
        out.push(prev as Row, RowKind.UPDATE_BEFORE)
        out.push(best!, RowKind.UPDATE_AFTER)
      }
    }
    grouper.release()
    const b = out.take()
    if (b !== null) ctx.output.emit(b)
  }
}
