// PERCENTILE (exact, continuous, Flink's) against DuckDB's quantile_cont: per GROUP BY key over
// INT, DOUBLE and DECIMAL values with NULLs, several percentages at once (an ARRAY), with a
// frequency (DuckDB repeats the row that many times), over an updating input whose rows are
// retracted and added back, in TUMBLE windows, and in a bounded OVER frame (which retracts rows as
// they leave it), on heap and RocksDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, rocksOptions } from './oracle.js'

const ROWS = 1500
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 71, options: {} },
  { seed: 1072, options: { ...rocksOptions(), 'execution.batch-size': '1', 'table.exec.mini-batch.enabled': 'false' } },
]

describe.each(DATA_SETS)('PERCENTILE vs DuckDB quantile_cont, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('per key over INT, DOUBLE and DECIMAL (NULLs left out), several percentages in one ARRAY', async () => {
    await data.expectSame(
      `SELECT k, PERCENTILE(v, 0.5), PERCENTILE(x, 0.9), PERCENTILE(d, 0.25), PERCENTILE(v, 0), PERCENTILE(v, 1),
         PERCENTILE(v, ARRAY[0.1, 0.75])[1], PERCENTILE(v, ARRAY[0.1, 0.75])[2]
       FROM t GROUP BY k`,
      `SELECT k, quantile_cont(v, 0.5), quantile_cont(x, 0.9), quantile_cont(CAST(d AS DOUBLE), 0.25), CAST(MIN(v) AS DOUBLE), CAST(MAX(v) AS DOUBLE),
         quantile_cont(v, [0.1, 0.75])[1], quantile_cont(v, [0.1, 0.75])[2]
       FROM t GROUP BY k`,
      options,
    )
  })

  it('with a frequency: each row counts that many times, NULL or 0 leaves it out', async () => {
    await data.expectSame(
      `SELECT k, PERCENTILE(v, 0.3, MOD(ABS(v), 3)), PERCENTILE(x, 0.5, CASE WHEN v > 0 THEN 2 END) FROM t GROUP BY k`,
      `SELECT k, (SELECT quantile_cont(v, 0.3) FROM t AS u, range(CAST(abs(u.v) % 3 AS BIGINT)) WHERE u.k IS NOT DISTINCT FROM g.k),
         (SELECT quantile_cont(x, 0.5) FROM t AS u WHERE u.k IS NOT DISTINCT FROM g.k AND u.v > 0)
       FROM (SELECT DISTINCT k FROM t) AS g`,
      options,
    )
  })

  it('over an updating input: each new sum retracts the value it replaces', async () => {
    const inner = 'SELECT k, s, COUNT(*) AS c, SUM(v) AS sv FROM t WHERE s IS NOT NULL GROUP BY k, s'
    const r = await data.expectSame(
      `SELECT k, PERCENTILE(sv, 0.5), PERCENTILE(c, ARRAY[0.2, 0.8])[2] FROM (${inner}) GROUP BY k`,
      `SELECT k, quantile_cont(sv, 0.5), quantile_cont(c, [0.2, 0.8])[2] FROM (${inner}) GROUP BY k`,
      options,
    )
    expect(kindCounts(r.changes)[1], 'the outer aggregate saw retractions').toBeGreaterThan(0)
  })

  it('TUMBLE window aggregate', async () => {
    await data.expectSame(
      `SELECT k, window_start, PERCENTILE(v, 0.75), PERCENTILE(x, 0.5)
       FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
      `SELECT k, to_timestamp((epoch_ms(ts) - epoch_ms(ts) % 10000) / 1000)::TIMESTAMP AS ws, quantile_cont(v, 0.75), quantile_cont(x, 0.5)
       FROM t GROUP BY k, ws`,
      options,
    )
  })

  it('OVER a RANGE frame of 2 seconds: rows leave the frame by retraction', async () => {
    await data.expectSame(
      `SELECT k, v, ts, PERCENTILE(v, 0.5) OVER w, PERCENTILE(x, 0.9, 2) OVER w
       FROM t WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW)`,
      `SELECT k, v, ts, quantile_cont(v, 0.5) OVER w,
         (SELECT quantile_cont(u.x, 0.9) FROM t AS u, range(2) WHERE u.k IS NOT DISTINCT FROM o.k AND u.ts BETWEEN o.ts - INTERVAL 2 SECOND AND o.ts)
       FROM t AS o WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 2 SECOND PRECEDING AND CURRENT ROW)`,
      options,
    )
  })
})
