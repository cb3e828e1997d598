// Runs a job graph: source readers feed batches through operators in topological order; watermarks
// follow the data (per split, minimum over splits and over inputs) and fire event-time timers; a
// bounded source ends with a final watermark so every window fires; sinks finish when all input ended.
import { assertNever, invariant } from '../common/assert.js'
import type { Field } from '../common/types.js'
import type { Batch, Row } from './batch.js'
import type { JobGraph, PhysicalNode, SourceSpec, Exchange } from './job-graph.js'
import type { Operator, OperatorContext, OperatorMetrics, TimerDomain } from './operator.js'
import type { KeyedStateBackend, KeyRef, Namespace, PrefetchRequest } from '../state/api.js'
import { RocksDbKeyedStateBackend } from '../state/rocksdb/index.js'
import { parseSize } from '../common/durations.js'
import { dirname, join, resolve } from 'node:path'
import { rmdir } from 'node:fs/promises'
import { makeKey, DEFAULT_MAX_PARALLELISM } from '../state/key-encoding.js'
import { HeapKeyedStateBackend } from '../state/heap/heap-backend.js'
import { TimerServiceImpl } from './timers.js'
import { compileCalc, compileScalar, evalConstant } from '../expr/index.js'
import { getConnector } from '../connectors/registry.js'
import type { SinkWriter, SourceReader, SourceChunk } from '../connectors/api.js'
import { createOperator } from '../operators/registry.js'

/** A change collected for a SELECT. */
export interface CollectedRow {
  readonly kind: number
  readonly row: Row
}

export interface ExecutionEnv {
  /** Where print sinks write. */
  readonly println: (line: string) => void
  /** Aborting stops the job: sources stop reading, what was produced is flushed. */
  readonly signal?: AbortSignal
  /** Called with each batch a SELECT produces (Collect). */
  readonly onCollect?: (schema: readonly Field[], batch: Batch) => void
}

export interface JobMetrics {
  /** Rows each source produced (after pushed-down filters). */
  readonly sourceRows: Record<string, number>
  /** Rows read by sources before filters. */
  readonly sourceRecordsRead: number
  readonly sinkRows: Record<string, number>
  readonly lateRecordsDropped: number
  readonly skippedRecords: number
  /** Live state entries per stateful operator at the end. */
  readonly stateEntries: Record<string, number>
  /** Bytes of RocksDB working state on disk at the end (undefined on the heap backend). */
  readonly stateDiskBytes?: number
  /** Entries stored in RocksDB at the end, expired ones not yet swept included (undefined on the heap backend). */
  readonly stateStoredEntries?: number
  readonly cancelled: boolean
}

type Item =
  | { readonly t: 'batch'; readonly input: number; readonly batch: Batch }
  | { readonly t: 'wm'; readonly input: number; readonly wm: number }
  | { readonly t: 'end'; readonly input: number }

interface Consumer { readonly rt: NodeRuntime; readonly input: number }

interface NodeRuntime {
  readonly node: PhysicalNode
  readonly consumers: Consumer[]
  readonly queue: Item[]
  readonly inputWatermarks: number[]
  watermark: number
  endedInputs: number
  operator?: Operator
  ctx?: OperatorContext
  timers?: TimerServiceImpl
  state?: KeyedStateBackend
  sink?: SinkWriter
  /** The operator keeps state with a TTL, so the runtime sweeps expired entries. */
  hasTtl: boolean
  /** 'table.exec.mini-batch.enabled' = 'false' on a group aggregate. */
  rowAtATime: boolean
  readonly metrics: OperatorMetrics
}

interface SourceRuntime {
  readonly rt: NodeRuntime
  readonly spec: SourceSpec
  reader: SourceReader
  readonly calc: ((b: Batch) => Batch | null) | null
  readonly wmExpr: ((row: Row) => unknown) | null
  splitMax: number[]
  splitEnded: boolean[]
  emittedWatermark: number
  rowsOut: number
  recordsRead: number
  readonly bounded: boolean
}

/** Runs `graph` to completion (bounded sources) or until `env.signal` aborts. */
export async function executeJob(graph: JobGraph, env: ExecutionEnv): Promise<JobMetrics> {
  const job = new JobExecution(graph, env)
  return job.run()
}

const BATCH_SIZE_DEFAULT = 1024

class JobExecution {
  private readonly runtimes = new Map<string, NodeRuntime>()
  private readonly order: NodeRuntime[] = []
  private readonly sources: SourceRuntime[] = []
  private readonly internalAbort = new AbortController()
  private readonly signal: AbortSignal
  private procTimer: NodeJS.Timeout | undefined
  private procWake: (() => void) | undefined
  private readonly batchSize: number
  private readonly diskBackends: RocksDbKeyedStateBackend[] = []

  constructor(private readonly graph: JobGraph, private readonly env: ExecutionEnv) {
    this.signal = env.signal ? AbortSignal.any([env.signal, this.internalAbort.signal]) : this.internalAbort.signal
    this.batchSize = Number(graph.options['execution.batch-size'] ?? BATCH_SIZE_DEFAULT) || BATCH_SIZE_DEFAULT
    for (const node of graph.nodes) {
      const rt: NodeRuntime = {
        node, consumers: [], queue: [], inputWatermarks: node.inputs.map(() => -Infinity), watermark: -Infinity, endedInputs: 0,
        hasTtl: node.spec.kind === 'GroupAggregate' && node.spec.ttlMs > 0,
        rowAtATime: node.spec.kind === 'GroupAggregate' && graph.options['table.exec.mini-batch.enabled'] === 'false',
        metrics: { lateRecordsDropped: 0, rowsIn: 0, rowsOut: 0 },
      }
      this.runtimes.set(node.id, rt)
      this.order.push(rt)
    }
    for (const rt of this.order) {
      rt.node.inputs.forEach((edge, input) => {
        const producer = this.runtimes.get(edge.node)
        invariant(producer, `unknown input ${edge.node}`)
        producer.consumers.push({ rt, input })
      })
    }
  }

  async run(): Promise<JobMetrics> {
    try {
      await this.open()
      await this.loop()
      return await this.metrics(this.signal.aborted)
    } catch (e) {
      this.internalAbort.abort()
      throw e
    } finally {
      clearTimeout(this.procTimer)
      await this.close()
      // Working state is not durable yet: nothing can resume from it, so its folders go.
      for (const b of this.diskBackends) await b.destroy().catch(() => undefined)
      // The job's folder goes too once empty (rmdir refuses a folder another run still uses).
      if (this.diskBackends.length > 0) await rmdir(dirname(this.diskBackends[0]!.dir)).catch(() => undefined)
    }
  }

  // ------------------------------------------------------------------ setup

  private async open(): Promise<void> {
    for (const rt of this.order) {
      const spec = rt.node.spec
      switch (spec.kind) {
        case 'Source': {
          const factory = getConnector(spec.connector)
          invariant(factory.source, `connector ${spec.connector} has no source`)
          const reader = await factory.source.create({ table: spec.table, options: spec.options, schema: spec.physicalSchema, signal: this.signal, batchSize: this.batchSize })
          const identity = !spec.filter && spec.projection.length === spec.physicalSchema.length && spec.projection.every((r, i) => r.kind === 'Input' && r.index === i)
          this.sources.push({
            rt, spec, reader,
            calc: identity ? null : compileCalc(spec.projection, spec.filter),
            wmExpr: spec.watermark ? compileScalar(spec.watermark.expr) : null,
            splitMax: Array.from({ length: reader.splitCount }, () => -Infinity),
            splitEnded: Array.from({ length: reader.splitCount }, () => false),
            emittedWatermark: -Infinity, rowsOut: 0, recordsRead: 0,
            bounded: factory.source.bounded(spec.options),
          })
          break
        }
        case 'Sink': {
          const factory = getConnector(spec.connector)
          invariant(factory.sink, `connector ${spec.connector} has no sink`)
          rt.sink = await factory.sink.create({
            table: spec.table, options: spec.options, schema: spec.schema, changelog: spec.inputChangelog, primaryKey: spec.primaryKey, println: this.env.println,
          })
          break
        }
        case 'Values': case 'Collect': break
        case 'Calc': case 'WindowAssign': case 'WindowAggregate': case 'GroupAggregate': case 'Union':
          await this.openOperator(rt)
          break
        default: assertNever(spec)
      }
    }
  }

  private async openOperator(rt: NodeRuntime): Promise<void> {
    const node = rt.node
    const maxParallelism = Number(this.graph.options['pipeline.max-parallelism'] ?? DEFAULT_MAX_PARALLELISM) || DEFAULT_MAX_PARALLELISM
    const keyFns = node.inputs.map(edge => keySelector(edge.exchange, maxParallelism))
    const state = await this.createStateBackend(node, maxParallelism)
    const timers = new TimerServiceImpl(() => state.getCurrentKey() ?? NO_KEY)
    const operator = createOperator(node.spec)
    const ctx: OperatorContext = {
      operatorId: node.id,
      state,
      timers,
      metrics: rt.metrics,
      options: this.graph.options,
      output: { emit: (batch: Batch) => this.emit(rt, batch) },
      keyOf: (row: Row, input = 0) => keyFns[input]!(row),
    }
    rt.operator = operator
    rt.ctx = ctx
    rt.timers = timers
    rt.state = state
    await operator.open(ctx)
  }

  /** The keyed-state backend for one operator, per 'state.backend'. */
  private async createStateBackend(node: PhysicalNode, maxParallelism: number): Promise<KeyedStateBackend> {
    const options = this.graph.options
    const kind = options['state.backend'] ?? 'heap'
    // Stateless operators never touch state: a heap backend costs nothing there.
    if (kind === 'heap' || node.spec.kind === 'Calc' || node.spec.kind === 'Union' || node.spec.kind === 'WindowAssign') {
      return new HeapKeyedStateBackend({ maxParallelism })
    }
    const cacheBytes = parseSize(options['state.cache.size'] ?? '64 mb') ?? 64 * 2 ** 20
    const dir = join(resolve(options['state.dir'] ?? DEFAULT_STATE_DIR), safeName(this.graph.name), safeName(node.id))
    // A bundle spans batches until the cache's budget of held changes is reached (deferred
    // write-back): a hot key is written once per bundle, not once per batch. sync() ends it early.
    const backend = await RocksDbKeyedStateBackend.open({ dir, operatorId: node.id, jobName: this.graph.name, maxParallelism, cacheBytes, writeBack: 'deferred' })
    this.diskBackends.push(backend)
    return backend
  }

  // ------------------------------------------------------------------ data flow

  private emit(rt: NodeRuntime, batch: Batch): void {
    rt.metrics.rowsOut += batch.rows.length
    for (const c of rt.consumers) c.rt.queue.push({ t: 'batch', input: c.input, batch })
  }

  private emitWatermark(rt: NodeRuntime, wm: number): void {
    for (const c of rt.consumers) c.rt.queue.push({ t: 'wm', input: c.input, wm })
  }

  private emitEnd(rt: NodeRuntime): void {
    for (const c of rt.consumers) c.rt.queue.push({ t: 'end', input: c.input })
  }

  /** Processes queued items until every queue is empty. Nodes are in topological order. */
  private async pump(): Promise<void> {
    let progressed = true
    while (progressed) {
      progressed = false
      for (const rt of this.order) {
        while (rt.queue.length > 0) {
          progressed = true
          const item = rt.queue.shift()!
          await this.process(rt, item)
        }
      }
    }
    this.scheduleProcessingTimers()
  }

  private async process(rt: NodeRuntime, item: Item): Promise<void> {
    const spec = rt.node.spec
    switch (item.t) {
      case 'batch': {
        rt.metrics.rowsIn += item.batch.rows.length
        if (rt.sink) { await rt.sink.write(item.batch); return }
        if (spec.kind === 'Collect') { this.env.onCollect?.(spec.schema, item.batch); return }
        const op = rt.operator!
        const state = rt.state!
        if (state.needsPrefetch) {
          if (op.prefetchState) await op.prefetchState(item.batch, item.input, requests => state.prefetch(requests))
          else await state.prefetch(this.stateRequests(rt, item.batch, item.input))
        }
        state.setTtlTime(Date.now())
        if (rt.rowAtATime && item.batch.rows.length > 1) {
          // Mini-batch off: every row is its own batch, so every row emits its own change.
          const { rows, kinds } = item.batch
          for (let i = 0; i < rows.length; i++) op.processBatch({ rows: [rows[i]!], kinds: kinds ? kinds.subarray(i, i + 1) : null }, item.input)
        } else {
          op.processBatch(item.batch, item.input)
        }
        // Incremental TTL cleanup: each batch sweeps three entries per row it brought. New keys arrive
        // at most one per row, so the sweep laps the state faster than it grows: with rate R and TTL T,
        // about 1.5·R·T entries stay live.
        if (rt.hasTtl) await state.cleanupExpired(3 * item.batch.rows.length + 64)
        // End of bundle: dirty state goes back to disk in one write batch.
        if (state.needsPrefetch) await state.flush()
        return
      }
      case 'wm': {
        if (item.wm <= rt.inputWatermarks[item.input]!) return
        rt.inputWatermarks[item.input] = item.wm
        const wm = Math.min(...rt.inputWatermarks)
        if (wm <= rt.watermark) return
        rt.watermark = wm
        if (rt.operator) {
          const op = rt.operator
          const state = rt.state!
          if (state.needsPrefetch) await state.prefetch(this.timerRequests(rt, rt.timers!.dueEventTimers(wm)))
          rt.timers!.advanceWatermark(wm, (ts: number, key: KeyRef, ns: Namespace) => {
            state.setCurrentKey(key)
            op.onTimer?.(ts, ns, 'event')
          })
          op.onWatermark?.(wm)
          if (state.needsPrefetch) await state.flush()
        }
        this.emitWatermark(rt, wm)
        return
      }
      case 'end': {
        rt.endedInputs++
        if (rt.endedInputs < rt.node.inputs.length) {
          rt.inputWatermarks[item.input] = -Infinity
          await this.process(rt, { t: 'wm', input: item.input, wm: Infinity })
          return
        }
        // Bounded input ended: processing-time windows still open fire now, then the operator finishes.
        if (rt.operator) await this.fireProcessingTimersOf(rt, Infinity)
        rt.operator?.endInput?.()
        if (rt.state?.needsPrefetch) await rt.state.sync()
        if (rt.sink) await rt.sink.finish()
        this.emitEnd(rt)
        return
      }
      default: assertNever(item)
    }
  }

  // ------------------------------------------------------------------ processing time

  private scheduleProcessingTimers(): void {
    let next = Infinity
    for (const rt of this.order) {
      const t = rt.timers?.nextProcessingTimer()
      if (t !== undefined && t !== null && t < next) next = t
    }
    clearTimeout(this.procTimer)
    if (next === Infinity) return
    this.procTimer = setTimeout(() => this.procWake?.(), Math.max(0, next - Date.now()))
  }

  private async fireProcessingTimers(): Promise<void> {
    const now = Date.now()
    for (const rt of this.order) await this.fireProcessingTimersOf(rt, now)
  }

  private async fireProcessingTimersOf(rt: NodeRuntime, now: number): Promise<void> {
    if (!rt.timers || !rt.operator) return
    const op = rt.operator
    const state = rt.state!
    if (state.needsPrefetch) {
      const due = rt.timers.dueProcessingTimers(now)
      if (due.length === 0) return
      await state.prefetch(this.timerRequests(rt, due))
    }
    rt.timers.advanceProcessingTime(now, (ts: number, key: KeyRef, ns: Namespace) => {
      state.setCurrentKey(key)
      op.onTimer?.(ts, ns, 'processing' as TimerDomain)
    })
    if (state.needsPrefetch) await state.flush()
  }

  /** What a batch will touch: the operator says, or else each row's key in namespace ''. */
  private stateRequests(rt: NodeRuntime, batch: Batch, input: number): PrefetchRequest[] {
    const requests: PrefetchRequest[] = []
    const op = rt.operator!
    if (op.stateRequests) {
      op.stateRequests(batch, input, (key, namespace) => { requests.push({ key, namespace }) })
      return requests
    }
    const ns = op.prefetchAllNamespaces ? undefined : ''
    for (const row of batch.rows) requests.push({ key: rt.ctx!.keyOf(row, input), namespace: ns })
    return requests
  }

  private timerRequests(rt: NodeRuntime, due: readonly { key: KeyRef; namespace: Namespace }[]): PrefetchRequest[] {
    const op = rt.operator!
    if (op.timerStateRequests) return due.flatMap(d => op.timerStateRequests!(d.key, d.namespace))
    if (!op.prefetchAllNamespaces) return due as PrefetchRequest[]
    return due.map(d => ({ key: d.key }))
  }

  // ------------------------------------------------------------------ main loop

  private async loop(): Promise<void> {
    // VALUES inputs produce everything at once.
    for (const rt of this.order) {
      const spec = rt.node.spec
      if (spec.kind !== 'Values') continue
      const rows = spec.rows.map(r => r.map(x => evalConstant(x)))
      if (rows.length) this.emit(rt, { rows, kinds: null })
      this.emitWatermark(rt, Infinity)
      this.emitEnd(rt)
    }
    await this.pump()

    type Pending = { src: SourceRuntime; result: SourceChunk | null } | { tick: true }
    const pending = new Map<SourceRuntime, Promise<Pending>>()
    const request = (src: SourceRuntime): void => {
      pending.set(src, src.reader.next().then(result => ({ src, result })))
    }
    for (const src of this.sources) request(src)
    while (pending.size > 0) {
      const tick = new Promise<Pending>(resolve => { this.procWake = () => resolve({ tick: true }) })
      const got = await Promise.race([...pending.values(), tick])
      this.procWake = undefined
      if ('tick' in got) {
        await this.fireProcessingTimers()
        await this.pump()
        continue
      }
      const { src, result } = got
      if (result === null) {
        pending.delete(src)
        // A bounded source that ran out ends with a final watermark so every window fires.
        // A cancelled or unbounded one does not: its windows are not complete.
        if (!this.signal.aborted && src.bounded) this.sourceWatermark(src, Infinity)
        this.emitEnd(src.rt)
        await this.pump()
        continue
      }
      this.onChunk(src, result)
      // Read ahead: the next chunk is produced while this one waits on state I/O in the pump.
      // Its rows are handed on only after this chunk has been processed, so order is unchanged.
      if (this.signal.aborted) {
        // Stop reading; what was read is processed below, and next() now returns null.
        await src.reader.close()
      }
      request(src)
      await this.pump()
    }
  }

  private onChunk(src: SourceRuntime, chunk: SourceChunk): void {
    const rows = chunk.rows
    src.recordsRead += rows.length
    if (src.wmExpr && rows.length > 0) {
      let max = src.splitMax[chunk.split]!
      const f = src.wmExpr
      for (let i = 0; i < rows.length; i++) {
        const v = f(rows[i]!)
        if (typeof v === 'number' && v > max) max = v
      }
      src.splitMax[chunk.split] = max
    }
    if (rows.length > 0) {
      const batch = src.calc ? src.calc({ rows, kinds: null }) : { rows, kinds: null }
      if (batch) {
        src.rowsOut += batch.rows.length
        this.emit(src.rt, batch)
      }
    }
    if (chunk.splitEnded) src.splitEnded[chunk.split] = true
    if (src.wmExpr) {
      // The watermark is the minimum over splits that are being read: started and not ended.
      // A split not yet started does not hold it back (as with lazily assigned file splits), so
      // rows of a later split that are older than the watermark are late.
      let wm = Infinity
      for (let s = 0; s < src.splitMax.length; s++) {
        if (src.splitEnded[s] || src.splitMax[s] === -Infinity) continue
        if (src.splitMax[s]! < wm) wm = src.splitMax[s]!
      }
      if (wm === Infinity) wm = Math.max(...src.splitMax)
      if (wm > src.emittedWatermark && wm !== Infinity) this.sourceWatermark(src, wm)
    }
  }

  private sourceWatermark(src: SourceRuntime, wm: number): void {
    if (wm <= src.emittedWatermark) return
    src.emittedWatermark = wm
    this.emitWatermark(src.rt, wm)
  }

  // ------------------------------------------------------------------ teardown

  private async close(): Promise<void> {
    const errors: unknown[] = []
    for (const src of this.sources) await src.reader.close().catch(e => errors.push(e))
    for (const rt of this.order) {
      await rt.operator?.close?.()?.catch?.((e: unknown) => errors.push(e))
      await rt.state?.close().catch(e => errors.push(e))
      if (rt.sink) await rt.sink.close().catch(e => errors.push(e))
    }
  }

  private async metrics(cancelled: boolean): Promise<JobMetrics> {
    const sourceRows: Record<string, number> = {}
    let read = 0, skipped = 0
    for (const s of this.sources) {
      sourceRows[s.spec.table] = (sourceRows[s.spec.table] ?? 0) + s.rowsOut
      read += s.recordsRead
      skipped += s.reader.metrics()['skippedRecords'] ?? 0
    }
    const sinkRows: Record<string, number> = {}
    const stateEntries: Record<string, number> = {}
    let late = 0
    for (const rt of this.order) {
      const spec = rt.node.spec
      if (spec.kind === 'Sink') sinkRows[spec.table] = (sinkRows[spec.table] ?? 0) + rt.metrics.rowsIn
      if (spec.kind === 'Collect') sinkRows['(select)'] = rt.metrics.rowsIn
      late += rt.metrics.lateRecordsDropped
      if (spec.kind === 'GroupAggregate' || spec.kind === 'WindowAggregate') stateEntries[rt.node.id] = rt.state!.stats().entries
    }
    let stateDiskBytes: number | undefined
    let stateStoredEntries: number | undefined
    for (const b of this.diskBackends) {
      await b.sync()
      stateDiskBytes = (stateDiskBytes ?? 0) + await b.diskBytes()
      stateStoredEntries = (stateStoredEntries ?? 0) + await b.countEntries({ stored: true })
    }
    return { sourceRows, sourceRecordsRead: read, sinkRows, lateRecordsDropped: late, skippedRecords: skipped, stateEntries, stateDiskBytes, stateStoredEntries, cancelled }
  }
}

const NO_KEY: KeyRef = makeKey([])

/** Where working state lives when 'state.dir' is not set: under the current directory. */
export const DEFAULT_STATE_DIR = '.weir/state'

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_')
}


/** The key function for an input edge: hash keys → their values; single → one constant key. */
function keySelector(exchange: Exchange, maxParallelism: number): (row: Row) => KeyRef {
  switch (exchange.kind) {
    case 'hash': {
      const keys = exchange.keys
      if (keys.length === 1) {
        const k = keys[0]!
        return row => makeKey([row[k]], maxParallelism)
      }
      return row => makeKey(keys.map(k => row[k]), maxParallelism)
    }
    case 'single': case 'forward': {
      const key = makeKey([], maxParallelism)
      return () => key
    }
    default: return assertNever(exchange)
  }
}

