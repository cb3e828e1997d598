// Window aggregates with the window attached (planner/bind/attached-window.ts) against DuckDB: a GROUP BY
// of the window_start and window_end of a window aggregate's output (renamed or not), over TUMBLE, HOP
// and CUMULATE, on heap and RocksDB at p = 1 and 2; Nexmark q5's shape (a HOP count joined with its MAX
// per window: a window join) with sub-plan reuse off; checkpointed, cancelled and restored at another
// parallelism; a late row of a window TVF read through a projection; and a checkpoint of the plan before
// the attached window (a GroupAggregate and a regular join) refused on restore.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import { OracleData, expectSameMultiset, kindCounts, ORACLE_CONFIGS, type OracleConfig, type Event } from './oracle.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob, holdSourceEndsUntil } from '../support/restore-runs.js'
import { duckWindows } from './window-tvfs.js'

const TUMBLE = `TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))`
const HOP = `TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))`
const CUMULATE = `TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND))`

interface Query {
  readonly name: string
  readonly weir: string
  readonly duck: string
}

/** Per key and window: a count and sum (DuckDB: the same over its emulated windows). */
const inner = (tvf: string, renamed: boolean): string =>
  renamed
    ? `SELECT k, s, COUNT(*) AS n, SUM(v) AS sv, window_start AS ws, window_end AS we FROM ${tvf} GROUP BY k, s, window_start, window_end`
    : `SELECT k, s, COUNT(*) AS n, SUM(v) AS sv, window_start, window_end FROM ${tvf} GROUP BY k, s, window_start, window_end`
const duckInner = (windowed: string): string => `SELECT k, s, COUNT(*) AS n, SUM(v) AS sv, ws, we FROM (${windowed}) GROUP BY k, s, ws, we`

const QUERIES: readonly Query[] = [
  {
    name: 'TUMBLE, renamed, one global group per window',
    weir: `SELECT ws, we, MAX(n), SUM(sv), COUNT(*), MIN(k) FROM (${inner(TUMBLE, true)}) GROUP BY ws, we`,
    duck: `SELECT epoch_ms(ws), epoch_ms(we), MAX(n), SUM(sv), COUNT(*), MIN(k) FROM (${duckInner(duckWindows.tumble(5000))}) GROUP BY ws, we`,
  },
  {
    name: 'HOP, not renamed, keyed by s (NULL its own group), window columns out of order in GROUP BY',
    weir: `SELECT s, window_end, window_start, MAX(n), SUM(sv), COUNT(*) FROM (${inner(HOP, false)}) GROUP BY window_end, s, window_start`,
    duck: `SELECT s, epoch_ms(we), epoch_ms(ws), MAX(n), SUM(sv), COUNT(*) FROM (${duckInner(duckWindows.hop(2000, 6000))}) GROUP BY we, s, ws`,
  },
  {
    name: 'HOP, renamed under a filter, HAVING, and a second attached level',
    weir: `SELECT ws2, we2, MAX(m), COUNT(*) FROM (
        SELECT s, ws AS ws2, we AS we2, MAX(n) AS m FROM (${inner(HOP, true)}) WHERE sv > 0 GROUP BY s, ws, we HAVING COUNT(*) > 1
      ) GROUP BY ws2, we2`,
    duck: `SELECT epoch_ms(ws), epoch_ms(we), MAX(m), COUNT(*) FROM (
        SELECT s, ws, we, MAX(n) AS m FROM (${duckInner(duckWindows.hop(2000, 6000))}) WHERE sv > 0 GROUP BY s, ws, we HAVING COUNT(*) > 1
      ) GROUP BY ws, we`,
  },
  {
    name: "TUMBLE, grouped by its window_time too (no key: the output's window_time)",
    weir: `SELECT ws, we, wt, MAX(n), COUNT(*) FROM (
        SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we, window_time AS wt FROM ${TUMBLE} GROUP BY k, window_start, window_end
      ) GROUP BY wt, ws, we`,
    duck: `SELECT epoch_ms(ws), epoch_ms(we), epoch_ms(we - 1), MAX(n), COUNT(*) FROM (
        SELECT k, COUNT(*) AS n, ws, we FROM (${duckWindows.tumble(5000)}) GROUP BY k, ws, we
      ) GROUP BY ws, we`,
  },
  {
    name: 'CUMULATE, renamed',
    weir: `SELECT ws, we, MAX(n), SUM(sv) FROM (${inner(CUMULATE, true)}) GROUP BY ws, we`,
    duck: `SELECT epoch_ms(ws), epoch_ms(we), MAX(n), SUM(sv) FROM (${duckInner(duckWindows.cumulate(2000, 6000))}) GROUP BY ws, we`,
  },
  {
    name: 'a HOP window TVF read through a subquery that renames its columns (each row in every window it falls in)',
    weir: `SELECT k, ws, we, COUNT(*), SUM(v), MAX(s) FROM (SELECT k, v, s, window_start AS ws, window_end AS we FROM ${HOP}) GROUP BY k, ws, we`,
    duck: `SELECT k, epoch_ms(ws), epoch_ms(we), COUNT(*), SUM(v), MAX(s) FROM (${duckWindows.hop(2000, 6000)}) GROUP BY k, ws, we`,
  },
  {
    name: "Nexmark q5's shape without reuse: a HOP count per key, window-joined with its MAX per window",
    weir: `SELECT A.k, A.n, A.we FROM
      (SELECT k, COUNT(*) AS n, window_start AS ws, window_end AS we FROM ${HOP} GROUP BY k, window_start, window_end) A
      JOIN (SELECT MAX(C.n) AS maxn, C.ws, C.we FROM
        (SELECT COUNT(*) AS n, window_start AS ws, window_end AS we FROM ${HOP} GROUP BY k, window_start, window_end) C
        GROUP BY C.ws, C.we) M
      ON A.ws = M.ws AND A.we = M.we AND A.n >= M.maxn`,
    duck: `WITH c AS (SELECT k, COUNT(*) AS n, ws, we FROM (${duckWindows.hop(2000, 6000)}) GROUP BY k, ws, we)
      SELECT A.k, A.n, epoch_ms(A.we) FROM c A JOIN (SELECT MAX(n) AS maxn, ws, we FROM c GROUP BY ws, we) M
      ON A.ws = M.ws AND A.we = M.we AND A.n >= M.maxn`,
  },
]

const OFF = { 'table.optimizer.reuse-sub-plan-enabled': 'false' }
const CONFIGS: readonly OracleConfig[] = ORACLE_CONFIGS.map(c => ({ name: c.name, options: () => ({ ...OFF, ...c.options() }) }))

let data: OracleData
let big: OracleData
let root: string
beforeAll(async () => {
  data = await OracleData.create({ seed: 81, rows: 1500 })
  big = await OracleData.create({ seed: 82, rows: 12_000 })
  root = mkdtempSync(join(tmpdir(), 'weir-attached-'))
}, 60_000)
afterAll(async () => {
  await data?.close()
  await big?.close()
  rmSync(root, { recursive: true, force: true })
})

async function explain(query: string, options: Record<string, string> = {}): Promise<string> {
  const session = new Session({ println: () => undefined, options })
  const r = (await session.executeSql(`${data.ddl}\nEXPLAIN ${query}`)).at(-1)!
  return (r as { text: string }).text
}

describe.each(QUERIES)('window aggregate with the window attached vs DuckDB: $name', q => {
  it('plans window operators only: no GroupAggregate, no regular join, no unbounded state', async () => {
    const text = await explain(q.weir)
    expect(text).toMatch(/WindowAggregate\(window=\[[A-Z]+\(.*\)\], attached=\[window_start=\w+, window_end=\w+\]/)
    expect(text).not.toContain('GroupAggregate(')
    expect(text).not.toMatch(/(^|[^w])Join\(/m)
    expect(text).not.toMatch(/unbounded/i)
  })

  it.each(CONFIGS)('$name: straight through, as DuckDB, insert-only', async c => {
    const r = await data.expectSame(q.weir, q.duck, c.options())
    expect(kindCounts(r.changes).slice(1)).toEqual([0, 0, 0])
  }, 120_000)
})

describe('checkpointed, cancelled midway and restored at another parallelism', () => {
  const cases = [QUERIES[2]!, QUERIES[6]!]
  const sinks = ['ws TIMESTAMP(3), we TIMESTAMP(3), m BIGINT, c BIGINT', 'k STRING, n BIGINT, we TIMESTAMP(3)']
  it.each(RESTORE_BACKENDS.flatMap(b => [0, 1].map(i => ({ b, i, name: `${b.name}: ${cases[i]!.name}` }))))('$name', async ({ b, i }) => {
    const q = cases[i]!
    const sql = (out: string) =>
      `${big.ddl}
      CREATE TABLE out (${sinks[i]}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
      INSERT INTO out ${q.weir};`
    const out = mkdtempSync(join(root, 'out-'))
    const [a, z] = b.name === 'heap' ? [1, 2] : [2, 1]
    await checkpointedThenRestored({ root, out, sql: sql(out), options: { ...OFF, ...b.options(root) }, a, z, sourceRows: 2 * big.events.length, scans: 2 })
    const expected = await big.duck(q.duck)
    expect(expected.length).toBeGreaterThan(5)
    // The committed rows are DuckDB's (through the debezium sink: every row once, insert-only).
    const straightOut = mkdtempSync(join(root, 'straight-'))
    const m = await runInsertJob(sql(straightOut), { ...OFF, ...b.options(root) })
    expect(m.cancelled).toBe(false)
    expectSameMultiset(debeziumRows(out), debeziumRows(straightOut))
    expect(debeziumRows(out).length).toBe(expected.length)
  }, 240_000)
})

describe('late rows', () => {
  it('a window TVF read through a projection: a row whose window has fired is dropped and counted, as the assigned window aggregate does', async () => {
    const t0 = Date.UTC(2024, 2, 10, 0, 0, 0)
    const ev = (k: string, ms: number): Event => ({ k, v: 1, d: null, x: null, s: null, ts: t0 + ms, b: null })
    // Watermark delay 2 s: the row at 12 s makes the watermark 10 s, so window [0, 5) has fired when the row at 1 s comes.
    const events = [ev('a', 1000), ev('b', 2000), ev('a', 6000), ev('a', 12_000), ev('b', 1000), ev('a', 13_000), ev('b', 30_000)]
    const late = await OracleData.create({ seed: 1, rows: 0, events })
    try {
      const attached = `SELECT k, wend, COUNT(*) FROM (SELECT k, v, window_start AS wstart, window_end AS wend FROM ${TUMBLE}) GROUP BY k, wstart, wend`
      const assigned = `SELECT k, window_end, COUNT(*) FROM ${TUMBLE} GROUP BY k, window_start, window_end`
      expect(await (async () => {
        const s = new Session({ println: () => undefined })
        return ((await s.executeSql(`${late.ddl}\nEXPLAIN ${attached}`)).at(-1) as { text: string }).text
      })()).toContain('attached=[window_start=wstart, window_end=wend]')
      const a = await late.weir(attached, { 'execution.batch-size': '1' })
      const b = await late.weir(assigned, { 'execution.batch-size': '1' })
      expect(a.lateRecordsDropped).toBe(1)
      expect(b.lateRecordsDropped).toBe(1)
      const rows = (r: typeof a) => r.changes.map(c => `${c.row[0]} ${new Date(c.row[1] as number).toISOString().slice(11, 19)} ${c.row[2]}`).sort()
      expect(rows(a)).toEqual(['a 00:00:05 1', 'a 00:00:10 1', 'a 00:00:15 2', 'b 00:00:05 1', 'b 00:00:35 1'])
      expect(rows(b)).toEqual(rows(a))
    } finally {
      await late.close()
    }
  }, 60_000)
})

describe('a checkpoint of the plan before the attached window', () => {
  it('is refused on restore, naming the operators that changed', async () => {
    const q = QUERIES[6]!
    // The plan q5's shape had before: the MAX per window a GroupAggregate and the join a regular one
    // (here forced by window bounds computed from the columns, which are then no window's bounds).
    const before = q.weir.replace('GROUP BY C.ws, C.we', "GROUP BY C.ws + INTERVAL '0' SECOND, C.we + INTERVAL '0' SECOND")
      .replace('MAX(C.n) AS maxn, C.ws, C.we', "MAX(C.n) AS maxn, C.ws + INTERVAL '0' SECOND AS ws, C.we + INTERVAL '0' SECOND AS we")
    const text = await explain(before)
    expect(text).toContain('GroupAggregate(')
    expect(text).toMatch(/ Join\(/)
    const sql = (query: string, out: string) =>
      `${big.ddl}
      CREATE TABLE out (k STRING, n BIGINT, we TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
      INSERT INTO out ${query};`
    const out = mkdtempSync(join(root, 'before-'))
    const options = { ...OFF, 'pipeline.name': 'q5-shape', 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')),
      'execution.batch-size': '1' }
    const cancel = new AbortController()
    const first = await runInsertJob(sql(before, out), options, cancel.signal, id => {
      if (id >= 1) cancel.abort()
    }, holdSourceEndsUntil(cancel.signal))
    expect(first.cancelled).toBe(true)
    expect(first.checkpointsCompleted).toBeGreaterThanOrEqual(1)
    await expect(runInsertJob(sql(q.weir, out), options)).rejects.toThrow(
      /the job no longer matches checkpoint .*join \(WindowJoin\) changed: kind Join → WindowJoin/,
    )
  }, 240_000)
})
