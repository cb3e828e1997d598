// Window Top-N (and window deduplication, a Top-1): rows are ranked per window — the window's end is
// one of the partition keys, and the namespace of the state — and emitted once, insert-only, when
// time passes the window's end; the window's state is cleared then. Rows of a window already
// emitted are late: dropped and counted.
import { BatchBuilder, type Batch } from '../../core/batch.js'
import type { RankSpec } from '../../core/rank.js'
import { mapState, type KeyRef, type Namespace } from '../../core/keyed-state.js'
import type { Operator, OperatorContext } from '../../core/operator.js'
import { KeyGrouper } from '../aggregates.js'
import { outputRow, Ranker, ROWS_STATE, type Ranked, type RowsState, type StoredValue } from './ranker.js'

export class WindowTopNOperator implements Operator {
  private ctx!: OperatorContext
  private rows!: RowsState
  private readonly ranker: Ranker
  private readonly grouper = new KeyGrouper()
  private readonly out = new BatchBuilder()
  private readonly ranked: Ranked[] = []
  private readonly endIndex: number
  private readonly eventTime: boolean

  constructor(private readonly spec: RankSpec) {
    this.ranker = new Ranker(spec)
    this.endIndex = spec.window!.endIndex
    this.eventTime = spec.window!.timeDomain === 'event'
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    this.rows = ctx.state.getMapState(mapState<number, StoredValue>(ROWS_STATE))
  }

  stateRequests(batch: Batch, input: number, add: (key: KeyRef, namespace: Namespace | undefined) => void): void {
    const keys = this.ctx.keysOf(batch.rows, input)
    const rows = batch.rows, e = this.endIndex
    for (let i = 0; i < rows.length; i++) add(keys[i]!, rows[i]![e] as number)
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const { ctx, grouper, ranker } = this
    const ng = grouper.group(rows, ctx.keysOf(rows, input))
    const next = grouper.next
    const timers = ctx.timers
    const watermark = this.eventTime ? timers.currentWatermark() : -Infinity
    let dropped = 0
    for (let g = 0; g < ng; g++) {
      let i = grouper.first[g]!
      const end = rows[i]![this.endIndex] as number
      if (end - 1 <= watermark) {
        for (; i !== -1; i = next[i]!) dropped++
        continue
      }
      ctx.state.setCurrentKey(grouper.keys[g]!)
      this.rows.setNamespace(end)
      ranker.load(this.rows)
      if (ranker.entries.length === 0) {
        if (this.eventTime) timers.registerEventTimeTimer(end - 1, end)
        else timers.registerProcessingTimeTimer(end - 1, end)
      }
      for (; i !== -1; i = next[i]!) ranker.add(rows[i]!, 1)
      ranker.trim()
      ranker.persist(this.rows)
    }
    grouper.release()
    ctx.metrics.lateRecordsDropped += dropped
  }

  onTimer(_timestamp: number, namespace: Namespace): void {
    this.rows.setNamespace(namespace)
    this.ranker.load(this.rows)
    for (const r of this.ranker.visible(this.ranked)) this.out.push(outputRow(r, this.spec.outputRank))
    this.rows.clear()
    // Event-time windows are emitted together once the due timers have fired (onWatermark).
    if (!this.eventTime) this.onWatermark()
  }

  onWatermark(): void {
    const b = this.out.take()
    if (b !== null) this.ctx.output.emit(b)
  }

  endInput(): void {
    this.onWatermark()
  }
}
