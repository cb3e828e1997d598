// Oracle tests for ARRAY_AGG(x [RESPECT NULLS | IGNORE NULLS]) as Flink has it: NULL values kept by
// default, arrival order (the file's order, one file, one split: DuckDB's rowid), in GROUP BY over an
// append-only input, over an updating input (an aggregate of a GROUP BY subquery: every row retracts
// a value and adds one, the oldest occurrence leaving), and in TUMBLE windows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, rocksOptions } from './oracle.js'

const ROWS = 2000
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 51, options: {} },
  { seed: 52, options: { 'execution.batch-size': '1', 'table.exec.mini-batch.enabled': 'false' } },
  { seed: 1052, options: { ...rocksOptions(), 'execution.batch-size': '1', 'table.exec.mini-batch.enabled': 'false' } },
]

describe.each(DATA_SETS)('ARRAY_AGG vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('GROUP BY: NULLs kept by default and with RESPECT NULLS, skipped with IGNORE NULLS, in arrival order', async () => {
    const r = await data.expectSame(
      `SELECT k, ARRAY_AGG(s), ARRAY_AGG(v RESPECT NULLS), ARRAY_AGG(v IGNORE NULLS), ARRAY_AGG(s) FILTER (WHERE v > 0) FROM t GROUP BY k`,
      `SELECT k, list(s ORDER BY rowid), list(v ORDER BY rowid), list(v ORDER BY rowid) FILTER (WHERE v IS NOT NULL),
         list(s ORDER BY rowid) FILTER (WHERE v > 0) FROM t GROUP BY k`,
      options,
    )
    expect(r.schema.slice(1).map(f => f.type.kind)).toEqual(['ARRAY', 'ARRAY', 'ARRAY', 'ARRAY'])
  })

  it('over an updating input: a retraction removes its value, the order of the rest stays', async () => {
    // Each row of key k retracts "k:n-1" and adds "k:n": the live values are ordered by each key's last row.
    const inner = "SELECT k, CONCAT(k, ':', CAST(COUNT(*) AS STRING)) AS kn, COUNT(*) AS n FROM t GROUP BY k"
    const duckInner = "SELECT k, k || ':' || CAST(COUNT(*) AS VARCHAR) AS kn, COUNT(*) AS n, MAX(rowid) AS last_row FROM t GROUP BY k"
    if (options['execution.batch-size'] === '1') {
      const r = await data.expectSame(
        `SELECT MOD(n, 2) AS b, ARRAY_AGG(kn), ARRAY_AGG(k IGNORE NULLS) FROM (${inner}) GROUP BY MOD(n, 2)`,
        `SELECT n % 2 AS b, list(kn ORDER BY last_row), list(k ORDER BY last_row) FILTER (WHERE k IS NOT NULL) FROM (${duckInner}) GROUP BY n % 2`,
        options,
      )
      expect(kindCounts(r.changes)[1], 'the outer aggregate saw retractions').toBeGreaterThan(0)
    }
    // Whatever the batching, the multiset of values is exact (a NULL key's value included).
    const r = await data.weir(`SELECT ARRAY_AGG(kn) AS l FROM (${inner})`, options)
    let live: unknown = undefined
    for (const c of r.changes) live = c.kind === 0 || c.kind === 2 ? c.row[0] : undefined
    const expected = (await data.duck(`SELECT kn FROM (${duckInner}) ORDER BY kn NULLS LAST`)).map(x => (x === 'NULL' ? null : JSON.parse(x)) as string | null)
    const sorted = [...(live as (string | null)[])].sort((a, b) => a === null ? 1 : b === null ? -1 : a < b ? -1 : a > b ? 1 : 0)
    expect(sorted).toEqual(expected)
  })

  it('OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW): rows leave the frame', async () => {
    const r = await data.expectSame(
      `SELECT k, v, ts, ARRAY_AGG(s) OVER w, ARRAY_AGG(v IGNORE NULLS) OVER w
       FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)`,
      `SELECT k, v, ts, list(s ORDER BY ts, rowid) OVER w, COALESCE(list(v ORDER BY ts, rowid) FILTER (WHERE v IS NOT NULL) OVER w, NULL)
       FROM t WINDOW w AS (PARTITION BY k ORDER BY ts, rowid ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)`,
      options,
    )
    expect(kindCounts(r.changes)).toEqual([ROWS, 0, 0, 0])
  })

  it('TUMBLE window aggregate', async () => {
    const duckSrc = 'SELECT *, rowid AS rid, epoch_ms(ts) - epoch_ms(ts) % 10000 AS ws FROM t'
    await data.expectSame(
      `SELECT k, window_start, ARRAY_AGG(s), ARRAY_AGG(v IGNORE NULLS), COUNT(*)
       FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
      `SELECT k, to_timestamp(ws / 1000)::TIMESTAMP, list(s ORDER BY rid), list(v ORDER BY rid) FILTER (WHERE v IS NOT NULL), COUNT(*)
       FROM (${duckSrc}) GROUP BY k, ws`,
      options,
    )
  })
})
