// Oracle tests for UNION ALL (of filtered scans, of retracting aggregates, of window aggregates, under a window),
// WITH (CTEs, one referenced twice) and views, against DuckDB over the same generated rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, rocksOptions } from './oracle.js'
import { rocksDir } from './oracle.js'

const ROWS = 3000
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 41, options: { 'execution.batch-size': '7' } },
  { seed: 1041, options: { ...rocksOptions(), 'execution.batch-size': '7' } },
  { seed: 42, options: {} },
]

describe.each(DATA_SETS)('UNION ALL and WITH vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('UNION ALL of two overlapping filters keeps rows that match both twice', async () => {
    const sql = `SELECT k, v, d, ts FROM t WHERE v > 50
                 UNION ALL
                 SELECT k, v, d, ts FROM t WHERE s LIKE '%a%'`
    const r = await data.expectSame(sql, sql, options)
    const both = await data.duck(`SELECT COUNT(*) FROM t WHERE v > 50 AND s LIKE '%a%'`)
    expect(Number(both[0]), 'some rows pass both branches').toBeGreaterThan(0)
    expect(r.changes.length).toBeGreaterThan(0)
  })

  it('UNION ALL of three branches with different expressions per branch', async () => {
    const sql = `SELECT k, 'big' AS tag, d FROM t WHERE d > 800
                 UNION ALL SELECT s, 'neg', -d FROM t WHERE d < 0
                 UNION ALL SELECT COALESCE(k, '?'), 'null-v', d FROM t WHERE v IS NULL`
    await data.expectSame(sql, sql, options)
  })

  it('WITH: a CTE filtered twice and unioned with itself', async () => {
    const sql = `WITH hi AS (SELECT k, v, d, s FROM t WHERE d > 500)
                 SELECT k, v, d FROM hi WHERE v > 0
                 UNION ALL
                 SELECT k, v, d FROM hi WHERE s IS NULL OR k IS NULL`
    await data.expectSame(sql, sql, options)
  })

  it('WITH: a CTE holding an aggregate, filtered and aggregated again', async () => {
    const sql = `WITH per_s AS (SELECT s, COUNT(*) AS n, SUM(d) AS total FROM t GROUP BY s)
                 SELECT n, COUNT(*), SUM(total) FROM per_s WHERE n >= 20 GROUP BY n`
    await data.expectSame(sql, sql, options)
  })

  it('WITH: a CTE that refers to an earlier CTE', async () => {
    const sql = `WITH per_s AS (SELECT s, COUNT(*) AS n, SUM(d) AS total FROM t GROUP BY s),
                      busy AS (SELECT s, n, total FROM per_s WHERE n >= 20)
                 SELECT n, COUNT(*), SUM(total) FROM busy GROUP BY n`
    await data.expectSame(sql, sql, options)
  })

  it('a retracting aggregate over a UNION ALL of two aggregates', async () => {
    const sql = `SELECT k, SUM(n) AS n, MAX(mx) AS mx FROM (
                   SELECT k, COUNT(*) AS n, MAX(v) AS mx FROM t WHERE v > 0 GROUP BY k
                   UNION ALL
                   SELECT k, COUNT(*) AS n, MAX(v) AS mx FROM t WHERE v <= 0 OR v IS NULL GROUP BY k)
                 GROUP BY k`
    const r = await data.expectSame(sql, sql, options)
    if (options['execution.batch-size'] === '7') expect(kindCounts(r.changes)[1]).toBeGreaterThan(0)
    // Every row is counted once by one branch.
    await data.expectSame(`SELECT SUM(n) FROM (${sql})`, `SELECT COUNT(*) FROM t`, options)
  })

  it('UNION ALL of a TUMBLE and a HOP window aggregate', async () => {
    await data.expectSame(
      `SELECT 'tumble' AS w, window_start, window_end, COUNT(*) AS n, SUM(d) AS total
         FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '30' SECOND)) GROUP BY window_start, window_end
       UNION ALL
       SELECT 'hop', window_start, window_end, COUNT(*), SUM(d)
         FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND)) GROUP BY window_start, window_end`,
      `SELECT 'tumble' AS w, epoch_ms(tms - tms % 30000), epoch_ms(tms - tms % 30000 + 30000), COUNT(*), SUM(d)
         FROM (SELECT *, epoch_ms(ts) AS tms FROM t) GROUP BY tms - tms % 30000
       UNION ALL
       SELECT 'hop', epoch_ms(ws), epoch_ms(ws + 30000), COUNT(*), SUM(d)
         FROM (SELECT *, epoch_ms(ts) AS tms FROM t) r,
              LATERAL (SELECT unnest(generate_series(r.tms - r.tms % 10000 - 20000, r.tms - r.tms % 10000, 10000)) AS ws) g
         GROUP BY ws`,
      options,
    )
  })

  it('a TUMBLE window over a UNION ALL: the time attribute both branches have stays one', async () => {
    // Rows with v > 50 twice: once per branch that takes them.
    await data.expectSame(
      `CREATE VIEW u AS SELECT k, d, ts FROM t WHERE v > 50 UNION ALL SELECT k, d, ts FROM t WHERE v <= 50 OR v IS NULL OR d > 500;
       SELECT k, window_start, window_end, COUNT(*) AS n, SUM(d) AS total
         FROM TABLE(TUMBLE(TABLE u, DESCRIPTOR(ts), INTERVAL '30' SECOND)) GROUP BY k, window_start, window_end`,
      `SELECT k, epoch_ms(tms - tms % 30000), epoch_ms(tms - tms % 30000 + 30000), COUNT(*), SUM(d)
         FROM (SELECT k, d, epoch_ms(ts) AS tms FROM t WHERE v > 50 UNION ALL SELECT k, d, epoch_ms(ts) FROM t WHERE v <= 50 OR v IS NULL OR d > 500)
         GROUP BY k, tms - tms % 30000`,
      options,
    )
  })

  it('a view combined with a CTE', async () => {
    await data.expectSame(
      `CREATE VIEW pos AS SELECT k, v, s FROM t WHERE v > 0;
       WITH neg AS (SELECT k, v, s FROM t WHERE v < 0)
       SELECT k, COUNT(*), SUM(v) FROM (SELECT k, v FROM pos UNION ALL SELECT k, v FROM neg) GROUP BY k`,
      `WITH pos AS (SELECT k, v, s FROM t WHERE v > 0), neg AS (SELECT k, v, s FROM t WHERE v < 0)
       SELECT k, COUNT(*), SUM(v) FROM (SELECT k, v FROM pos UNION ALL SELECT k, v FROM neg) GROUP BY k`,
      options,
    )
  })
})
