// The loop that runs a job's subtasks: source chunks in, every queued item run subtask by subtask in
// topological order (pump), state prefetched per batch and read ahead, watermarks following the data
// (minimum over input channels) and firing event-time timers, processing-time timers on a clock, and
// wake-ups for checkpoints and a stop with a savepoint.
import { assertNever, invariant } from '../common/assert.js'
import type { JobGraph } from '../core/job-graph.js'
import type { KeyRef, Namespace } from '../core/keyed-state.js'
import type { TimerDomain } from '../core/operator.js'
import { EventLoopYielder } from '../core/yield.js'
import { evalConstant } from '../expr/index.js'
import type { BarrierDriver, CheckpointCoordinator } from './checkpoint-coordinator.js'
import type { ExecutionEnv } from './job-env.js'
import { operatorFailure } from './operator-failure.js'
import { dropAhead, prefetchBatch, readAhead, timerRequests } from './read-ahead.js'
import type { SourceRead, SourceRunner } from './source-runner.js'
import { broadcast, emit, type Item, type Task } from './subtasks.js'
import { inputWatermark, updateIdle } from './watermark-status.js'

type Wake = { readonly t: 'tick' } | { readonly t: 'trigger' } | { readonly t: 'completed' } | { readonly t: 'savepoint' }

export class Scheduler implements BarrierDriver {
  private procTimer: NodeJS.Timeout | undefined
  private wakeLoop: (() => void) | undefined
  private readonly wakes: Wake[] = []
  private readonly yielder = new EventLoopYielder(10)
  /** A pump held a batch back for reading ahead (see pump). */
  private holding = false

  constructor(
    private readonly graph: JobGraph,
    private readonly env: ExecutionEnv,
    private readonly order: readonly Task[],
    private readonly sources: SourceRunner,
    private readonly checkpoints: CheckpointCoordinator,
    /** The job's abort signal (the user's and the job's own). */
    private readonly signal: AbortSignal,
    /** Stops the job from inside (a stop with a savepoint that has nowhere to go). */
    private readonly abort: () => void,
  ) {}

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
    sources.requestAll()
    try {
      while (sources.reading) {
        const queued = this.wakes.shift()
        if (queued !== undefined) {
          if (await this.onWake(queued)) break
          continue
        }
        // Held batches wait for the next chunk only if it is ready at once: never for slow input.
        const immediate = this.holding ? new Promise<null>(resolve => setImmediate(() => resolve(null))) : null
        const got: SourceRead | null = await Promise.race([...sources.reads(), new Promise<null>(resolve => {
          this.wakeLoop = () => resolve(null)
        }), ...(immediate ? [immediate] : [])])
        this.wakeLoop = undefined
        if (got === null) {
          if (this.holding) await this.pump()
          continue
        }
        const { src, result } = got
        if (result === null) {
          sources.ended(src)
          await this.pump()
          continue
        }
        try {
          sources.onChunk(src, result)
        } catch (e) {
          throw operatorFailure(e, src.task, this.graph, { batch: { rows: result.rows, kinds: result.kinds ?? null }, input: 0 })
        }
        // Read ahead: the next chunk is produced while this one waits on state I/O in the pump.
        // Its rows are handed on only after this chunk has been processed, so order is unchanged.
        if (this.signal.aborted) {
          // Stop reading; what was read is processed below, and next() now returns null.
          await src.reader.close()
        }
        sources.request(src)
        await this.pump(true)
        // A reader whose chunks are ready at once keeps this loop on microtasks: give timers
        // (checkpoint triggers, processing time) and I/O completions a turn now and then — after
        // every chunk while a checkpoint uploads, since each of its steps needs a turn.
        const turn = this.checkpoints.busy ? new Promise<void>(resolve => setImmediate(resolve)) : this.yielder.due()
        if (turn !== null) await turn
      }
    } finally {
      this.env.stopWithSavepoint?.removeEventListener('abort', savepointRequested)
    }
  }

  /** The job is ending: no processing-time wake-up outlives it. */
  stop(): void {
    clearTimeout(this.procTimer)
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
        await this.fireProcessingTimers()
        await this.pump()
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

  /**
   * Runs every queued item, subtask by subtask in topological order. With `hold` (more source input
   * is on its way), a subtask whose only item is a batch it can read ahead for keeps it and starts
   * reading its state: when the next batch arrives, that read has overlapped the source, and the next
   * batch's read overlaps this one's processing. The loop runs held batches as soon as no input is
   * ready at once (`holding`).
   */
  async pump(hold = false): Promise<void> {
    this.holding = false
    let progressed = true
    while (progressed) {
      progressed = false
      for (const task of this.order) {
        while (task.queue.length > 0) {
          if (hold && task.queue.length === 1 && (task.ahead?.item === task.queue[0] || readAhead(task, task.queue[0]!))) {
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
    if (task.ahead !== null && task.ahead.item !== item) await dropAhead(task)
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
        if (task.sink) {
          await task.sink.write(item.batch)
          return
        }
        if (spec.kind === 'Collect') {
          this.env.onCollect?.(spec.schema, item.batch)
          return
        }
        const op = task.operator!
        const state = task.state!
        if (state.needsPrefetch) {
          if (task.ahead !== null) {
            const { loaded } = task.ahead
            task.ahead = null
            await loaded
          } else {
            await prefetchBatch(task, item.batch, input)
          }
          // Pipelining: the next batch's state is read while this one is processed and flushed.
          const next = task.queue[0]
          if (next !== undefined && readAhead(task, next)) await new Promise<void>(resolve => setImmediate(resolve))
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
          // An input that ended holds nothing back: a bounded one sent its final watermark before its
          // end anyway. One that stopped because the job was cancelled did not reach the end of its
          // input: its watermark stays where it was, or the other inputs would fire windows and join
          // rows (a temporal join's probes) as if it had nothing more to give.
          if (!this.signal.aborted) task.chWatermark[item.ch] = Infinity
          updateIdle(task)
          await this.advanceWatermark(task)
          await this.checkpoints.channelEnded(task)
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
        broadcast(task, ch => ({ t: 'end', ch }))
        return
      }
      case 'barrier': {
        await this.checkpoints.barrierArrived(task, item.ch, item.barrier)
        return
      }
      case 'idle': {
        if (task.chIdle[item.ch] === item.idle) return
        task.chIdle[item.ch] = item.idle
        updateIdle(task)
        // An idle channel no longer holds the others back.
        if (item.idle) await this.advanceWatermark(task)
        return
      }
      default:
        assertNever(item)
    }
  }

  private async advanceWatermark(task: Task): Promise<void> {
    const wm = inputWatermark(task)
    if (wm === null || wm <= task.watermark) return
    task.watermark = wm
    if (task.operator) {
      const op = task.operator
      const state = task.state!
      if (task.eventTimers) {
        if (state.needsPrefetch) await state.prefetch(timerRequests(task, task.timers!.dueEventTimers(wm)))
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
    const out = task.operator?.outputWatermark?.(wm) ?? wm
    broadcast(task, ch => ({ t: 'wm', ch, wm: out }))
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
    for (const task of this.order) {
      await this.fireProcessingTimersOf(task, now).catch(e => {
        throw operatorFailure(e, task, this.graph)
      })
    }
  }

  private async fireProcessingTimersOf(task: Task, now: number): Promise<void> {
    if (!task.processingTimers || !task.timers || !task.operator) return
    await dropAhead(task)
    const op = task.operator
    const state = task.state!
    if (state.needsPrefetch) {
      const due = task.timers.dueProcessingTimers(now)
      if (due.length === 0) return
      await state.prefetch(timerRequests(task, due))
    }
    task.timers.advanceProcessingTime(now, (ts: number, key: KeyRef, ns: Namespace) => {
      state.setCurrentKey(key)
      op.onTimer?.(ts, ns, 'processing' as TimerDomain)
    })
    if (state.needsPrefetch) await state.flush()
  }
}

const NO_TIMER_DUE = (): void => invariant(false, 'an event timer fired for an operator that declared none')
