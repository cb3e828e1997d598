// 'parallelism.default' = 'auto' takes the machine's cores (os.availableParallelism()), at most
// 'pipeline.max-parallelism'. The cores are mocked at 3 here, so the test means the same on any host:
// the job plans 3 subtasks of its splitting source and its keyed operator, runs 2 of them on worker
// threads, and gives the rows of parallelism 1.
import { afterAll, describe, expect, it, vi } from 'vitest'

vi.mock('node:os', async original => ({ ...(await original<typeof import('node:os')>()), availableParallelism: () => 3 }))

const { Session } = await import('../../engine/session.js')
const { jobConfigOf } = await import('../../common/config/job-config.js')
const { subtaskWorkersRunning, subtaskWorkersStarted } = await import('../../runtime/worker-pool.js')
const { materialize } = await import('../oracle/oracle.js')

afterAll(() => {
  expect(subtaskWorkersRunning(), 'no worker thread outlives its job').toBe(0)
})

const SQL = `CREATE TABLE bid (auction BIGINT, price BIGINT, dateTime TIMESTAMP(3))
  WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '6000', 'nexmark.event.rate' = '1000000', 'nexmark.seed' = '5');
  SELECT auction % 10 AS k, COUNT(*) AS n, SUM(price) AS total FROM bid GROUP BY auction % 10;`

async function run(options: Record<string, string>): Promise<{ rows: string[]; read: number[] }> {
  const s = new Session({ println: () => undefined, options })
  const last = (await s.executeSql(SQL)).at(-1)
  if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
  const read = Object.values(last.metrics.sourceSubtaskRecordsRead ?? {})[0] ?? []
  return { rows: materialize(last.changes).map(r => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v))).sort(), read }
}

describe("'parallelism.default' = 'auto'", () => {
  it('is the number of cores, at most the key groups', () => {
    expect(jobConfigOf({ 'parallelism.default': 'auto' }).parallelism).toBe(3)
    expect(jobConfigOf({ 'parallelism.default': 'AUTO' }).parallelism).toBe(3)
    expect(jobConfigOf({ 'parallelism.default': 'auto', 'pipeline.max-parallelism': '2' }).parallelism).toBe(2)
    expect(() => jobConfigOf({ 'parallelism.default': 'many' })).toThrow(
      "invalid value 'many' for option 'parallelism.default': expected a positive integer or 'auto' (the machine's cores)",
    )
  })

  it('runs a job as that many subtasks, on worker threads, with the rows of parallelism 1', async () => {
    const one = await run({ 'parallelism.default': '1' })
    const before = subtaskWorkersStarted()
    const auto = await run({ 'parallelism.default': 'auto', 'execution.worker-threads': 'true', 'execution.batch-size': '100' })
    expect(subtaskWorkersStarted() - before, 'subtasks 1 and 2 ran on worker threads').toBe(2)
    expect(auto.read.length, 'the source ran as 3 splits').toBe(3)
    expect(auto.read.every(n => n > 0)).toBe(true)
    expect(auto.rows).toEqual(one.rows)
    expect(one.rows.length).toBe(10)
  })
})
