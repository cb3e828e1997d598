// A source that splits (nexmark) at parallelism 2 on worker threads: split 1 — and what is chained to
// it — runs on worker thread 1, split 0 on the job's thread. Its rows, a keyed aggregate over them and
// an event-time window (watermarks: each split's, the minimum over channels downstream) must equal
// the run at parallelism 1 on one thread; checkpointed at p = 1 or 2 and restored at 2 or 1 (the
// splits' positions re-mapped) the committed output must equal it again: nothing lost, nothing twice.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subtaskWorkersRunning, subtaskWorkersStarted } from '../../runtime/worker-pool.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const EVENTS = 12_000
let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-source-splits-'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
  expect(subtaskWorkersRunning(), 'no worker thread outlives its job').toBe(0)
})

const BID = `CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '1' SECOND)
  WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '${EVENTS}', 'nexmark.event.rate' = '200', 'nexmark.seed' = '3');`

const CASES = [
  {
    name: 'every row of the source',
    columns: 'auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3)',
    query: 'SELECT auction, bidder, price, dateTime FROM bid',
  },
  {
    name: 'a keyed aggregate',
    columns: 'auction BIGINT, n BIGINT, total BIGINT, lo BIGINT, hi BIGINT',
    query: 'SELECT auction, COUNT(*), SUM(price), MIN(price), MAX(price) FROM bid GROUP BY auction',
  },
  {
    name: 'a TUMBLE window (watermarks of both splits)',
    columns: 'ws TIMESTAMP(3), bidder BIGINT, n BIGINT, total BIGINT',
    query: `SELECT window_start, bidder, COUNT(*), SUM(price) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND))
      GROUP BY bidder, window_start, window_end`,
  },
] as const

type Case = (typeof CASES)[number]

const sql = (c: Case, out: string): string =>
  `${BID}
  CREATE TABLE out (${c.columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  INSERT INTO out ${c.query};`

describe.each(CASES)('nexmark split at parallelism 2: $name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    const m = await runInsertJob(sql(c, out), { 'pipeline.name': 'splits-job' })
    expect(m.cancelled).toBe(false)
    expected = debeziumRows(out)
    expect(expected.length).toBeGreaterThan(50)
  }, 120_000)

  it('on worker threads equals parallelism 1, each split read on its own thread', async () => {
    const out = mkdtempSync(join(root, 'p2-'))
    const before = subtaskWorkersStarted()
    const m = await runInsertJob(sql(c, out), { 'pipeline.name': 'splits-job', 'parallelism.default': '2', 'execution.worker-threads': 'true',
      'execution.batch-size': '64' })
    expect(subtaskWorkersStarted() - before).toBe(1)
    // Both subtasks of the source read their share (counted on the thread each ran on).
    const bySubtask = Object.values(m.sourceSubtaskRecordsRead!)[0]!
    expect(bySubtask).toHaveLength(2)
    for (const n of bySubtask) expect(n).toBeGreaterThan(EVENTS * 0.92 * 0.4)
    expect(m.sourceRecordsRead).toBe(bySubtask[0]! + bySubtask[1]!)
    expect(m.lateRecordsDropped).toBe(0)
    expect(debeziumRows(out)).toEqual(expected)
  }, 120_000)

  it.each(RESTORE_BACKENDS.flatMap(b => [[1, 2], [2, 1], [2, 2]].map(([a, z]) => ({ b, a: a!, z: z! }))))(
    '$b.name: checkpointed at p=$a, cancelled, restored at p=$z',
    async ({ b, a, z }) => {
      const out = mkdtempSync(join(root, 'out-'))
      await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { 'pipeline.name': 'splits-job', ...b.options(root) }, a, z,
        sourceRows: EVENTS * 0.92 })
      expect(debeziumRows(out)).toEqual(expected)
    },
    240_000,
  )
})
