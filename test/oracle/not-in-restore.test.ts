// Uncorrelated NOT IN against DuckDB while the subquery's values come and go: the subquery is a
// GROUP BY whose results change with every row (a value leaves, another enters), with a NULL that
// appears and goes again; the probe side has NULLs. Straight through, checkpointed and cancelled
// midway then restored at another parallelism, on heap and RocksDB: each committed changelog must
// materialize to DuckDB's rows (and a retraction of a row never emitted fails the test).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { OracleData, PathsTaken, canonWeirRow, expectSameMultiset, kindCounts, materialize, rocksOptions } from './oracle.js'
import { T, type Field } from '../../common/types.js'
import { holdsEnd } from '../support/restore-runs.js'

const QUERIES: readonly { name: string; weir: string; duck: string }[] = [
  {
    // ~165 groups: their MOD(SUM) values move with every row of the group, in and out of the set.
    name: 'values of a GROUP BY s coming and going',
    weir: `SELECT k, v FROM t WHERE v NOT IN (SELECT MOD(SUM(v), 40) FROM t WHERE s IS NOT NULL GROUP BY s)`,
    duck: `SELECT k, v FROM t WHERE v NOT IN (SELECT SUM(v) % 40 FROM t WHERE s IS NOT NULL GROUP BY s)`,
  },
  {
    // Eight groups; a group's value is NULL while its count is 2, 7, 12 … below 30 (none at the end):
    // every row stops qualifying while a NULL is in the subquery and comes back when it goes.
    name: 'a NULL that comes and goes in the subquery',
    weir: `SELECT k, v FROM t WHERE v NOT IN
      (SELECT CASE WHEN MOD(COUNT(*), 5) = 2 AND COUNT(*) < 30 THEN NULL ELSE MOD(SUM(v), 50) END FROM t GROUP BY k)`,
    duck: `SELECT k, v FROM t WHERE v NOT IN
      (SELECT CASE WHEN COUNT(*) % 5 = 2 AND COUNT(*) < 30 THEN NULL ELSE SUM(v) % 50 END FROM t GROUP BY k)`,
  },
]

const BACKENDS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({ 'state.backend': 'heap' }) },
  { name: 'rocksdb', options: rocksOptions },
]

const paths = new PathsTaken()
afterAll(() => paths.expectTaken())

let data: OracleData
let root: string
beforeAll(async () => {
  data = await OracleData.create({ seed: 61, rows: 2500 })
  root = mkdtempSync(join(tmpdir(), 'weir-not-in-'))
}, 60_000)
afterAll(async () => {
  await data?.close()
  rmSync(root, { recursive: true, force: true })
})

/** Runs `query` into a debezium-json file sink in `out`. */
async function run(query: string, out: string, options: Record<string, string>, signal?: AbortSignal,
  onCheckpoint?: (id: number) => void): Promise<JobMetrics>
{
  const session = new Session({ println: () => undefined, signal, faults: holdsEnd(signal), options: { 'pipeline.name': 'not-in-job', ...options },
    onCheckpoint: (_job, id) => onCheckpoint?.(id) })
  await session.executeSql(`${data.ddl}
    CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${query};`)
  const [metrics] = await session.awaitJobs()
  return metrics!
}

const SCHEMA: readonly Field[] = [{ name: 'k', type: T.string() }, { name: 'v', type: T.int() }]

/** The committed changes of `dir`, applied, each row canonical. */
function committed(dir: string): string[] {
  const changes: { kind: number; row: unknown[] }[] = []
  for (const f of readdirSync(dir).sort()) {
    if (f.startsWith('.') || f.startsWith('_')) continue
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (line === '') continue
      const e = JSON.parse(line) as { before: { k: string | null; v: number | null } | null; after: { k: string | null; v: number | null } | null }
      if (e.before !== null) changes.push({ kind: 3, row: [e.before.k, e.before.v] })
      if (e.after !== null) changes.push({ kind: 0, row: [e.after.k, e.after.v] })
    }
  }
  return materialize(changes).map(r => canonWeirRow(SCHEMA, r))
}

describe.each(QUERIES)('NOT IN vs DuckDB: $name', q => {
  let expected: string[]
  beforeAll(async () => {
    expected = await data.duck(q.duck)
    expect(expected.length).toBeGreaterThan(10)
  })

  it.each(BACKENDS)('$name: straight through (batches of 3)', async b => {
    const r = await data.expectSame(q.weir, q.duck, { ...b.options(), 'execution.batch-size': '3' })
    // Rows qualified, then stopped (a value or NULL arrived), and the other way round.
    paths.record(`${q.name}: a row retracted`, kindCounts(r.changes)[3])
  }, 120_000)

  it.each(BACKENDS)('$name: checkpointed at p=1, cancelled midway, restored at p=3', async b => {
    const out = mkdtempSync(join(root, 'out-'))
    const options = { ...b.options(), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')),
      'execution.batch-size': '1' }
    const cancel = new AbortController()
    const first = await run(q.weir, out, { ...options, 'parallelism.default': '1' }, cancel.signal, id => {
      if (id >= 1) cancel.abort()
    })
    expect(first.cancelled).toBe(true)
    expect(first.checkpointsCompleted).toBeGreaterThanOrEqual(1)
    const second = await run(q.weir, out, { ...options, 'parallelism.default': '3' })
    expect(second.cancelled).toBe(false)
    expectSameMultiset(committed(out), expected)
  }, 240_000)
})
