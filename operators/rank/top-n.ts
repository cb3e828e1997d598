// Top-N: the rows ranked within [start, end] per partition, as a changelog. Per batch and partition
// the rows are loaded once, the batch's rows added or retracted, and the rows that left or entered
// the top (or changed rank, when the rank is an output column) are emitted: -U/+U in pairs, then
// -D or +I for the rest. Over an insert-only input only the rows that can still rank are kept.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { RankSpec } from '../../core/rank.js'
import { mapState, type MapState, type StateTtlConfig } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { KeyGrouper } from '../aggregates.js'
import { outputRow, Ranker, ROWS_STATE, type Ranked } from './ranker.js'

export class TopNOperator implements Operator {
  private ctx!: OperatorContext
  private rows!: MapState<Row, number>
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
    this.rows = ctx.state.getMapState(mapState<Row, number>(ROWS_STATE, this.ttl))
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
      ranker.visible(this.before)
      for (let i = grouper.first[g]!; i !== -1; i = next[i]!) {
        const k = kinds === null ? RowKind.INSERT : kinds[i]!
        ranker.add(rows[i]!, k === RowKind.UPDATE_BEFORE || k === RowKind.DELETE ? -1 : 1)
      }
      if (trim) ranker.trim()
      ranker.visible(this.after)
      emitChanges(this.before, this.after, this.spec.outputRank, this.out)
      ranker.persist(this.rows)
    }
    grouper.release()
    const b = this.out.take()
    if (b !== null) ctx.output.emit(b)
  }
}

/** Emits what differs between two rankings of one partition (identity: the row, its copy, and the rank when output). */
function emitChanges(before: readonly Ranked[], after: readonly Ranked[], outputRank: boolean, out: BatchBuilder): void {
  const id = (r: Ranked): string => (outputRank ? `${r.entry.id}:${r.copy}:${r.rank}` : `${r.entry.id}:${r.copy}`)
  let gone: Ranked[] | undefined, came: Ranked[] | undefined
  if (before.length > 0) {
    const now = new Set(after.map(id))
    for (const r of before) if (!now.has(id(r))) (gone ??= []).push(r)
  }
  if (after.length > 0) {
    const was = new Set(before.map(id))
    for (const r of after) if (!was.has(id(r))) (came ??= []).push(r)
  }
  const ng = gone?.length ?? 0, nc = came?.length ?? 0
  const pairs = Math.min(ng, nc)
  for (let i = 0; i < pairs; i++) {
    out.push(outputRow(gone![i]!, outputRank), RowKind.UPDATE_BEFORE)
    out.push(outputRow(came![i]!, outputRank), RowKind.UPDATE_AFTER)
  }
  for (let i = pairs; i < ng; i++) out.push(outputRow(gone![i]!, outputRank), RowKind.DELETE)
  for (let i = pairs; i < nc; i++) out.push(outputRow(came![i]!, outputRank), RowKind.INSERT)
}
