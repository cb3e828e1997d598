// Holding a source after N rows (the runtime's fault point 'source-rows'), so that a test's "midway"
// is midway by construction: the job reads exactly as far as the test says, then goes on without
// input (checkpoints among it) until the test's condition holds, however fast or slow the host.
import { setTimeout as sleep } from 'node:timers/promises'
import type { FaultInjector, FaultPoints } from '../../runtime/faults.js'

/** Where a source subtask was held. */
export interface HeldAt {
  readonly table: string
  readonly subtask: number
  /** Rows it had read and handed on: at least the `rows` asked for (a chunk may go past). */
  readonly rows: number
}

export interface SourceHold extends FaultInjector {
  /** Settles when the first source subtask is held, with where. */
  readonly reached: Promise<HeldAt>
}

/**
 * A fault hook that holds each source subtask (of `table`, or of every source) once it has read and
 * handed on `rows` rows, until `until` aborts or settles, or at most `maxMs` (20 s unless given): the
 * bound only keeps a broken engine (a checkpoint that never completes) from hanging the test, which
 * then fails on what it checks. A cancelled job's sources are not held. Only sources read on the job's
 * thread are held (the hook runs there): at parallelism 1, or without worker threads, every source.
 *
 * @example
 * // Read half the input, then cancel once a checkpoint has committed the rows read so far:
 * const cancel = new AbortController()
 * runInsertJob(sql, options, cancel.signal, () => { if (committedRows(out) > 0) cancel.abort() }, holdSourceAfter(ROWS / 2, cancel.signal))
 */
export function holdSourceAfter(rows: number, until: AbortSignal | Promise<unknown>,
  opts: { readonly table?: string; readonly maxMs?: number } = {}): SourceHold
{
  const maxMs = opts.maxMs ?? 20_000
  const held = new Set<string>()
  let reach!: (at: HeldAt) => void
  const reached = new Promise<HeldAt>(resolve => (reach = resolve))
  const released = until instanceof Promise ? until : new Promise<void>(resolve => {
    if (until.aborted) resolve()
    else until.addEventListener('abort', () => resolve(), { once: true })
  })
  return {
    reached,
    at: (point, detail) => {
      if (point !== 'source-rows') return
      const d = detail as FaultPoints['source-rows']
      // Each scan apart: a query may read one table twice, and holding the first only let the second run to its end.
      const which = `${d.scan}/${d.subtask}`
      if (d.cancelled || d.rows < rows || (opts.table !== undefined && d.table !== opts.table) || held.has(which)) return
      held.add(which)
      reach({ table: d.table, subtask: d.subtask, rows: d.rows })
      if (!(until instanceof Promise) && until.aborted) return
      return Promise.race([released.then(() => undefined), sleep(maxMs, undefined, { ref: false })])
    },
  }
}

/** One hook made of several: each is told every point, in order; the job waits for all they hold it by. */
export function faultsOf(...hooks: readonly (FaultInjector | undefined)[]): FaultInjector {
  return {
    at: (point, detail) => {
      const holds: Promise<void>[] = []
      for (const hook of hooks) {
        const hold = hook?.at(point, detail)
        if (hold !== undefined) holds.push(hold)
      }
      if (holds.length === 0) return
      return Promise.all(holds).then(() => undefined)
    },
  }
}
