// A generator's reader never waits for anything when it is not paced: its chunks are ready at once.
// The loop that reads it (the job's thread, or a worker thread's) gives timers and I/O their turns,
// so a cancel from a timer (Ctrl-C, a test's deadline, a savepoint request) still reaches the job.
// The inputs are bounded but long: a loop that never gave the event loop a turn would read all of
// them and end uncancelled, and the test would fail rather than hang.
import { expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import type { FaultInjector } from '../../runtime/faults.js'

const TABLES: Record<string, string> = {
  datagen: `CREATE TABLE g (x BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', 'number-of-rows' = '20000000',
    'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '20000000')`,
  nexmark: `CREATE TABLE g (price BIGINT) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '20000000')`,
}

for (const [name, ddl] of Object.entries(TABLES)) {
  for (const workers of [false, true]) {
    it(`an unpaced ${name} source is cancelled by a timer ${workers ? 'on worker threads (p = 2)' : 'on the job thread'}`, async () => {
      const cancel = new AbortController()
      // On the job's thread the timer starts once the source has handed on its first chunk (a slow host
      // could otherwise cancel before any); worker threads' sources do not reach the hook, so there it
      // starts when the job does.
      let armed = false
      const arm = (): void => {
        if (armed) return
        armed = true
        setTimeout(() => cancel.abort(), 50)
      }
      const faults: FaultInjector = {
        at: (point, detail) => {
          if (point === 'source-rows' && (detail as { rows: number }).rows > 0) arm()
        },
      }
      const session = new Session({
        println: () => undefined,
        signal: cancel.signal,
        faults,
        options: workers ? { 'parallelism.default': '2', 'execution.worker-threads': 'true' } : {},
      })
      await session.executeSql(`${ddl};
        CREATE TABLE out (x BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO out SELECT * FROM g;`)
      if (workers) arm()
      const [metrics] = await session.awaitJobs()
      expect(metrics!.cancelled).toBe(true)
      expect(metrics!.sourceRecordsRead).toBeLessThan(20_000_000)
    })
  }
}
