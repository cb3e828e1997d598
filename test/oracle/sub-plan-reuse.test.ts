// Sub-plan reuse against DuckDB: queries that compute one subquery twice (a self-join of a GROUP BY,
// a UNION ALL of one filtered subquery, the shape of Nexmark q5: a HOP count joined with its MAX per
// window) run it once and fan its rows out to both readers. At p = 1 and 2, on heap and RocksDB, on
// worker threads; straight through, and checkpointed, cancelled and restored at another
// parallelism. A checkpoint taken with other merges (reuse off, then on, and back) is refused by name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { OracleData, expectSameMultiset, ORACLE_CONFIGS, rocksOptions } from './oracle.js'
import { debeziumRows, hasCommittedRows } from '../support/debezium-files.js'
import { duckWindows } from './window-tvfs.js'
import { holdsEnd } from '../support/restore-runs.js'

const HOP = `TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))`

interface Query {
  readonly name: string
  readonly weir: string
  readonly duck: string
  /** The sink's columns for the restore runs. */
  readonly sink: string
  /** Operators the plan has once that it would have twice without reuse. */
  readonly merged: RegExp
}

const QUERIES: readonly Query[] = [
  {
    name: 'a self-join of a GROUP BY (updating on both sides)',
    weir: `WITH c AS (SELECT s, COUNT(*) AS n, SUM(v) AS sv FROM t WHERE v > 0 GROUP BY s)
      SELECT a.s, a.n, b.sv FROM c a JOIN c b ON a.s = b.s`,
    duck: `WITH c AS (SELECT s, COUNT(*) AS n, SUM(v) AS sv FROM t WHERE v > 0 GROUP BY s)
      SELECT a.s, a.n, b.sv FROM c a JOIN c b ON a.s = b.s`,
    sink: 's STRING, n BIGINT, sv INT',
    merged: /GroupAggregate\(/g,
  },
  {
    name: 'a UNION ALL of one filtered subquery (every row twice)',
    weir: `SELECT k, v FROM t WHERE v > 40 AND k <> 'b' UNION ALL SELECT k, v FROM t WHERE v > 40 AND k <> 'b'`,
    duck: `SELECT k, v FROM t WHERE v > 40 AND k <> 'b' UNION ALL SELECT k, v FROM t WHERE v > 40 AND k <> 'b'`,
    sink: 'k STRING, v INT',
    merged: /Source\(/g,
  },
  {
    name: "Nexmark q5's shape: a HOP count per key joined with the MAX of the same count per window",
    weir: `SELECT A.k, A.n, A.we FROM
      (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM ${HOP} GROUP BY k, window_start, window_end) A
      JOIN (SELECT MAX(C.n) AS maxn, C.ws, C.we FROM
        (SELECT COUNT(*) AS n, window_start AS ws, window_end AS we FROM ${HOP} GROUP BY k, window_start, window_end) C
        GROUP BY C.ws, C.we) M
      ON A.ws = M.ws AND A.we = M.we AND A.n >= M.maxn`,
    duck: `WITH c AS (SELECT k, COUNT(*) AS n, ws, we FROM (${duckWindows.hop(2000, 10_000)}) GROUP BY k, ws, we)
      SELECT A.k, A.n, epoch_ms(A.we) FROM c A JOIN (SELECT MAX(n) AS maxn, ws, we FROM c GROUP BY ws, we) M
      ON A.ws = M.ws AND A.we = M.we AND A.n >= M.maxn`,
    sink: 'k STRING, n BIGINT, we TIMESTAMP(3)',
    // The HOP count (its window assigned from ts); the MAX above it is a window aggregate with the window attached.
    merged: /WindowAggregate\(window=\[HOP\(slide=2 s, size=10 s\)\], time=/g,
  },
]

let data: OracleData
/** For the runs cancelled midway: long enough that a checkpoint completes before the end. */
let big: OracleData
let root: string
beforeAll(async () => {
  data = await OracleData.create({ seed: 71, rows: 1500 })
  big = await OracleData.create({ seed: 72, rows: 12_000 })
  root = mkdtempSync(join(tmpdir(), 'weir-reuse-'))
}, 60_000)
afterAll(async () => {
  await data?.close()
  await big?.close()
  rmSync(root, { recursive: true, force: true })
})

/** Reuse is on by default; set here so these runs do not depend on the default. */
const ON = { 'table.optimizer.reuse-sub-plan-enabled': 'true' }

async function explain(query: string, options: Record<string, string> = {}): Promise<string> {
  const session = new Session({ println: () => undefined, options: { ...ON, ...options } })
  const r = (await session.executeSql(`${big.ddl}\nEXPLAIN ${query}`)).at(-1)!
  return (r as { text: string }).text
}

/** Runs `q` over the big data set into a debezium-json file sink in `out`. */
async function run(q: Query, out: string, options: Record<string, string>, signal?: AbortSignal, onCheckpoint?: (id: number) => void): Promise<JobMetrics> {
  const session = new Session({ println: () => undefined, signal, faults: holdsEnd(signal), options: { 'pipeline.name': 'reuse-job', ...ON, ...options },
    onCheckpoint: (_job, id) => onCheckpoint?.(id) })
  await session.executeSql(`${big.ddl}
    CREATE TABLE out (${q.sink}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${q.weir};`)
  const [metrics] = await session.awaitJobs()
  return metrics!
}

/** Checkpoints every 5 ms; the first run is cancelled once a checkpoint has committed rows (so it is past the start). */
function checkpointed(options: Record<string, string>): Record<string, string> {
  return { ...options, 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')), 'execution.batch-size': '1' }
}

async function cancelledAfterACheckpoint(q: Query, out: string, options: Record<string, string>): Promise<JobMetrics> {
  const cancel = new AbortController()
  const first = await run(q, out, options, cancel.signal, id => {
    if (id >= 1 && hasCommittedRows(out)) cancel.abort()
  })
  expect(first.cancelled).toBe(true)
  expect(first.checkpointsCompleted).toBeGreaterThanOrEqual(1)
  return first
}

describe.each(QUERIES)('sub-plan reuse vs DuckDB: $name', q => {
  let straight: string[]
  beforeAll(async () => {
    // The plan computes the repeated subquery once (else these tests would not test reuse).
    expect((await explain(q.weir)).match(q.merged)?.length).toBe(1)
    expect((await explain(q.weir, { 'table.optimizer.reuse-sub-plan-enabled': 'false' })).match(q.merged)?.length).toBe(2)
    const out = mkdtempSync(join(root, 'straight-'))
    const m = await run(q, out, { 'execution.batch-size': '4' })
    expect(m.cancelled).toBe(false)
    expect(m.sourceRecordsRead, 'the table is read once for both readers').toBe(big.events.length)
    straight = debeziumRows(out)
    expect(straight.length).toBeGreaterThan(5)
    expect(straight.length, 'as many rows as DuckDB gives').toBe(Number((await big.duck(`SELECT COUNT(*) FROM (${q.duck})`))[0]))
  }, 120_000)

  it.each(ORACLE_CONFIGS)('$name: straight through, as DuckDB', async c => {
    await data.expectSame(q.weir, q.duck, { ...ON, ...c.options() })
  }, 120_000)

  it.each([
    { backend: 'heap', a: 1, z: 2, threads: false },
    { backend: 'rocksdb', a: 2, z: 1, threads: true },
  ])('$backend: checkpointed at p = $a (worker threads: $threads), cancelled midway, restored at p = $z: what a straight run commits',
    async ({ backend, a, z, threads }) => {
      const out = mkdtempSync(join(root, 'out-'))
      const options = checkpointed(backend === 'rocksdb' ? { ...rocksOptions() } : {})
      await cancelledAfterACheckpoint(q, out, { ...options, 'parallelism.default': String(a), 'execution.worker-threads': String(threads) })
      const second = await run(q, out, { ...options, 'parallelism.default': String(z) })
      expect(second.cancelled).toBe(false)
      expect(second.sourceRecordsRead, 'the restored run resumed midway').toBeLessThan(big.events.length)
      expectSameMultiset(debeziumRows(out), straight)
    }, 240_000)
})

describe('a checkpoint across a change of sub-plan reuse', () => {
  const q5 = QUERIES[2]!
  const OFF = { 'table.optimizer.reuse-sub-plan-enabled': 'false' }

  it('taken without reuse: refused with reuse on, naming the merged operators; restored with reuse off, as a straight run', async () => {
    const out = mkdtempSync(join(root, 'off-on-'))
    const options = checkpointed({})
    await cancelledAfterACheckpoint(q5, out, { ...options, ...OFF })
    await expect(run(q5, out, options)).rejects.toThrow(
      /sub-plan reuse merged other operators when the checkpoint was taken \(then: none; now: \d+-source into 1-source, \d+-window-aggregate into \d+-window-aggregate\)/,
    )
    const second = await run(q5, out, { ...options, ...OFF })
    expect(second.cancelled).toBe(false)
    expect(second.sourceRecordsRead).toBeLessThan(2 * big.events.length)
    const expected = await big.duck(`SELECT COUNT(*) FROM (${q5.duck})`)
    expect(debeziumRows(out).length).toBe(Number(expected[0]))
  }, 240_000)

  it('taken with reuse: refused with reuse off (its second source would start from the beginning)', async () => {
    const out = mkdtempSync(join(root, 'on-off-'))
    const options = checkpointed({})
    await cancelledAfterACheckpoint(q5, out, options)
    await expect(run(q5, out, { ...options, ...OFF })).rejects.toThrow(/then: \d+-source into 1-source, .*; now: none\)/)
    await expect(run(q5, out, { ...options, 'table.optimizer.reuse-source-enabled': 'false' })).rejects.toThrow(/now: none/)
  }, 240_000)
})
