// Runs a job graph: sets up its subtasks (subtasks.ts) — sources (source-runner.ts), operators with
// their keyed state and timers, sinks — restoring them from a checkpoint when asked, runs them
// (scheduler.ts) with checkpoints taken along the way (checkpoint-coordinator.ts), and tears it all
// down at the end, reporting what the job did.
import { rm, rmdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { invariant } from '../common/assert.js'
import { WeirError } from '../common/errors.js'
import { safeFileName } from '../common/names.js'
import type { JobGraph, SinkSpec } from '../core/job-graph.js'
import type { SinkContext } from '../connectors/api.js'
import { makeStagingDir } from '../state/backend.js'
import { getConnector } from '../connectors/registry.js'
import { enforceNotNull } from '../connectors/not-null-enforcer.js'
import { operatorSignature, describeSignatureChange } from '../core/signature.js'
import { checkReuseCompatible } from './reuse-compat.js'
import { sinkTableContext } from './sink-context.js'
import type { Manifest } from './checkpoint.js'
import { CheckpointCoordinator } from './checkpoint-coordinator.js'
import type { ExecutionEnv, JobMetrics } from './job-env.js'
import { Scheduler } from './scheduler.js'
import { SourceRunner } from './source-runner.js'
import { buildSubtasks, type Subtasks, type Task } from './subtasks.js'
import { dropAhead } from './read-ahead.js'
import { restoredSinkCommit } from './sink-commits.js'
import { jobProbe } from './job-probe.js'
import { openOperator } from './operator-setup.js'
// Every operator, for this (the job's) thread: a worker loads only its job's (operators/catalog.ts).
import '../operators/registry.js'
import { TaskRunner } from './task-runner.js'
import { currentThreadId, lowerHelperThreads, markProcessing } from './thread-priority.js'
import { MAIN_THREAD, threadOf, usesWorkers } from './threads.js'
import { WorkerPool } from './worker-pool.js'
import { InFlight, Link, linkRemoteTasks } from './thread-links.js'
import { FLAG_COUNT, type WorkerStats } from './thread-protocol.js'
import { initSharedMetrics, sharedMetrics, sharedMetricsBuffer, STAT } from './shared-metrics.js'
import { stateAtEnd, subtaskSamples } from './subtask-stats.js'

export type { ExecutionEnv, JobMetrics } from './job-env.js'

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
  private readonly subtasks: Subtasks
  /** Every subtask of the job, in topological order (the same on every thread). */
  private readonly order: readonly Task[]
  /** The subtasks this thread runs. */
  private readonly local: readonly Task[]
  private readonly runner: TaskRunner
  /** The worker threads running the parallel subtasks (null: all run here). */
  private readonly workers: WorkerPool | null
  private readonly internalAbort = new AbortController()
  private readonly signal: AbortSignal
  private readonly sources: SourceRunner
  private readonly checkpoints: CheckpointCoordinator
  private readonly scheduler: Scheduler
  private readonly maxParallelism: number
  /** The job's folder in 'state.dir', where disk backends keep working state. */
  private readonly stateDir: string
  /** Where backends stage files (SubtaskStateOptions.tmpDir), once one asked. */
  private stagingDir: Promise<string> | undefined

  constructor(private readonly graph: JobGraph, private readonly env: ExecutionEnv) {
    this.signal = env.signal ? AbortSignal.any([env.signal, this.internalAbort.signal]) : this.internalAbort.signal
    this.maxParallelism = graph.config.maxParallelism
    this.stateDir = join(resolve(graph.config.state.dir), safeFileName(graph.name))
    // Metrics in shared memory only when worker threads count some of them (plain fields are cheaper).
    const threaded = usesWorkers(graph)
    const metrics = threaded ? sharedMetricsBuffer(graph.nodes.length * graph.config.parallelism) : null
    if (metrics !== null) initSharedMetrics(metrics)
    this.subtasks = buildSubtasks(graph, metrics === null ? undefined : sharedMetrics(metrics))
    this.order = this.subtasks.order
    this.local = this.order.filter(t => threadOf(t, threaded, graph.config.parallelism) === MAIN_THREAD)
    this.sources = new SourceRunner(graph, this.signal, env.faults)
    if (threaded) {
      const count = graph.config.parallelism
      const shared = { inFlight: InFlight.create(), flags: new SharedArrayBuffer(4 * FLAG_COUNT), metrics: metrics! }
      this.workers = new WorkerPool(graph, this.order, count, shared, env.faults)
      const pool = this.workers
      linkRemoteTasks(this.order, t => threadOf(t, true, graph.config.parallelism), MAIN_THREAD, w => pool.links[w]!)
      if (this.signal.aborted) pool.aborted()
      else this.signal.addEventListener('abort', () => pool.aborted(), { once: true })
    } else {
      this.workers = null
    }
    this.checkpoints = new CheckpointCoordinator(graph, env, this.order, this.sources, this.tmpDir, this.signal, this.workers)
    let scheduler: Scheduler | undefined
    this.runner = new TaskRunner(graph, this.local, this.checkpoints, {
      aborted: () => this.signal.aborted,
      onCollect: env.onCollect,
      onTimerDue: () => scheduler!.timerDue(),
      ...(this.workers === null ? {} : { afterPump: () => this.workers!.flush() }),
    })
    scheduler = new Scheduler(graph, env, this.local, this.runner, this.sources, this.checkpoints, this.workers, this.signal, () => this.internalAbort.abort())
    this.scheduler = scheduler
  }

  async run(): Promise<JobMetrics> {
    const unmark = markProcessing(currentThreadId())
    try {
      if (this.env.restore?.manifest.finished) return await this.finishedAlready()
      if (this.env.restore) this.checkCompatible(this.env.restore.manifest)
      await this.checkpoints.start()
      try {
        await this.open()
      } catch (e) {
        // Nothing ran and no sink committed yet (sinks open last): an older checkpoint may do.
        if (this.env.restore && e instanceof WeirError && e.kind === 'checkpoint') throw new RestoreFailed(e)
        throw e
      }
      // Every helper thread exists now (RocksDB's start with its database, in libuv's pool): they go
      // behind the processing threads (this one and the workers').
      lowerHelperThreads(this.graph.config.helperThreadsNice)
      this.env.onStart?.(jobProbe(this.order, () => this.recordsRead(), () => this.checkpoints.lastCompleted))
      await this.scheduler.run()
      const cancelled = this.signal.aborted || this.checkpoints.savepointLocation !== undefined
      if (!cancelled && this.env.checkpoint) await this.checkpoints.finalCheckpoint()
      // Cancelled: the commits of checkpoints completed before are done (or their failure is the job's).
      else await this.checkpoints.commitsDone()
      return await this.metrics(cancelled)
    } catch (e) {
      this.internalAbort.abort()
      throw e
    } finally {
      unmark()
      this.scheduler.stop()
      // Uploads still running (a failure above) must not outlive the job's folders.
      await this.checkpoints.stop()
      await this.close()
      // Working state is not durable: checkpoints are. Its folders go.
      let destroyed = this.workers !== null
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
      throw WeirError.checkpoint(
        `checkpoint '${where}' was taken with 'pipeline.max-parallelism' = ${manifest.maxParallelism}, but this job has ${this.maxParallelism}`,
        {
          help: 'the number of key groups cannot change; set it back, or start over with --fresh',
        },
      )
    }
    const stateful = this.graph.nodes.filter(n => this.subtasks.byNode.get(n.id)![0]!.stateful)
    // First an operator in both whose state changed: the most exact cause (a query change that also
    // stops two scans from merging is named by what changed in the operator, not by the merge).
    for (const node of stateful) {
      const old = manifest.operators[node.id]
      const change = old === undefined ? null : describeSignatureChange(old.signature, operatorSignature(node, this.graph))
      if (change !== null) {
        throw WeirError.checkpoint(`the job no longer matches checkpoint '${where}': operator ${node.id} (${node.spec.kind}) changed: ${change}`, {
          help: 'its state cannot be read by the new query; undo the change, or start over with --fresh',
        })
      }
    }
    // Before operators missing on one side: a change in reuse shows as those, and this names it.
    checkReuseCompatible(manifest, this.graph, where)
    for (const node of stateful) {
      if (manifest.operators[node.id] === undefined) {
        const had = Object.entries(manifest.operators).map(([id]) => id)
        throw WeirError.checkpoint(`the job no longer matches checkpoint '${where}': operator ${node.id} has state but is not in the checkpoint` +
          (had.length ? ` (the checkpoint has ${had.join(', ')})` : ' (the checkpoint has no stateful operators)'), {
          help: 'the query changed shape since the checkpoint was taken; start over with --fresh',
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
    // The workers open their subtasks (restoring their state) while this thread opens its own.
    const workers = this.workers?.start({ restore, checkpoint: this.env.checkpoint, stateDir: this.stateDir }, this.runner, this.checkpoints)
    workers?.catch(() => undefined)
    for (const task of this.local) {
      const spec = task.node.spec
      switch (spec.kind) {
        case 'Source':
          await this.sources.open(task, spec, restore?.manifest.sources[task.node.id])
          break
        case 'Sink': {
          const factory = getConnector(spec.connector)
          invariant(factory.sink, `connector ${spec.connector} has no sink`)
          task.sink = enforceNotNull(
            await factory.sink.create(this.sinkContext(task, spec, this.checkpoints.exactlyOnce, await restoredSinkCommit(restore, task.node.id))),
            spec,
            this.graph.config.sinkNotNull,
          )
          break
        }
        case 'Values':
        case 'Collect':
          break
        // Every other kind is an operator's (operators/catalog.ts).
        default:
          await openOperator(task, { graph: this.graph, restore, stateDir: this.stateDir, tmpDir: this.tmpDir })
      }
    }
    await workers
  }

  /** Where backends stage local snapshots and restores: beside the working state, so files hard-link instead of copying. */
  private readonly tmpDir = (): Promise<string> => (this.stagingDir ??= makeStagingDir(this.stateDir))

  /** What a sink is created with: the same on a run and when a finished job only completes its commits. */
  private sinkContext(task: Task, spec: SinkSpec, exactlyOnce: boolean, restored: Pick<SinkContext, 'restoredCommit' | 'restoredData'>): SinkContext {
    return {
      ...sinkTableContext(spec),
      println: this.env.println,
      jobName: this.graph.name,
      operatorId: task.node.id,
      exactlyOnce,
      ...restored,
      ...(this.env.log ? { log: this.env.log } : {}),
    }
  }

  /**
   * The job finished at the restored checkpoint: commit what it promised (a crash may have come
   * between its manifest and the commit), and run nothing.
   */
  private async finishedAlready(): Promise<JobMetrics> {
    for (const task of this.order) {
      const spec = task.node.spec
      if (spec.kind !== 'Sink') continue
      const sink = await getConnector(spec.connector).sink!.create(this.sinkContext(task, spec, true, await restoredSinkCommit(this.env.restore, task.node.id)))
      await sink.close()
    }
    return {
      sourceRows: {},
      sourceRecordsRead: 0,
      sinkRows: {},
      sinkCommittedRows: {},
      lateRecordsDropped: 0,
      skippedRecords: 0,
      stateEntries: {},
      checkpointsCompleted: 0,
      alreadyFinished: true,
      restoredFrom: this.restoredFrom(),
      subtasks: [],
      cancelled: false,
    }
  }

  // ------------------------------------------------------------------ teardown

  private async close(): Promise<void> {
    const errors: unknown[] = []
    await this.sources.close(errors)
    if (this.workers !== null) errors.push(...await this.workers.close())
    for (const task of this.local) {
      await task.operator?.close?.()?.catch?.((e: unknown) => errors.push(e))
      // A read ahead still running (the job failed or stopped) ends before its database closes.
      await dropAhead(task).catch(() => undefined)
      await task.state?.close().catch(e => errors.push(e))
      if (task.sink) await task.sink.close().catch(e => errors.push(e))
    }
  }

  /** Rows read by every source subtask, on any thread (counted as the sources' rows in: shared-metrics.ts). */
  private recordsRead(): number {
    if (this.workers === null) return this.sources.recordsRead()
    let n = 0
    for (const task of this.order) if (task.node.spec.kind === 'Source') n += task.metrics.rowsIn
    return n
  }

  private async metrics(cancelled: boolean): Promise<JobMetrics> {
    const { sourceRows, subtaskRecordsRead, skipped: localSkipped } = this.sources.metrics()
    let recordsRead = this.sources.recordsRead()
    let skipped = localSkipped
    // The source subtasks on worker threads count in shared memory.
    for (const task of this.order) {
      const spec = task.node.spec
      if (spec.kind !== 'Source' || task.send === null) continue
      sourceRows[spec.table] = (sourceRows[spec.table] ?? 0) + task.metrics.rowsOut
      ;(subtaskRecordsRead[task.node.id] ??= [])[task.index] = task.metrics.rowsIn
      recordsRead += task.metrics.rowsIn
    }
    const sinkRows: Record<string, number> = {}
    const sinkCommittedRows: Record<string, number> = {}
    const stateEntries: Record<string, number> = {}
    let late = 0
    for (const task of this.order) {
      const spec = task.node.spec
      if (spec.kind === 'Sink') {
        // A subtask on a worker thread (a sink that splits) counts in shared memory, and commits nothing.
        sinkRows[spec.table] = (sinkRows[spec.table] ?? 0) + task.metrics.rowsIn - (task.sink?.droppedRows?.() ?? 0)
        sinkCommittedRows[spec.table] = (sinkCommittedRows[spec.table] ?? 0) + (task.sink?.committedRows?.() ?? task.metrics.rowsIn)
      }
      if (spec.kind === 'Collect') sinkRows['(select)'] = task.metrics.rowsIn
      late += task.metrics.lateRecordsDropped
      skipped += task.metrics.rowsSkipped ?? 0
      if (task.stateful && task.state !== undefined) stateEntries[task.node.id] = (stateEntries[task.node.id] ?? 0) + stateAtEnd(task)
    }
    let stateDiskBytes: number | undefined
    let stateStoredEntries: number | undefined
    const remote: WorkerStats[] = this.workers === null ? [] : await this.workers.stats(this.env.countStoredState === true)
    for (const w of remote) {
      for (const [index, entries] of w.entries) {
        const id = this.order[index]!.node.id
        stateEntries[id] = (stateEntries[id] ?? 0) + entries
      }
      if (w.diskBytes !== undefined) stateDiskBytes = (stateDiskBytes ?? 0) + w.diskBytes
      skipped += w.skippedRecords ?? 0
      if (w.storedEntries !== undefined) stateStoredEntries = (stateStoredEntries ?? 0) + w.storedEntries
    }
    for (const task of this.local) {
      if (task.state?.storageStats === undefined) continue
      const stats = await task.state.storageStats(this.env.countStoredState === true)
      task.stats[STAT.stateBytes] = stats.diskBytes
      stateDiskBytes = (stateDiskBytes ?? 0) + stats.diskBytes
      if (stats.storedEntries !== undefined) stateStoredEntries = (stateStoredEntries ?? 0) + stats.storedEntries
    }
    return {
      sourceRows,
      sourceRecordsRead: recordsRead,
      sourceSubtaskRecordsRead: subtaskRecordsRead,
      sinkRows,
      sinkCommittedRows,
      lateRecordsDropped: late,
      skippedRecords: skipped,
      stateEntries,
      stateDiskBytes,
      stateStoredEntries,
      checkpointsCompleted: this.checkpoints.checkpointsCompleted,
      savepoint: this.checkpoints.savepointLocation,
      restoredFrom: this.restoredFrom(),
      subtasks: subtaskSamples(this.order),
      cancelled,
    }
  }

  private restoredFrom(): JobMetrics['restoredFrom'] {
    const r = this.env.restore
    return r === undefined ? undefined : { kind: r.manifest.kind, id: r.manifest.id, location: r.location }
  }
}
