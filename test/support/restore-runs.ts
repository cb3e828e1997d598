// The runs the checkpoint/restore tests compare: an INSERT job run straight, and the same job
// checkpointed at one parallelism, held at about half its input, cancelled after a checkpoint that
// committed rows, and restored at another; on heap and on RocksDB. The caller compares the sink's committed rows.
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'vitest'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import type { FaultInjector } from '../../runtime/faults.js'
import { hasCommittedRows } from './debezium-files.js'
import { faultsOf, holdSourceAfter } from './source-holds.js'

/** Runs the one INSERT job of `sql` (mini-batch off) to its end, or until `signal` aborts. */
export async function runInsertJob(sql: string, options: Record<string, string>, signal?: AbortSignal, onCheckpoint?: (id: number) => void,
  faults?: FaultInjector): Promise<JobMetrics>
{
  const session = new Session({
    println: () => undefined,
    signal,
    options: { 'table.exec.mini-batch.enabled': 'false', ...options },
    onCheckpoint: (_job, id) => onCheckpoint?.(id),
    faults,
  })
  await session.executeSql(sql)
  const [metrics] = await session.awaitJobs()
  return metrics!
}

export interface Backend {
  readonly name: string
  /** Its options; RocksDB's working state in a fresh folder under `root`. */
  readonly options: (root: string) => Record<string, string>
}

/** Heap, and RocksDB with a 64 kb cache, so that state goes to disk. */
export const RESTORE_BACKENDS: readonly Backend[] = [
  { name: 'heap', options: () => ({ 'state.backend': 'heap' }) },
  { name: 'rocksdb', options: root => ({ 'state.backend': 'rocksdb', 'state.cache.size': '64 kb', 'state.dir': mkdtempSync(join(root, 'state-')) }) },
]

/** Each backend with the parallelism it checkpoints at (a) and restores at (z): the same, more, fewer. */
export const RESTORE_MATRIX: readonly { readonly b: Backend; readonly a: number; readonly z: number }[] = RESTORE_BACKENDS.flatMap(b =>
  [[1, 1], [1, 3], [2, 1]].map(([a, z]) => ({ b, a: a!, z: z! }))
)

/**
 * Runs `sql(out)` checkpointed every 5 ms at parallelism `a`, its sources held at about half their
 * input (holdSourceAfter), cancels it after a checkpoint completed while a source was held that
 * committed rows to `out`, and runs it again at `z`, restored: checks the first run was cancelled after a
 * checkpoint and the second resumed from the middle (read more than none and fewer than `sourceRows`).
 * The sink's committed rows are then in `out`.
 *
 * Only the sources read on the job's thread are held (the hook runs there): at `a` > 1 a source that
 * splits reads its splits k ≥ 1 on worker k, to their end, as before; split 0 and the sources that do
 * not split are held.
 */
export async function checkpointedThenRestored(opts: {
  readonly root: string
  readonly out: string
  readonly sql: string
  readonly options: Record<string, string>
  readonly a: number
  readonly z: number
  readonly sourceRows: number
  /**
   * Rows each source subtask of the first run reads before it is held; half of `sourceRows` over
   * `scans` and over `a` where absent (a source that splits deals its rows to its `a` subtasks).
   */
  readonly holdAfter?: number
  /** How many sources (scans) `sourceRows` is the sum of; 1 where absent. */
  readonly scans?: number
  /**
   * The first run's sources all read on worker threads ('scan.parallelism' below the job's): it runs
   * without worker threads, so that they read on the job's thread and are held; the restored run still
   * runs on worker threads.
   */
  readonly sourcesOnWorkers?: boolean
  /** Given the metrics of each run, the cancelled one first. */
  readonly onRun?: (metrics: JobMetrics) => void
  /**
   * Cancels the first run after a checkpoint completed while held even when the sink committed no
   * row yet (a query whose output starts past the midpoint: a HAVING, a semi join of held inputs).
   */
  readonly cancelBeforeRows?: boolean
}): Promise<void> {
  const { root, out, a, z } = opts
  const options = { ...opts.options, 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')),
    'execution.batch-size': '1' }
  const holdAfter = opts.holdAfter ?? Math.max(1, Math.floor(opts.sourceRows / (opts.scans ?? 1) / a / 2))
  const cancel = new AbortController()
  const hold = holdSourceAfter(holdAfter, cancel.signal)
  // The last checkpoint completed when a source was first held: one completed after the next has
  // begun, so its barrier passed the held source after its last chunk, whose position it records.
  let completedWhenHeld: number | undefined
  let lastCompleted = 0
  void hold.reached.then(() => (completedWhenHeld = lastCompleted))
  const workers = String(opts.sourcesOnWorkers !== true)
  const first = await runInsertJob(opts.sql, { ...options, 'parallelism.default': String(a), 'execution.worker-threads': workers }, cancel.signal, id => {
    lastCompleted = id
    const heldMidway = completedWhenHeld !== undefined && id > completedWhenHeld + 1
    if (heldMidway && (opts.cancelBeforeRows === true || hasCommittedRows(out))) cancel.abort()
  }, faultsOf(hold, holdSourceEndsUntil(cancel.signal)))
  opts.onRun?.(first)
  expect(completedWhenHeld, `a source of the first run was held after ${holdAfter} rows`).toBeDefined()
  expect(first.cancelled, 'the first run was cancelled after a checkpoint, midway').toBe(true)
  expect(first.checkpointsCompleted).toBeGreaterThanOrEqual(1)
  expect(first.sourceRecordsRead, 'the first run was held before the end of its input').toBeLessThan(opts.sourceRows)
  const second = await runInsertJob(opts.sql, { ...options, 'parallelism.default': String(z), 'execution.worker-threads': 'true' })
  opts.onRun?.(second)
  expect(second.cancelled).toBe(false)
  expect(second.sourceRecordsRead, 'the restored run resumed from the middle: it read some rows').toBeGreaterThan(0)
  expect(second.sourceRecordsRead, 'the restored run resumed from the middle: not all rows').toBeLessThan(opts.sourceRows)
}

/** A cancellable run's fault hook: its sources' ends held until `signal` aborts (holdSourceEndsUntil); none without a signal. */
export function holdsEnd(signal: AbortSignal | undefined): FaultInjector | undefined {
  return signal === undefined ? undefined : holdSourceEndsUntil(signal)
}

/**
 * Holds the end of each source read on the job's thread until `cancelled` aborts (at most `maxMs`,
 * 5 s unless given): on a loaded host the first run could otherwise read all of its input before a
 * checkpoint committed rows, and end uncancelled. The bound only keeps a broken engine (a checkpoint
 * that never completes) from hanging the test: the job then ends uncancelled and the test says so.
 * (Sources read on worker threads are not held: the hook runs on this thread.)
 */
export function holdSourceEndsUntil(cancelled: AbortSignal, maxMs = 5000): FaultInjector {
  return {
    at: (point, detail) => {
      if (point !== 'source-end' || (detail as { cancelled: boolean }).cancelled || cancelled.aborted) return
      const aborted = new Promise<void>(resolve => cancelled.addEventListener('abort', () => resolve(), { once: true }))
      return Promise.race([aborted, sleep(maxMs, undefined, { ref: false })])
    },
  }
}
