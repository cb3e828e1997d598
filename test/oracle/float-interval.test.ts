// Oracle test for FLOAT (32-bit, as DuckDB's FLOAT and Flink's) and year-month INTERVAL values: casts
// that round to 32 bits, FLOAT arithmetic kept in 32 bits and mixed with DOUBLE, a FLOAT GROUP BY key
// with SUM/MIN/MAX of FLOATs; DATE and TIMESTAMP plus and minus calendar months (the day clamped to the
// month's end), year-month intervals compared and as GROUP BY keys — Weir against DuckDB.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'

describe.each([11, 12])('FLOAT and year-month INTERVAL vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 1500 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('casts to FLOAT round to 32 bits; FLOAT op FLOAT stays FLOAT, FLOAT op DOUBLE is a DOUBLE', async () => {
    await data.expectSame(
      `SELECT v, CAST(x / 3 AS FLOAT), CAST(x AS FLOAT) / 3, CAST(v AS FLOAT) * CAST(0.1 AS FLOAT), CAST(x AS FLOAT) + CAST(0.1 AS FLOAT),
        CAST(x AS FLOAT) + 0.1E0, CAST(d AS FLOAT), CAST(CAST(x / 7 AS FLOAT) AS DOUBLE), -CAST(x / 3 AS REAL) FROM t`,
      `SELECT v, CAST(x / 3 AS FLOAT), CAST(x AS FLOAT) / CAST(3 AS FLOAT), CAST(v AS FLOAT) * CAST(0.1 AS FLOAT), CAST(x AS FLOAT) + CAST(0.1 AS FLOAT),
        CAST(CAST(x AS FLOAT) AS DOUBLE) + 0.1, CAST(d AS FLOAT), CAST(CAST(x / 7 AS FLOAT) AS DOUBLE), -CAST(x / 3 AS FLOAT) FROM t`,
    )
  })

  it('GROUP BY a FLOAT key; SUM, MIN and MAX of FLOATs are FLOATs', async () => {
    await data.expectSame(
      `SELECT CAST(CAST(v AS DOUBLE) / 7 AS FLOAT), COUNT(*), SUM(CAST(x / 3 AS FLOAT)), MIN(CAST(x / 3 AS FLOAT)), MAX(CAST(x * 1.1 AS FLOAT))
        FROM t GROUP BY CAST(CAST(v AS DOUBLE) / 7 AS FLOAT)`,
      `SELECT CAST(CAST(v AS DOUBLE) / 7 AS FLOAT) AS g, COUNT(*), CAST(SUM(CAST(CAST(x / 3 AS FLOAT) AS DOUBLE)) AS FLOAT), MIN(CAST(x / 3 AS FLOAT)),
        MAX(CAST(x * 1.1 AS FLOAT)) FROM t GROUP BY g`,
    )
  })

  it('DATE and TIMESTAMP ± year-month intervals add calendar months, clamping the day', async () => {
    await data.expectSame(
      `SELECT ts, ts + INTERVAL '1' MONTH, ts - INTERVAL '2-11' YEAR TO MONTH, CAST(ts AS DATE) + INTERVAL '13' MONTH,
        INTERVAL '1' YEAR + CAST(ts AS DATE), TIMESTAMP '2024-01-31 10:00:00.000' + INTERVAL '1' MONTH * MOD(v, 13),
        DATE '2023-03-31' - INTERVAL '1' MONTH * MOD(v, 7) FROM t`,
      `SELECT ts, ts + INTERVAL 1 MONTH, ts - INTERVAL '2 years 11 months', CAST(CAST(ts AS DATE) + INTERVAL 13 MONTH AS DATE),
        CAST(CAST(ts AS DATE) + INTERVAL 1 YEAR AS DATE), TIMESTAMP '2024-01-31 10:00:00' + to_months(CAST(v % 13 AS INTEGER)),
        CAST(DATE '2023-03-31' - to_months(CAST(v % 7 AS INTEGER)) AS DATE) FROM t`,
    )
  })

  it('year-month intervals compare, print as Flink does, and key a GROUP BY', async () => {
    await data.expectSame(
      `SELECT CAST(INTERVAL '1' MONTH * MOD(v, 30) AS STRING), COUNT(*), MIN(v) FROM t WHERE INTERVAL '1' MONTH * MOD(v, 30) > INTERVAL '0-2' YEAR TO MONTH
        GROUP BY INTERVAL '1' MONTH * MOD(v, 30)`,
      `SELECT printf('+%d-%02d', (v % 30) // 12, (v % 30) % 12) AS g, COUNT(*), MIN(v) FROM t WHERE v % 30 > 2 GROUP BY g`,
    )
  })
})
