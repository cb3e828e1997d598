// A worker thread that dies mid-run (terminated, or process.exit inside it) fails its job cleanly:
// the job ends (no hang), its error names the job, the worker and the operator subtask it ran, the
// other threads close, no worker is left behind; and running the job again resumes from its last
// completed checkpoint with exactly-once output: the sink's committed rows equal a straight run's.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { WeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'
import { liveSubtaskWorkers, subtaskWorkersRunning } from '../../runtime/worker-pool.js'
import { debeziumRows, hasCommittedRows } from '../support/debezium-files.js'
import { RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'
import { holdSourceAfter } from '../support/source-holds.js'

const EVENTS = 20_000
let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-worker-crash-'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
  expect(subtaskWorkersRunning(), 'no worker thread outlives its job').toBe(0)
})

const sql = (out: string): string =>
  `CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3))
    WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '${EVENTS}', 'nexmark.event.rate' = '8000', 'nexmark.seed' = '9');
  CREATE TABLE out (auction BIGINT, n BIGINT, total BIGINT, hi BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  INSERT INTO out SELECT auction, COUNT(*), SUM(price), MAX(price) FROM bid GROUP BY auction;`

describe.each(RESTORE_BACKENDS)('a worker thread terminated mid-run, $name', b => {
  it('fails the job naming it, the worker and its operator subtask; run again, it resumes from the last checkpoint: rows as a straight run', async () => {
    const straightOut = mkdtempSync(join(root, 'straight-'))
    await runInsertJob(sql(straightOut), { ...b.options(root), 'pipeline.name': 'crash-job' })
    const expected = debeziumRows(straightOut)
    expect(expected.length).toBeGreaterThan(100)

    const out = mkdtempSync(join(root, 'out-'))
    const options = {
      ...b.options(root),
      'table.exec.mini-batch.enabled': 'false',
      'pipeline.name': 'crash-job',
      'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')),
      'execution.checkpointing.interval': '30 ms',
      'execution.batch-size': '50',
      'parallelism.default': '2',
      'execution.worker-threads': 'true',
    }
    let killedAfter = 0
    let terminated!: () => void
    const killed = new Promise<void>(resolve => (terminated = resolve))
    const session = new Session({
      println: () => undefined,
      options,
      // The source subtask on the job's thread is held after a fifth of its split until the worker is
      // terminated: the job is still reading then, however fast the other subtask reads its own.
      faults: holdSourceAfter(EVENTS / 10, killed),
      onCheckpoint: (_job, id) => {
        // After the second checkpoint that committed rows, while the job is still reading.
        if (killedAfter === 0 && id >= 2 && hasCommittedRows(out)) {
          killedAfter = id
          const [worker] = liveSubtaskWorkers()
          setTimeout(() => void worker!.terminate().then(() => terminated()), 10)
        }
      },
    })
    await session.executeSql(sql(out))
    const error = await session.awaitJobs().then(() => undefined, (e: unknown) => e as WeirError)
    expect(killedAfter, 'a worker was terminated after a checkpoint').toBeGreaterThan(0)
    expect(error, 'the job failed').toBeDefined()
    expect(error!.message).toBe(`worker thread 1 of job 'crash-job' exited unexpectedly (exit code 1)`)
    // The operator subtask it ran: the one running at the time, or every one the worker had.
    expect(error!.notes.join('\n')).toMatch(/^(in operator|it ran) \d+-(source|group-aggregate) \(.*subtask 2 of 2\)/)
    expect(error!.help).toMatch(/resumes from its last completed checkpoint/)
    expect(subtaskWorkersRunning(), 'the other threads closed').toBe(0)

    const again = await runInsertJob(sql(out), options)
    expect(again.cancelled).toBe(false)
    expect(again.restoredFrom?.kind).toBe('checkpoint')
    expect(again.restoredFrom!.id).toBeGreaterThanOrEqual(killedAfter)
    expect(again.sourceRecordsRead, 'it resumed midway').toBeLessThan(EVENTS)
    expect(debeziumRows(out)).toEqual(expected)
  }, 40_000)
})
