// Oracle tests for scalar expressions: projections and filters over every generated row, in Weir
// and DuckDB, limited to functions whose meaning Flink and DuckDB share (differences noted inline).
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'
import { type Expr, expectSameProjection, same } from './projections.js'

const ROWS = 3000
const SEEDS = [5, 6]

const FAMILIES: Record<string, readonly Expr[]> = {
  'CASE, COALESCE, NULLIF, IF and three-valued logic': [
    same("CASE WHEN v IS NULL THEN 'none' WHEN v > 50 THEN 'hi' WHEN v > 0 THEN 'mid' ELSE 'lo' END"),
    same("CASE k WHEN 'a' THEN 1 WHEN 'b' THEN 2 ELSE 0 END"),
    same('CASE WHEN d > 500 THEN d END'),
    same("COALESCE(k, s, 'none')"),
    same('COALESCE(v, 0) + 1'),
    same('NULLIF(v, 0)'),
    same('IF(v > 0, d, -d)'),
    same('(v > 0 AND d < 0) OR s IS NULL'),
    same('CASE WHEN v > 0 THEN d ELSE v END'),
    same('COALESCE(d, v)'),
    same('(v > 10) IS TRUE'),
    same('(v > 10) IS NOT FALSE'),
    same('v IN (1, 2, NULL)'),
    same('v NOT IN (1, NULL)'),
    same("NOT (k = 'a')"),
    // Not compared: GREATEST/LEAST (Flink returns NULL if any argument is NULL; DuckDB skips NULLs).
  ],
  'exact DECIMAL and INT arithmetic': [
    same('d * 2'),
    same('d + d'),
    same('d - v'),
    same('d * d'),
    same('-d'),
    same('ABS(d)'),
    same('d + 0.005'),
    same('ROUND(d, 1)'),
    same('FLOOR(d)'),
    same('CEIL(d)'),
    same('v * 3 + 1'),
    same('ABS(v)'),
    { weir: 'MOD(v, 7)', duck: 'v % 7' },
    same('x * 2 + 0.5'),
    // x is a multiple of 1/8, so its decimal expansion is exact and half-way cases round alike.
    same('ROUND(x, 2)'),
    same('ROUND(x)'),
    same('ROUND(v, -1)'),
    same('FLOOR(x)'),
    same('CEIL(x)'),
    same('SQRT(ABS(x))'),
    same('POWER(x, 2)'),
    same('LN(ABS(x) + 1)'),
    // Flink's INT / INT is an INT truncated toward zero; DuckDB's // on integers also truncates.
    { weir: 'v / 7', duck: 'v // 7' },
    // Not compared: '/' (Flink divides DECIMALs to a DECIMAL rounded half up and INTs to an INT;
    // DuckDB's '/' gives a DOUBLE), and MOD/'%' on negative DECIMALs.
  ],
  'IN, BETWEEN and comparisons': [
    same("k IN ('a', 'b', 'c')"),
    same('v IN (1, 2, 3, 50, 99)'),
    same("k NOT IN ('d', 'e')"),
    same('v NOT IN (10, 20, 30)'),
    same('v BETWEEN 0 AND 50'),
    same('d NOT BETWEEN -10 AND 10'),
    same('d BETWEEN -5.5 AND 100'),
    same("s < 'b'"),
    same('d >= 100'),
    same('x <> 0'),
    same("ts < TIMESTAMP '2024-03-11 00:00:00'"),
  ],
  'LIKE and string functions': [
    same("s LIKE '%a%'"),
    same("s LIKE '_e%'"),
    same("s NOT LIKE 'a%'"),
    same("s LIKE '%eta'"),
    same('UPPER(s)'),
    same('LOWER(s)'),
    same('SUBSTRING(s, 2, 3)'),
    { weir: 'SUBSTRING(s FROM 3)', duck: 'substring(s, 3)' },
    { weir: 'CHAR_LENGTH(s)', duck: 'length(s)' },
    // Flink's CONCAT is NULL when an argument is; DuckDB's concat() skips NULLs, its || does not.
    { weir: "CONCAT(s, '-', k)", duck: "s || '-' || k" },
    same('s || k'),
    same("REPLACE(s, 'a', 'XY')"),
    same('TRIM(s)'),
    same('LTRIM(s)'),
    same('RTRIM(s)'),
    // Every TRIM form with characters to remove (the string and the characters must not swap).
    same("TRIM(BOTH 'ab' FROM s)"),
    same("TRIM('a' FROM s)"),
    same("TRIM(LEADING 'ab' FROM s)"),
    same("TRIM(TRAILING 'ae' FROM s)"),
    same('TRIM(LEADING FROM s)'),
    same('TRIM(TRAILING FROM s)'),
    same('TRIM(BOTH FROM s)'),
    { weir: "BTRIM(s, 'ab')", duck: "trim(s, 'ab')" },
    same("LTRIM(s, 'ab')"),
    same("RTRIM(s, 'ae')"),
    same('TRIM(k FROM s)'),
    same('LEFT(s, 2)'),
    same('RIGHT(s, 3)'),
    same("LPAD(s, 6, '*')"),
    same("RPAD(s, 4, '.')"),
    same("POSITION('a' IN s)"),
    // Both CONCAT_WS skip NULL arguments.
    same("CONCAT_WS('-', s, k)"),
    same('REVERSE(s)'),
    same('REPEAT(s, 2)'),
    // DuckDB replaces only the first match unless given 'g'; Flink replaces all.
    { weir: "REGEXP_REPLACE(s, '[aeiou]', '')", duck: "regexp_replace(s, '[aeiou]', '', 'g')" },
    // Flink gives NULL when nothing matches, DuckDB ''; the group is never empty when it matches.
    { weir: "REGEXP_EXTRACT(s, '([a-z]+)([0-9])', 2)", duck: "NULLIF(regexp_extract(s, '([a-z]+)([0-9])', 2), '')" },
  ],
  'EXTRACT, HOUR/MINUTE, FLOOR/CEIL to a unit, intervals, DATE_FORMAT': [
    same('EXTRACT(HOUR FROM ts)'),
    same('EXTRACT(MINUTE FROM ts)'),
    // Both give whole seconds (DuckDB's second(), like Flink, drops the fraction).
    same('EXTRACT(SECOND FROM ts)'),
    same('EXTRACT(DAY FROM ts)'),
    same('EXTRACT(MONTH FROM ts)'),
    same('EXTRACT(YEAR FROM ts)'),
    same('EXTRACT(QUARTER FROM ts)'),
    // Flink numbers days of the week 1 (Sunday) to 7; DuckDB 0 (Sunday) to 6.
    { weir: 'EXTRACT(DOW FROM ts)', duck: 'dayofweek(ts) + 1' },
    { weir: 'EXTRACT(DOY FROM ts)', duck: 'dayofyear(ts)' },
    same('HOUR(ts)'),
    same('MINUTE(ts)'),
    { weir: 'FLOOR(ts TO HOUR)', duck: "date_trunc('hour', ts)" },
    { weir: 'FLOOR(ts TO MINUTE)', duck: "date_trunc('minute', ts)" },
    { weir: 'FLOOR(ts TO DAY)', duck: "date_trunc('day', ts)" },
    { weir: 'CEIL(ts TO MINUTE)', duck: "CASE WHEN date_trunc('minute', ts) = ts THEN ts ELSE date_trunc('minute', ts) + INTERVAL 1 MINUTE END" },
    { weir: "ts + INTERVAL '1' HOUR", duck: 'ts + INTERVAL 1 HOUR' },
    { weir: "ts - INTERVAL '90' SECOND", duck: 'ts - INTERVAL 90 SECOND' },
    { weir: 'TIMESTAMPADD(MINUTE, 5, ts)', duck: 'ts + INTERVAL 5 MINUTE' },
    // Whole minutes toward zero, negative before midnight.
    { weir: "TIMESTAMPDIFF(MINUTE, TIMESTAMP '2024-03-11 00:00:00', ts)", duck: "(epoch_ms(ts) - epoch_ms(TIMESTAMP '2024-03-11 00:00:00')) // 60000" },
    { weir: "DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss')", duck: "strftime(ts, '%Y-%m-%d %H:%M:%S')" },
    // TIMESTAMPDIFF counts whole units; DuckDB's date_diff counts boundaries, so compare from an aligned start.
    { weir: 'TIMESTAMPDIFF(SECOND, FLOOR(ts TO HOUR), ts)', duck: "(epoch_ms(ts) - epoch_ms(date_trunc('hour', ts))) // 1000" },
  ],
  'CAST': [
    same('CAST(v AS BIGINT)'),
    same('CAST(v AS DOUBLE)'),
    same('CAST(v AS DECIMAL(12, 2))'),
    same('CAST(d AS DOUBLE)'),
    same('CAST(d AS DECIMAL(12, 3))'),
    { weir: 'CAST(v AS STRING)', duck: 'CAST(v AS VARCHAR)' },
    // DECIMAL keeps its scale in both ('12.50').
    { weir: 'CAST(d AS STRING)', duck: 'CAST(d AS VARCHAR)' },
    same('CAST(ts AS DATE)'),
    // Both round half up (away from zero) when a cast drops decimal digits.
    same('CAST(x AS DECIMAL(10, 2))'),
    same('CAST(d AS DECIMAL(10, 1))'),
    { weir: 'CAST(CAST(v AS STRING) AS INT)', duck: 'CAST(CAST(v AS VARCHAR) AS INT)' },
    // Not compared: DECIMAL/DOUBLE → INT (Flink truncates, DuckDB rounds), DOUBLE or TIMESTAMP →
    // STRING (Java and DuckDB print them differently: '1.0E7', '.500' vs '.5').
  ],
}

const FILTERS: readonly Expr[] = [
  same("v > 10 AND s LIKE '%a%' OR d IS NULL"),
  same("k IN ('a', 'c') AND NOT (v BETWEEN 0 AND 40)"),
  same("COALESCE(s, '') <> '' AND d * 2 > 300.5"),
  { weir: 'HOUR(ts) = 0 AND MOD(v, 2) = 0', duck: 'hour(ts) = 0 AND v % 2 = 0' },
]

describe.each(SEEDS)('scalar expressions vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  for (const [family, exprs] of Object.entries(FAMILIES)) {
    it(family, async () => {
      await expectSameProjection(data, exprs)
    })
  }

  it('IS [NOT] DISTINCT FROM', async () => {
    await data.expectSame(
      "SELECT ts, s, v IS DISTINCT FROM 5, k IS NOT DISTINCT FROM 'b' FROM t",
      "SELECT ts, s, v IS DISTINCT FROM 5, k IS NOT DISTINCT FROM 'b' FROM t",
    )
  })

  it('WHERE with mixed predicates (NULL is not true)', async () => {
    for (const f of FILTERS) {
      await data.expectSame(`SELECT ts, k, v, d, s FROM t WHERE ${f.weir}`, `SELECT ts, k, v, d, s FROM t WHERE ${f.duck ?? f.weir}`)
    }
  })
})
