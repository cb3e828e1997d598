// Runs a job graph. Every node runs as one or more subtasks ('parallelism.default' for keyed
// operators, each owning a contiguous key-group range); rows travel over channels — a hash exchange
// routes each row to the subtask owning its key group. Source readers feed batches through the
// subtasks in topological order; watermarks follow the data (per split, minimum over splits and over
// input channels) and fire event-time timers; a bounded source ends with a final watermark.
//
// Checkpoints are Chandy–Lamport barriers: the coordinator injects barrier n at every source (which
// records its read positions), subtasks with several input channels align (hold back channels that
// delivered the barrier until all have), then snapshot their state and forward the barrier. The
// slow part — compressing and uploading — runs in the background while processing goes on;
// checkpoint n is complete when its manifest is written, and only then do sinks commit its output.
import { rm, rmdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { assertNever, invariant } from '../common/assert.js'
import { WeirError } from '../common/errors.js'
import type { Field } from '../common/types.js'
import { safeFileName } from '../common/names.js'
import type { Batch, Row } from '../core/batch.js'
import type { JobGraph, PhysicalNode, SourceSpec, Exchange } from '../core/job-graph.js'
import type { Operator, OperatorContext, OperatorMetrics, TimerDomain } from '../core/operator.js'
import type { KeyRef, Namespace, PrefetchRequest } from '../core/keyed-state.js'
import { makeStagingDir, type SubtaskStateBackend } from '../state/backend.js'
import { stateBackendFor, stateObjects } from '../state/backends.js'
import type { StateConfig } from '../common/config/index.js'
import type { StateHandle } from '../state/handles.js'
import { makeKey, keyGroupRange, subtaskOf } from '../state/key-encoding.js'
import { TimerServiceImpl, type TimersSnapshot } from './timers.js'
import { BatchKeys } from './batch-keys.js'
import { compileCalc, compileScalar, evalConstant } from '../expr/index.js'
import { getConnector } from '../connectors/registry.js'
import type { SinkWriter, SourceReader, SourceChunk, SplitPosition } from '../connectors/api.js'
import { createOperator, operatorTraits } from '../operators/registry.js'
import { EventLoopYielder } from '../core/yield.js'
import type { CheckpointStorage } from '../checkpoint/storage/api.js'
import { enforceNotNull } from '../connectors/not-null-enforcer.js'
import { encodeObject, getObject, joinUri, putObject, type StoredObject } from '../checkpoint/objects.js'
import {
  MANIFEST_FORMAT, applyRetention, checkpointFolder, highestId, PrefixedStorage, savepointFolder, writeManifest,
  type CheckpointConfig, type CheckpointRef, type Manifest, type OperatorManifest, type SourceManifest, type SubtaskManifest,
} from './checkpoint.js'
import { operatorSignature, describeSignatureChange } from '../core/signature.js'
import { operatorFailure } from './operator-failure.js'
import type { FaultInjector } from './faults.js'

/** A change collected for a SELECT. */
export interface CollectedRow {
  readonly kind: number
  readonly row: Row
}

export interface ExecutionEnv {
  /** Where print sinks write. */
  readonly println: (line: string) => void
  /** Aborting cancels the job: sources stop reading, what was produced is flushed; no savepoint. */
  readonly signal?: AbortSignal
  /** Aborting stops the job with a savepoint (SIGTERM): a self-contained snapshot, sinks commit, then stop. */
  readonly stopWithSavepoint?: AbortSignal
  /** Called with each batch a SELECT produces (Collect). */
  readonly onCollect?: (schema: readonly Field[], batch: Batch) => void
  /** Checkpoint storage and schedule; without it no checkpoints or savepoints are taken. */
  readonly checkpoint?: CheckpointConfig
  /** Start from this checkpoint or savepoint instead of from scratch. */
  readonly restore?: CheckpointRef
  /** Progress lines (checkpoints completed, savepoints). */
  readonly log?: (line: string) => void
  /** Called when checkpoint or savepoint `id` is complete and its sinks have committed. */
  readonly onCheckpoint?: (id: number, location: string) => void
  /**
   * Count the entries disk backends store at the end (JobMetrics.stateStoredEntries): a scan of all
   * working state, seconds for millions of keys, so only tests and diagnostics ask for it.
   */
  readonly countStoredState?: boolean
  /** Called at the points of a checkpoint where a crash is worst (runtime/faults.ts); the crash tests kill the process there. */
  readonly faults?: FaultInjector
}

export interface JobMetrics {
  /** Rows each source produced (after pushed-down filters). */
  readonly sourceRows: Record<string, number>
  /** Rows read by sources before filters. */
  readonly sourceRecordsRead: number
  readonly sinkRows: Record<string, number>
  /** Of sinkRows, those the sinks made visible: committed by a checkpoint, or written by a sink without transactions. */
  readonly sinkCommittedRows: Record<string, number>
  readonly lateRecordsDropped: number
  readonly skippedRecords: number
  /** Live state entries per stateful operator at the end (summed over its subtasks). */
  readonly stateEntries: Record<string, number>
  /** Bytes of working state on disk at the end (undefined when the state backend keeps none there). */
  readonly stateDiskBytes?: number
  /** Entries stored on disk at the end, expired ones not yet swept included (only with ExecutionEnv.countStoredState; undefined when the state backend keeps none there). */
  readonly stateStoredEntries?: number
  /** Checkpoints completed by this run (the final one of a bounded job included). */
  readonly checkpointsCompleted: number
  /** Where the savepoint went, when the job stopped with one. */
  readonly savepoint?: string
  /** The restored checkpoint was the final one of a finished job: only its sink commits were completed. */
  readonly alreadyFinished?: boolean
  /** The checkpoint or savepoint the job started from. */
  readonly restoredFrom?: { readonly kind: 'checkpoint' | 'savepoint'; readonly id: number; readonly location: string }
  readonly cancelled: boolean
}

interface Barrier {
  readonly id: number
  readonly savepoint: boolean
}

type Item =
  | { readonly t: 'batch'; readonly ch: number; readonly batch: Batch }
  | { readonly t: 'wm'; readonly ch: number; readonly wm: number }
  | { readonly t: 'end'; readonly ch: number }
  | { readonly t: 'barrier'; readonly ch: number; readonly barrier: Barrier }

/** Where a subtask's output goes for one consumer input: one target, or routed by key group. */
interface OutEdge {
  readonly targets: readonly Task[]
  /** The channel this producer has at each target. */
  readonly channels: readonly number[]
  /** Target index of a row (hash exchange into several subtasks), or null: every row to targets[0]. */
  readonly route: ((row: Row) => number) | null
}

/** One subtask of a node. */
interface Task {
  readonly node: PhysicalNode
  readonly index: number
  readonly parallelism: number
  readonly range: { readonly start: number; readonly end: number }
  readonly outputs: OutEdge[]
  readonly queue: Item[]
  /** Per input channel: its logical input, watermark, whether it ended, whether it delivered the pending barrier. */
  readonly chInput: number[]
  readonly chWatermark: number[]
  readonly chEnded: boolean[]
  readonly chBarrier: boolean[]
  endedChannels: number
  /** Barrier being aligned, and the items of channels that already delivered it. */
  pendingBarrier: Barrier | null
  held: Item[]
  watermark: number
  finished: boolean
  operator?: Operator
  ctx?: OperatorContext
  timers?: TimerServiceImpl
  state?: SubtaskStateBackend<StateHandle>
  sink?: SinkWriter
  /** What the operator declared (OperatorTraits), unpacked for the per-batch path. */
  /** It keeps keyed state that checkpoints must capture. */
  readonly stateful: boolean
  /** Expired state is swept after each batch. */
  readonly hasTtl: boolean
  /** Every row is processed as its own batch. */
  readonly rowAtATime: boolean
  /** The timer domains it registers in: only these are fired. */
  readonly eventTimers: boolean
  readonly processingTimers: boolean
  readonly metrics: OperatorMetrics
  /**
   * The batch whose state is being read ahead: the next state access of this subtask is processing
   * it (anything else waits for the read and drops it). See `readAhead`.
   */
  ahead: { readonly item: Item; readonly loaded: Promise<void> } | null
  /** Keys of the batches being prefetched and processed (ctx.keysOf). */
  batchKeys: BatchKeys | null
  /** Request objects for a batch's rows, reused from batch to batch (a prefetch reads its requests before it returns). */
  readonly requests: { key: KeyRef; namespace: Namespace | undefined }[]
}

interface SourceRuntime {
  readonly task: Task
  readonly spec: SourceSpec
  reader: SourceReader
  readonly calc: ((b: Batch) => Batch | null) | null
  readonly wmExpr: ((row: Row) => unknown) | null
  splitMax: number[]
  splitEnded: boolean[]
  /** Per split, the position after the last chunk handed on (what a checkpoint records). */
  positions: (SplitPosition | null)[]
  emittedWatermark: number
  rowsOut: number
  recordsRead: number
  readonly bounded: boolean
}

/** A checkpoint whose barrier is travelling or whose files are uploading. */
interface Inflight {
  readonly barrier: Barrier
  /** Where its objects go: the job folder (checkpoints) or the savepoint's own folder. */
  readonly base: CheckpointStorage
  /** Prefix of its own objects within base ('chk-7/' or ''). */
  readonly prefix: string
  readonly location: string
  readonly expected: number
  acked: number
  readonly operators: Map<string, SubtaskManifest[]>
  readonly sources: Record<string, SourceManifest>
  readonly sinks: Record<string, unknown>
  readonly uploads: Promise<void>[]
  done?: Promise<void>
}

type Wake = { readonly t: 'tick' } | { readonly t: 'trigger' } | { readonly t: 'completed' } | { readonly t: 'savepoint' }

/** The checkpoint being restored could not be (a file missing or damaged); nothing ran. */
export class RestoreFailed extends Error {
  constructor(readonly error: WeirError) {
    super(error.message)
    this.name = 'RestoreFailed'
  }
}

/** Runs `graph` to completion (bounded sources) or until `env.signal` aborts. */
export async function executeJob(graph: JobGraph, env: ExecutionEnv): Promise<JobMetrics> {
  const job = new JobExecution(graph, env)
  return job.run()
}

class JobExecution {
  private readonly tasksByNode = new Map<string, Task[]>()
  private readonly order: Task[] = []
  private readonly sources: SourceRuntime[] = []
  private readonly internalAbort = new AbortController()
  private readonly signal: AbortSignal
  private procTimer: NodeJS.Timeout | undefined
  private triggerTimer: NodeJS.Timeout | undefined
  private wake: (() => void) | undefined
  private readonly wakes: Wake[] = []
  private readonly yielder = new EventLoopYielder(10)
  private readonly batchSize: number
  private readonly maxParallelism: number
  private readonly stateSettings: StateConfig
  /** The job's folder in 'state.dir', where disk backends keep working state. */
  private readonly stateDir: string
  private readonly exactlyOnce: boolean
  private nextCheckpointId = 1
  private inflight: Inflight | null = null
  private checkpointsCompleted = 0
  private savepointLocation: string | undefined
  /** Where backends stage files (SubtaskStateOptions.tmpDir), once one asked. */
  private stagingDir: Promise<string> | undefined
  /** A pump held a batch back for reading ahead (see pump). */
  private holding = false

  constructor(private readonly graph: JobGraph, private readonly env: ExecutionEnv) {
    this.signal = env.signal ? AbortSignal.any([env.signal, this.internalAbort.signal]) : this.internalAbort.signal
    this.batchSize = graph.config.batchSize
    this.maxParallelism = graph.config.maxParallelism
    this.exactlyOnce = (env.checkpoint?.intervalMs ?? 0) > 0
    this.stateSettings = graph.config.state
    this.stateDir = join(resolve(this.stateSettings.dir), safeFileName(graph.name))
    const defaultParallelism = graph.config.parallelism
    if (defaultParallelism > this.maxParallelism) {
      throw WeirError.plan(`'parallelism.default' = ${defaultParallelism} exceeds 'pipeline.max-parallelism' = ${this.maxParallelism}`, {
        help: 'each subtask owns at least one key group; lower the parallelism or raise the max-parallelism',
      })
    }
    for (const node of graph.nodes) {
      const parallelism = this.parallelismOf(node, defaultParallelism)
      const traits = operatorTraits(node.spec, graph.config)
      const tasks: Task[] = []
      for (let i = 0; i < parallelism; i++) {
        const task: Task = {
          node, index: i, parallelism, range: keyGroupRange(i, parallelism, this.maxParallelism),
          outputs: [], queue: [], chInput: [], chWatermark: [], chEnded: [], chBarrier: [], endedChannels: 0,
          pendingBarrier: null, held: [], watermark: -Infinity, finished: false,
          stateful: traits.keyedState, hasTtl: traits.ttlSweep, rowAtATime: traits.input === 'row',
          eventTimers: traits.timers.includes('event'), processingTimers: traits.timers.includes('processing'),
          metrics: { lateRecordsDropped: 0, rowsIn: 0, rowsOut: 0 },
          ahead: null, batchKeys: null, requests: [],
        }
        tasks.push(task)
        this.order.push(task)
      }
      this.tasksByNode.set(node.id, tasks)
    }
    for (const node of graph.nodes) this.connect(node)
  }

  /** Sources, VALUES and sinks run as one subtask; keyed operators as many as 'parallelism.default'; forward chains follow their input. */
  private parallelismOf(node: PhysicalNode, p: number): number {
    switch (node.spec.kind) {
      case 'Source': case 'Values': case 'Sink': case 'Collect': return 1
      default: break
    }
    if (node.inputs.some(e => e.exchange.kind === 'single')) return 1
    if (node.inputs.some(e => e.exchange.kind === 'hash')) return p
    const ps = node.inputs.map(e => this.tasksByNode.get(e.node)?.length ?? 1)
    return ps.every(x => x === ps[0]) ? ps[0] ?? 1 : 1
  }

  /** Creates the channels from every producer subtask into the subtasks of `node`. */
  private connect(node: PhysicalNode): void {
    const consumers = this.tasksByNode.get(node.id)!
    node.inputs.forEach((edge, input) => {
      const producers = this.tasksByNode.get(edge.node)
      invariant(producers, `unknown input ${edge.node}`)
      const addChannel = (t: Task): number => {
        t.chInput.push(input)
        t.chWatermark.push(-Infinity)
        t.chEnded.push(false)
        t.chBarrier.push(false)
        return t.chInput.length - 1
      }
      for (const producer of producers) {
        if (edge.exchange.kind === 'hash' && consumers.length > 1) {
          const key = keySelector(edge.exchange, this.maxParallelism)
          const n = consumers.length, maxP = this.maxParallelism
          producer.outputs.push({ targets: consumers, channels: consumers.map(addChannel), route: row => subtaskOf(key(row).group, n, maxP) })
        } else if (producers.length === consumers.length) {
          const target = consumers[producer.index]!
          producer.outputs.push({ targets: [target], channels: [addChannel(target)], route: null })
        } else {
          invariant(consumers.length === 1, `cannot connect ${producers.length} subtasks of ${edge.node} to ${consumers.length} of ${node.id} with a ${edge.exchange.kind} exchange`)
          producer.outputs.push({ targets: consumers, channels: [addChannel(consumers[0]!)], route: null })
        }
      }
    })
  }

  async run(): Promise<JobMetrics> {
    try {
      if (this.env.restore?.manifest.finished) return await this.finishedAlready()
      if (this.env.restore) this.checkCompatible(this.env.restore.manifest)
      if (this.env.checkpoint) {
        // Ids continue after every id the job's folders have seen, so 'latest' is always this run's.
        const seen = Math.max(await highestId(this.env.checkpoint.storage), await highestId(this.env.checkpoint.savepointStorage), this.env.restore?.manifest.id ?? 0)
        this.nextCheckpointId = seen + 1
      }
      try {
        await this.open()
      } catch (e) {
        // Nothing ran and no sink committed yet (sinks open last): an older checkpoint may do.
        if (this.env.restore && e instanceof WeirError && e.kind === 'checkpoint') throw new RestoreFailed(e)
        throw e
      }
      await this.loop()
      const cancelled = this.signal.aborted || this.savepointLocation !== undefined
      if (!cancelled && this.env.checkpoint) await this.finalCheckpoint()
      return await this.metrics(cancelled)
    } catch (e) {
      this.internalAbort.abort()
      throw e
    } finally {
      clearTimeout(this.procTimer)
      clearTimeout(this.triggerTimer)
      // Uploads still running (a failure above) must not outlive the job's folders.
      await this.inflight?.done?.catch(() => undefined)
      await this.close()
      // Working state is not durable: checkpoints are. Its folders go.
      let destroyed = false
      for (const task of this.order) {
        if (task.state?.destroy === undefined) continue
        destroyed = true
        await task.state.destroy().catch(() => undefined)
      }
      const staging = await this.stagingDir?.catch(() => undefined)
      if (staging !== undefined) await rm(staging, { recursive: true, force: true }).catch(() => undefined)
      // The job's folder goes too once empty (rmdir refuses a folder another run still uses).
      if (destroyed) await rmdir(this.stateDir).catch(() => undefined)
    }
  }

  // ------------------------------------------------------------------ setup

  /** Refuses a checkpoint whose operators do not fit this job's, naming what changed. */
  private checkCompatible(manifest: Manifest): void {
    const where = this.env.restore!.location
    if (manifest.maxParallelism !== this.maxParallelism) {
      throw WeirError.checkpoint(`checkpoint '${where}' was taken with 'pipeline.max-parallelism' = ${manifest.maxParallelism}, but this job has ${this.maxParallelism}`, {
        help: 'the number of key groups cannot change; set it back, or start over with --fresh',
      })
    }
    const stateful = this.graph.nodes.filter(n => this.tasksByNode.get(n.id)![0]!.stateful)
    for (const node of stateful) {
      const old = manifest.operators[node.id]
      if (old === undefined) {
        const had = Object.entries(manifest.operators).map(([id]) => id)
        throw WeirError.checkpoint(`the job no longer matches checkpoint '${where}': operator ${node.id} has state but is not in the checkpoint` +
          (had.length ? ` (the checkpoint has ${had.join(', ')})` : ' (the checkpoint has no stateful operators)'), {
          help: 'the query changed shape since the checkpoint was taken; start over with --fresh',
        })
      }
      const change = describeSignatureChange(old.signature, operatorSignature(node))
      if (change !== null) {
        throw WeirError.checkpoint(`the job no longer matches checkpoint '${where}': operator ${node.id} (${node.spec.kind}) changed: ${change}`, {
          help: 'its state cannot be read by the new query; undo the change, or start over with --fresh',
        })
      }
    }
    for (const id of Object.keys(manifest.operators)) {
      if (!stateful.some(n => n.id === id)) {
        throw WeirError.checkpoint(`the job no longer matches checkpoint '${where}': its operator ${id} (${manifest.operators[id]!.kind}) is not in the job`, {
          help: 'the query changed shape since the checkpoint was taken; start over with --fresh',
        })
      }
    }
    for (const node of this.graph.nodes) {
      if (node.spec.kind !== 'Source') continue
      const old = manifest.sources[node.id]
      if (old !== undefined && old.table !== node.spec.table) {
        throw WeirError.checkpoint(`the job no longer matches checkpoint '${where}': source ${node.id} read table '${old.table}', now '${node.spec.table}'`, {
          help: 'start over with --fresh',
        })
      }
    }
  }

  private async open(): Promise<void> {
    const restore = this.env.restore
    for (const task of this.order) {
      const spec = task.node.spec
      switch (spec.kind) {
        case 'Source': {
          const factory = getConnector(spec.connector)
          invariant(factory.source, `connector ${spec.connector} has no source`)
          const old = restore?.manifest.sources[task.node.id]
          const reader = await factory.source.create({
            table: spec.table, options: spec.options, schema: spec.physicalSchema, signal: this.signal, batchSize: this.batchSize,
            restoredPositions: old?.positions,
          })
          const identity = !spec.filter && spec.projection.length === spec.physicalSchema.length && spec.projection.every((r, i) => r.kind === 'Input' && r.index === i)
          const splits = reader.splitCount
          const sameSplits = old !== undefined && old.splitMax.length === splits
          this.sources.push({
            task, spec, reader,
            calc: identity ? null : compileCalc(spec.projection, spec.filter),
            wmExpr: spec.watermark ? compileScalar(spec.watermark.expr) : null,
            splitMax: Array.from({ length: splits }, (_, i) => (sameSplits ? old.splitMax[i] ?? -Infinity : -Infinity)),
            splitEnded: Array.from({ length: splits }, () => false),
            positions: Array.from({ length: splits }, (_, i) => (old?.positions[i] ?? null)),
            emittedWatermark: old?.watermark ?? -Infinity, rowsOut: 0, recordsRead: 0,
            bounded: factory.source.bounded(spec.options),
          })
          break
        }
        case 'Sink': {
          const factory = getConnector(spec.connector)
          invariant(factory.sink, `connector ${spec.connector} has no sink`)
          task.sink = enforceNotNull(await factory.sink.create({
            table: spec.table, options: spec.options, schema: spec.schema, changelog: spec.inputChangelog, primaryKey: spec.primaryKey, println: this.env.println,
            jobName: this.graph.name, operatorId: task.node.id, exactlyOnce: this.exactlyOnce,
            restoredCommit: restore?.manifest.sinks[task.node.id],
          }), spec, this.graph.config.sinkNotNull)
          break
        }
        case 'Values': case 'Collect': break
        // Every other kind is an operator's (operators/registry.ts).
        default: await this.openOperator(task)
      }
    }
  }

  private async openOperator(task: Task): Promise<void> {
    const node = task.node
    const keyFns = node.inputs.map(edge => keySelector(edge.exchange, this.maxParallelism))
    const batchKeys = new BatchKeys(keyFns)
    task.batchKeys = batchKeys
    const old = this.env.restore?.manifest.operators[node.id]
    const state = await this.createStateBackend(task, old)
    // Closed and deleted with the job, whatever fails from here on.
    task.state = state
    const domains = [...(task.eventTimers ? ['event' as const] : []), ...(task.processingTimers ? ['processing' as const] : [])]
    const timers = new TimerServiceImpl(() => state.getCurrentKey() ?? NO_KEY, { maxParallelism: this.maxParallelism, domains, operatorId: node.id })
    const operator = createOperator(node.spec)
    const ctx: OperatorContext = {
      operatorId: node.id,
      state,
      timers,
      metrics: task.metrics,
      config: this.graph.config,
      output: { emit: (batch: Batch) => this.emit(task, batch) },
      keysOf: (rows: readonly Row[], input = 0) => batchKeys.of(rows, input),
    }
    task.operator = operator
    task.ctx = ctx
    task.timers = timers
    await operator.open(ctx)
    if (old !== undefined) await this.restoreTimers(task, old)
  }

  /** The keyed-state backend for one subtask, per 'state.backend', filled from the checkpoint being restored. */
  private async createStateBackend(task: Task, old: OperatorManifest | undefined): Promise<SubtaskStateBackend<StateHandle>> {
    const settings = this.stateSettings
    const factory = stateBackendFor(settings.backend, task.stateful)
    const overlapping = old?.subtasks.filter(s => s.keyGroups.start <= task.range.end && s.keyGroups.end >= task.range.start) ?? []
    for (const s of overlapping) if (s.state.backend !== factory.name) throw this.backendChanged(s.state.backend, settings.backend)
    const restore = overlapping.length > 0 ? { handles: overlapping.map(s => s.state), storage: this.env.restore!.base } : undefined
    return factory.create({
      jobName: this.graph.name, operatorId: task.node.id, subtask: task.index, parallelism: task.parallelism, maxParallelism: this.maxParallelism,
      keyGroupRange: task.range, jobDir: this.stateDir, cacheBytes: settings.cacheBytes, writeBufferBytes: settings.writeBufferBytes, tmpDir: this.tmpDir,
    }, restore)
  }

  private backendChanged(was: string, now: string): WeirError {
    return WeirError.checkpoint(`checkpoint '${this.env.restore!.location}' holds ${was} state, but 'state.backend' is now '${now}'`, {
      help: `set 'state.backend' = '${was}' to restore it (a savepoint taken on either backend restores onto the same backend)`,
    })
  }

  private async restoreTimers(task: Task, old: OperatorManifest): Promise<void> {
    let watermark = Infinity
    let any = false
    for (const s of old.subtasks) {
      if (s.keyGroups.start > task.range.end || s.keyGroups.end < task.range.start) continue
      const data = await getObject<SubtaskData>(this.env.restore!.base, s.data)
      task.timers!.restore(data.timers, task.range)
      watermark = Math.min(watermark, s.watermark ?? -Infinity)
      any = true
    }
    if (!any || watermark === -Infinity) return
    // The watermark comes back with the state: rows that were late before the checkpoint stay late.
    // Every timer at or before it had fired before the snapshot, so none fires here.
    task.watermark = watermark
    task.chWatermark.fill(watermark)
    task.timers!.advanceWatermark(watermark, () => invariant(false, 'a restored timer was already due'))
  }

  /** Where backends stage local snapshots and restores: beside the working state, so files hard-link instead of copying. */
  private readonly tmpDir = (): Promise<string> => (this.stagingDir ??= makeStagingDir(this.stateDir))

  /**
   * The job finished at the restored checkpoint: commit what it promised (a crash may have come
   * between its manifest and the commit), and run nothing.
   */
  private async finishedAlready(): Promise<JobMetrics> {
    const manifest = this.env.restore!.manifest
    for (const task of this.order) {
      const spec = task.node.spec
      if (spec.kind !== 'Sink') continue
      const sink = await getConnector(spec.connector).sink!.create({
        table: spec.table, options: spec.options, schema: spec.schema, changelog: spec.inputChangelog, primaryKey: spec.primaryKey, println: this.env.println,
        jobName: this.graph.name, operatorId: task.node.id, exactlyOnce: true, restoredCommit: manifest.sinks[task.node.id],
      })
      await sink.close()
    }
    return {
      sourceRows: {}, sourceRecordsRead: 0, sinkRows: {}, sinkCommittedRows: {}, lateRecordsDropped: 0, skippedRecords: 0, stateEntries: {},
      checkpointsCompleted: 0, alreadyFinished: true, restoredFrom: this.restoredFrom(), cancelled: false,
    }
  }

  // ------------------------------------------------------------------ data flow

  private emit(task: Task, batch: Batch): void {
    task.metrics.rowsOut += batch.rows.length
    for (const out of task.outputs) {
      if (out.route === null) {
        out.targets[0]!.queue.push({ t: 'batch', ch: out.channels[0]!, batch })
        continue
      }
      const n = out.targets.length
      const rows: Row[][] = Array.from({ length: n }, () => [])
      const kinds: number[][] | null = batch.kinds ? Array.from({ length: n }, () => []) : null
      const route = out.route
      for (let i = 0; i < batch.rows.length; i++) {
        const t = route(batch.rows[i]!)
        rows[t]!.push(batch.rows[i]!)
        if (kinds) kinds[t]!.push(batch.kinds![i]!)
      }
      for (let t = 0; t < n; t++) {
        if (rows[t]!.length === 0) continue
        out.targets[t]!.queue.push({ t: 'batch', ch: out.channels[t]!, batch: { rows: rows[t]!, kinds: kinds ? Uint8Array.from(kinds[t]!) : null } })
      }
    }
  }

  /** Sends a watermark, end or barrier to every channel this subtask feeds. */
  private broadcast(task: Task, make: (ch: number) => Item): void {
    for (const out of task.outputs) {
      for (let t = 0; t < out.targets.length; t++) out.targets[t]!.queue.push(make(out.channels[t]!))
    }
  }

  /**
   * Runs every queued item, subtask by subtask in topological order. With `hold` (more source input
   * is on its way), a subtask whose only item is a batch it can read ahead for keeps it and starts
   * reading its state: when the next batch arrives, that read has overlapped the source, and the next
   * batch's read overlaps this one's processing. The loop runs held batches as soon as no input is
   * ready at once (`holding`).
   */
  private async pump(hold = false): Promise<void> {
    this.holding = false
    let progressed = true
    while (progressed) {
      progressed = false
      for (const task of this.order) {
        while (task.queue.length > 0) {
          if (hold && task.queue.length === 1 && (task.ahead?.item === task.queue[0] || this.readAhead(task, task.queue[0]!))) {
            this.holding = true
            break
          }
          progressed = true
          const item = task.queue.shift()!
          try {
            await this.process(task, item)
          } catch (e) {
            throw operatorFailure(e, task, this.graph, item.t === 'batch' ? { batch: item.batch, input: task.chInput[item.ch]! } : undefined)
          }
        }
      }
    }
    this.scheduleProcessingTimers()
  }

  private async process(task: Task, item: Item): Promise<void> {
    if (task.ahead !== null && task.ahead.item !== item) await this.dropAhead(task)
    // Alignment: a channel that delivered the pending barrier is held back until every channel has.
    if (task.pendingBarrier !== null && task.chBarrier[item.ch]) {
      task.held.push(item)
      return
    }
    const spec = task.node.spec
    switch (item.t) {
      case 'batch': {
        const input = task.chInput[item.ch]!
        task.metrics.rowsIn += item.batch.rows.length
        if (task.sink) { await task.sink.write(item.batch); return }
        if (spec.kind === 'Collect') { this.env.onCollect?.(spec.schema, item.batch); return }
        const op = task.operator!
        const state = task.state!
        if (state.needsPrefetch) {
          if (task.ahead !== null) {
            const { loaded } = task.ahead
            task.ahead = null
            await loaded
          } else {
            await this.prefetchBatch(task, item.batch, input)
          }
          // Pipelining: the next batch's state is read while this one is processed and flushed.
          const next = task.queue[0]
          if (next !== undefined && this.readAhead(task, next)) await new Promise<void>(resolve => setImmediate(resolve))
        }
        state.setTtlTime(Date.now())
        if (task.rowAtATime && item.batch.rows.length > 1) {
          // Mini-batch off: every row is its own batch, so every row emits its own change.
          const { rows, kinds } = item.batch
          for (let i = 0; i < rows.length; i++) op.processBatch({ rows: [rows[i]!], kinds: kinds ? kinds.subarray(i, i + 1) : null }, input)
        } else {
          op.processBatch(item.batch, input)
        }
        // Incremental TTL cleanup: each batch sweeps three entries per row it brought. New keys arrive
        // at most one per row, so the sweep laps the state faster than it grows: with rate R and TTL T,
        // about 1.5·R·T entries stay live.
        if (task.hasTtl) await state.cleanupExpired(3 * item.batch.rows.length + 64)
        task.batchKeys!.release(item.batch.rows)
        // End of bundle: dirty state goes back to disk in one write batch.
        if (state.needsPrefetch) await state.flush()
        return
      }
      case 'wm': {
        if (item.wm <= task.chWatermark[item.ch]!) return
        task.chWatermark[item.ch] = item.wm
        await this.advanceWatermark(task)
        return
      }
      case 'end': {
        task.chEnded[item.ch] = true
        task.endedChannels++
        if (task.endedChannels < task.chInput.length) {
          task.chWatermark[item.ch] = Infinity
          await this.advanceWatermark(task)
          // An ended channel will never deliver the barrier being aligned.
          if (task.pendingBarrier !== null) await this.maybeAligned(task)
          return
        }
        // Bounded input ended: processing-time windows still open fire now, then the operator finishes.
        // A cancelled job's input did not end: its open windows are not complete, and only timers
        // whose time has come fire (what a stop with a savepoint keeps in the savepoint instead).
        if (task.operator) await this.fireProcessingTimersOf(task, this.signal.aborted ? Date.now() : Infinity)
        task.operator?.endInput?.()
        if (task.state?.needsPrefetch) await task.state.sync()
        if (task.sink) await task.sink.finish()
        task.finished = true
        this.broadcast(task, ch => ({ t: 'end', ch }))
        return
      }
      case 'barrier': {
        task.chBarrier[item.ch] = true
        task.pendingBarrier = item.barrier
        await this.maybeAligned(task)
        return
      }
      default: assertNever(item)
    }
  }

  private prefetchBatch(task: Task, batch: Batch, input: number): Promise<void> {
    const op = task.operator!
    const state = task.state!
    if (op.prefetchState) return op.prefetchState(batch, input, requests => state.prefetch(requests))
    return state.prefetch(this.stateRequests(task, batch, input))
  }

  /**
   * Starts reading the state `item` (a batch queued next) will touch, while the subtask goes on
   * with what comes before it: a disk backend reads on its threads while this one processes the batch
   * before and builds its write batch. One batch ahead at most, because a backend keeps what a
   * prefetch loaded resident only until the flush after the next (core/keyed-state.ts). Only for the plain
   * path: one flush per batch (no TTL sweep, which flushes too) and requests known up front (no
   * multi-round prefetchState). True when reads were started.
   */
  private readAhead(task: Task, item: Item): boolean {
    if (task.ahead !== null || item.t !== 'batch' || !task.state?.needsPrefetch || !task.operator || task.operator.prefetchState || task.hasTtl) return false
    // A batch held back for barrier alignment is not the next one processed.
    if (task.pendingBarrier !== null && task.chBarrier[item.ch]) return false
    const loaded = this.prefetchBatch(task, item.batch, task.chInput[item.ch]!)
    loaded.catch(() => undefined) // awaited when the batch is processed, or dropped
    task.ahead = { item, loaded }
    return true
  }

  /** Something else touches the state first: wait for the read ahead, and let the batch prefetch again in its turn. */
  private async dropAhead(task: Task): Promise<void> {
    const ahead = task.ahead
    if (ahead === null) return
    task.ahead = null
    await ahead.loaded
  }

  private async advanceWatermark(task: Task): Promise<void> {
    let wm = Infinity
    for (const w of task.chWatermark) if (w < wm) wm = w
    if (wm <= task.watermark) return
    task.watermark = wm
    if (task.operator) {
      const op = task.operator
      const state = task.state!
      if (task.eventTimers) {
        if (state.needsPrefetch) await state.prefetch(this.timerRequests(task, task.timers!.dueEventTimers(wm)))
        task.timers!.advanceWatermark(wm, (ts: number, key: KeyRef, ns: Namespace) => {
          state.setCurrentKey(key)
          op.onTimer?.(ts, ns, 'event')
        })
      } else {
        // No event timers: only the operator's clock (currentWatermark) moves.
        task.timers!.advanceWatermark(wm, NO_TIMER_DUE)
      }
      op.onWatermark?.(wm)
      if (state.needsPrefetch) await state.flush()
    }
    this.broadcast(task, ch => ({ t: 'wm', ch, wm }))
  }

  /** Once every channel delivered the barrier (or ended): snapshot, forward it, release held items. */
  private async maybeAligned(task: Task): Promise<void> {
    const barrier = task.pendingBarrier!
    for (let ch = 0; ch < task.chInput.length; ch++) if (!task.chBarrier[ch] && !task.chEnded[ch]) return
    task.pendingBarrier = null
    task.chBarrier.fill(false)
    await this.snapshotTask(task, barrier)
    this.broadcast(task, ch => ({ t: 'barrier', ch, barrier }))
    if (task.held.length > 0) {
      // Not unshift(...held): spread arguments overflow the stack past ~100,000 items.
      const queued = task.held.concat(task.queue)
      task.queue.length = 0
      for (const item of queued) task.queue.push(item)
      task.held = []
    }
  }

  // ------------------------------------------------------------------ processing time

  private scheduleProcessingTimers(): void {
    let next = Infinity
    for (const task of this.order) {
      if (!task.processingTimers) continue
      const t = task.timers?.nextProcessingTimer()
      if (t !== undefined && t !== null && t < next) next = t
    }
    clearTimeout(this.procTimer)
    if (next === Infinity) return
    this.procTimer = setTimeout(() => this.post({ t: 'tick' }), Math.max(0, next - Date.now()))
  }

  private async fireProcessingTimers(): Promise<void> {
    const now = Date.now()
    for (const task of this.order) await this.fireProcessingTimersOf(task, now).catch(e => { throw operatorFailure(e, task, this.graph) })
  }

  private async fireProcessingTimersOf(task: Task, now: number): Promise<void> {
    if (!task.processingTimers || !task.timers || !task.operator) return
    await this.dropAhead(task)
    const op = task.operator
    const state = task.state!
    if (state.needsPrefetch) {
      const due = task.timers.dueProcessingTimers(now)
      if (due.length === 0) return
      await state.prefetch(this.timerRequests(task, due))
    }
    task.timers.advanceProcessingTime(now, (ts: number, key: KeyRef, ns: Namespace) => {
      state.setCurrentKey(key)
      op.onTimer?.(ts, ns, 'processing' as TimerDomain)
    })
    if (state.needsPrefetch) await state.flush()
  }

  /** What a batch will touch: the operator says, or else each row's key in namespace ''. */
  private stateRequests(task: Task, batch: Batch, input: number): PrefetchRequest[] {
    const requests: PrefetchRequest[] = []
    const op = task.operator!
    if (op.stateRequests) {
      op.stateRequests(batch, input, (key, namespace) => { requests.push({ key, namespace }) })
      return requests
    }
    const ns = op.prefetchAllNamespaces ? undefined : ''
    const keys = task.ctx!.keysOf(batch.rows, input)
    const reused = task.requests
    for (let i = 0; i < keys.length; i++) {
      const r = reused[i]
      if (r === undefined) reused.push({ key: keys[i]!, namespace: ns })
      else { r.key = keys[i]!; r.namespace = ns }
    }
    reused.length = keys.length
    return reused
  }

  private timerRequests(task: Task, due: readonly { key: KeyRef; namespace: Namespace }[]): PrefetchRequest[] {
    const op = task.operator!
    if (op.timerStateRequests) return due.flatMap(d => op.timerStateRequests!(d.key, d.namespace))
    if (!op.prefetchAllNamespaces) return due as PrefetchRequest[]
    return due.map(d => ({ key: d.key }))
  }

  // ------------------------------------------------------------------ main loop

  /** Wakes the main loop for a timer, a checkpoint trigger or completion, or a savepoint request. */
  private post(w: Wake): void {
    // Queued, then the loop is nudged: a wake-up that loses a race to a source chunk is not lost.
    this.wakes.push(w)
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }

  private async loop(): Promise<void> {
    // VALUES inputs produce everything at once (after a restore, that happened before the checkpoint).
    for (const task of this.order) {
      const spec = task.node.spec
      if (spec.kind !== 'Values') continue
      const rows = this.env.restore ? [] : spec.rows.map(r => r.map(x => evalConstant(x)))
      if (rows.length) this.emit(task, { rows, kinds: null })
      this.broadcast(task, ch => ({ t: 'wm', ch, wm: Infinity }))
      this.broadcast(task, ch => ({ t: 'end', ch }))
      task.finished = true
    }
    // A restored source resumes its watermark, so rows late before the checkpoint stay late.
    for (const src of this.sources) {
      if (src.emittedWatermark > -Infinity) this.broadcast(src.task, ch => ({ t: 'wm', ch, wm: src.emittedWatermark }))
    }
    await this.pump()

    const savepointRequested = (): void => this.post({ t: 'savepoint' })
    this.env.stopWithSavepoint?.addEventListener('abort', savepointRequested, { once: true })
    if (this.env.stopWithSavepoint?.aborted) this.post({ t: 'savepoint' })
    this.scheduleCheckpoint()

    type Pending = { src: SourceRuntime; result: SourceChunk | null }
    const pending = new Map<SourceRuntime, Promise<Pending>>()
    const request = (src: SourceRuntime): void => {
      pending.set(src, src.reader.next().then(result => ({ src, result }), e => { throw operatorFailure(e, src.task, this.graph) }))
    }
    for (const src of this.sources) request(src)
    try {
      while (pending.size > 0) {
        const queued = this.wakes.shift()
        if (queued !== undefined) {
          if (await this.onWake(queued)) break
          continue
        }
        // Held batches wait for the next chunk only if it is ready at once: never for slow input.
        const immediate = this.holding ? new Promise<null>(resolve => setImmediate(() => resolve(null))) : null
        const got = await Promise.race([...pending.values(), new Promise<null>(resolve => { this.wake = () => resolve(null) }), ...(immediate ? [immediate] : [])])
        this.wake = undefined
        if (got === null) {
          if (this.holding) await this.pump()
          continue
        }
        const { src, result } = got
        if (result === null) {
          pending.delete(src)
          // A bounded source that ran out ends with a final watermark so every window fires.
          // A cancelled or unbounded one does not: its windows are not complete.
          if (!this.signal.aborted && src.bounded) this.sourceWatermark(src, Infinity)
          src.task.finished = true
          this.broadcast(src.task, ch => ({ t: 'end', ch }))
          await this.pump()
          continue
        }
        try {
          this.onChunk(src, result)
        } catch (e) {
          throw operatorFailure(e, src.task, this.graph, { batch: { rows: result.rows, kinds: null }, input: 0 })
        }
        // Read ahead: the next chunk is produced while this one waits on state I/O in the pump.
        // Its rows are handed on only after this chunk has been processed, so order is unchanged.
        if (this.signal.aborted) {
          // Stop reading; what was read is processed below, and next() now returns null.
          await src.reader.close()
        }
        request(src)
        await this.pump(true)
        // A reader whose chunks are ready at once keeps this loop on microtasks: give timers
        // (checkpoint triggers, processing time) and I/O completions a turn now and then — after
        // every chunk while a checkpoint uploads, since each of its steps needs a turn.
        const turn = this.inflight !== null ? new Promise<void>(resolve => setImmediate(resolve)) : this.yielder.due()
        if (turn !== null) await turn
      }
    } finally {
      this.env.stopWithSavepoint?.removeEventListener('abort', savepointRequested)
    }
  }

  /** Handles a wake-up; true when the job stops (after a savepoint). */
  private async onWake(w: Wake): Promise<boolean> {
    switch (w.t) {
      case 'tick':
        await this.fireProcessingTimers()
        await this.pump()
        return false
      case 'trigger':
        if (this.inflight === null && !this.allSourcesEnded()) await this.triggerCheckpoint(false)
        return false
      case 'completed':
        await this.completeInflight()
        this.scheduleCheckpoint()
        return false
      case 'savepoint': {
        if (!this.env.checkpoint) {
          // Nowhere to put a savepoint: stop as on cancel.
          this.env.log?.(`no 'state.checkpoints.dir': stopping without a savepoint`)
          this.internalAbort.abort()
          for (const src of this.sources) await src.reader.close()
          return false
        }
        if (this.inflight !== null) await this.completeInflight()
        await this.triggerCheckpoint(true)
        await this.completeInflight()
        // Stop where the savepoint was taken: no final watermark, no end of input, nothing more written.
        for (const src of this.sources) await src.reader.close()
        if (!this.exactlyOnce) for (const task of this.order) if (task.sink) await task.sink.finish()
        return true
      }
      default: return assertNever(w)
    }
  }

  private allSourcesEnded(): boolean {
    return this.sources.every(s => s.task.finished)
  }

  private onChunk(src: SourceRuntime, chunk: SourceChunk): void {
    const rows = chunk.rows
    src.recordsRead += rows.length
    src.positions[chunk.split] = chunk.position
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
        this.emit(src.task, batch)
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
      if (wm === Infinity) wm = src.splitMax.reduce((a, b) => (b > a ? b : a), -Infinity)
      if (wm > src.emittedWatermark && wm !== Infinity) this.sourceWatermark(src, wm)
    }
  }

  private sourceWatermark(src: SourceRuntime, wm: number): void {
    if (wm <= src.emittedWatermark) return
    src.emittedWatermark = wm
    this.broadcast(src.task, ch => ({ t: 'wm', ch, wm }))
  }

  // ------------------------------------------------------------------ checkpoints

  private scheduleCheckpoint(): void {
    const interval = this.env.checkpoint?.intervalMs ?? 0
    clearTimeout(this.triggerTimer)
    if (interval > 0) this.triggerTimer = setTimeout(() => this.post({ t: 'trigger' }), interval)
  }

  /**
   * Injects barrier n at every source (between chunks, so every queue is empty), recording their
   * positions, and pumps it through the graph: every subtask snapshots as the barrier passes.
   * Subtasks that already finished snapshot at once (they will see no more input).
   */
  private async triggerCheckpoint(savepoint: boolean): Promise<void> {
    const config = this.env.checkpoint
    invariant(config, 'no checkpoint storage')
    invariant(this.inflight === null, 'a checkpoint is in flight')
    const id = this.nextCheckpointId++
    const barrier: Barrier = { id, savepoint }
    const base = savepoint ? new PrefixedStorage(config.savepointStorage, savepointFolder(id)) : config.storage
    const prefix = savepoint ? '' : checkpointFolder(id) + '/'
    const location = savepoint ? base.uri : joinUri(config.storage.uri, checkpointFolder(id))
    const inflight: Inflight = {
      barrier, base, prefix, location, expected: this.order.filter(t => t.node.spec.kind !== 'Source').length, acked: 0,
      operators: new Map(), sources: {}, sinks: {}, uploads: [],
    }
    this.inflight = inflight
    for (const src of this.sources) {
      inflight.sources[src.task.node.id] = {
        table: src.spec.table, positions: [...src.positions], splitMax: [...src.splitMax], watermark: src.emittedWatermark,
      }
    }
    for (const task of this.order) if (task.finished && task.node.spec.kind !== 'Source' && task.node.spec.kind !== 'Values') await this.snapshotTask(task, barrier)
    for (const task of this.order) if (task.node.spec.kind === 'Values') inflight.acked++
    for (const src of this.sources) if (!src.task.finished) this.broadcast(src.task, ch => ({ t: 'barrier', ch, barrier }))
    await this.pump()
    invariant(inflight.acked === inflight.expected, `checkpoint ${id}: ${inflight.acked} of ${inflight.expected} subtasks snapshotted`)
    // The slow part runs in the background: compress, upload, then the manifest completes it.
    inflight.done = Promise.all(inflight.uploads).then(async () => {
      const hold = this.env.faults?.at('before-manifest', { checkpointId: id, savepoint })
      if (hold) await hold
      return this.writeInflightManifest(inflight, false)
    })
    inflight.done.then(() => { if (!savepoint) this.post({ t: 'completed' }) }, () => { if (!savepoint) this.post({ t: 'completed' }) })
  }

  /** The synchronous part of a subtask's snapshot; uploads are queued on the in-flight checkpoint. */
  private async snapshotTask(task: Task, barrier: Barrier): Promise<void> {
    await this.dropAhead(task)
    const cp = this.inflight
    invariant(cp !== null && cp.barrier.id === barrier.id, `barrier ${barrier.id} without its checkpoint`)
    cp.acked++
    if (task.sink) {
      if (this.exactlyOnce && task.sink.prepareCommit) cp.sinks[task.node.id] = await task.sink.prepareCommit(barrier.id)
      return
    }
    if (!task.stateful) return
    const id = task.node.id
    const own = `${cp.prefix}${safeFileName(id)}-${task.index}/`
    // Serialized now: later batches mutate the live objects.
    const data: SubtaskData = { timers: task.timers!.snapshot() }
    const encoded = encodeObject(data)
    const subtask: { -readonly [K in keyof SubtaskManifest]: SubtaskManifest[K] } = {
      index: task.index, keyGroups: task.range, data: undefined as unknown as StoredObject, state: undefined as unknown as StateHandle, watermark: task.watermark,
    }
    let list = cp.operators.get(id)
    if (list === undefined) cp.operators.set(id, (list = []))
    list.push(subtask)
    cp.uploads.push(encoded.then(async gz => {
      subtask.data = await putObject(cp.base, own + 'data.bin.gz', gz)
      const hold = this.env.faults?.at('upload', { checkpointId: barrier.id, operatorId: id, subtask: task.index })
      if (hold) await hold
    }))
    const snapshot = await task.state!.checkpoint({
      storage: cp.base, ownPrefix: own, sharedPrefix: 'shared/', selfContained: barrier.savepoint, checkpointId: barrier.id, tmpDir: this.tmpDir,
    })
    cp.uploads.push(snapshot.upload.then(handle => { subtask.state = handle }))
  }

  private async writeInflightManifest(cp: Inflight, finished: boolean): Promise<void> {
    const operators: Record<string, OperatorManifest> = {}
    for (const [id, subtasks] of cp.operators) {
      const node = this.graph.nodes.find(n => n.id === id)!
      operators[id] = { kind: node.spec.kind, signature: operatorSignature(node), parallelism: subtasks.length, subtasks: [...subtasks].sort((a, b) => a.index - b.index) }
    }
    const manifest: Manifest = {
      format: MANIFEST_FORMAT, job: this.graph.name, id: cp.barrier.id, kind: cp.barrier.savepoint ? 'savepoint' : 'checkpoint', finished,
      timestamp: Date.now(), maxParallelism: this.maxParallelism, operators, sources: cp.sources, sinks: cp.sinks,
    }
    if (cp.barrier.savepoint) await writeManifest(cp.base, '', manifest)
    else await writeManifest(cp.base, checkpointFolder(cp.barrier.id), manifest)
  }

  /** Waits for the in-flight checkpoint's manifest, then lets sinks commit and applies retention. */
  private async completeInflight(): Promise<void> {
    const cp = this.inflight
    if (cp === null) return
    try {
      await cp.done
    } catch (e) {
      throw WeirError.checkpoint(`checkpoint ${cp.barrier.id} to '${cp.location}' failed: ${(e as Error).message}`, {
        help: (e instanceof WeirError ? e.help : undefined) ?? 'check that the checkpoint storage is reachable and writable', cause: e,
      })
    } finally {
      this.inflight = null
    }
    const hold = this.env.faults?.at('before-commit', { checkpointId: cp.barrier.id, final: false })
    if (hold) await hold
    await this.commitSinks(cp.barrier.id)
    this.checkpointsCompleted++
    this.env.onCheckpoint?.(cp.barrier.id, cp.location)
    if (cp.barrier.savepoint) {
      this.savepointLocation = cp.location
      this.env.log?.(`savepoint ${cp.barrier.id} written to ${cp.location}`)
    } else {
      await applyRetention(this.env.checkpoint!.storage, this.env.checkpoint!.retained, referencedObjects)
    }
  }

  private async commitSinks(id: number): Promise<void> {
    if (!this.exactlyOnce) return
    for (const task of this.order) if (task.sink?.commit) await task.sink.commit(id)
  }

  /**
   * Bounded input ended: a last checkpoint seals what the sinks still hold and marks the job
   * finished, then the sinks commit. A crash after the manifest is written still commits on restart.
   */
  private async finalCheckpoint(): Promise<void> {
    await this.completeInflight()
    if (!this.exactlyOnce) return
    const id = this.nextCheckpointId++
    const cp: Inflight = {
      barrier: { id, savepoint: false }, base: this.env.checkpoint!.storage, prefix: checkpointFolder(id) + '/',
      location: joinUri(this.env.checkpoint!.storage.uri, checkpointFolder(id)), expected: 0, acked: 0,
      operators: new Map(), sources: {}, sinks: {}, uploads: [],
    }
    for (const src of this.sources) cp.sources[src.task.node.id] = { table: src.spec.table, positions: [...src.positions], splitMax: [...src.splitMax], watermark: src.emittedWatermark }
    for (const task of this.order) if (task.sink?.prepareCommit) cp.sinks[task.node.id] = await task.sink.prepareCommit(id)
    await this.writeInflightManifest(cp, true)
    const hold = this.env.faults?.at('before-commit', { checkpointId: id, final: true })
    if (hold) await hold
    await this.commitSinks(id)
    this.checkpointsCompleted++
    await applyRetention(this.env.checkpoint!.storage, this.env.checkpoint!.retained, referencedObjects)
  }

  // ------------------------------------------------------------------ teardown

  private async close(): Promise<void> {
    const errors: unknown[] = []
    for (const src of this.sources) await src.reader.close().catch(e => errors.push(e))
    for (const task of this.order) {
      await task.operator?.close?.()?.catch?.((e: unknown) => errors.push(e))
      // A read ahead still running (the job failed or stopped) ends before its database closes.
      await this.dropAhead(task).catch(() => undefined)
      await task.state?.close().catch(e => errors.push(e))
      if (task.sink) await task.sink.close().catch(e => errors.push(e))
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
    const sinkCommittedRows: Record<string, number> = {}
    const stateEntries: Record<string, number> = {}
    let late = 0
    for (const task of this.order) {
      const spec = task.node.spec
      if (spec.kind === 'Sink') {
        sinkRows[spec.table] = (sinkRows[spec.table] ?? 0) + task.metrics.rowsIn - (task.sink!.droppedRows?.() ?? 0)
        sinkCommittedRows[spec.table] = (sinkCommittedRows[spec.table] ?? 0) + (task.sink!.committedRows?.() ?? task.metrics.rowsIn)
      }
      if (spec.kind === 'Collect') sinkRows['(select)'] = task.metrics.rowsIn
      late += task.metrics.lateRecordsDropped
      if (task.stateful) stateEntries[task.node.id] = (stateEntries[task.node.id] ?? 0) + task.state!.stats().entries
    }
    let stateDiskBytes: number | undefined
    let stateStoredEntries: number | undefined
    for (const task of this.order) {
      if (task.state?.storageStats === undefined) continue
      const stats = await task.state.storageStats(this.env.countStoredState === true)
      stateDiskBytes = (stateDiskBytes ?? 0) + stats.diskBytes
      if (stats.storedEntries !== undefined) stateStoredEntries = (stateStoredEntries ?? 0) + stats.storedEntries
    }
    return {
      sourceRows, sourceRecordsRead: read, sinkRows, sinkCommittedRows, lateRecordsDropped: late, skippedRecords: skipped, stateEntries, stateDiskBytes, stateStoredEntries,
      checkpointsCompleted: this.checkpointsCompleted, savepoint: this.savepointLocation, restoredFrom: this.restoredFrom(), cancelled,
    }
  }

  private restoredFrom(): JobMetrics['restoredFrom'] {
    const r = this.env.restore
    return r === undefined ? undefined : { kind: r.manifest.kind, id: r.manifest.id, location: r.location }
  }
}

/** What a stateful subtask stores besides its state backend's files: its timers. */
interface SubtaskData {
  readonly timers: TimersSnapshot
}

/** Stored objects a manifest needs (for retention of shared files). */
function referencedObjects(manifest: Manifest): string[] {
  const paths: string[] = []
  for (const op of Object.values(manifest.operators)) {
    for (const s of op.subtasks) paths.push(s.data.path, ...stateObjects(s.state))
  }
  return paths
}

const NO_KEY: KeyRef = makeKey([])
const NO_TIMER_DUE = (): void => invariant(false, 'a timer fired in a domain its operator did not declare')

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
