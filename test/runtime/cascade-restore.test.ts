// Cascading window aggregates (a TUMBLE over the window_time of a HOP aggregate) three ways on heap
// and RocksDB: straight; checkpointed and cancelled midway; restored from the checkpoint at another
// parallelism. The committed rows must be the same, and those of the straight run the rows computed
// here: the second level's windows and timers are restored with the first level's, and no row the
// first level emitted before the checkpoint is lost or counted twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../oracle/oracle.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from '../support/restore-runs.js'
import { formatTimestamp } from '../../common/values.js'

const ROWS = 6000
const KEYS = ['p', 'q', 'r', 's', 't']
/** Rows come up to this much out of order, below the 2 s watermark delay: none is late. */
const DISORDER_MS = 1500
let root: string
let input: string
const rows: { id: number; k: string; v: number; ts: number }[] = []

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-cascade-restore-'))
  input = join(root, 'input.jsonl')
  const rng = new Rng(7)
  const t0 = Date.UTC(2024, 0, 1)
  for (let id = 0; id < ROWS; id++) rows.push({ id, k: rng.pick(KEYS), v: rng.int(1, 100), ts: t0 + id * 50 - (rng.chance(0.4) ? rng.int(0, DISORDER_MS) : 0) })
  writeFileSync(input, rows.map(r => JSON.stringify({ ...r, ts: formatTimestamp(r.ts) })).join('\n') + '\n')
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

const SQL = (out: string) => `
  CREATE TABLE t (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
  CREATE TABLE out (k STRING, ws TIMESTAMP(3), windows BIGINT, n BIGINT, total BIGINT)
    WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  CREATE VIEW l1 AS SELECT k, window_time AS rt, COUNT(*) AS n, SUM(CAST(v AS BIGINT)) AS total
    FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end, window_time;
  INSERT INTO out SELECT k, window_start, COUNT(*), SUM(n), SUM(total)
    FROM TABLE(TUMBLE(TABLE l1, DESCRIPTOR(rt), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;`

/** The second level's rows computed here: HOP(1 s, 3 s) windows per key, then 10 s tumbles of their window_time. */
function expectedRows(): string[] {
  const level1 = new Map<string, { k: string; end: number; n: number; total: number }>()
  for (const r of rows) {
    const last = r.ts - (r.ts % 1000)
    for (let start = last - 2000; start <= last; start += 1000) {
      const id = `${r.k}/${start + 3000}`
      const w = level1.get(id) ?? { k: r.k, end: start + 3000, n: 0, total: 0 }
      level1.set(id, { ...w, n: w.n + 1, total: w.total + r.v })
    }
  }
  const level2 = new Map<string, { k: string; ws: number; windows: number; n: number; total: number }>()
  for (const w of level1.values()) {
    const rt = w.end - 1
    const ws = rt - (rt % 10_000)
    const id = `${w.k}/${ws}`
    const g = level2.get(id) ?? { k: w.k, ws, windows: 0, n: 0, total: 0 }
    level2.set(id, { ...g, windows: g.windows + 1, n: g.n + w.n, total: g.total + w.total })
  }
  return [...level2.values()].map(g => JSON.stringify({ k: g.k, ws: formatTimestamp(g.ws), windows: g.windows, n: g.n, total: g.total })).sort()
}

describe('cascading window aggregates, checkpointed and restored', () => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    const m = await runInsertJob(SQL(out), { 'pipeline.name': 'cascade-job', 'state.backend': 'heap', 'execution.batch-size': '1' })
    expect(m.cancelled).toBe(false)
    expect(m.lateRecordsDropped).toBe(0)
    expected = debeziumRows(out)
    expect(expected).toEqual(expectedRows())
  }, 120_000)

  it.each(RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: SQL(out), options: { 'pipeline.name': 'cascade-job', ...b.options(root) }, a, z, sourceRows: ROWS })
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)
})
