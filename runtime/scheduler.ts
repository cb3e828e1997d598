// The loop that runs a job on its thread: source chunks in, every queued item run through the
// subtasks of this thread (task-runner.ts), and wake-ups for processing-time timers, checkpoints and
// a stop with a savepoint. Subtasks on worker threads (threads.ts) send what they produce back here.
import { assertNever } from '../common/assert.js'
import type { JobGraph } from '../core/job-graph.js'
import { EventLoopYielder } from '../core/yield.js'
import { evalConstant } from '../expr/index.js'
import type { BarrierDriver, CheckpointCoordinator } from './checkpoint-coordinator.js'
import type { ExecutionEnv } from './job-env.js'
import { STAT } from './shared-metrics.js'
import { operatorFailure } from './operator-failure.js'
import type { SourceRunner } from './source-runner.js'
import { broadcast, emit, type Task } from './subtasks.js'
import type { TaskRunner } from './task-runner.js'
import type { WorkerPool } from './worker-pool.js'

type Wake = { readonly t: 'tick' } | { readonly t: 'trigger' } | { readonly t: 'completed' } | { readonly t: 'savepoint' }

export class Scheduler implements BarrierDriver {
  private wakeLoop: (() => void) | undefined
  private readonly wakes: Wake[] = []
  private readonly yielder = new EventLoopYielder(10)

  constructor(
    private readonly graph: JobGraph,
    private readonly env: ExecutionEnv,
    /** This thread's subtasks, in topological order. */
    private readonly order: readonly Task[],
    private readonly runner: TaskRunner,
    private readonly sources: SourceRunner,
    private readonly checkpoints: CheckpointCoordinator,
    /** The worker threads running the job's parallel subtasks, if any. */
    private readonly workers: WorkerPool | null,
    /** The job's abort signal (the user's and the job's own). */
    private readonly signal: AbortSignal,
    /** Stops the job from inside (a stop with a savepoint that has nowhere to go). */
    private readonly abort: () => void,
  ) {
    // A worker's failure wakes the loop, which throws it.
    if (workers !== null) workers.onFail = () => this.wakeLoop?.()
  }

  /** A worker failed: the job fails with its error. */
  private throwIfWorkerFailed(): void {
    if (this.workers?.failure !== undefined) throw this.workers.failure
  }

  /** The loop's wake-up for a processing-time timer (TaskRunnerHooks.onTimerDue). */
  readonly timerDue = (): void => this.post({ t: 'tick' })

  pump(hold = false): Promise<void> {
    return this.runner.pump(hold)
  }

  /** Runs until every source has ended, or the job stopped with a savepoint. */
  async run(): Promise<void> {
    // VALUES inputs produce everything at once (after a restore, that happened before the checkpoint).
    for (const task of this.order) {
      const spec = task.node.spec
      if (spec.kind !== 'Values') continue
      const rows = this.env.restore ? [] : spec.rows.map(r => r.map(x => evalConstant(x)))
      if (rows.length) emit(task, { rows, kinds: null })
      broadcast(task, ch => ({ t: 'wm', ch, wm: Infinity }))
      broadcast(task, ch => ({ t: 'end', ch }))
      task.finished = true
    }
    this.sources.resumeWatermarks()
    await this.pump()

    const savepointRequested = (): void => this.post({ t: 'savepoint' })
    this.env.stopWithSavepoint?.addEventListener('abort', savepointRequested, { once: true })
    if (this.env.stopWithSavepoint?.aborted) this.post({ t: 'savepoint' })
    this.checkpoints.schedule(this)

    const sources = this.sources
    // The source subtasks on worker threads start reading now too (this thread's subtasks are open).
    this.workers?.startSources()
    sources.requestAll()
    let stopped = false
    try {
      while (sources.reading) {
        const queued = this.wakes.shift()
        if (queued !== undefined) {
          if (await this.onWake(queued)) {
            stopped = true
            break
          }
          continue
        }
        this.throwIfWorkerFailed()
        // Held batches wait for the next chunk only if it is ready at once: never for slow input.
        const got = await sources.next(this.runner.holding, wake => {
          this.wakeLoop = wake
        })
        this.wakeLoop = undefined
        this.throwIfWorkerFailed()
        if (got === null) {
          if (this.runner.holding) await this.pump()
          continue
        }
        const { src, result } = got
        if (result === null) {
          sources.ended(src)
          await this.pump()
          continue
        }
        const stats = src.task.stats
        const t0 = performance.now()
        try {
          sources.onChunk(src, result)
        } catch (e) {
          throw operatorFailure(e, src.task, this.graph, { batch: { rows: result.rows, kinds: result.kinds ?? null }, input: 0 })
        } finally {
          stats[STAT.busyMs]! += performance.now() - t0
        }
        // Read ahead: the next chunk is produced while this one waits on state I/O in the pump.
        // Its rows are handed on only after this chunk has been processed, so order is unchanged.
        if (this.signal.aborted) {
          // Stop reading; what was read is processed below, and next() now returns null.
          await src.reader.close()
        }
        // Backpressure from the worker threads: no more input while they hold enough of it.
        const waited = performance.now()
        if (this.workers !== null) await this.workers.room()
        stats[STAT.backpressuredMs]! += performance.now() - waited
        sources.request(src)
        await this.pump(true)
        // A reader whose chunks are ready at once keeps this loop on microtasks: give timers
        // (checkpoint triggers, processing time) and I/O completions a turn now and then — after
        // every chunk while a checkpoint uploads, since each of its steps needs a turn.
        // With worker threads, after every chunk: what they sent is only taken in on a turn of the loop,
        // and until it is they may wait for room (a chain of ready chunks would keep them waiting ~10 ms).
        const turn = this.checkpoints.busy || this.workers !== null ? new Promise<void>(resolve => setImmediate(resolve)) : this.yielder.due()
        if (turn !== null) await turn
      }
      // What the worker threads still run comes back here: the job ends when this thread's subtasks
      // (its sinks) have seen the end of every input. Wake-ups are still served meanwhile.
      if (this.workers !== null && !stopped) await this.drain()
    } finally {
      this.env.stopWithSavepoint?.removeEventListener('abort', savepointRequested)
    }
  }

  /** Serves wake-ups until every subtask of this thread, and the sink subtasks of the workers, have finished (or a worker failed). */
  private async drain(): Promise<void> {
    let done = false
    const finished = Promise.all([this.runner.allFinished(), this.workers!.sinksFinished()]).then(() => {
      done = true
    })
    while (!done) {
      const queued = this.wakes.shift()
      if (queued !== undefined) {
        if (await this.onWake(queued)) return
        continue
      }
      this.throwIfWorkerFailed()
      await Promise.race([finished, new Promise<void>(resolve => {
        this.wakeLoop = resolve
      })])
      this.wakeLoop = undefined
      this.throwIfWorkerFailed()
    }
  }

  /** The job is ending: no processing-time wake-up outlives it. */
  stop(): void {
    this.runner.stop()
  }

  wake(reason: 'trigger' | 'completed'): void {
    this.post({ t: reason })
  }

  /** Wakes the main loop for a timer, a checkpoint trigger or completion, or a savepoint request. */
  private post(w: Wake): void {
    // Queued, then the loop is nudged: a wake-up that loses a race to a source chunk is not lost.
    this.wakes.push(w)
    const wake = this.wakeLoop
    this.wakeLoop = undefined
    wake?.()
  }

  /** Handles a wake-up; true when the job stops (after a savepoint). */
  private async onWake(w: Wake): Promise<boolean> {
    switch (w.t) {
      case 'tick':
        await this.runner.fireDue()
        return false
      case 'trigger':
        await this.checkpoints.triggered(this)
        return false
      case 'completed':
        await this.checkpoints.completed(this)
        return false
      case 'savepoint': {
        if (!this.env.checkpoint) {
          // Nowhere to put a savepoint: stop as on cancel.
          this.env.log?.(`no 'state.checkpoints.dir': stopping without a savepoint`)
          this.abort()
          await this.sources.stopReading()
          return false
        }
        await this.checkpoints.savepoint(this)
        // Stop where the savepoint was taken: no final watermark, no end of input, nothing more written.
        await this.sources.stopReading()
        if (!this.checkpoints.exactlyOnce) { for (const task of this.order) if (task.sink) await task.sink.finish() }
        return true
      }
      default:
        return assertNever(w)
    }
  }
}
