// ORDER BY over a bounded input, and LIMIT (core/sort.ts). Sorting at the end keeps every row under
// one key. Over an insert-only input each batch's rows are one chunk, a value in a namespace of its
// own (0, 1, 2, …), so a batch writes its chunk and a count and reads nothing else: on a disk backend
// the rows kept so far are never loaded again until the end. Over an updating input the rows are a
// row → count map that retractions decrement. An event-time timer at the end of time fires only when
// the input really ended (its final watermark), with the chunk count as its namespace, so it knows
// what to load: a cancelled job emits nothing, and its restore sorts what the checkpoint kept plus
// the rest.
import { BatchBuilder, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { SortSpec } from '../../core/sort.js'
import { valueState, type KeyRef, type Namespace, type PrefetchRequest, type ValueState } from '../../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor } from '../../core/operator.js'
import { CountedRows } from '../join/counted-rows.js'
import { totalCompare } from './row-order.js'
import { TemporalSortOperator } from './temporal-sort.js'

const CHUNK_COUNT = 'sort-chunk-count'
const CHUNKS = 'sort-chunks'

/** Later than any row's time: only the final watermark of a bounded input reaches it. */
const END_OF_INPUT = Number.MAX_SAFE_INTEGER

export class SortOperator implements Operator {
  private ctx!: OperatorContext
  /** Insert-only input: the count of chunks (namespace ''), and the chunks (namespace = their number). */
  private chunkCount: ValueState<number> | undefined
  private chunks: ValueState<Row[]> | undefined
  /** The chunk count, once read from state (or known since the start). */
  private count: number | undefined
  private counted: CountedRows | undefined
  private passed: ValueState<number> | undefined
  private readonly out = new BatchBuilder()

  constructor(private readonly spec: SortSpec) {}

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    if (this.spec.emit === 'first') this.passed = ctx.state.getValueState(valueState<number>('limit-passed'))
    else if (this.spec.inputUpdating) {
      this.counted = new CountedRows('sort-rows', 0)
      this.counted.open(ctx.state)
    } else {
      this.chunkCount = ctx.state.getValueState(valueState<number>(CHUNK_COUNT))
      this.chunks = ctx.state.getValueState(valueState<Row[]>(CHUNKS))
    }
  }

  /** Insert-only input: the chunk count, then only the namespace of the chunk this batch writes. */
  async prefetchState(batch: Batch, input: number, load: (requests: readonly PrefetchRequest[]) => Promise<void>): Promise<void> {
    if (batch.rows.length === 0) return
    const key = this.ctx.keysOf(batch.rows, input)[0]!
    if (this.chunks === undefined) return load([{ key, namespace: '' }])
    if (this.count === undefined) {
      await load([{ key, namespace: '', states: [CHUNK_COUNT] }])
      this.ctx.state.setCurrentKey(key)
      this.count = this.chunkCount!.value() ?? 0
    }
    return load([{ key, namespace: '', states: [CHUNK_COUNT] }, { key, namespace: this.count, states: [CHUNKS] }])
  }

  /** The end: the count and every chunk (the timer's namespace is how many there are). */
  timerStateRequests(key: KeyRef, namespace: Namespace): readonly PrefetchRequest[] {
    if (this.chunks === undefined) return [{ key, namespace: '' }]
    const requests: PrefetchRequest[] = [{ key, namespace: '', states: [CHUNK_COUNT] }]
    for (let i = 0; i < (namespace as number); i++) requests.push({ key, namespace: i, states: [CHUNKS] })
    return requests
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    // One key for all rows (the input is gathered on one subtask, keyed by nothing).
    this.ctx.state.setCurrentKey(this.ctx.keysOf(rows, input)[0]!)
    if (this.passed !== undefined) return this.passFirst(rows)
    if (this.chunks !== undefined) return this.addChunk(rows)
    this.ctx.timers.registerEventTimeTimer(END_OF_INPUT)
    const kinds = batch.kinds
    for (let i = 0; i < rows.length; i++) {
      const k = kinds === null ? RowKind.INSERT : kinds[i]!
      if (k === RowKind.UPDATE_BEFORE || k === RowKind.DELETE) this.counted!.retract(rows[i]!)
      else this.counted!.add(rows[i]!)
    }
  }

  private addChunk(rows: readonly Row[]): void {
    const n = this.count ?? this.chunkCount!.value() ?? 0
    this.chunks!.setNamespace(n)
    this.chunks!.update(rows.slice())
    this.chunkCount!.update(n + 1)
    this.count = n + 1
    const timers = this.ctx.timers
    if (n > 0) timers.deleteEventTimeTimer(END_OF_INPUT, n)
    timers.registerEventTimeTimer(END_OF_INPUT, n + 1)
  }

  /** LIMIT without ORDER BY: the first rows pass. */
  private passFirst(rows: readonly Row[]): void {
    const limit = this.spec.limit!
    const before = this.passed!.value() ?? 0
    if (before >= limit) return
    const take = Math.min(limit - before, rows.length)
    this.passed!.update(before + take)
    this.ctx.output.emit({ rows: rows.slice(0, take), kinds: null })
  }

  onTimer(_timestamp: number, namespace: Namespace): void {
    const all: Row[] = []
    if (this.chunks !== undefined) {
      for (let i = 0; i < (namespace as number); i++) {
        this.chunks.setNamespace(i)
        for (const r of this.chunks.value() ?? []) all.push(r)
        this.chunks.clear()
      }
      this.chunkCount!.clear()
      this.count = 0
    } else {
      for (const [row, n] of this.counted!.entries()) for (let i = 0; i < n; i++) all.push(row)
      this.counted!.clear()
    }
    all.sort(totalCompare(this.spec.orderKeys, this.spec.width))
    const n = this.spec.limit === null ? all.length : Math.min(this.spec.limit, all.length)
    for (let i = 0; i < n; i++) this.out.push(all[i]!)
  }

  onWatermark(): void {
    const b = this.out.take()
    if (b !== null) this.ctx.output.emit(b)
  }
}

export const sort: OperatorDescriptor<SortSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: false, timers: spec.emit === 'first' ? [] : ['event'] }),
  create: spec => (spec.emit === 'time' ? new TemporalSortOperator(spec) : new SortOperator(spec)),
}
