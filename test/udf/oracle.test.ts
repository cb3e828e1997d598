// User-defined scalar and aggregate functions against DuckDB over the same rows: each UDF call has a
// plain-SQL equivalent there (count_char as a length difference, a weighted average as two sums).
// Calls in SELECT, WHERE and GROUP BY; aggregates in a GROUP BY, over an updating input (retract),
// and in TUMBLE and SESSION windows (merge); on heap and RocksDB.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { resolve } from 'node:path'
import { OracleData, rocksDir } from '../oracle/oracle.js'

const M = resolve(import.meta.dirname, 'modules')
const FUNCTIONS = `
CREATE FUNCTION count_char AS '${M}/strings.ts#countChar';
CREATE TEMPORARY FUNCTION weighted AS '${M}/strings.ts#weighted' LANGUAGE TYPESCRIPT;
CREATE FUNCTION wavg AS '${M}/aggregates.ts#weightedAvg';
CREATE FUNCTION spread AS '${M}/aggregates.ts#spread';
CREATE FUNCTION rev AS '${M}/plain.mjs' LANGUAGE JAVASCRIPT;
`

const CASES: readonly { name: string; weir: string; duck: string }[] = [
  {
    name: 'scalar calls in SELECT (strict NULLs, NULLs seen, a JavaScript module)',
    weir: `SELECT k, s, count_char(s, 'a'), weighted(v, x), rev(s) FROM t`,
    duck: `SELECT k, s, CAST(length(s) - length(replace(s, 'a', '')) AS INT),
      CASE WHEN v IS NULL THEN -1 WHEN x IS NULL THEN NULL ELSE v * x + 0.5 END, reverse(s) FROM t`,
  },
  {
    name: 'a scalar call in WHERE and in GROUP BY',
    weir: `SELECT count_char(s, 'e') AS e, COUNT(*) FROM t WHERE count_char(s, 'a') > 0 GROUP BY count_char(s, 'e')`,
    duck: `SELECT CAST(length(s) - length(replace(s, 'e', '')) AS INT) AS e, COUNT(*) FROM t
      WHERE length(s) - length(replace(s, 'a', '')) > 0 GROUP BY e`,
  },
  {
    name: 'aggregates in a GROUP BY (an INT argument passed as DOUBLE, a BIGINT result)',
    weir: `SELECT k, wavg(v, 1.0 + ABS(x)), spread(v), wavg(v, v) FROM t GROUP BY k`,
    duck: `SELECT k, SUM(v * (1.0 + ABS(x))) FILTER (WHERE v IS NOT NULL AND x IS NOT NULL) /
        SUM(1.0 + ABS(x)) FILTER (WHERE v IS NOT NULL AND x IS NOT NULL), MAX(v) - MIN(v),
        SUM(CAST(v AS DOUBLE) * v) / NULLIF(SUM(CAST(v AS DOUBLE)), 0) FROM t GROUP BY k`,
  },
  {
    name: 'an aggregate over an updating input (retract)',
    weir: `SELECT MOD(n, 4) AS m, wavg(n, 2.0), COUNT(*) FROM (SELECT k, CAST(COUNT(v) AS INT) AS n FROM t GROUP BY k) GROUP BY MOD(n, 4)`,
    duck: `SELECT n % 4 AS m, AVG(CAST(n AS DOUBLE)), COUNT(*) FROM (SELECT k, CAST(COUNT(v) AS INT) AS n FROM t GROUP BY k) GROUP BY m`,
  },
  {
    // Regression: the Expand of grouping sets carried only a call's first argument, so a two-argument
    // user aggregate read its weight from another column (NULL in one set, a wrong value in the other).
    name: 'a two-argument aggregate under GROUPING SETS',
    weir: `SELECT k, wavg(v, 1.0 + ABS(x)), spread(v) FROM t GROUP BY GROUPING SETS ((k), ())`,
    duck: `SELECT k, SUM(v * (1.0 + ABS(x))) FILTER (WHERE v IS NOT NULL AND x IS NOT NULL) /
        SUM(1.0 + ABS(x)) FILTER (WHERE v IS NOT NULL AND x IS NOT NULL), MAX(v) - MIN(v) FROM t GROUP BY GROUPING SETS ((k), ())`,
  },
  {
    // A bounded frame retracts the rows leaving it; the unbounded one only accumulates (spread has no retract).
    name: 'aggregates in OVER windows: a RANGE interval frame and an unbounded one',
    weir: `SELECT k, ts, v, wavg(v, 2.0) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW),
        wavg(v, CAST(v AS DOUBLE) * 0 + 3.0) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), spread(v) OVER (PARTITION BY k ORDER BY ts)
      FROM t`,
    duck: `SELECT k, ts, v, AVG(CAST(v AS DOUBLE)) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 2 SECONDS PRECEDING AND CURRENT ROW),
        AVG(CAST(v AS DOUBLE)) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
        MAX(v) OVER (PARTITION BY k ORDER BY ts) - MIN(v) OVER (PARTITION BY k ORDER BY ts) FROM t`,
  },
  {
    name: 'aggregates in TUMBLE windows',
    weir: `SELECT k, window_start, wavg(v, 1.0 + ABS(x)), spread(v)
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
    duck: `SELECT k, time_bucket(INTERVAL '10 seconds', ts) AS ws, SUM(v * (1.0 + ABS(x))) FILTER (WHERE v IS NOT NULL AND x IS NOT NULL) /
        SUM(1.0 + ABS(x)) FILTER (WHERE v IS NOT NULL AND x IS NOT NULL), MAX(v) - MIN(v) FROM t GROUP BY k, ws`,
  },
]

let data: OracleData
beforeAll(async () => {
  data = await OracleData.create({ seed: 20, rows: 1500 })
}, 60_000)
afterAll(async () => {
  await data?.close()
})

const BACKENDS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({ 'state.backend': 'heap' }) },
  { name: 'rocksdb', options: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '64 kb', 'state.dir': rocksDir() }) },
]

describe.each(CASES)('UDF vs DuckDB: $name', c => {
  it.each(BACKENDS)('$name', async b => {
    await data.expectSame(FUNCTIONS + c.weir, c.duck, { ...b.options(), 'execution.batch-size': '7' })
  }, 120_000)
})
