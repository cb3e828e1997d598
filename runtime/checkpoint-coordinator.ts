// Checkpoints as Chandy–Lamport barriers: barrier n is injected at every source (which records its
// read positions); subtasks with several input channels align (hold back channels that delivered the
// barrier until all have), then snapshot — timers here, keyed state through the subtask's backend
// (state/backend.ts) — and forward it. The slow part, compressing and uploading, runs in the
// background while processing goes on; checkpoint n is complete when its manifest is written, and
// only then do sinks commit its output. Retention then drops what no retained checkpoint needs.
import { invariant } from '../common/assert.js'
import { WeirError } from '../common/errors.js'
import { safeFileName } from '../common/names.js'
import type { JobGraph } from '../core/job-graph.js'
import { operatorSignature } from '../core/signature.js'
import { encodeObject, joinUri, putObject, type StoredObject } from '../checkpoint/objects.js'
import type { CheckpointStorage } from '../checkpoint/storage/api.js'
import type { StateHandle } from '../state/handles.js'
import { MANIFEST_FORMAT, applyRetention, checkpointFolder, highestId, PrefixedStorage, referencedObjects, savepointFolder, writeManifest, type Manifest,
  type OperatorManifest, type SourceManifest, type SubtaskData, type SubtaskManifest } from './checkpoint.js'
import type { ExecutionEnv } from './job-env.js'
import { dropAhead } from './read-ahead.js'
import { recordSinkCommit } from './sink-commits.js'
import type { SourceRunner } from './source-runner.js'
import { sourcesManifest, type SourcePart } from './source-positions.js'
import { barrierArrived, channelEnded } from './alignment.js'
import { checkpointCompleted, snapshotTaken } from './subtask-stats.js'
import { broadcast, type Barrier, type Task } from './subtasks.js'
import type { Alignment } from './task-runner.js'

/** What the coordinator needs of the loop that runs the subtasks (the scheduler). */
export interface BarrierDriver {
  /** Runs every queued item through the graph: a barrier injected at the sources reaches every subtask. */
  pump(): Promise<void>
  /** Wakes the loop to trigger the next checkpoint, or to complete the one in flight. */
  wake(reason: 'trigger' | 'completed'): void
}

/** A checkpoint whose barrier is travelling or whose files are uploading. */
interface Inflight {
  readonly barrier: Barrier
  /** Epoch ms when it was triggered. */
  readonly triggeredAt: number
  /** Where its objects go: the job folder (checkpoints) or the savepoint's own folder. */
  readonly base: CheckpointStorage
  /** Prefix of its own objects within base ('chk-7/' or ''). */
  readonly prefix: string
  readonly location: string
  readonly expected: number
  acked: number
  /** Resolves when every subtask has acknowledged (taken the synchronous part of its snapshot). */
  readonly allAcked: Promise<void>
  readonly onAllAcked: () => void
  /** A worker thread failed: the subtasks it ran will never acknowledge. */
  readonly ackFailed: (e: unknown) => void
  readonly operators: Map<string, SubtaskManifest[]>
  /** The positions of every source subtask at the barrier: this thread's at once, the workers' as they report. */
  readonly sourceParts: SourcePart[]
  /** The manifest's sources, once it is written. */
  sources: Record<string, SourceManifest>
  readonly sinks: Record<string, unknown>
  readonly sinkData: Record<string, StoredObject>
  readonly uploads: Promise<void>[]
  done?: Promise<void>
}

/** Where a checkpoint's objects go; what a worker thread needs to upload its subtasks' snapshots there. */
export interface CheckpointTarget {
  readonly base: CheckpointStorage
  readonly prefix: string
}

/** Subtasks on worker threads (worker-pool.ts): told of each checkpoint, for subtasks that finished before its barrier. */
export interface RemoteSnapshots {
  announce(barrier: Barrier): void
  /** The positions of the source subtasks on worker threads where checkpoint `id`'s barrier went in there. */
  sourcePositions(id: number): Promise<SourcePart[]>
  /** Their latest positions (the last a worker reported: at a barrier, or where a source ended). */
  lastSourcePositions(): SourcePart[]
  /** Whether every source subtask on a worker thread has ended. */
  sourcesEnded(): boolean
  /** Checkpoint `id` completed with `sources`: their readers may report their positions. */
  completed(id: number, sources: Readonly<Record<string, SourceManifest>>): void
}

export class CheckpointCoordinator implements Alignment {
  /** Sinks write transactionally, committing what each checkpoint seals (periodic checkpoints are on). */
  readonly exactlyOnce: boolean
  checkpointsCompleted = 0
  /** The checkpoint (or savepoint) this run completed last, and when (SHOW JOBS). */
  lastCompleted: { readonly id: number; readonly at: number } | undefined
  /** Where the savepoint went, once one was taken. */
  savepointLocation: string | undefined
  private nextCheckpointId = 1
  private inflight: Inflight | null = null
  /**
   * The commits of completed checkpoints, one after another, while the job goes on (a Kafka sink's
   * transaction of a checkpoint's output takes a network round trip or more per produce request).
   * A failure stays in it: the next trigger, savepoint or end awaits it and fails the job.
   */
  private committing: Promise<void> = Promise.resolve()
  private triggerTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly graph: JobGraph,
    private readonly env: ExecutionEnv,
    private readonly order: readonly Task[],
    private readonly sources: SourceRunner,
    /** Where backends stage local snapshots (SubtaskStateOptions.tmpDir). */
    private readonly tmpDir: () => Promise<string>,
    /** The job's cancellation. */
    private readonly signal: AbortSignal,
    /** The subtasks on worker threads, if any. */
    private readonly remote: RemoteSnapshots | null = null,
  ) {
    this.exactlyOnce = (env.checkpoint?.intervalMs ?? 0) > 0
  }

  /** Ids continue after every id the job's folders have seen, so 'latest' is always this run's. */
  async start(): Promise<void> {
    const config = this.env.checkpoint
    if (config === undefined) return
    const seen = Math.max(await highestId(config.storage), await highestId(config.savepointStorage), this.env.restore?.manifest.id ?? 0)
    this.nextCheckpointId = seen + 1
  }

  /** A checkpoint is uploading (the loop then gives I/O a turn after every chunk). */
  get busy(): boolean {
    return this.inflight !== null
  }

  schedule(driver: BarrierDriver): void {
    const interval = this.env.checkpoint?.intervalMs ?? 0
    clearTimeout(this.triggerTimer)
    if (interval > 0) this.triggerTimer = setTimeout(() => driver.wake('trigger'), interval)
  }

  /**
   * The periodic trigger fired: a checkpoint, unless one is in flight, the input has ended, or the job
   * was cancelled (what it does while stopping is not part of any checkpoint; one in flight still
   * completes: its barrier went in before the cancel).
   */
  async triggered(driver: BarrierDriver): Promise<void> {
    // The commits of earlier checkpoints first: a sink seals its next output only after they are done.
    // None once every source has ended, on this thread and the workers (a source may read only there).
    await this.committing
    if (this.inflight === null && !(this.sources.allEnded() && (this.remote?.sourcesEnded() ?? true)) && !this.signal.aborted) await this.trigger(false, driver)
  }

  /** The in-flight checkpoint's uploads are done: complete it, and schedule the next. */
  async completed(driver: BarrierDriver): Promise<void> {
    await this.completeInflight()
    this.schedule(driver)
  }

  /** Takes a savepoint now (after the checkpoint in flight, if any) and waits until it is complete. */
  async savepoint(driver: BarrierDriver): Promise<void> {
    if (this.inflight !== null) await this.completeInflight()
    await this.committing
    await this.trigger(true, driver)
    await this.completeInflight()
    await this.committing
  }

  /** Waits for the commits of completed checkpoints; throws if one failed (the job's end after a cancel). */
  async commitsDone(): Promise<void> {
    await this.committing
  }

  /**
   * Injects barrier n at every source (between chunks, so every queue is empty), recording their
   * positions, and pumps it through the graph: every subtask snapshots as the barrier passes.
   * Subtasks that already finished snapshot at once (they will see no more input).
   */
  private async trigger(savepoint: boolean, driver: BarrierDriver): Promise<void> {
    const config = this.env.checkpoint
    invariant(config, 'no checkpoint storage')
    invariant(this.inflight === null, 'a checkpoint is in flight')
    const id = this.nextCheckpointId++
    const barrier: Barrier = { id, savepoint }
    const { base, prefix } = checkpointTarget(config, barrier)
    const location = savepoint ? base.uri : joinUri(config.storage.uri, checkpointFolder(id))
    let onAllAcked!: () => void
    let ackFailed!: (e: unknown) => void
    const allAcked = new Promise<void>((resolve, reject) => {
      onAllAcked = resolve
      ackFailed = reject
    })
    allAcked.catch(() => undefined) // surfaces through done
    const inflight: Inflight = {
      barrier,
      triggeredAt: Date.now(),
      base,
      prefix,
      location,
      expected: this.order.filter(t => t.node.spec.kind !== 'Source').length,
      acked: 0,
      allAcked,
      onAllAcked,
      ackFailed,
      operators: new Map(),
      sourceParts: this.sources.parts(),
      sources: {},
      sinks: {},
      sinkData: {},
      uploads: [],
    }
    this.inflight = inflight
    // A worker died before this checkpoint started: the subtasks it ran will never acknowledge.
    if (this.remoteFailure !== undefined) ackFailed(this.remoteFailure)
    for (const task of this.order) {
      if (task.finished && task.send === null && task.node.spec.kind !== 'Source' && task.node.spec.kind !== 'Values') await this.snapshotTask(task, barrier)
    }
    for (const task of this.order) if (task.node.spec.kind === 'Values') this.ack(inflight)
    if (this.remote !== null) {
      this.remote.announce(barrier)
      addUpload(inflight, this.remote.sourcePositions(id).then(parts => {
        inflight.sourceParts.push(...parts)
      }))
    }
    for (const src of this.sources.sources) if (!src.task.finished) broadcast(src.task, ch => ({ t: 'barrier', ch, barrier }))
    await driver.pump()
    // On one thread the barrier has passed every subtask now; subtasks on worker threads acknowledge
    // it when it reaches them.
    if (this.remote === null) {
      invariant(inflight.acked === inflight.expected, `checkpoint ${id}: ${inflight.acked} of ${inflight.expected} subtasks snapshotted`)
    }
    // The slow part runs in the background: compress, upload, then the manifest completes it.
    inflight.done = allAcked.then(() => Promise.all(inflight.uploads)).then(async () => {
      const hold = this.env.faults?.at('before-manifest', { checkpointId: id, savepoint })
      if (hold) await hold
      return this.writeInflightManifest(inflight, false)
    })
    inflight.done.then(() => {
      if (!savepoint) driver.wake('completed')
    }, () => {
      if (!savepoint) driver.wake('completed')
    })
  }

  /** One more subtask took its snapshot of the in-flight checkpoint. */
  private ack(cp: Inflight): void {
    if (++cp.acked === cp.expected) cp.onAllAcked()
  }

  /** A worker thread failed: the checkpoint in flight cannot complete. */
  remoteFailed(e: unknown): void {
    this.remoteFailure ??= e
    this.inflight?.ackFailed(e)
  }

  /** The first failure of a worker thread: a checkpoint triggered after it cannot complete either. */
  private remoteFailure: unknown = undefined

  /**
   * A subtask on a worker thread took its snapshot of checkpoint `id`; `uploaded` resolves with what
   * the manifest lists for it once its files are uploaded (null: it keeps no state).
   */
  remoteSnapshot(id: number, task: Task, uploaded: Promise<SubtaskManifest | null>): void {
    const cp = this.inflight
    invariant(cp !== null && cp.barrier.id === id, `a snapshot for checkpoint ${id}, which is not in flight`)
    if (task.stateful) {
      let list = cp.operators.get(task.node.id)
      if (list === undefined) cp.operators.set(task.node.id, list = [])
      const own = list
      addUpload(cp, uploaded.then(m => {
        if (m !== null) own.push(m)
      }))
    } else {
      addUpload(cp, uploaded.then(() => undefined))
    }
    this.ack(cp)
  }

  // ------------------------------------------------------------------ alignment

  barrierArrived(task: Task, ch: number, barrier: Barrier): Promise<void> {
    return barrierArrived(task, ch, barrier, this.snapshotTask)
  }

  channelEnded(task: Task): Promise<void> {
    return channelEnded(task, this.snapshotTask)
  }

  /**
   * A subtask finished without the barrier of the checkpoint in flight, which it will now never see:
   * its input had all ended before that barrier went in at the sources, so its state now is its state
   * at the barrier. (On one thread it finished before the barrier went in; with worker threads its
   * last input may arrive after.)
   */
  async taskFinished(task: Task): Promise<void> {
    const cp = this.inflight
    if (cp === null || task.snapshotted >= cp.barrier.id) return
    await this.snapshotTask(task, cp.barrier)
  }

  // ------------------------------------------------------------------ snapshots

  /**
   * The synchronous part of a subtask's snapshot; uploads are queued on the in-flight checkpoint. The
   * subtask acknowledges once what it adds to the checkpoint is queued: the last acknowledgement lets
   * the manifest be written after the uploads queued so far. (Acknowledged first, a sink whose barrier
   * came last — from a worker thread — had its checkpoint completed while its prepareCommit still ran:
   * the manifest promised none of its output and the commit published none, so a restore from that
   * checkpoint deleted the part it sealed, whose rows the sources' positions had already passed.)
   */
  private readonly snapshotTask = async (task: Task, barrier: Barrier): Promise<void> => {
    await dropAhead(task)
    const cp = this.inflight
    invariant(cp !== null && cp.barrier.id === barrier.id, `barrier ${barrier.id} without its checkpoint`)
    task.snapshotted = barrier.id
    await this.snapshotInto(cp, task, barrier)
    this.ack(cp)
  }

  private async snapshotInto(cp: Inflight, task: Task, barrier: Barrier): Promise<void> {
    const started = performance.now()
    if (task.sink) {
      const upload = this.exactlyOnce && task.sink.prepareCommit ? await this.sealSink(cp, task) : undefined
      const stored = snapshotTaken(task, barrier.id, started)
      addUpload(cp, (upload ?? Promise.resolve()).then(() => stored({})))
      return
    }
    if (!task.stateful) {
      snapshotTaken(task, barrier.id, started)({})
      return
    }
    const id = task.node.id
    const own = `${cp.prefix}${safeFileName(id)}-${task.index}/`
    // Serialized now: later batches mutate the live objects.
    const data: SubtaskData = { timers: task.timers!.snapshot() }
    const encoded = encodeObject(data)
    const subtask: { -readonly [K in keyof SubtaskManifest]: SubtaskManifest[K] } = {
      index: task.index,
      keyGroups: task.range,
      data: undefined as unknown as StoredObject,
      state: undefined as unknown as StateHandle,
      watermark: task.watermark,
    }
    let list = cp.operators.get(id)
    if (list === undefined) cp.operators.set(id, list = [])
    list.push(subtask)
    const dataStored = encoded.then(async gz => {
      subtask.data = await putObject(cp.base, own + 'data.bin.gz', gz)
      const hold = this.env.faults?.at('upload', { checkpointId: barrier.id, operatorId: id, subtask: task.index })
      if (hold) await hold
      return subtask.data
    })
    addUpload(cp, dataStored.then(() => undefined))
    const snapshot = await task.state!.checkpoint({
      storage: cp.base,
      ownPrefix: own,
      sharedPrefix: 'shared/',
      selfContained: barrier.savepoint,
      checkpointId: barrier.id,
      tmpDir: this.tmpDir,
    })
    const stored = snapshotTaken(task, barrier.id, started)
    addUpload(cp, Promise.all([dataStored, snapshot.upload]).then(([object, handle]) => {
      subtask.state = handle
      stored({ data: object, state: handle })
    }))
  }

  /** The sink's prepareCommit for the checkpoint; the upload of data it sealed joins the checkpoint's. */
  private async sealSink(cp: Inflight, task: Task): Promise<Promise<void> | undefined> {
    const upload = recordSinkCommit(cp, cp.base, cp.prefix, task.node.id, await task.sink!.prepareCommit!(cp.barrier.id))
    if (upload !== undefined) addUpload(cp, upload)
    return upload
  }

  private async writeInflightManifest(cp: Inflight, finished: boolean): Promise<void> {
    cp.sources = sourcesManifest(cp.sourceParts)
    const operators: Record<string, OperatorManifest> = {}
    for (const [id, subtasks] of cp.operators) {
      const node = this.graph.nodes.find(n => n.id === id)!
      operators[id] = { kind: node.spec.kind, signature: operatorSignature(node, this.graph), parallelism: subtasks.length,
        subtasks: [...subtasks].sort((a, b) => a.index - b.index) }
    }
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      job: this.graph.name,
      id: cp.barrier.id,
      kind: cp.barrier.savepoint ? 'savepoint' : 'checkpoint',
      finished,
      timestamp: Date.now(),
      maxParallelism: this.graph.config.maxParallelism,
      operators,
      sources: cp.sources,
      sinks: cp.sinks,
      sinkData: cp.sinkData,
      ...(this.graph.reused === undefined ? {} : { reused: this.graph.reused }),
    }
    if (cp.barrier.savepoint) await writeManifest(cp.base, '', manifest)
    else await writeManifest(cp.base, checkpointFolder(cp.barrier.id), manifest)
  }

  // ------------------------------------------------------------------ completion

  /** Waits for the in-flight checkpoint's manifest, then queues its commit (the sinks', then retention). */
  private async completeInflight(): Promise<void> {
    const cp = this.inflight
    if (cp === null) return
    try {
      await cp.done
    } catch (e) {
      // A worker thread died: that is the job's failure, not the checkpoint storage's.
      if (e === this.remoteFailure) throw e
      throw WeirError.checkpoint(`checkpoint ${cp.barrier.id} to '${cp.location}' failed: ${(e as Error).message}`, {
        help: (e instanceof WeirError ? e.help : undefined) ?? 'check that the checkpoint storage is reachable and writable',
        cause: e,
      })
    } finally {
      this.inflight = null
    }
    const committed = this.committing.then(() => this.commitCompleted(cp))
    this.committing = committed
    committed.catch(() => undefined) // awaited by the next trigger, savepoint or end
  }

  /** Checkpoint `cp` is complete: the sinks commit its output, then it counts as completed. */
  private async commitCompleted(cp: Inflight): Promise<void> {
    const hold = this.env.faults?.at('before-commit', { checkpointId: cp.barrier.id, final: false })
    if (hold) await hold
    await this.commitSinks(cp.barrier.id)
    this.sources.checkpointCompleted(cp.barrier.id, cp.sources)
    this.remote?.completed(cp.barrier.id, cp.sources)
    this.checkpointsCompleted++
    this.lastCompleted = { id: cp.barrier.id, at: Date.now() }
    checkpointCompleted(this.order, cp.barrier.id, cp.triggeredAt)
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
  async finalCheckpoint(): Promise<void> {
    await this.completeInflight()
    await this.committing
    if (!this.exactlyOnce) return
    const id = this.nextCheckpointId++
    const cp: Inflight = {
      barrier: { id, savepoint: false },
      triggeredAt: Date.now(),
      base: this.env.checkpoint!.storage,
      prefix: checkpointFolder(id) + '/',
      location: joinUri(this.env.checkpoint!.storage.uri, checkpointFolder(id)),
      expected: 0,
      acked: 0,
      allAcked: Promise.resolve(),
      onAllAcked: () => undefined,
      ackFailed: () => undefined,
      operators: new Map(),
      sourceParts: [...this.sources.parts(), ...this.remote?.lastSourcePositions() ?? []],
      sources: {},
      sinks: {},
      sinkData: {},
      uploads: [],
    }
    for (const task of this.order) if (task.sink?.prepareCommit) await this.sealSink(cp, task)
    await Promise.all(cp.uploads)
    await this.writeInflightManifest(cp, true)
    const hold = this.env.faults?.at('before-commit', { checkpointId: id, final: true })
    if (hold) await hold
    await this.commitSinks(id)
    this.sources.checkpointCompleted(id, cp.sources)
    this.remote?.completed(id, cp.sources)
    this.checkpointsCompleted++
    this.lastCompleted = { id, at: Date.now() }
    await applyRetention(this.env.checkpoint!.storage, this.env.checkpoint!.retained, referencedObjects)
  }

  /** The job is ending: no more triggers, and uploads still running (a failure) end before the job's folders go. */
  async stop(): Promise<void> {
    clearTimeout(this.triggerTimer)
    const cp = this.inflight
    await cp?.done?.catch(() => undefined)
    // A checkpoint that will not complete (cancelled or failed before every subtask acknowledged it:
    // `done` rejected at once) still has uploads running, which read local snapshots in the staging
    // folder the job deletes next.
    if (cp !== null) await Promise.allSettled(cp.uploads)
    await this.committing.catch(() => undefined)
  }
}

/** Where checkpoint or savepoint `barrier` puts its objects: the job folder (checkpoints) or the savepoint's own folder. */
export function checkpointTarget(config: { readonly storage: CheckpointStorage; readonly savepointStorage: CheckpointStorage },
  barrier: Barrier): CheckpointTarget
{
  return barrier.savepoint
    ? { base: new PrefixedStorage(config.savepointStorage, savepointFolder(barrier.id)), prefix: '' }
    : { base: config.storage, prefix: checkpointFolder(barrier.id) + '/' }
}

/**
 * Queues `p` among `cp`'s uploads, marked as handled: an upload may reject before anything awaits it
 * (a worker's when the worker dies, before the checkpoint fails at its acknowledgements; any upload
 * of a checkpoint that will not complete, which only `stop` waits for); the failure surfaces through
 * the checkpoint's `done`, or as the job's.
 */
function addUpload(cp: Inflight, p: Promise<void>): void {
  p.catch(() => undefined)
  cp.uploads.push(p)
}
