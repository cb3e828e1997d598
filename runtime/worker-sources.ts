// The source subtasks a worker thread runs (threads.ts: split k of a source that splits, on worker k):
// their reading loop, as the job's loop (scheduler.ts) runs the sources of the job's thread — a chunk
// in, handed on through what is chained to the source, this thread's subtasks pumped, the next chunk
// read meanwhile — and the barriers the job's thread announces, which go in here between two chunks:
// the positions they record go back to the job's thread for the checkpoint's manifest.
import type { JobGraph } from '../core/job-graph.js'
import type { Manifest, SourceManifest } from './checkpoint.js'
import { STAT } from './shared-metrics.js'
import { operatorFailure } from './operator-failure.js'
import type { SourcePart } from './source-positions.js'
import { SourceRunner } from './source-runner.js'
import { broadcast, type Barrier, type Task } from './subtasks.js'
import type { TaskRunner } from './task-runner.js'
import type { InFlight } from './thread-links.js'

export class WorkerSources {
  private readonly sources: SourceRunner
  private readonly controller = new AbortController()
  /** Wakes the loop (a barrier that stops it, a cancel). */
  private wakeLoop: (() => void) | null = null
  /** Stopped at a savepoint's barrier: nothing more is read or handed on. */
  private stopped = false

  constructor(
    private readonly graph: JobGraph,
    /** This worker's source subtasks. */
    private readonly tasks: readonly Task[],
    private readonly runner: TaskRunner,
    private readonly inFlight: InFlight,
    /** Where a source subtask ended (the job's final checkpoint lists it). */
    private readonly ended: (parts: SourcePart[]) => void,
  ) {
    this.sources = new SourceRunner(graph, this.controller.signal)
  }

  /** Opens the readers, at the positions of the checkpoint being restored. */
  async open(restore: Manifest | undefined): Promise<void> {
    for (const task of this.tasks) {
      if (task.node.spec.kind === 'Source') await this.sources.open(task, task.node.spec, restore?.sources[task.node.id])
    }
  }

  /** The job was cancelled: readers return null from now on, and their subtasks end. */
  abort(): void {
    this.controller.abort()
    this.wakeLoop?.()
  }

  /**
   * Barrier `barrier` goes in at every source subtask of this thread that is still reading, after the
   * rows it handed on so far: their positions now are the checkpoint's. A savepoint's barrier stops
   * them (the job stops where the savepoint was taken).
   */
  inject(barrier: Barrier): SourcePart[] {
    const parts = this.sources.parts()
    for (const src of this.sources.sources) if (!src.task.finished) broadcast(src.task, ch => ({ t: 'barrier', ch, barrier }))
    if (barrier.savepoint) {
      this.stopped = true
      this.wakeLoop?.()
    }
    return parts
  }

  checkpointCompleted(id: number, sources: Readonly<Record<string, SourceManifest>>): void {
    this.sources.checkpointCompleted(id, sources)
  }

  /** Rows skipped by the readers (bad records they were told to skip). */
  skippedRecords(): number {
    return this.sources.metrics().skipped
  }

  /** Reads every source of this thread until it ends, is cancelled, or a savepoint stops it. */
  async run(): Promise<void> {
    const sources = this.sources
    if (sources.sources.length === 0) return
    sources.resumeWatermarks()
    await this.runner.pump()
    sources.requestAll()
    while (sources.reading && !this.stopped) {
      const got = await sources.next(this.runner.holding, wake => {
        this.wakeLoop = wake
      })
      this.wakeLoop = null
      if (this.stopped) break
      if (got === null) {
        if (this.runner.holding) await this.runner.pump()
        continue
      }
      const { src, result } = got
      if (result === null) {
        sources.ended(src)
        this.ended(sources.parts().filter(p => p.node === src.task.node.id && p.index === src.task.index))
        await this.runner.pump()
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
      if (this.controller.signal.aborted) await src.reader.close()
      // Backpressure: no more input while enough of it is in flight between the threads.
      const waited = performance.now()
      await this.inFlight.room()
      stats[STAT.backpressuredMs]! += performance.now() - waited
      if (this.stopped) break
      sources.request(src)
      await this.runner.pump(true)
      // A turn of the loop after every chunk: the other threads' messages are taken in (and their
      // count in flight goes down) only then; a chain of ready chunks would make them wait.
      await new Promise<void>(resolve => setImmediate(resolve))
    }
    if (this.stopped) await sources.stopReading()
  }

  async close(errors: unknown[]): Promise<void> {
    this.controller.abort()
    await this.sources.close(errors)
  }
}
