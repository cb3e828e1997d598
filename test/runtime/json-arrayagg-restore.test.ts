// JSON_ARRAYAGG (the retractable LISTAGG of each value's JSON text) in a GROUP BY over an
// append-only input and in TUMBLE windows, on heap and RocksDB: straight; checkpointed and cancelled
// midway; restored from the checkpoint at another parallelism. The committed changelog must
// materialize to the same rows, and each array must be JSON holding the group's values.
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
  root = mkdtempSync(join(tmpdir(), 'weir-json-arrayagg-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: ROWS, keys: 12, seed: 7 })
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
    name: 'GROUP BY over an append-only input',
    columns: 'k STRING, a STRING, o STRING',
    query: `SELECT k, JSON_ARRAYAGG(NULLIF(MOD(v, 5), 0)), JSON_ARRAYAGG(JSON_OBJECT('v' VALUE v) NULL ON NULL) FROM t GROUP BY k`,
  },
  {
    name: 'TUMBLE window aggregate',
    columns: 'k STRING, ws TIMESTAMP(3), a STRING, o STRING',
    query: `SELECT k, window_start, JSON_ARRAYAGG(v), JSON_ARRAYAGG(CONCAT('w', CAST(v AS STRING)))
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
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
  runInsertJob(sql(c, out), { 'pipeline.name': 'json-arrayagg-job', ...options })

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await run(c, out, { 'state.backend': 'heap', 'execution.batch-size': '1' })).cancelled).toBe(false)
    expected = debeziumRows(out)
    expect(expected.length).toBeGreaterThan(3)
    for (const r of expected) {
      const row = JSON.parse(r) as Record<string, string>
      expect(Array.isArray(JSON.parse(row.a!))).toBe(true)
      expect(Array.isArray(JSON.parse(row.o!))).toBe(true)
    }
    // The arrays are not trivial: the state held several values per group.
    expect(Math.max(...expected.map(r => (JSON.parse(JSON.parse(r).o as string) as unknown[]).length))).toBeGreaterThan(5)
  }, 120_000)

  it.each(RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { 'pipeline.name': 'json-arrayagg-job', ...b.options(root) }, a, z,
      sourceRows: ROWS })
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)
})
