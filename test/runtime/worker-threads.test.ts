// Parallel subtasks on worker threads: at 'parallelism.default' > 1 each keyed operator's subtask i ≥ 1
// runs on worker thread i (subtask 0 on the job's thread). Results must equal DuckDB's over the same rows — keyed aggregates, window
// aggregates, two keyed stages in a row (rows cross between workers), a join and a Top-N — on heap and
// on RocksDB; a failure in a worker fails the job naming the operator and subtask; and no worker
// outlives its job. (Checkpoints, savepoints and restores at p = 1, 2 and 3 across threads are in
// checkpoint-restore, join-checkpoint, faults and the tests of test/support/restore-runs.ts, whose
// p > 1 runs turn worker threads on.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import type { WeirError } from '../../common/errors.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { subtaskWorkersRunning, subtaskWorkersStarted } from '../../runtime/worker-pool.js'
import { makeKey, subtaskOf } from '../../state/key-encoding.js'
import { OracleData, rocksDir, selectAggs } from '../oracle/oracle.js'

const ROWS = 3000

const SETS: readonly { name: string; options: () => Record<string, string>; p: number }[] = [
  { name: 'heap, p = 2', p: 2, options: () => ({ 'execution.batch-size': '50' }) },
  { name: 'RocksDB, p = 3', p: 3,
    options: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '64 kb', 'state.dir': rocksDir(), 'execution.batch-size': '50' }) },
]

describe.each(SETS)('worker threads vs DuckDB, $name', ({ p, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed: 77, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
    expect(subtaskWorkersRunning(), 'no worker thread outlives its job').toBe(0)
  })

  /** Runs on p worker threads (checked) and compares with DuckDB. */
  async function same(weir: string, duck: string): Promise<void> {
    const before = subtaskWorkersStarted()
    await data.expectSame(weir, duck, { ...options(), 'parallelism.default': String(p), 'execution.worker-threads': 'true' })
    // Subtask 0 runs on the job's thread, each other subtask on a worker of its own.
    expect(subtaskWorkersStarted() - before, 'the query ran on worker threads').toBe(p - 1)
  }

  it('GROUP BY with every aggregate (an updating result)', async () => {
    await same(`SELECT k, ${selectAggs('weir')} FROM t GROUP BY k`, `SELECT k, ${selectAggs('duck')} FROM t GROUP BY k`)
  })

  it('two keyed stages in a row: rows go from worker to worker', async () => {
    await same(
      'SELECT n, COUNT(*) AS keys FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) GROUP BY n',
      'SELECT n, COUNT(*) FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) GROUP BY n',
    )
  })

  it("GROUP BY a key of three columns (strings, doubles, NULLs): the keys the exchange computed cross with the rows and key the receiver's state", async () => {
    // Each row's key travels as a number into the batch's distinct keys (batch-codec.ts): a wrong number
    // would count a row under another key, a lost key lose it.
    await same('SELECT k, s, x, COUNT(*) AS c, SUM(v) AS sv FROM t GROUP BY k, s, x', 'SELECT k, s, x, COUNT(*), SUM(v) FROM t GROUP BY k, s, x')
  })

  it('TUMBLE window aggregate (watermarks through the workers)', async () => {
    await same(
      `SELECT k, window_start, COUNT(*) AS c, SUM(v) AS s FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
      `SELECT k, to_timestamp((epoch_ms(ts) - epoch_ms(ts) % 10000) / 1000)::TIMESTAMP AS ws, COUNT(*), SUM(v) FROM t GROUP BY k, ws`,
    )
  })

  it('a join of two aggregates', async () => {
    const q = (mod: string): string =>
      `SELECT a.k, a.n, b.m FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) a JOIN (SELECT k, MAX(v) AS m FROM t WHERE ${mod} GROUP BY k) b ON a.k = b.k`
    await same(q('MOD(v, 2) = 0'), q('v % 2 = 0'))
  })

  it('Top-3 per key', async () => {
    const q = 'SELECT k, v, rn FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC NULLS LAST, ts ASC) AS rn FROM t) WHERE rn <= 3'
    await same(q, q)
  })
})

describe('worker threads', () => {
  it("a failure in a worker fails the job naming the operator, its subtask and the row; 'execution.worker-threads' = 'false' runs on one thread", async () => {
    // Only a key that subtask 1 (on a worker) owns fails.
    const k = Array.from({ length: 50 }, (_, i) => i).find(i => subtaskOf(makeKey([i], 128).group, 2, 128) === 1)!
    const sql =
      `CREATE TABLE t (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '200', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '200');
      SELECT k, 100 / (n - 4 + CASE WHEN k = ${k} THEN 0 ELSE 1000 END) AS q FROM (SELECT id % 50 AS k, COUNT(*) AS n FROM t GROUP BY id % 50);`
    for (const threads of ['true', 'false']) {
      const before = subtaskWorkersStarted()
      const s = new Session({ println: () => undefined,
        options: { 'parallelism.default': '2', 'execution.worker-threads': threads, 'execution.batch-size': '10' } })
      const e = await s.executeSql(sql).catch((x: unknown) => x) as WeirError
      expect(e.message).toBe('division by zero')
      expect(e.notes[0]).toMatch(/^in operator \d+-calc \(subtask 2 of 2\): Calc\(select=\[\$f0 AS k, \(100 \/ /)
      expect(e.notes[1]).toBe(`input row: $f0=${k}, n=4`)
      expect(subtaskWorkersStarted() - before).toBe(threads === 'true' ? 1 : 0)
    }
    expect(subtaskWorkersRunning()).toBe(0)
  })
})

describe('worker threads, job metrics', () => {
  it('state entries and rows written count the workers’ subtasks too, as on one thread', async () => {
    const data = await OracleData.create({ seed: 78, rows: 2000 })
    try {
      const run = async (threads: string): Promise<JobMetrics> => {
        const s = new Session({ println: () => undefined,
          options: { 'parallelism.default': '3', 'execution.worker-threads': threads, 'execution.batch-size': '20' } })
        await s.executeSql(`${data.ddl}
          CREATE TABLE o (k STRING, m INT, c BIGINT) WITH ('connector' = 'blackhole');
          INSERT INTO o SELECT k, MOD(v, 7), COUNT(*) FROM t GROUP BY k, MOD(v, 7);`)
        const [m] = await s.awaitJobs()
        return m!
      }
      const one = await run('false')
      const threaded = await run('true')
      expect(threaded.sinkRows).toEqual(one.sinkRows)
      expect(threaded.sinkRows['o']).toBeGreaterThan(0)
      expect(threaded.lateRecordsDropped).toBe(one.lateRecordsDropped)
      expect(threaded.stateEntries).toEqual(one.stateEntries)
      expect(Object.values(threaded.stateEntries)[0]).toBeGreaterThan(10)
      expect(threaded.sourceRecordsRead).toBe(2000)
    } finally {
      await data.close()
    }
  })
})
