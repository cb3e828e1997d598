// JSON_OBJECTAGG, COLLECT, ARRAY_AGG(DISTINCT) and APPROX_COUNT_DISTINCT (their MapStates) in a GROUP BY
// over an updating input, in TUMBLE windows and in SESSION windows (whose merges merge the maps), on
// heap and RocksDB: straight; checkpointed and cancelled midway; restored from the checkpoint at
// another parallelism. The committed changelog must materialize to the same rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JobMetrics } from '../../runtime/executor.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from '../support/restore-runs.js'

const ROWS = 6000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-keyed-aggs-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: ROWS, keys: 12, seed: 11 })
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

interface Case {
  readonly name: string
  readonly columns: string
  readonly query: string
}

const CASES: readonly Case[] = [
  {
    // Each key's count moves from one group to the next: its member and element are retracted from one, added to another.
    name: 'GROUP BY over an updating input',
    columns: 'g INT, o STRING, c STRING, n INT',
    query: `SELECT CAST(MOD(n, 3) AS INT), JSON_OBJECTAGG(KEY k VALUE n), CAST(COLLECT(MOD(n, 7)) AS STRING), CARDINALITY(COLLECT(DISTINCT k))
      FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) GROUP BY MOD(n, 3)`,
  },
  {
    name: 'TUMBLE window aggregate',
    columns: 'k STRING, ws TIMESTAMP(3), a BIGINT, c STRING, d ARRAY<INT>',
    query: `SELECT k, window_start, APPROX_COUNT_DISTINCT(v), CAST(COLLECT(MOD(v, 5)) AS STRING), ARRAY_AGG(DISTINCT MOD(v, 4))
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
  },
  {
    name: 'SESSION window aggregate (merging sessions merges the maps)',
    columns: 'k STRING, ws TIMESTAMP(3), a BIGINT, c STRING, o STRING',
    query: `SELECT k, window_start, APPROX_COUNT_DISTINCT(v), CAST(COLLECT(MOD(v, 5)) AS STRING),
        JSON_OBJECTAGG(KEY CONCAT(CAST(ts AS STRING), ':', CAST(v AS STRING)) VALUE v) FILTER (WHERE MOD(v, 10) = 0)
      FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end`,
  },
]

function sql(c: Case, out: string): string {
  return `
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (${c.columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${c.query};`
}

const run = (c: Case, out: string, options: Record<string, string>): Promise<JobMetrics> =>
  runInsertJob(sql(c, out), { 'pipeline.name': 'keyed-aggs-job', ...options })

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await run(c, out, { 'state.backend': 'heap', 'execution.batch-size': '1' })).cancelled).toBe(false)
    expected = debeziumRows(out)
    expect(expected.length).toBeGreaterThanOrEqual(3)
    // The collections are not trivial: some group held several elements.
    expect(Math.max(...expected.map(r => ((JSON.parse(r) as { c: string }).c.match(/=/g) ?? []).length))).toBeGreaterThan(2)
  }, 120_000)

  it.each(RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { 'pipeline.name': 'keyed-aggs-job', ...b.options(root) }, a, z, sourceRows: ROWS })
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)
})
