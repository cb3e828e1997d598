// The filesystem source split at parallelism N on worker threads: one JSON file cut into many byte
// ranges (a small 'source.split-size', lines crossing every range end) and dealt to N subtasks. Every
// row, a GROUP BY and a TUMBLE window must give exactly DuckDB's answer over the same file at
// p = 1, 2, 3; checkpointed and restored 1 → 2, 2 → 1 and 2 → 3 on heap and RocksDB (the unfinished
// splits re-dealt) again: nothing lost, nothing twice.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subtaskWorkersRunning } from '../../runtime/worker-pool.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const ROWS = 3000
let root: string
let file: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-file-splits-'))
  file = join(root, 'events.json')
  const lines: string[] = []
  for (let id = 0; id < ROWS; id++) {
    // Event times rise (a little out of order), lines of varied length; some CRLF.
    const ts = new Date(Date.UTC(2024, 4, 1) + id * 37 - (id % 3) * 20).toISOString().replace('T', ' ').replace('Z', '')
    const pad = 'p'.repeat((id * 7) % 90)
    lines.push(`{"id": ${id}, "k": "k${id % 23}", "v": ${(id * 31) % 1000}, "ts": "${ts}", "pad": "${pad}"}${id % 10 === 0 ? '\r' : ''}`)
  }
  writeFileSync(file, lines.join('\n'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
  expect(subtaskWorkersRunning(), 'no worker thread outlives its job').toBe(0)
})

const SOURCE = (): string =>
  `CREATE TABLE ev (id BIGINT, k STRING, v BIGINT, ts TIMESTAMP(3), pad STRING, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'json', 'source.split-size' = '4 kb');`

const CASES = [
  {
    name: 'every row',
    columns: 'id BIGINT, k STRING, v BIGINT',
    query: 'SELECT id, k, v FROM ev',
    duck: (f: string) => `SELECT id, k, v FROM read_json('${f}', format = 'newline_delimited')`,
  },
  {
    name: 'a GROUP BY',
    columns: 'k STRING, n BIGINT, total BIGINT',
    query: 'SELECT k, COUNT(*), SUM(v) FROM ev GROUP BY k',
    duck: (f: string) => `SELECT k, COUNT(*), SUM(v) FROM read_json('${f}', format = 'newline_delimited') GROUP BY k`,
  },
  {
    name: 'a TUMBLE window (watermarks of every split)',
    columns: 'ws TIMESTAMP(3), n BIGINT, total BIGINT',
    query: `SELECT window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end`,
    duck: (f: string) =>
      `SELECT strftime(time_bucket(INTERVAL '2 seconds', ts::TIMESTAMP), '%Y-%m-%d %H:%M:%S') AS ws, COUNT(*), SUM(v)
      FROM read_json('${f}', format = 'newline_delimited') GROUP BY ws`,
  },
] as const
type Case = (typeof CASES)[number]

const sql = (c: Case, out: string): string =>
  `${SOURCE()}
  CREATE TABLE out (${c.columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  INSERT INTO out ${c.query};`

/** DuckDB's rows as sorted `a|b|c` lines. */
async function duck(query: string): Promise<string[]> {
  const db = await DuckDBInstance.create(':memory:')
  const con = await db.connect()
  try {
    return (await con.runAndReadAll(query)).getRows().map(r => r.map(v => String(v)).join('|')).sort()
  } finally {
    con.closeSync()
    db.closeSync()
  }
}

/** The sink's committed rows as sorted `a|b|c` lines (a timestamp as 'yyyy-MM-dd HH:mm:ss'). */
function written(out: string): string[] {
  return debeziumRows(out).map(line =>
    Object.values(JSON.parse(line) as Record<string, unknown>).map(v => (typeof v === 'string' ? v.replace(/\.000$/, '') : String(v))).join('|')
  ).sort()
}

describe.each(CASES)('filesystem source split into byte ranges: $name', c => {
  let expected: string[]
  beforeAll(async () => {
    expected = await duck(c.duck(file))
    expect(expected.length).toBeGreaterThan(20)
  })

  it.each([1, 2, 3])('at p = %i on worker threads equals DuckDB, every subtask reading its share', async p => {
    const out = mkdtempSync(join(root, 'p-'))
    const m = await runInsertJob(sql(c, out), { 'parallelism.default': String(p), 'execution.worker-threads': 'true', 'execution.batch-size': '64' })
    const bySubtask = Object.values(m.sourceSubtaskRecordsRead!)[0]!
    expect(bySubtask).toHaveLength(p)
    for (const n of bySubtask) expect(n).toBeGreaterThan((ROWS / p) * 0.8)
    expect(m.sourceRecordsRead).toBe(ROWS)
    expect(m.lateRecordsDropped).toBe(0)
    expect(written(out)).toEqual(expected)
  }, 120_000)

  it.each(RESTORE_BACKENDS.flatMap(b => [[1, 2], [2, 1], [2, 3]].map(([a, z]) => ({ b, a: a!, z: z! }))))(
    '$b.name: checkpointed at p=$a, cancelled, restored at p=$z',
    async ({ b, a, z }) => {
      const out = mkdtempSync(join(root, 'out-'))
      await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { 'pipeline.name': 'file-splits', ...b.options(root) }, a, z, sourceRows: ROWS })
      expect(written(out)).toEqual(expected)
    },
    240_000,
  )
})
