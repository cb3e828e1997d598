// User-defined aggregates (their accumulators in keyed state) in a GROUP BY, over an updating input
// (retract), in TUMBLE windows and in SESSION windows (merge), on heap and RocksDB: straight;
// checkpointed at one parallelism on worker threads (each loads the module again), cancelled midway
// and restored at another. Each row also computes the built-in equivalent, which the UDF must equal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { JobMetrics } from '../../runtime/executor.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from '../support/restore-runs.js'

const M = resolve(import.meta.dirname, 'modules')
const ROWS = 5000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-udf-aggs-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: ROWS, keys: 12, seed: 23 })
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

interface Case {
  readonly name: string
  readonly columns: string
  readonly query: string
}

// In each: `a` is the UDF's, `b` the built-in equivalent.
const CASES: readonly Case[] = [
  {
    name: 'GROUP BY',
    columns: 'k STRING, a DOUBLE, b DOUBLE, sa BIGINT, sb BIGINT',
    query: `SELECT k, wavg(v, 1.0), AVG(CAST(v AS DOUBLE)), spread(v), CAST(MAX(v) - MIN(v) AS BIGINT) FROM t GROUP BY k`,
  },
  {
    // Each key's count moves from one group to the next: it is retracted from one accumulator, added to another.
    name: 'GROUP BY over an updating input (retract)',
    columns: 'g INT, a DOUBLE, b DOUBLE',
    query:
      `SELECT CAST(MOD(n, 3) AS INT), wavg(n, 1.0), AVG(CAST(n AS DOUBLE)) FROM (SELECT k, CAST(COUNT(*) AS INT) AS n FROM t GROUP BY k) GROUP BY MOD(n, 3)`,
  },
  {
    name: 'TUMBLE window aggregate',
    columns: 'k STRING, ws TIMESTAMP(3), a DOUBLE, b DOUBLE, sa BIGINT, sb BIGINT',
    query: `SELECT k, window_start, wavg(v, 1.0), AVG(CAST(v AS DOUBLE)), spread(v), CAST(MAX(v) - MIN(v) AS BIGINT)
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
  },
  {
    name: 'SESSION window aggregate (merging sessions merges the accumulators)',
    columns: 'k STRING, ws TIMESTAMP(3), a DOUBLE, b DOUBLE',
    query: `SELECT k, window_start, wavg(v, 1.0), AVG(CAST(v AS DOUBLE))
      FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end`,
  },
]

function sql(c: Case, out: string): string {
  return `
    CREATE FUNCTION wavg AS '${M}/aggregates.ts#weightedAvg';
    CREATE FUNCTION spread AS '${M}/aggregates.ts#spread';
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (${c.columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${c.query};`
}

const run = (c: Case, out: string, options: Record<string, string>): Promise<JobMetrics> =>
  runInsertJob(sql(c, out), { 'pipeline.name': 'udf-aggs-job', ...options })

/** Every row's UDF results equal the built-in ones beside them. */
function expectUdfEqualsBuiltIn(rows: readonly string[]): void {
  for (const r of rows) {
    const o = JSON.parse(r) as Record<string, unknown>
    expect(o['a'], r).toBe(o['b'])
    if ('sa' in o) expect(o['sa'], r).toBe(o['sb'])
  }
}

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await run(c, out, { 'state.backend': 'heap', 'execution.batch-size': '1' })).cancelled).toBe(false)
    expected = debeziumRows(out)
    expect(expected.length).toBeGreaterThanOrEqual(3)
    expectUdfEqualsBuiltIn(expected)
  }, 120_000)

  it.each(RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { 'pipeline.name': 'udf-aggs-job', ...b.options(root) }, a, z, sourceRows: ROWS })
    const rows = debeziumRows(out)
    expectUdfEqualsBuiltIn(rows)
    expect(rows).toEqual(expected)
  }, 240_000)
})
