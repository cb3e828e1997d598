// NaN in MIN, MAX and ORDER BY against DuckDB: NaN sorts after every other DOUBLE (as DuckDB,
// PostgreSQL and Java's Double.compare order it), so MAX is NaN once a NaN arrives and MIN is NaN only
// when every value is, whatever the order rows come in. With < and > alone, the first value of a group
// won (a group starting with NaN kept MIN = NaN; one starting with a number never took a NaN MAX), and a
// retracted NaN extreme was never found equal to itself.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData, rocksOptions } from './oracle.js'

// Every fourth v is NaN (NULL v gives x, which may be NULL).
const VIEW = `CREATE TEMPORARY VIEW u AS SELECT k, v, ts, CASE WHEN MOD(v, 4) = 0 THEN CAST('NaN' AS DOUBLE) ELSE x END AS y FROM t;\n`
const DUCK_U = `(SELECT k, v, ts, CASE WHEN v % 4 = 0 THEN 'NaN'::DOUBLE ELSE x END AS y FROM t) u`

const CONFIGS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({}) },
  { name: 'rocksdb', options: () => ({ ...rocksOptions(), 'execution.batch-size': '7' }) },
  { name: 'two-phase',
    options: () => ({ 'table.optimizer.agg-phase-strategy': 'TWO_PHASE', 'table.exec.mini-batch.enabled': 'true', 'table.exec.mini-batch.allow-latency': '1 s',
      'table.exec.mini-batch.size': '100', 'parallelism.default': '2' }) },
]

describe.each([31, 32])('NaN order vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 1500 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it.each(CONFIGS)('MIN and MAX per group over insert-only rows ($name)', async ({ options }) => {
    await data.expectSame(
      `${VIEW}SELECT k, MIN(y), MAX(y), COUNT(y) FROM u GROUP BY k`,
      `SELECT k, MIN(y), MAX(y), COUNT(y) FROM ${DUCK_U} GROUP BY k`,
      options(),
    )
  })

  it.each(CONFIGS.slice(0, 2))('MIN and MAX over an updating input retract NaN extremes ($name)', async ({ options }) => {
    // The inner MIN of a key whose first rows are NaN moves from NaN to a number: the outer MIN/MAX
    // retract NaN and must find the next extreme.
    await data.expectSame(
      `${VIEW}SELECT MOD(c, 3), MIN(m), MAX(m), COUNT(*) FROM (SELECT k, COUNT(*) AS c, MIN(y) AS m FROM u GROUP BY k) GROUP BY MOD(c, 3)`,
      `SELECT c % 3, MIN(m), MAX(m), COUNT(*) FROM (SELECT k, COUNT(*) AS c, MIN(y) AS m FROM ${DUCK_U} GROUP BY k) GROUP BY c % 3`,
      options(),
    )
  })

  it.each(['DESC', 'ASC'])('RANK ordered by a DOUBLE with NaN %s', async dir => {
    await data.expectSame(
      `${VIEW}SELECT k, v, y, rk FROM (SELECT k, v, y, RANK() OVER (PARTITION BY k ORDER BY y ${dir} NULLS LAST) AS rk FROM u) WHERE rk <= 3`,
      `SELECT k, v, y, rk FROM (SELECT k, v, y, RANK() OVER (PARTITION BY k ORDER BY y ${dir} NULLS LAST) AS rk FROM ${DUCK_U}) WHERE rk <= 3`,
    )
  })

  it('MIN and MAX over a RANGE frame (rows leave the frame)', async () => {
    await data.expectSame(
      `${VIEW}SELECT k, v, ts, MIN(y) OVER w, MAX(y) OVER w FROM u
        WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW)`,
      `SELECT k, v, ts, MIN(y) OVER w, MAX(y) OVER w FROM ${DUCK_U}
        WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 2 SECOND PRECEDING AND CURRENT ROW)`,
    )
  })
})
