// Runs the items queued at the subtasks of one thread (the job's, or a worker's: threads.ts), subtask by
// subtask in topological order: batches through operators with their state prefetched and read
// ahead, watermarks (minimum over input channels) firing event-time timers, processing-time timers on
// a clock, barriers handed to alignment (checkpoint-coordinator.ts, or a worker's snapshots), ends
// finishing subtasks. One pump at a time: a pump asked for while one runs follows it.
import { assertNever, invariant } from '../common/assert.js'
import type { JobGraph } from '../core/job-graph.js'
import type { Batch } from '../core/batch.js'
import type { Field } from '../common/types.js'
import type { KeyRef, Namespace } from '../core/keyed-state.js'
import type { TimerDomain } from '../core/operator.js'
import { operatorFailure } from './operator-failure.js'
import { STAT } from './shared-metrics.js'
import { sampleStateIfDue } from './subtask-stats.js'
import { skippedCallsSoFar } from '../common/skipped-calls.js'
import { dropAhead, prefetchBatch, readAhead, timerRequests } from './read-ahead.js'
import { broadcast, type Barrier, type Item, type Task } from './subtasks.js'
import { inputWatermark, setIdle, updateIdle } from './watermark-status.js'

/** Where barriers go: the alignment of a subtask's channels, then its snapshot. */
export interface Alignment {
  /** A barrier arrived on channel `ch`. */
  barrierArrived(task: Task, ch: number, barrier: Barrier): Promise<void>
  /** A channel of `task` ended (not its last): it will never deliver the barrier being aligned. */
  channelEnded(task: Task): Promise<void>
  /** `task` finished: it snapshots for a checkpoint under way whose barrier it will now never see. */
  taskFinished(task: Task): Promise<void>
}

export interface TaskRunnerHooks {
  /** The job was cancelled: an input that ends did not reach its end (see 'end'). */
  readonly aborted: () => boolean
  /** Called with each batch a SELECT produces (Collect). */
  readonly onCollect?: ((schema: readonly Field[], batch: Batch) => void) | undefined
  /** The next processing-time timer is due: fire them (fireProcessingTimers) on the thread's loop. */
  readonly onTimerDue: () => void
  /** A pump ended (what it sent to other threads goes now). */
  readonly afterPump?: () => void
}

export class TaskRunner {
  private procTimer: NodeJS.Timeout | undefined
  /** A pump held a batch back for reading ahead (see pump). */
  holding = false
  /** A pump (or timers, or a snapshot) is running; who waits to run next. */
  private active = false
  private readonly waiting: (() => void)[] = []
  /** Who waits for every subtask of this thread to finish. */
  private onAllFinished: (() => void) | null = null

  constructor(
    private readonly graph: JobGraph,
    /** This thread's subtasks, in topological order. */
    private readonly order: readonly Task[],
    private readonly alignment: Alignment,
    private readonly hooks: TaskRunnerHooks,
  ) {}

  /** Resolves once every subtask of this thread has finished (checked after each pump). */
  allFinished(): Promise<void> {
    if (this.order.every(t => t.finished)) return Promise.resolve()
    return new Promise(resolve => {
      this.onAllFinished = resolve
    })
  }

  /** No processing-time wake-up outlives the job. */
  stop(): void {
    clearTimeout(this.procTimer)
  }

  /**
   * Runs every queued item, subtask by subtask in topological order. With `hold` (more source input
   * is on its way), a subtask whose only item is a batch it can read ahead for keeps it and starts
   * reading its state: when the next batch arrives, that read has overlapped the source, and the next
   * batch's read overlaps this one's processing. The loop runs held batches as soon as no input is
   * ready at once (`holding`).
   */
  pump(hold = false): Promise<void> {
    return this.serial(() => this.pumpNow(hold))
  }

  /** Runs `f` once nothing else runs the subtasks (at once when nothing does). */
  private async serial(f: () => Promise<void>): Promise<void> {
    if (this.active) await new Promise<void>(resolve => this.waiting.push(resolve))
    this.active = true
    try {
      await f()
    } finally {
      const next = this.waiting.shift()
      if (next !== undefined) next()
      else this.active = false
    }
  }

  /** Runs `f` between pumps (nothing else runs the subtasks meanwhile). */
  exclusive(f: () => Promise<void>): Promise<void> {
    return this.serial(f)
  }

  /** Fires the processing-time timers due, then runs what they produced (after any pump running). */
  fireDue(): Promise<void> {
    return this.serial(async () => {
      await this.fireProcessingTimers()
      await this.pumpNow(false)
    })
  }

  private async pumpNow(hold: boolean): Promise<void> {
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
          const stats = task.stats
          stats[STAT.running] = 1
          const t0 = performance.now()
          try {
            await this.process(task, item)
          } catch (e) {
            throw operatorFailure(e, task, this.graph, item.t === 'batch' ? { batch: item.batch, input: task.chInput[item.ch]! } : undefined)
          } finally {
            const t1 = performance.now()
            stats[STAT.busyMs]! += t1 - t0
            stats[STAT.running] = 0
            if (task.stateful) sampleStateIfDue(task, t1)
          }
        }
      }
    }
    this.scheduleProcessingTimers()
    this.hooks.afterPump?.()
    if (this.onAllFinished !== null && this.order.every(t => t.finished)) {
      const resolve = this.onAllFinished
      this.onAllFinished = null
      resolve()
    }
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
          this.hooks.onCollect?.(spec.schema, item.batch)
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
        const skippedBefore = skippedCallsSoFar()
        if (task.rowAtATime && item.batch.rows.length > 1) {
          // Mini-batch off: every row is its own batch, so every row emits its own change.
          const { rows, kinds } = item.batch
          for (let i = 0; i < rows.length; i++) op.processBatch({ rows: [rows[i]!], kinds: kinds ? kinds.subarray(i, i + 1) : null }, input)
        } else {
          op.processBatch(item.batch, input)
        }
        countSkippedCalls(task, skippedBefore)
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
          if (!this.hooks.aborted()) task.chWatermark[item.ch] = Infinity
          updateIdle(task)
          await this.advanceWatermark(task)
          await this.alignment.channelEnded(task)
          return
        }
        // The last input ended. If it ended on its own (not cancelled), it holds nothing back either: the
        // watermark reaches what every input sent last, though the last to end was idle until then and
        // its final watermark went unseen (a source subtask with no split, whose end came after the
        // others' on a loaded host: its open windows never fired, and their rows were lost).
        if (!this.hooks.aborted()) {
          task.chWatermark[item.ch] = Infinity
          await this.advanceWatermark(task)
        }
        // Bounded input ended: processing-time windows still open fire now, then the operator finishes.
        // A cancelled job's input did not end: its open windows are not complete, and only timers
        // whose time has come fire (what a stop with a savepoint keeps in the savepoint instead).
        if (task.operator) await this.fireProcessingTimersOf(task, this.hooks.aborted() ? Date.now() : Infinity)
        task.operator?.endInput?.()
        // Its state is not written here: nothing reads it after (a checkpoint still to come writes what
        // it snapshots, and the working state is deleted when the job ends).
        if (task.sink) await task.sink.finish()
        task.finished = true
        broadcast(task, ch => ({ t: 'end', ch }))
        await this.alignment.taskFinished(task)
        return
      }
      case 'barrier': {
        await this.alignment.barrierArrived(task, item.ch, item.barrier)
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
    task.stats[STAT.watermark] = wm
    if (task.operator) {
      const op = task.operator
      const state = task.state!
      if (task.eventTimers) {
        // At the final watermark an operator that dropped all its state has nothing for its timers to do.
        if (wm === Infinity && op.onFinalWatermark?.() === true) task.timers!.deleteAllEventTimers()
        if (state.needsPrefetch) await state.prefetch(timerRequests(task, task.timers!.dueEventTimers(wm)))
        const skippedBefore = skippedCallsSoFar()
        task.timers!.advanceWatermark(wm, (ts: number, key: KeyRef, ns: Namespace) => {
          state.setCurrentKey(key)
          op.onTimer?.(ts, ns, 'event')
        })
        countSkippedCalls(task, skippedBefore)
      } else {
        // No event timers: only the operator's clock (currentWatermark) moves.
        task.timers!.advanceWatermark(wm, NO_TIMER_DUE)
      }
      op.onWatermark?.(wm)
      if (state.needsPrefetch) await state.flush()
    }
    task.sink?.onWatermark?.(wm)
    const out = task.operator?.outputWatermark?.(wm) ?? wm
    // Only at the end can a subtask that is idle advance (every input ended): active again first, so its consumers see the watermark.
    if (task.idle) setIdle(task, false)
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
    this.procTimer = setTimeout(this.hooks.onTimerDue, Math.max(0, next - Date.now()))
  }

  private async fireProcessingTimers(): Promise<void> {
    const now = Date.now()
    for (const task of this.order) {
      if (!task.processingTimers) continue
      const stats = task.stats
      stats[STAT.running] = 1
      const t0 = performance.now()
      await this.fireProcessingTimersOf(task, now).catch(e => {
        throw operatorFailure(e, task, this.graph)
      }).finally(() => {
        stats[STAT.busyMs]! += performance.now() - t0
        stats[STAT.running] = 0
      })
    }
  }

  async fireProcessingTimersOf(task: Task, now: number): Promise<void> {
    if (!task.processingTimers || !task.timers || !task.operator) return
    await dropAhead(task)
    const op = task.operator
    const state = task.state!
    if (state.needsPrefetch) {
      const due = task.timers.dueProcessingTimers(now)
      if (due.length === 0) return
      await state.prefetch(timerRequests(task, due))
    }
    const skippedBefore = skippedCallsSoFar()
    task.timers.advanceProcessingTime(now, (ts: number, key: KeyRef, ns: Namespace) => {
      state.setCurrentKey(key)
      op.onTimer?.(ts, ns, 'processing' as TimerDomain)
    })
    countSkippedCalls(task, skippedBefore)
    if (state.needsPrefetch) await state.flush()
  }
}

const NO_TIMER_DUE = (): void => invariant(false, 'an event timer fired for an operator that declared none')

/** User function calls skipped ('weir.udf.on-error' = 'skip') since `before`, in the task's synchronous call just made: its skipped rows. */
function countSkippedCalls(task: Task, before: number): void {
  const n = skippedCallsSoFar() - before
  if (n > 0) task.metrics.rowsSkipped = (task.metrics.rowsSkipped ?? 0) + n
}
