// The job's side of its worker threads (threads.ts): starts one worker per subtask index, connects
// them to each other and to this thread, hands what they send to this thread's subtasks and its
// checkpoint coordinator, and makes a failure of any of them the job's.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads'
import { WeirError } from '../common/errors.js'
import type { JobGraph } from '../core/job-graph.js'
import type { CheckpointConfig, CheckpointRef, SourceManifest, SubtaskManifest } from './checkpoint.js'
import type { SourcePart } from './source-positions.js'
import type { CheckpointCoordinator, RemoteSnapshots } from './checkpoint-coordinator.js'
import type { FaultInjector } from './faults.js'
import type { Barrier, Task } from './subtasks.js'
import { createRings, InFlight, Link, receiveItems, Ring } from './thread-links.js'
import { FLAG_ABORTED, fromWire, type FromWorker, type ToWorker, type WorkerInit, type WorkerStats } from './thread-protocol.js'
import type { TaskRunner } from './task-runner.js'
import { MAIN_THREAD, subtaskWorkerScript, threadOf } from './threads.js'
import { OperatorFailure } from './operator-failure.js'
import { STAT } from './shared-metrics.js'
import { markProcessing } from './thread-priority.js'

/** Worker threads started and not yet exited, and started in all, in this process (tests check none is left behind). */
let running = 0
let started = 0
const live = new Set<Worker>()
/** The worker threads of this process's jobs that run now (the crash tests terminate one). */
export function liveSubtaskWorkers(): readonly Worker[] {
  return [...live]
}
export function subtaskWorkersRunning(): number {
  return running
}
export function subtaskWorkersStarted(): number {
  return started
}

interface Pending {
  readonly resolve: (m: SubtaskManifest | null) => void
  readonly reject: (e: unknown) => void
}

export class WorkerPool implements RemoteSnapshots {
  /** By subtask index; none for 0, whose subtasks run on the job's thread. */
  private readonly workers: (Worker | undefined)[] = []
  private readonly exited: boolean[] = []
  /** The links to each worker, by worker number. */
  readonly links: Link[] = []
  private readonly inFlight: InFlight
  private readonly flags: Int32Array
  /** Rejects when a worker fails or exits before it was told to; never resolves. (For one-off waits: racing it in a loop would pile up reactions on it.) */
  readonly failed: Promise<never>
  private fail!: (e: unknown) => void
  /** The first failure of a worker, if any. */
  failure: unknown = undefined
  /** Called once, when a worker fails (the job's loop wakes up to throw it). */
  onFail: (() => void) | undefined
  private readonly uploads = new Map<string, Pending>()
  private readonly replies: ((m: FromWorker) => boolean)[] = []
  /**
   * Unmark the workers' threads as processing threads (runtime/thread-priority.ts), once they ended.
   * Until its ready message names its thread, a worker counts as a processing thread of unknown id,
   * which holds off any lowering of helper threads (another job's, starting meanwhile, would lower it).
   */
  private readonly unmark: (() => void)[] = []
  private closing = false
  private checkpointing = false
  private coordinator: CheckpointCoordinator | null = null
  /** Per checkpoint in flight: the workers' source positions so far, and how many workers are still to answer. */
  private readonly positionsAt = new Map<number, {
    readonly parts: SourcePart[]
    remaining: number
    readonly resolve: (parts: SourcePart[]) => void
    readonly reject: (e: unknown) => void
    readonly done: Promise<SourcePart[]>
  }>()
  /** The last positions each source subtask on a worker reported, by node/index. */
  private readonly lastPositions = new Map<string, SourcePart>()
  /** The source subtasks on workers that ended (node/index). */
  private readonly endedSources = new Set<string>()
  private runner: TaskRunner | null = null
  /** The workers whose every subtask has finished ('finished'), and the wait for those that run sinks. */
  private readonly finishedWorkers = new Set<number>()
  private onWorkerFinished: (() => void) | null = null

  constructor(
    private readonly graph: JobGraph,
    private readonly order: readonly Task[],
    count: number,
    shared: { readonly inFlight: SharedArrayBuffer; readonly flags: SharedArrayBuffer; readonly metrics: SharedArrayBuffer },
    private readonly faults: FaultInjector | undefined,
  ) {
    this.inFlight = new InFlight(shared.inFlight)
    this.flags = new Int32Array(shared.flags)
    this.failed = new Promise<never>((_, reject) => {
      this.fail = reject
    })
    this.failed.catch(() => undefined)
    this.count = count
    this.shared = shared
    this.rings = createRings(count)
    this.incoming = Array.from({ length: count }, (_, w) => new Ring(this.rings[w + 1]![0]!))
    for (let w = 0; w < count; w++) {
      const ring = new Ring(this.rings[0]![w + 1]!)
      this.links.push(new Link({ postMessage: (m, transfer) => this.workers[w]!.postMessage(m, transfer) }, this.inFlight, ring, MAIN_THREAD))
    }
  }

  private readonly count: number
  private readonly rings: (SharedArrayBuffer | null)[][]
  /** The rings of the links from each worker to this thread. */
  private readonly incoming: Ring[]
  private readonly shared: { readonly inFlight: SharedArrayBuffer; readonly flags: SharedArrayBuffer; readonly metrics: SharedArrayBuffer }

  /** Starts the workers; resolves once each has opened its subtasks (restored their state). */
  async start(init: { restore: CheckpointRef | undefined; checkpoint: CheckpointConfig | undefined; stateDir: string }, runner: TaskRunner,
    coordinator: CheckpointCoordinator): Promise<void>
  {
    this.runner = runner
    this.coordinator = coordinator
    this.checkpointing = init.checkpoint !== undefined
    const script = subtaskWorkerScript()
    if (script === null) {
      throw WeirError.execution(`the job runs at parallelism ${this.graph.config.parallelism} on worker threads, but the worker's script is missing`, {
        help: `build Weir (npx tsc -p tsconfig.json), or SET 'execution.worker-threads' = 'false'`,
      })
    }
    // A port between every two workers.
    const ports: (MessagePort | null)[][] = Array.from({ length: this.count }, () => Array.from({ length: this.count }, () => null))
    for (let a = 1; a < this.count; a++) {
      for (let b = a + 1; b < this.count; b++) {
        const { port1, port2 } = new MessageChannel()
        ports[a]![b] = port1
        ports[b]![a] = port2
      }
    }
    const ready: Promise<void>[] = []
    for (let w = 1; w < this.count; w++) {
      const data: WorkerInit = {
        graph: this.graph,
        worker: w,
        restore: init.restore === undefined ? undefined : { manifest: init.restore.manifest, baseUri: init.restore.base.uri, location: init.restore.location },
        checkpoint: init.checkpoint === undefined ? undefined : { storageUri: init.checkpoint.storage.uri, savepointUri: init.checkpoint.savepointStorage.uri },
        stateDir: init.stateDir,
        inFlight: this.shared.inFlight,
        flags: this.shared.flags,
        metrics: this.shared.metrics,
        rings: this.rings,
        peers: ports[w]!,
      }
      const transfer = ports[w]!.filter((p): p is MessagePort => p !== null)
      const worker = new Worker(script, { workerData: data, transferList: transfer as never[], name: `weir ${this.graph.name} subtask ${w}` })
      running++
      started++
      this.workers[w] = worker
      worker.unref()
      const starting = markProcessing(undefined)
      this.unmark.push(starting)
      ready.push(new Promise<void>(resolve => this.replies.push(m => m.t === 'ready' && (resolve(), true))))
      worker.on('message', (m: FromWorker) => {
        if (m.t === 'ready') {
          this.unmark.push(markProcessing(m.thread))
          starting()
        }
        this.onMessage(w, m)
      })
      live.add(worker)
      // An exception nothing caught on the worker ('error', then 'exit'), or the thread ended
      // (process.exit there, terminated, out of memory): the job fails, naming what the worker ran.
      worker.on('error', e => this.onFailure(this.crashed(w, `failed with an exception nothing caught: ${e instanceof Error ? e.message : String(e)}`, e)))
      worker.on('exit', code => {
        starting()
        running--
        live.delete(worker)
        this.exited[w] = true
        if (!this.closing) this.onFailure(this.crashed(w, `exited unexpectedly (exit code ${code})`))
      })
    }
    // A worker keeps the process alive while the job runs; not after it.
    for (const w of this.workers) w?.ref()
    await Promise.race([Promise.all(ready), this.failed])
  }

  /**
   * The failure of worker `w`, which died `how`: naming the job, the operator subtask it was running
   * (else every one it ran) and what to do.
   */
  private crashed(w: number, how: string, cause?: unknown): WeirError {
    const mine = this.order.filter(t => threadOf(t, true, this.graph.config.parallelism) === w)
    const runningTask = mine.find(t => t.stats[STAT.running] === 1)
    const help = this.checkpointing
      ? `the job stopped; run it again and it resumes from its last completed checkpoint (what its sinks committed since is not repeated)`
      : `the job stopped; run it again (without 'execution.checkpointing.interval' it starts from the beginning)`
    const error = WeirError.execution(`worker thread ${w} of job '${this.graph.name}' ${how}`, {
      help,
      ...(cause === undefined ? {} : { cause }),
      notes: runningTask !== undefined || mine.length === 0
        ? []
        : [`it ran ${mine.map(t => `${t.node.id} (${t.node.spec.kind}, subtask ${t.index + 1} of ${t.parallelism})`).join(', ')}`],
    })
    if (runningTask === undefined) return error
    return new OperatorFailure(error, { id: runningTask.node.id, kind: runningTask.node.spec.kind, subtask: runningTask.index,
      parallelism: runningTask.parallelism }, undefined, [])
  }

  private onFailure(e: unknown): void {
    if (this.failure !== undefined) return
    this.failure = e
    this.fail(e)
    this.coordinator?.remoteFailed(e)
    this.onFail?.()
    for (const p of this.uploads.values()) p.reject(e)
    this.uploads.clear()
    for (const p of this.positionsAt.values()) p.reject(e)
    this.positionsAt.clear()
  }

  private onMessage(w: number, m: FromWorker): void {
    switch (m.t) {
      case 'items': {
        receiveItems(m, this.order, this.incoming[w]!)
        this.runner!.pump().then(() => this.inFlight.done(), e => this.onFailure(e))
        return
      }
      case 'snapshot': {
        const task = this.order[m.task]!
        const uploaded = new Promise<SubtaskManifest | null>((resolve, reject) => {
          if (this.failure !== undefined) reject(this.failure)
          else this.uploads.set(`${m.checkpoint}/${m.task}`, { resolve, reject })
        })
        uploaded.catch(() => undefined)
        this.coordinator!.remoteSnapshot(m.checkpoint, task, uploaded)
        return
      }
      case 'uploaded': {
        const key = `${m.checkpoint}/${m.task}`
        const pending = this.uploads.get(key)
        this.uploads.delete(key)
        const task = this.order[m.task]!
        // The crash tests' hook between uploads, as for a subtask on this thread.
        const hold = m.subtask === null ? undefined : this.faults?.at('upload', { checkpointId: m.checkpoint, operatorId: task.node.id, subtask: task.index })
        if (hold) hold.then(() => pending?.resolve(m.subtask), e => pending?.reject(e))
        else pending?.resolve(m.subtask)
        return
      }
      case 'upload-failed': {
        const key = `${m.checkpoint}/${m.task}`
        this.uploads.get(key)?.reject(fromWire(m.error))
        this.uploads.delete(key)
        return
      }
      case 'failed':
        this.onFailure(fromWire(m.error))
        return
      case 'source-positions':
        this.onPositions(m)
        return
      case 'finished':
        this.finishedWorkers.add(w)
        this.onWorkerFinished?.()
        return
      default: {
        const i = this.replies.findIndex(r => r(m))
        if (i >= 0) this.replies.splice(i, 1)
      }
    }
  }

  /**
   * Resolves once every worker that runs sink subtasks (sink-parallelism.ts) has finished them: they
   * write what reaches them after this thread's subtasks have ended. (A failure wakes the job's loop.)
   */
  sinksFinished(): Promise<void> {
    const p = this.graph.config.parallelism
    const sinkWorkers = new Set(this.order.filter(t => t.node.spec.kind === 'Sink').map(t => threadOf(t, true, p)).filter(w => w !== MAIN_THREAD))
    const done = (): boolean => [...sinkWorkers].every(w => this.finishedWorkers.has(w) || this.exited[w] === true)
    if (done()) return Promise.resolve()
    return new Promise(resolve => {
      this.onWorkerFinished = () => {
        if (!done()) return
        this.onWorkerFinished = null
        resolve()
      }
    })
  }

  /** The workers started, with their numbers. */
  private started(): [number, Worker][] {
    return this.workers.flatMap((w, i) => (w === undefined ? [] : [[i, w] as [number, Worker]]))
  }

  private post(w: number, m: ToWorker): void {
    if (this.exited[w]) return
    this.workers[w]!.postMessage(m)
  }

  /** Posts what this thread's subtasks queued for the workers (after each pump). */
  flush(): void {
    for (const link of this.links) link.flush()
  }

  announce(barrier: Barrier): void {
    this.flush()
    // Every worker answers with the positions of its source subtasks (none: an empty list).
    let resolve!: (parts: SourcePart[]) => void, reject!: (e: unknown) => void
    const done = new Promise<SourcePart[]>((res, rej) => {
      resolve = res
      reject = rej
    })
    done.catch(() => undefined)
    // A worker died: no answer will come.
    if (this.failure !== undefined) {
      reject(this.failure)
      this.positionsAt.set(barrier.id, { parts: [], remaining: this.count - 1, resolve, reject, done })
      return
    }
    this.positionsAt.set(barrier.id, { parts: [], remaining: this.count - 1, resolve, reject, done })
    for (let w = 1; w < this.count; w++) this.post(w, { t: 'announce', barrier })
  }

  /** The job was cancelled: inputs that end now did not reach their end, and the workers' sources stop reading. */
  aborted(): void {
    Atomics.store(this.flags, FLAG_ABORTED, 1)
    for (const [w] of this.started()) {
      if (!this.exited[w]) this.post(w, { t: 'abort' })
    }
  }

  /** Resolves once the messages in flight between threads are below the limit. */
  room(): Promise<void> {
    return this.inFlight.room(() => {
      if (this.failure !== undefined) throw this.failure
    })
  }

  /** The job's loop starts reading: so do the source subtasks on the workers. */
  startSources(): void {
    for (const [w] of this.started()) this.post(w, { t: 'run' })
  }

  sourcePositions(id: number): Promise<SourcePart[]> {
    return this.positionsAt.get(id)?.done ?? Promise.resolve([])
  }

  lastSourcePositions(): SourcePart[] {
    return [...this.lastPositions.values()]
  }

  sourcesEnded(): boolean {
    const parallelism = this.graph.config.parallelism
    const remote = this.order.filter(t => t.node.spec.kind === 'Source' && threadOf(t, true, parallelism) !== MAIN_THREAD)
    return remote.every(t => this.endedSources.has(`${t.node.id}/${t.index}`))
  }

  completed(id: number, sources: Readonly<Record<string, SourceManifest>>): void {
    for (const [w] of this.started()) this.post(w, { t: 'completed', checkpoint: id, sources })
  }

  /** A worker reported where its source subtasks were: at checkpoint `m.checkpoint`'s barrier, or (0) where one ended. */
  private onPositions(m: { readonly checkpoint: number; readonly parts: readonly SourcePart[] }): void {
    for (const part of m.parts) this.lastPositions.set(`${part.node}/${part.index}`, part)
    if (m.checkpoint === 0) {
      for (const part of m.parts) this.endedSources.add(`${part.node}/${part.index}`)
      return
    }
    const pending = this.positionsAt.get(m.checkpoint)
    if (pending === undefined) return
    pending.parts.push(...m.parts)
    if (--pending.remaining === 0) {
      this.positionsAt.delete(m.checkpoint)
      pending.resolve(pending.parts)
    }
  }

  /** State entries and disk use of the workers' subtasks. */
  async stats(countStored: boolean): Promise<WorkerStats[]> {
    const all = this.started().map(([w]) =>
      new Promise<WorkerStats>(resolve => {
        this.replies.push(m => m.t === 'stats' && (resolve(m.stats), true))
        this.post(w, { t: 'stats', countStored })
      })
    )
    // Replies come in the order asked, one per worker.
    return Promise.race([Promise.all(all), this.failed])
  }

  /** Closes every worker's operators and state and ends the workers; errors in closing are returned. */
  async close(): Promise<unknown[]> {
    this.closing = true
    const errors: unknown[] = []
    await Promise.all(this.started().map(([w, worker]) =>
      this.exited[w] ? undefined : new Promise<void>(resolve => {
        const timer = setTimeout(() => resolve(), 30_000)
        worker.once('exit', () => {
          clearTimeout(timer)
          resolve()
        })
        worker.on('message', (m: FromWorker) => {
          if (m.t === 'closed') { for (const e of m.errors) errors.push(fromWire(e)) }
        })
        try {
          this.post(w, { t: 'close' })
        } catch {
          resolve()
        }
      })
    ))
    await Promise.all(this.started().map(([, w]) => w.terminate()))
    for (const unmark of this.unmark) unmark()
    return errors
  }
}
