// Top-N: the rows ranked within [start, end] per partition, as a changelog. Per batch and partition
// the rows are loaded once, the batch's rows added or retracted, and the rows that left or entered
// the top (or changed rank, when the rank is an output column) are emitted: -U/+U in pairs, then
// -D or +I for the rest. Over an insert-only input only the rows that can still rank are kept.
import { BatchBuilder, RowKind, type Batch } from '../../core/batch.js'
import type { RankSpec } from '../../core/rank.js'
import { mapState, type StateTtlConfig } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { KeyGrouper } from '../aggregates.js'
import { outputRow, Ranker, ROWS_STATE, type Ranked, type RowsState, type StoredValue } from './ranker.js'

export class TopNOperator implements Operator {
  private ctx!: OperatorContext
  private rows!: RowsState
  private readonly ranker: Ranker
  private readonly grouper = new KeyGrouper()
  private readonly out = new BatchBuilder()
  private readonly before: Ranked[] = []
  private readonly after: Ranked[] = []
  private readonly ttl: StateTtlConfig | undefined

  constructor(private readonly spec: RankSpec) {
    this.ranker = new Ranker(spec)
    this.ttl = spec.ttlMs > 0 ? { ttlMs: spec.ttlMs, updateType: 'OnCreateAndWrite' } : undefined
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.rows = ctx.state.getMapState(mapState<number, StoredValue>(ROWS_STATE, this.ttl))
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const { ctx, grouper, ranker } = this
    const ng = grouper.group(rows, ctx.keysOf(rows, input))
    const kinds = batch.kinds
    const next = grouper.next
    const trim = !this.spec.inputUpdating
    for (let g = 0; g < ng; g++) {
      ctx.state.setCurrentKey(grouper.keys[g]!)
      ranker.load(this.rows)
      for (let i = grouper.first[g]!; i !== -1; i = next[i]!) {
        const k = kinds === null ? RowKind.INSERT : kinds[i]!
        ranker.add(rows[i]!, k === RowKind.UPDATE_BEFORE || k === RowKind.DELETE ? -1 : 1)
      }
      if (trim) ranker.trim()
      // Most rows of a long-running Top-N rank below the top and are dropped at once: nothing changed.
      if (!ranker.changed()) continue
      ranker.visible(this.before, true)
      ranker.visible(this.after)
      emitChanges(this.before, this.after, this.spec.outputRank, this.out)
      ranker.persist(this.rows)
    }
    grouper.release()
    const b = this.out.take()
    if (b !== null) ctx.output.emit(b)
  }
}

/**
 * Emits what differs between two rankings of one partition. Both lists run in the partition's order
 * (entry position, then copy), so one merge pass finds the rows that left and came; with the rank in
 * the output, a row whose rank changed left and came too. Leavers and comers pair up as -U/+U.
 */
function emitChanges(before: readonly Ranked[], after: readonly Ranked[], outputRank: boolean, out: BatchBuilder): void {
  const gone = GONE, came = CAME
  gone.length = 0
  came.length = 0
  let i = 0, j = 0
  while (i < before.length || j < after.length) {
    const b = before[i], a = after[j]
    const order = b === undefined ? 1 : a === undefined ? -1 : b.pos - a.pos || b.copy - a.copy
    if (order === 0) {
      if (outputRank && b!.rank !== a!.rank) {
        gone.push(b!)
        came.push(a!)
      }
      i++
      j++
    } else if (order < 0) {
      gone.push(b!)
      i++
    } else {
      came.push(a!)
      j++
    }
  }
  const pairs = Math.min(gone.length, came.length)
  for (let k = 0; k < pairs; k++) {
    out.push(outputRow(gone[k]!, outputRank), RowKind.UPDATE_BEFORE)
    out.push(outputRow(came[k]!, outputRank), RowKind.UPDATE_AFTER)
  }
  for (let k = pairs; k < gone.length; k++) out.push(outputRow(gone[k]!, outputRank), RowKind.DELETE)
  for (let k = pairs; k < came.length; k++) out.push(outputRow(came[k]!, outputRank), RowKind.INSERT)
}

const GONE: Ranked[] = []
const CAME: Ranked[] = []
