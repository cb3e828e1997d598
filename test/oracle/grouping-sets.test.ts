// Oracle tests for GROUPING SETS, ROLLUP and CUBE with GROUPING() / GROUPING_ID() in non-windowed
// GROUP BY: Weir's materialized changelog must equal DuckDB's result, over an append-only table and
// over an updating input (an aggregate of a grouped subquery), with small batches (so groups retract
// between batches) and on RocksDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatType } from '../../common/types.js'
import { AVG_DEC_D, OracleData, kindCounts, selectAggs, rocksOptions } from './oracle.js'

const ROWS = 2000
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 111, options: { 'execution.batch-size': '7' } },
  { seed: 222, options: { 'execution.batch-size': '7', 'table.exec.mini-batch.enabled': 'false' } },
  { seed: 333, options: { ...rocksOptions(), 'execution.batch-size': '7', 'table.exec.mini-batch.enabled': 'false' } },
  { seed: 444, options: {} },
]

describe.each(DATA_SETS)('grouping sets vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('ROLLUP with every aggregate and GROUPING of each key and of both', async () => {
    const r = await data.expectSame(
      `SELECT k, MOD(v, 3) AS m, GROUPING(k) AS gk, GROUPING(MOD(v, 3)) AS gm, GROUPING(k, MOD(v, 3)) AS g, ${selectAggs('weir')}
       FROM t GROUP BY ROLLUP(k, MOD(v, 3))`,
      `SELECT k, v % 3 AS m, GROUPING(k) AS gk, GROUPING(v % 3) AS gm, GROUPING(k, v % 3) AS g, ${selectAggs('duck')}
       FROM t GROUP BY ROLLUP(k, v % 3)`,
      options,
    )
    if (options['execution.batch-size'] === '7') expect(kindCounts(r.changes)[1], 'updates were retracted').toBeGreaterThan(0)
  })

  it('CUBE, with GROUPING_ID naming the keys in another order', async () => {
    await data.expectSame(
      `SELECT k, s, COUNT(*), SUM(v), AVG(d), GROUPING_ID(s, k) AS gid FROM t GROUP BY CUBE(k, s)`,
      `SELECT k, s, COUNT(*), SUM(v), ${AVG_DEC_D.duck}, GROUPING_ID(s, k) AS gid FROM t GROUP BY CUBE(k, s)`,
      options,
    )
  })

  it('GROUPING SETS with the empty set, HAVING on GROUPING and an aggregate, FILTER and COUNT(DISTINCT)', async () => {
    await data.expectSame(
      `SELECT k, s, COUNT(*) FILTER (WHERE v > 10), COUNT(DISTINCT v), GROUPING(k, s) FROM t
       GROUP BY GROUPING SETS ((k, s), (s), ()) HAVING COUNT(*) > 1 OR GROUPING(s) = 1`,
      `SELECT k, s, COUNT(*) FILTER (WHERE v > 10), COUNT(DISTINCT v), GROUPING(k, s) FROM t
       GROUP BY GROUPING SETS ((k, s), (s), ()) HAVING COUNT(*) > 1 OR GROUPING(s) = 1`,
      options,
    )
  })

  it('plain keys crossed with a ROLLUP, and a nested ROLLUP in GROUPING SETS', async () => {
    await data.expectSame(
      `SELECT k, s, v > 20 AS big, COUNT(*), MIN(x), GROUPING(k, s, v > 20) FROM t GROUP BY k, ROLLUP(s, v > 20)`,
      `SELECT k, s, v > 20 AS big, COUNT(*), MIN(x), GROUPING(k, s, v > 20) FROM t GROUP BY k, ROLLUP(s, v > 20)`,
      options,
    )
    await data.expectSame(
      `SELECT k, s, COUNT(*), MAX(v) FROM t GROUP BY GROUPING SETS (ROLLUP(k, s), (s))`,
      `SELECT k, s, COUNT(*), MAX(v) FROM t GROUP BY GROUPING SETS (ROLLUP(k, s), (s))`,
      options,
    )
  })

  it('a set listed twice is aggregated twice, as in SQL', async () => {
    await data.expectSame(
      `SELECT k, COUNT(*), SUM(v) FROM t GROUP BY GROUPING SETS ((k), (k), ())`,
      `SELECT k, COUNT(*), SUM(v) FROM t GROUP BY GROUPING SETS ((k), (k), ())`,
      options,
    )
  })

  it('an aggregate over a key column sees its value in the sets that leave the key out', async () => {
    await data.expectSame(
      `SELECT MOD(v, 4) AS m, SUM(MOD(v, 4)), COUNT(MOD(v, 4)), GROUPING(MOD(v, 4)) FROM t GROUP BY ROLLUP(MOD(v, 4))`,
      `SELECT v % 4 AS m, SUM(v % 4), COUNT(v % 4), GROUPING(v % 4) FROM t GROUP BY ROLLUP(v % 4)`,
      options,
    )
  })

  it('over an updating input (an aggregate of a grouped subquery): retractions pass through the expansion', async () => {
    const r = await data.expectSame(
      `SELECT c, k, COUNT(*), SUM(sv), GROUPING(c, k) FROM (SELECT k, s, COUNT(*) AS c, SUM(v) AS sv FROM t GROUP BY k, s) GROUP BY CUBE(c, k)`,
      `SELECT c, k, COUNT(*), SUM(sv), GROUPING(c, k) FROM (SELECT k, s, COUNT(*) AS c, SUM(v) AS sv FROM t GROUP BY k, s) GROUP BY CUBE(c, k)`,
      options,
    )
    expect(kindCounts(r.changes)[3] + kindCounts(r.changes)[1], 'groups were retracted').toBeGreaterThan(0)
  })

  it('GROUPING() with a plain GROUP BY is 0; result types: keys nullable, GROUPING BIGINT NOT NULL', async () => {
    await data.expectSame(`SELECT k, GROUPING(k), COUNT(*) FROM t GROUP BY k`, `SELECT k, GROUPING(k), COUNT(*) FROM t GROUP BY k`, options)
    const r = await data.weir(`SELECT COUNT(*) AS c, GROUPING(v) AS g, v FROM t WHERE v IS NOT NULL GROUP BY ROLLUP(v)`, options)
    expect(r.schema.map(f => formatType(f.type))).toEqual(['BIGINT NOT NULL', 'BIGINT NOT NULL', 'INT'])
  })
})
