// GROUPING SETS (ROLLUP, CUBE) over an append-only and over an updating input, three ways on heap
// and RocksDB: straight; checkpointed and cancelled midway; restored from the checkpoint at another
// parallelism. The committed changelog must materialize to the same rows: the Expand is stateless,
// the group aggregate above it keeps each set's groups under keys that hold the set's id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JobMetrics } from '../../runtime/executor.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from '../support/restore-runs.js'

const ROWS = 8000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-grouping-sets-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: ROWS, keys: 12, seed: 7 })
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

type Row = Record<string, unknown>

interface Case {
  readonly name: string
  readonly columns: string
  readonly query: string
  /** A row in a form that must not depend on the run (default: as written). */
  readonly normalize?: (row: Row) => Row
}

const CASES: readonly Case[] = [
  {
    name: 'ROLLUP over an append-only input',
    columns: 'k STRING, m INT, c BIGINT, s INT, g BIGINT',
    query: `SELECT k, MOD(v, 5), COUNT(*), SUM(v), GROUPING(k, MOD(v, 5)) FROM t GROUP BY ROLLUP(k, MOD(v, 5))`,
  },
  {
    name: 'CUBE over an updating input',
    columns: 'b INT, k STRING, c BIGINT, s INT, g BIGINT',
    query: `SELECT CAST(MOD(n, 4) AS INT), k, COUNT(*), SUM(sv), GROUPING(MOD(n, 4), k)
      FROM (SELECT k, COUNT(*) AS n, SUM(v) AS sv FROM t GROUP BY k) GROUP BY CUBE(MOD(n, 4), k)`,
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
  runInsertJob(sql(c, out), { 'pipeline.name': 'grouping-sets-job', ...options })

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await run(c, out, { 'state.backend': 'heap', 'execution.batch-size': '1' })).cancelled).toBe(false)
    expected = debeziumRows(out, c.normalize)
    expect(expected.length).toBeGreaterThan(3)
    // Every set produced rows: the grand total (all keys aggregated away) is among them.
    expect(expected.some(r => (JSON.parse(r) as Row).g === 3)).toBe(true)
  }, 120_000)

  it.each(RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { 'pipeline.name': 'grouping-sets-job', ...b.options(root) }, a, z,
      sourceRows: ROWS })
    expect(debeziumRows(out, c.normalize)).toEqual(expected)
  }, 240_000)
})
