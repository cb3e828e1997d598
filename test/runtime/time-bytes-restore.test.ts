// GROUP BY keyed by a TIME and by BYTES (keeping TIMEs and BYTES as aggregate values) on heap and RocksDB: straight;
// checkpointed and cancelled midway; restored from the checkpoint at another parallelism. The
// committed changelog must materialize to the same rows, and the straight run to hand-computed ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JobMetrics } from '../../runtime/executor.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from '../support/restore-runs.js'
import { formatTime } from '../../common/values.js'

const ROWS = 5000
let root: string
let input: string
let events: { k: string; v: number; ts: string }[]

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-time-bytes-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: ROWS, keys: 9, seed: 21 })
  events = readFileSync(input, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as { k: string; v: number; ts: string })
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

interface Case {
  readonly name: string
  readonly columns: string
  readonly query: string
  readonly expected: () => Record<string, unknown>[]
}

const msOfDay = (ts: string): number => Date.parse(ts.replace(' ', 'T') + 'Z') % 86_400_000

const CASES: readonly Case[] = [
  {
    name: 'GROUP BY a TIME key, with MIN and MAX of TIMEs',
    columns: 't TIME, n BIGINT, lo TIME(3), hi TIME(3)',
    query: `SELECT TIME '10:00:00' + INTERVAL '1' MINUTE * MOD(v, 17), COUNT(*), MIN(CAST(ts AS TIME(3))), MAX(CAST(ts AS TIME(3)))
      FROM t GROUP BY TIME '10:00:00' + INTERVAL '1' MINUTE * MOD(v, 17)`,
    expected: () => {
      const groups = new Map<number, { n: number; lo: number; hi: number }>()
      for (const e of events) {
        const key = 36_000_000 + (e.v % 17) * 60_000, t = msOfDay(e.ts)
        const g = groups.get(key) ?? { n: 0, lo: Infinity, hi: -Infinity }
        groups.set(key, { n: g.n + 1, lo: Math.min(g.lo, t), hi: Math.max(g.hi, t) })
      }
      // The json format writes a TIME in whole seconds, as Flink's does.
      return [...groups].map(([k, g]) => ({ t: formatTime(k), n: g.n, lo: formatTime(g.lo), hi: formatTime(g.hi) }))
    },
  },
  {
    name: 'GROUP BY a BYTES key, with LAST_VALUE of BYTES',
    columns: 'b BYTES, n BIGINT, total BIGINT, last_b VARBINARY(20)',
    query: `SELECT CAST(k AS BYTES), COUNT(*), SUM(CAST(v AS BIGINT)), LAST_VALUE(UNHEX(CONCAT(CAST(v + 16 AS STRING), 'ff')))
      FROM t GROUP BY CAST(k AS BYTES)`,
    expected: () => {
      const groups = new Map<string, { n: number; total: number; last: number }>()
      for (const e of events) {
        const g = groups.get(e.k) ?? { n: 0, total: 0, last: 0 }
        groups.set(e.k, { n: g.n + 1, total: g.total + e.v, last: e.v })
      }
      // The json format writes BYTES as base64, as Flink's does.
      const b64 = (hex: string): string => Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex').toString('base64')
      return [...groups].map(([k, g]) => ({ b: Buffer.from(k).toString('base64'), n: g.n, total: g.total, last_b: b64(`${g.last + 16}ff`) }))
    },
  },
]

function sql(c: Case, out: string): string {
  return `
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (${c.columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${c.query};`
}

const run = (c: Case, out: string, options: Record<string, string>): Promise<JobMetrics> =>
  runInsertJob(sql(c, out), { 'pipeline.name': 'time-bytes-job', ...options })

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await run(c, out, { 'state.backend': 'heap', 'execution.batch-size': '1' })).cancelled).toBe(false)
    expected = debeziumRows(out)
    expect(expected.length).toBeGreaterThan(3)
    expect(expected).toEqual(c.expected().map(r => JSON.stringify(r)).sort())
  }, 120_000)

  it.each(RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { 'pipeline.name': 'time-bytes-job', ...b.options(root) }, a, z, sourceRows: ROWS })
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)
})
