// Semi/anti joins, INTERSECT / EXCEPT, scalar-subquery joins (correlated too) and marker joins three ways over the same input —
// straight through; checkpointed and cancelled midway; restored from the latest checkpoint at
// another parallelism — on heap and RocksDB: the changelog the exactly-once sink committed must
// materialize to the same rows every time. (Two inputs interleave differently from run to run, so
// the changes themselves may differ; what they add up to may not.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { debeziumRows, hasCommittedRows } from '../support/debezium-files.js'

const ROWS = 5000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-subq-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: ROWS, keys: 30, seed: 7 })
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

const CASES: readonly { name: string; query: string }[] = [
  { name: 'IN (uncorrelated)', query: `SELECT k, v FROM t WHERE v IN (SELECT v + 50 FROM t WHERE k = 'k3')` },
  { name: 'correlated NOT IN', query: `SELECT k, v FROM t a WHERE a.v NOT IN (SELECT b.v * 3 FROM t b WHERE b.k = a.k)` },
  { name: 'NOT EXISTS', query: `SELECT k, v FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.k = a.k AND b.v = a.v + 1)` },
  { name: 'EXCEPT ALL', query: `SELECT k, MOD(v, 7) FROM t WHERE v < 60 EXCEPT ALL SELECT k, MOD(v, 7) FROM t WHERE v > 30` },
  { name: 'scalar subquery', query: `SELECT k, v FROM t WHERE v >= (SELECT MAX(v) - 2 FROM t WHERE k = 'k1')` },
  { name: 'IN under OR (marker join)', query: `SELECT k, v FROM t WHERE v IN (SELECT v * 2 FROM t WHERE k = 'k3') OR v < 5` },
  {
    name: 'row-valued NOT IN with NULLs (marker join)',
    query: `SELECT k, v FROM t a WHERE (a.k, NULLIF(MOD(a.v, 7), 0)) NOT IN (SELECT b.k, NULLIF(MOD(b.v, 11), 0) FROM t b WHERE b.v > 97)`,
  },
  { name: 'correlated scalar subquery in WHERE', query: `SELECT k, v FROM t a WHERE a.v > (SELECT AVG(b.v) + 45 FROM t b WHERE b.k = a.k)` },
  {
    name: 'correlated COUNT in the SELECT list',
    query: `SELECT k, CAST((SELECT COUNT(*) FROM t b WHERE b.k = a.k AND b.v > 98) AS INT) FROM t a WHERE a.v < 3`,
  },
]

function sql(query: string, out: string): string {
  return `
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${query};`
}

async function run(query: string, out: string, options: Record<string, string>, signal?: AbortSignal,
  onCheckpoint?: (id: number) => void): Promise<JobMetrics>
{
  const session = new Session({
    println: () => undefined,
    signal,
    options: { 'pipeline.name': 'subquery-job', ...options },
    onCheckpoint: (_job, id) => onCheckpoint?.(id),
  })
  await session.executeSql(sql(query, out))
  const [metrics] = await session.awaitJobs()
  return metrics!
}

const BACKENDS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({ 'state.backend': 'heap' }) },
  { name: 'rocksdb', options: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '256 kb', 'state.dir': mkdtempSync(join(root, 'state-')) }) },
]

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await run(c.query, out, { 'state.backend': 'heap' })).cancelled).toBe(false)
    expected = debeziumRows(out)
    expect(expected.length).toBeGreaterThan(10)
  }, 120_000)

  it.each(BACKENDS)('$name: checkpointed at p=1, cancelled, restored at p=3', async b => {
    const out = mkdtempSync(join(root, 'out-'))
    const options = { ...b.options(), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')),
      'execution.batch-size': '1' }
    const cancel = new AbortController()
    const first = await run(c.query, out, { ...options, 'parallelism.default': '1' }, cancel.signal, id => {
      if (id >= 1) cancel.abort()
    })
    expect(first.cancelled).toBe(true)
    expect(first.checkpointsCompleted).toBeGreaterThanOrEqual(1)
    const second = await run(c.query, out, { ...options, 'parallelism.default': '3' })
    expect(second.cancelled).toBe(false)
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)
})
