// A processing-time clock that moves with the rows, for the state TTL tests. Under 'table.exec.state.ttl'
// an entry lives until the wall clock has moved on by the TTL; a job reading a paced generator keeps
// about rate × TTL entries live only while the host keeps up. A stalled host catches up in bursts that
// land within one TTL, and then a short stream cannot be told from a leaking engine. Here the clock
// the engine reads (Date.now, on the job's thread) stands still but for `tick(k)`, which each row goes
// through on its way in and which moves it on by `msPerRow`: a row is as old as the rows after it say,
// however fast or slow the host.
import { join } from 'node:path'
import { type MockInstance, vi } from 'vitest'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'

interface Clock {
  now: number
  msPerRow: number
}

/** The statement that declares `tick(k)` for a job: k, once the clock has moved on by one row (test/udf/modules/row-clock.ts). */
export const TICK_FUNCTION = `CREATE FUNCTION tick AS '${join(import.meta.dirname, '../udf/modules/row-clock.ts')}#tick';`

/**
 * Makes Date.now the row clock, from the wall clock's time now, moved on by `msPerRow` by each row
 * `tick` sees (no further while no row arrives). Undo with the returned spy's mockRestore().
 */
export function useRowClock(msPerRow: number): MockInstance<() => number> {
  // On the global object: `tick` runs in the module CREATE FUNCTION compiled, not one the test imported.
  const c: Clock = { now: Date.now(), msPerRow }
  ;(globalThis as { [key: symbol]: Clock | undefined })[Symbol.for('weir.test.row-clock')] = c
  return vi.spyOn(Date, 'now').mockImplementation(() => c.now)
}

/** Runs `sql` to its end on the row clock (`msPerRow`), in batches of `batchSize` rows, counting stored state: the job's metrics. */
export async function runOnRowClock(sql: string, options: Record<string, string>, msPerRow: number, batchSize: number): Promise<JobMetrics> {
  const clock = useRowClock(msPerRow)
  try {
    const session = new Session({ options: { ...options, 'execution.batch-size': String(batchSize) }, countStoredState: true })
    await session.executeSql(sql)
    const [metrics] = await session.awaitJobs()
    return metrics!
  } finally {
    clock.mockRestore()
  }
}
