// The job's sources: their readers and splits, the position of each split (what a checkpoint
// records), per-split watermarks (a source's watermark is the minimum over the splits being read),
// and the chunks they read handed on as batches — one read ahead per source, so the next chunk is
// produced while this one waits on state I/O.
import { invariant } from '../common/assert.js'
import type { Batch, Row } from '../core/batch.js'
import { type JobGraph, type SourceSpec, sourceReadColumns } from '../core/job-graph.js'
import type { SourceChunk, SourceReader, SplitPosition } from '../connectors/api.js'
import { loadedConnector } from '../connectors/catalog.js'
import { loadUserFunctionsOf } from '../udf/load.js'
import { compileCalc, compileScalar } from '../expr/index.js'
import type { SourceManifest } from './checkpoint.js'
import type { FaultInjector } from './faults.js'
import { operatorFailure } from './operator-failure.js'
import { ownPositions, subtaskStart, type SourcePart } from './source-positions.js'
import { broadcast, emit, type Task } from './subtasks.js'
import { setIdle } from './watermark-status.js'
import { partitionFilter } from './partition-filter.js'
import { STAT } from './shared-metrics.js'
import { skippedCallsSoFar } from '../common/skipped-calls.js'

export interface SourceRuntime {
  readonly task: Task
  readonly spec: SourceSpec
  reader: SourceReader
  readonly calc: ((b: Batch) => Batch | null) | null
  readonly wmExpr: ((row: Row) => unknown) | null
  splitMax: number[]
  splitEnded: boolean[]
  /** Per split: reported idle (no data for the idle timeout) and no rows since. */
  splitIdle: boolean[]
  /** Per split, the position after the last chunk handed on (what a checkpoint records). */
  positions: (SplitPosition | null)[]
  emittedWatermark: number
  rowsOut: number
  recordsRead: number
  /** User function calls of the projection and filter skipped under 'weir.udf.on-error' = 'skip'. */
  callsSkipped: number
  readonly bounded: boolean
}

/** A read that completed: the next chunk of a source, or null when it has no more. */
export interface SourceRead {
  readonly src: SourceRuntime
  readonly result: SourceChunk | null
}

/** One read of a source: in progress, then settled with its chunk (or its failure) until the loop takes it. */
interface Read {
  readonly src: SourceRuntime
  result: SourceChunk | null
  failed: boolean
  error: unknown
}

export class SourceRunner {
  readonly sources: SourceRuntime[] = []
  /** The read of each source still being read: in progress, or settled and not yet handed on. */
  private readonly pending = new Map<SourceRuntime, Read>()
  /** Reads that settled and wait for the loop, in the order they settled. */
  private readonly ready: Read[] = []
  /** Wakes the loop waiting in next() when a read settles. */
  private readySignal: (() => void) | null = null

  constructor(private readonly graph: JobGraph, private readonly signal: AbortSignal, private readonly faults?: FaultInjector) {}

  /**
   * Opens the reader of a source subtask, at the positions of the checkpoint being restored (`old`):
   * a splittable source's reader picks the splits its subtask owns from all of them.
   */
  async open(task: Task, spec: SourceSpec, old: SourceManifest | undefined): Promise<void> {
    const factory = loadedConnector(spec.connector)
    invariant(factory.source, `connector ${spec.connector} has no source`)
    const start = old === undefined ? undefined : subtaskStart(old, task.index, task.parallelism)
    // Before the reader: a pushed-down filter (partition pruning among them) may call user functions.
    await loadUserFunctionsOf(spec)
    const prune = partitionFilter(spec)
    const reader = await factory.source.create({
      table: spec.table,
      options: spec.options,
      schema: spec.physicalSchema,
      ...(spec.metadata !== undefined ? { metadata: spec.metadata } : {}),
      ...(spec.partitionKeys !== undefined ? { partitionKeys: spec.partitionKeys } : {}),
      ...(prune !== undefined ? { partitionFilter: prune } : {}),
      readColumns: sourceReadColumns(spec),
      subtask: { index: task.index, parallelism: task.parallelism },
      signal: this.signal,
      batchSize: this.graph.config.batchSize,
      restoredPositions: start?.restoredPositions,
    })
    const identity = !spec.filter && spec.projection.length === spec.physicalSchema.length &&
      spec.projection.every((r, i) => r.kind === 'Input' && r.index === i)
    const splits = reader.splitCount
    // Split by split only as the checkpoint has them: the same subtasks, and as many splits.
    const own = start?.own != null && start.own.splitMax.length === splits ? start.own : null
    this.sources.push({
      task,
      spec,
      reader,
      calc: identity ? null : compileCalc(spec.projection, spec.filter),
      wmExpr: spec.watermark ? compileScalar(spec.watermark.expr) : null,
      splitMax: Array.from({ length: splits }, (_, i) => own?.splitMax[i] ?? -Infinity),
      splitEnded: Array.from({ length: splits }, () => false),
      splitIdle: Array.from({ length: splits }, () => false),
      positions: Array.from({ length: splits }, (_, i) => reader.startPositions?.[i] ?? start?.own?.positions[i] ?? null),
      emittedWatermark: start?.watermark ?? -Infinity,
      rowsOut: 0,
      recordsRead: 0,
      callsSkipped: 0,
      bounded: factory.source.bounded(spec.options),
    })
  }

  /** A restored source resumes its watermark, so rows late before the checkpoint stay late. */
  resumeWatermarks(): void {
    for (const src of this.sources) {
      if (src.emittedWatermark > -Infinity) broadcast(src.task, ch => ({ t: 'wm', ch, wm: src.emittedWatermark }))
      // A subtask that owns no split (more subtasks than Kafka partitions) holds nobody back.
      if (src.reader.splitCount === 0) setIdle(src.task, true)
    }
  }

  /**
   * Starts reading the next chunk of `src`. The read is listened to once, here: when it settles it
   * joins the reads ready for the loop. (A race over the reads in progress at every turn would add a
   * reaction to a slow source's read each time the others' chunks win, and each reaction keeps the
   * chunk that won reachable until that read settles: an idle Kafka partition beside a file kept
   * every chunk read meanwhile alive, and promoted.)
   */
  request(src: SourceRuntime): void {
    const faults = this.faults
    const read: Read = { src, result: null, failed: false, error: undefined }
    const hold = faults === undefined ?
      undefined :
      faults.at('source-rows', { table: src.spec.table, scan: src.task.node.id, subtask: src.task.index, rows: src.recordsRead,
        cancelled: this.signal.aborted })
    ;(hold === undefined ? src.reader.next() : hold.then(() => src.reader.next())).then(async result => {
      if (result === null && faults !== undefined) {
        await faults.at('source-end', { table: src.spec.table, subtask: src.task.index, cancelled: this.signal.aborted })
      }
      return result
    }, e => {
      throw operatorFailure(e, src.task, this.graph)
    }).then(result => {
      read.result = result
      this.settled(read)
    }, e => {
      read.failed = true
      read.error = e
      this.settled(read)
    })
    // To the back of the order: reads are handed on in the order they settle, so a source whose next
    // chunk is ready at once (a file, a generator) queues behind the others that are ready and does not
    // starve them until it ends (a join would then buffer one whole side).
    this.pending.delete(src)
    this.pending.set(src, read)
  }

  private settled(read: Read): void {
    // A source that ended or was read again meanwhile: nobody waits for this read any more.
    if (this.pending.get(read.src) !== read) return
    this.ready.push(read)
    const signal = this.readySignal
    this.readySignal = null
    signal?.()
  }

  requestAll(): void {
    for (const src of this.sources) this.request(src)
  }

  /** Some source is still being read. */
  get reading(): boolean {
    return this.pending.size > 0
  }

  /**
   * The next read that settled (the first to settle of those waiting), or null when the wake-up handed
   * to `arm` is called first (or, `immediate`, when none has settled by the next turn of the event
   * loop). A failed read throws its error. What the loop waits on resolves with nothing, so no chunk
   * stays reachable from it once it is handed on.
   */
  async next(immediate: boolean, arm: (wake: () => void) => void): Promise<SourceRead | null> {
    let i = this.pick()
    while (i < 0) {
      // Nothing ready, or only sources paused by their alignment group: wait for a read to settle
      // (then look again) or for the wake-up.
      let settled = false
      await new Promise<void>(resolve => {
        this.readySignal = () => {
          settled = true
          resolve()
        }
        arm(resolve)
        if (immediate) setImmediate(resolve)
      })
      this.readySignal = null
      i = this.pick()
      if (!settled) break
    }
    if (i < 0) return null
    const read = this.ready.splice(i, 1)[0]!
    if (read.failed) throw read.error
    const result = read.result
    // Handed on: the chunk is the loop's now; the settled read (kept until the source is read again
    // or ends, so that it still counts as being read) does not hold it.
    read.result = null
    return { src: read.src, result }
  }

  /**
   * The ready read to hand on: the first to settle whose source is not paused, or -1. A source of an
   * alignment group is paused while its watermark is ahead of the group's slowest source being read
   * here by more than the group's drift (an ended or idle source holds nobody back, and the slowest
   * is never paused). A failed read or a source's end is handed on at once.
   */
  private pick(): number {
    const ready = this.ready
    for (let i = 0; i < ready.length; i++) {
      const r = ready[i]!
      const a = r.src.spec.alignment
      if (a === undefined || r.failed || r.result === null || !this.ahead(r.src, a.group, a.maxDriftMs)) return i
    }
    return -1
  }

  /** `src` is ahead of a source of `group` still being read, not idle, by more than `drift`. */
  private ahead(src: SourceRuntime, group: string, drift: number): boolean {
    const limit = src.emittedWatermark - drift
    for (const other of this.pending.keys()) {
      if (other !== src && other.emittedWatermark < limit && !other.task.idle && other.spec.alignment?.group === group) return true
    }
    return false
  }

  /**
   * `src` has no more: a bounded source that ran out ends with a final watermark so every window
   * fires. A cancelled or unbounded one does not: its windows are not complete.
   */
  ended(src: SourceRuntime): void {
    this.pending.delete(src)
    if (!this.signal.aborted && src.bounded) this.sourceWatermark(src, Infinity)
    src.task.finished = true
    broadcast(src.task, ch => ({ t: 'end', ch }))
  }

  /** Hands a chunk on: its rows (through the source's projection and filter), its position, and the watermark it moves. */
  onChunk(src: SourceRuntime, chunk: SourceChunk): void {
    const rows = chunk.rows
    src.recordsRead += rows.length
    // Rows read, where every thread sees them (a source has no input of its own to count).
    src.task.metrics.rowsIn += rows.length
    // A split added while running (a Kafka partition): it starts unread, holding nothing.
    while (chunk.split >= src.splitMax.length) {
      src.splitMax.push(-Infinity)
      src.splitEnded.push(false)
      src.splitIdle.push(false)
      src.positions.push(null)
    }
    src.positions[chunk.split] = chunk.position
    if (rows.length > 0) src.splitIdle[chunk.split] = false
    else if (chunk.idle === true) src.splitIdle[chunk.split] = true
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
      // Its consumers count it again before its rows.
      setIdle(src.task, false)
      const read = { rows, kinds: chunk.kinds ?? null }
      const skippedBefore = skippedCallsSoFar()
      const batch = src.calc ? src.calc(read) : read
      src.callsSkipped += skippedCallsSoFar() - skippedBefore
      if (batch) {
        src.rowsOut += batch.rows.length
        emit(src.task, batch)
      }
    }
    if (chunk.splitEnded) src.splitEnded[chunk.split] = true
    const wm = splitsWatermark(src)
    // Nothing that could move its watermark: the subtask is idle, and its consumers go on without it.
    setIdle(src.task, wm === null)
    if (wm !== null && wm > src.emittedWatermark && wm !== Infinity && wm !== -Infinity) this.sourceWatermark(src, wm)
  }

  private sourceWatermark(src: SourceRuntime, wm: number): void {
    if (wm <= src.emittedWatermark) return
    src.emittedWatermark = wm
    src.task.stats[STAT.watermark] = wm
    // A watermark makes an idle subtask active first (as Flink's sources do): its consumers skip the
    // watermarks of a channel they hold idle. (An idle subtask with no split ends with one: `ended`.)
    setIdle(src.task, false)
    broadcast(src.task, ch => ({ t: 'wm', ch, wm }))
  }

  /** Checkpoint `id` completed with `sources` (what positions() gave it): each reader may report its splits' positions. */
  checkpointCompleted(id: number, sources: Readonly<Record<string, SourceManifest>>): void {
    for (const src of this.sources) {
      const manifest = sources[src.task.node.id]
      if (manifest !== undefined) src.reader.checkpointCompleted?.(id, ownPositions(manifest, src.task.index))
    }
  }

  /**
   * What a checkpoint records of each source subtask of this thread: the positions and watermarks of
   * its splits, as of the last chunk each handed on (sourcesManifest makes the manifest's entries).
   */
  parts(): SourcePart[] {
    return this.sources.map(s => ({
      node: s.task.node.id,
      table: s.spec.table,
      index: s.task.index,
      positions: { positions: [...s.positions], splitMax: [...s.splitMax], watermark: s.emittedWatermark },
    }))
  }

  allEnded(): boolean {
    return this.sources.every(s => s.task.finished)
  }

  /** Stops reading: each reader's next() returns null from now on. */
  async stopReading(): Promise<void> {
    for (const src of this.sources) await src.reader.close()
  }

  /** Closes every reader, collecting errors. */
  async close(errors: unknown[]): Promise<void> {
    for (const src of this.sources) await src.reader.close().catch(e => errors.push(e))
  }

  /** Rows read so far by every source subtask (cheap: a viewer samples it). */
  recordsRead(): number {
    let n = 0
    for (const s of this.sources) n += s.recordsRead
    return n
  }

  metrics(): { readonly sourceRows: Record<string, number>; readonly recordsRead: number; readonly subtaskRecordsRead: Record<string, number[]>;
    readonly skipped: number }
  {
    const sourceRows: Record<string, number> = {}
    const subtaskRecordsRead: Record<string, number[]> = {}
    let recordsRead = 0, skipped = 0
    for (const s of this.sources) {
      sourceRows[s.spec.table] = (sourceRows[s.spec.table] ?? 0) + s.rowsOut
      ;(subtaskRecordsRead[s.task.node.id] ??= [])[s.task.index] = s.recordsRead
      recordsRead += s.recordsRead
      skipped += (s.reader.metrics()['skippedRecords'] ?? 0) + s.callsSkipped
    }
    return { sourceRows, recordsRead, subtaskRecordsRead, skipped }
  }
}

/**
 * A source subtask's watermark from its splits: the minimum over the splits being read (started and
 * not ended). A split not yet started does not hold it back (as with lazily assigned file splits), so
 * rows of a later split that are older than the watermark are late. Null while it owns no split, or
 * every split being read is idle (the watermark then stays, as Flink's).
 */
function splitsWatermark(src: SourceRuntime): number | null {
  if (src.splitMax.length === 0) return null
  if (!src.wmExpr) return -Infinity
  let wm = Infinity
  // A reader whose splits are all read at once (Kafka) counts each split from the start.
  const waitForAll = src.reader.concurrentSplits === true
  let idle = false
  for (let s = 0; s < src.splitMax.length; s++) {
    if (src.splitEnded[s] || (src.splitMax[s] === -Infinity && !waitForAll)) continue
    if (src.splitIdle[s]) {
      idle = true
      continue
    }
    if (src.splitMax[s]! < wm) wm = src.splitMax[s]!
  }
  if (wm === Infinity && idle) return null
  if (wm === Infinity) wm = src.splitMax.reduce((a, b) => (b > a ? b : a), -Infinity)
  return wm
}
