// The subquery forms beyond a plain IN / EXISTS conjunct, against DuckDB: row-valued IN and NOT IN
// (NULLs in any column of either side), IN / EXISTS read as values (under OR, in CASE, in the SELECT
// list: marker joins), and correlated scalar subqueries (an aggregate grouped by the correlation,
// left-joined; COUNT over no rows is 0). Inner sides insert-only and updating (GROUP BY results
// whose rows come and go); heap and RocksDB; one and three subtasks. Each run's materialized
// changelog must equal DuckDB's result, and a retraction of a row never emitted fails the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, PathsTaken, kindCounts, rocksOptions } from './oracle.js'

const ROWS = 400
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 51, options: { 'execution.batch-size': '7' } },
  { seed: 52, options: { ...rocksOptions(), 'execution.batch-size': '5' } },
  { seed: 53, options: { 'execution.batch-size': '1', 'parallelism.default': '3' } },
]

const paths = new PathsTaken()
afterAll(() => paths.expectTaken())

/** Weir's MOD and INT AVG in DuckDB's words. */
const duck = (q: string): string => q.replace(/MOD\(([^,]+), (\d+)\)/g, '($1 % $2)').replace(/AVG\(([a-z.]+)\)/g, 'CAST(trunc(AVG($1)) AS INT)')

describe.each(DATA_SETS)('subquery forms vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('row-valued IN, uncorrelated and correlated (a NULL in a column never matches)', async () => {
    const q = `SELECT k, s, v FROM t WHERE (k, s) IN (SELECT k, s FROM t WHERE v > 85)`
    await data.expectSame(q, q, options)
    // DuckDB has no correlated row-valued IN: the same predicate as EXISTS.
    const corr = `SELECT a.k, a.v FROM t a WHERE (a.s, MOD(a.v, 4)) IN (SELECT b.s, MOD(b.v, 4) FROM t b WHERE b.k = a.k AND b.x > 500)`
    await data.expectSame(corr, `SELECT a.k, a.v FROM t a WHERE EXISTS (SELECT 1 FROM t b WHERE b.k = a.k AND b.x > 500 AND b.s = a.s AND b.v % 4 = a.v % 4)`,
      options)
  })

  // SQL (and Flink's anti join for NOT IN) compares rows column by column: (a, b) NOT IN S is TRUE
  // when every row of S differs from (a, b) in a column where neither is NULL; FALSE on an equal row;
  // otherwise unknown. DuckDB makes a row with any NULL unknown, so its side is written as that
  // definition: NOT EXISTS a row of S that might be equal.
  it('row-valued NOT IN with NULLs in both sides columns: unknown where a NULL might be equal', async () => {
    const q = `SELECT k, s, v FROM t WHERE (k, s) NOT IN (SELECT k, s FROM t WHERE v > 90 AND (k IS NOT NULL OR s IS NOT NULL))`
    const r = await data.expectSame(q, `SELECT k, s, v FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.v > 90 AND (b.k IS NOT NULL OR b.s IS NOT NULL)
      AND (b.k = a.k OR b.k IS NULL OR a.k IS NULL) AND (b.s = a.s OR b.s IS NULL OR a.s IS NULL))`, options)
    paths.record('row NOT IN: a row emitted, then retracted', kindCounts(r.changes)[3] + kindCounts(r.changes)[1])
    const corr =
      `SELECT a.k, a.s, a.v FROM t a WHERE (a.k, MOD(a.v, 5)) NOT IN (SELECT b.k, MOD(b.v, 5) FROM t b WHERE b.s = a.s AND b.x > 700 AND (b.k IS NOT NULL OR b.v IS NOT NULL))`
    const notExists = `SELECT a.k, a.s, a.v FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.s = a.s AND b.x > 700 AND (b.k IS NOT NULL OR b.v IS NOT NULL)
      AND (b.k = a.k OR b.k IS NULL OR a.k IS NULL) AND (b.v % 5 = a.v % 5 OR b.v IS NULL OR a.v IS NULL))`
    await data.expectSame(corr, notExists, options)
  })

  it('row-valued IN / NOT IN over an updating subquery (groups enter and leave)', async () => {
    const q = `SELECT k, s, v FROM t WHERE (k, s) NOT IN (SELECT k, s FROM t GROUP BY k, s HAVING SUM(v) > 120 AND (k IS NOT NULL OR s IS NOT NULL)) AND v > 50`
    await data.expectSame(q,
      `SELECT k, s, v FROM t a WHERE v > 50 AND NOT EXISTS (SELECT 1 FROM (SELECT k, s FROM t GROUP BY k, s HAVING SUM(v) > 120 AND (k IS NOT NULL OR s IS NOT NULL)) b
      WHERE (b.k = a.k OR b.k IS NULL OR a.k IS NULL) AND (b.s = a.s OR b.s IS NULL OR a.s IS NULL))`, options)
    const inq = `SELECT k, s, v FROM t WHERE (k, s) IN (SELECT k, s FROM t GROUP BY k, s HAVING SUM(v) > 60)`
    await data.expectSame(inq, inq, options)
  })

  it('IN / NOT IN / NOT EXISTS under OR in WHERE', async () => {
    const inOr = `SELECT k, v FROM t WHERE v IN (SELECT v FROM t WHERE x > 700) OR v < -45`
    await data.expectSame(inOr, inOr, options)
    const notInOr = `SELECT k, v FROM t WHERE v NOT IN (SELECT v FROM t WHERE x > 900) OR k = 'a'`
    const r = await data.expectSame(notInOr, notInOr, options)
    paths.record('NOT IN under OR: a row retracted when the subquery caught up', kindCounts(r.changes)[3] + kindCounts(r.changes)[1])
    const notExists = `SELECT a.k, a.v FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.s = a.s AND b.v > 90) OR a.v > 95`
    await data.expectSame(notExists, notExists, options)
    const updating = `SELECT k, v FROM t WHERE v > 97 OR s IN (SELECT s FROM t GROUP BY s HAVING SUM(v) > 150)`
    await data.expectSame(updating, updating, options)
  })

  it('IN / EXISTS as values in the SELECT list: CASE and a three-valued BOOLEAN column', async () => {
    const q = `SELECT k, v, CASE WHEN v IN (SELECT v FROM t WHERE x > 800) THEN 'in' WHEN v IS NULL THEN 'null' ELSE 'out' END AS c,
      v NOT IN (SELECT v FROM t WHERE x < -900) AS m,
      EXISTS (SELECT 1 FROM t b WHERE b.k = a.k AND b.v > 98) AS e FROM t a WHERE v < -30 OR v IS NULL`
    const r = await data.expectSame(q, q, options)
    paths.record('marker column: a row updated when the marker changed', kindCounts(r.changes)[1])
  })

  it('correlated scalar subqueries in the SELECT list: MAX (NULL without a group) and COUNT (0 without one)', async () => {
    const q = `SELECT a.k, a.v, (SELECT MAX(b.v) FROM t b WHERE b.s = a.s AND b.x > 500) AS mx,
      (SELECT COUNT(*) FROM t b WHERE b.k = a.k AND b.v > 90) AS n,
      (SELECT COALESCE(SUM(b.v), 0) + COUNT(b.v) FROM t b WHERE b.k = a.k AND b.s = a.s AND b.x < 0) AS e FROM t a WHERE a.v > 70`
    const r = await data.expectSame(q, q, options)
    paths.record('correlated scalar: a row updated as its group changed', kindCounts(r.changes)[1])
  })

  it('a correlated scalar subquery in WHERE (per-key AVG), and one without an aggregate', async () => {
    const q = `SELECT a.k, a.v FROM t a WHERE a.v > (SELECT AVG(b.v) + 30 FROM t b WHERE b.k = a.k)`
    await data.expectSame(q, duck(q), options)
    // At most one row per key (the key's single maximum row): no aggregate in the subquery itself.
    const plain = `SELECT a.k, a.v, (SELECT m.top FROM (SELECT k, MAX(v) AS top FROM t GROUP BY k) m WHERE m.k = a.k) AS top FROM t a WHERE a.v < -40`
    await data.expectSame(plain, plain, options)
  })
})
