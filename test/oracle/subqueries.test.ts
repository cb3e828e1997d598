// Subqueries against DuckDB: IN / EXISTS / NOT IN / NOT EXISTS, correlated and not, over
// insert-only and updating inputs (NULLs on both sides of NOT IN), INTERSECT / EXCEPT with and
// without ALL, and scalar subqueries in WHERE and SELECT. Each run's materialized changelog must
// equal DuckDB's result, and a retraction of a row never emitted fails the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, PathsTaken, kindCounts, materialize, rocksOptions } from './oracle.js'

const ROWS = 400
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 41, options: { 'execution.batch-size': '7' } },
  { seed: 42, options: { ...rocksOptions(), 'execution.batch-size': '5' } },
  { seed: 43, options: { 'execution.batch-size': '1', 'parallelism.default': '3' } },
]

// What the changelog went through (rows emitted, then retracted) depends on how the two inputs
// interleave: each path must be taken in at least one data set's run; where it ends, in every run.
const paths = new PathsTaken()
afterAll(() => paths.expectTaken())

describe.each(DATA_SETS)('subqueries vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('IN (uncorrelated subquery) on an expression, with NULL probe values; insert-only out', async () => {
    const q = `SELECT k, s, v FROM t WHERE UPPER(s) IN (SELECT UPPER(s) FROM t WHERE v > 90) AND v < 30`
    const r = await data.expectSame(q, q, options)
    expect(kindCounts(r.changes).slice(1)).toEqual([0, 0, 0])
  })

  it('correlated EXISTS and NOT EXISTS (equality correlations on two columns)', async () => {
    const exists = `SELECT a.k, a.s, a.v FROM t a WHERE EXISTS (SELECT * FROM t b WHERE b.k = a.k AND b.s = a.s AND b.v > 60) AND a.v < 0`
    await data.expectSame(exists, exists, options)
    const notExists = `SELECT a.k, a.s, a.v FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.s = a.s AND b.v > 60)`
    const r = await data.expectSame(notExists, notExists, options)
    // Rows that had no match yet were emitted, then retracted when one arrived.
    paths.record('NOT EXISTS: a row emitted, then retracted when a match arrived', kindCounts(r.changes)[3])
  })

  it('uncorrelated EXISTS / NOT EXISTS: all rows wait for (or lose to) the first subquery row', async () => {
    const q = `SELECT k, v FROM t WHERE EXISTS (SELECT * FROM t WHERE v > 90 AND k = 'c') AND v > 80`
    await data.expectSame(q, q, options)
    const none = `SELECT k, v FROM t WHERE NOT EXISTS (SELECT * FROM t WHERE v = 1234) AND v > 80`
    await data.expectSame(none, none, options)
  })

  it('NOT IN without NULLs in the subquery: a NULL probe value never qualifies', async () => {
    const q = `SELECT k, v FROM t WHERE v NOT IN (SELECT v FROM t WHERE v IS NOT NULL AND v > 20)`
    const r = await data.expectSame(q, q, options)
    paths.record('NOT IN: a NULL probe row emitted while the subquery was empty, then retracted', r.changes.filter(c => c.row[1] === null).length)
    expect(materialize(r.changes).some(row => row[1] === null)).toBe(false)
  })

  it('NOT IN with a NULL in the subquery: nothing qualifies once the NULL arrives', async () => {
    const q = `SELECT k, v FROM t WHERE v NOT IN (SELECT v FROM t WHERE v > 90 OR v IS NULL)`
    const r = await data.weir(q, options)
    expect(await data.duck(q)).toEqual([])
    expect(materialize(r.changes)).toEqual([])
    // Rows qualified before the first NULL came, and were retracted then.
    paths.record('NOT IN: rows qualified before the first NULL came', kindCounts(r.changes)[0])
  })

  it('correlated NOT IN with NULLs on both sides (some keys have a NULL, some none, some no rows)', async () => {
    const q = `SELECT a.k, a.s, a.v FROM t a WHERE a.v NOT IN (SELECT b.v FROM t b WHERE b.s = a.s AND b.x > 700)`
    const r = await data.expectSame(q, q, options)
    paths.record('correlated NOT IN: a row retracted', kindCounts(r.changes)[3])
  })

  it('IN and NOT IN over updating inputs (GROUP BY results on both sides)', async () => {
    // SUM(v) moves both ways: groups enter and leave the IN set; MIN(v) only falls: groups join the NOT IN set.
    const q = `SELECT s, n FROM (SELECT s, COUNT(*) AS n FROM t GROUP BY s)
      WHERE s IN (SELECT s FROM t GROUP BY s HAVING SUM(v) > 100) AND s NOT IN (SELECT s FROM t WHERE s IS NOT NULL GROUP BY s HAVING MIN(v) < -40)`
    const r = await data.expectSame(q, q, options)
    paths.record('IN / NOT IN over updating inputs: a row retracted or updated', kindCounts(r.changes)[3] + kindCounts(r.changes)[1])
  })

  it('INTERSECT and EXCEPT, set and ALL (NULLs compare equal)', async () => {
    const a = `SELECT k, MOD(v, 5) AS m FROM t WHERE v < 50`
    const b = `SELECT k, MOD(v, 5) AS m FROM t WHERE v > 20`
    const duck = (q: string) => q.replace(/MOD\(v, 5\)/g, '(v % 5)')
    for (const op of ['INTERSECT', 'INTERSECT ALL', 'EXCEPT ALL']) {
      const q = `${a} ${op} ${b}`
      await data.expectSame(q, duck(q), options)
    }
    const except = `SELECT k, MOD(v, 3) AS m FROM t WHERE v < 0 EXCEPT SELECT k, MOD(v, 3) AS m FROM t WHERE v > 90`
    const r = await data.expectSame(except, except.replace(/MOD\(v, 3\)/g, '(v % 3)'), options)
    paths.record('EXCEPT: a row retracted when the other side caught up', kindCounts(r.changes)[3])
  })

  it('EXCEPT of updating inputs', async () => {
    const q = `SELECT k, COUNT(*) AS n FROM t WHERE v > 0 GROUP BY k EXCEPT SELECT k, COUNT(*) AS n FROM t WHERE v < 50 GROUP BY k`
    await data.expectSame(q, q, options)
  })

  it('a scalar subquery in WHERE (a global aggregate that changes) and in the SELECT list', async () => {
    const where = `SELECT k, v FROM t WHERE v > (SELECT AVG(v) + 40 FROM t)`
    const duckWhere = `SELECT k, v FROM t WHERE v > (SELECT CAST(trunc(AVG(v)) AS INT) + 40 FROM t)`
    const r = await data.expectSame(where, duckWhere, options)
    paths.record('scalar subquery: rows retracted or updated as its value changed', kindCounts(r.changes)[3] + kindCounts(r.changes)[1])
    const select = `SELECT k, v, (SELECT MAX(v) FROM t WHERE k = 'a') AS top FROM t WHERE v < -45`
    await data.expectSame(select, select, options)
  })
})
