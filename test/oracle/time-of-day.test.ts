// Oracle test for TIME: each generated row's timestamp as a time of day, its fields, ± intervals that
// wrap at midnight, comparisons, and a GROUP BY keyed by a TIME with MIN/MAX of TIMEs — Weir against
// DuckDB's TIME, which means the same.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'

describe.each([7, 8])('TIME vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 1500 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('casts, fields, interval arithmetic and comparisons', async () => {
    await data.expectSame(
      `SELECT ts, CAST(ts AS TIME(3)), HOUR(CAST(ts AS TIME)), MINUTE(CAST(ts AS TIME)), SECOND(CAST(ts AS TIME(3))),
        CAST(ts AS TIME(3)) + INTERVAL '13' HOUR, CAST(ts AS TIME(3)) - INTERVAL '1 02:03:04.5' DAY TO SECOND,
        CAST(ts AS TIME(3)) < TIME '12:00:00', CAST(CAST(ts AS TIME(3)) AS STRING) FROM t`,
      `SELECT ts, CAST(ts AS TIME), hour(ts), minute(ts), second(ts), CAST(ts AS TIME) + INTERVAL 13 HOUR,
        CAST(ts AS TIME) - INTERVAL '1 day 02:03:04.5', CAST(ts AS TIME) < TIME '12:00:00', strftime(ts, '%H:%M:%S.%g') FROM t`,
    )
  })

  it('GROUP BY a TIME key, MIN and MAX of TIMEs', async () => {
    await data.expectSame(
      `SELECT CAST(FLOOR(ts TO MINUTE) AS TIME), COUNT(*), MIN(CAST(ts AS TIME(3))), MAX(CAST(ts AS TIME(3))) FROM t GROUP BY CAST(FLOOR(ts TO MINUTE) AS TIME)`,
      `SELECT CAST(date_trunc('minute', ts) AS TIME) AS m, COUNT(*), MIN(CAST(ts AS TIME)), MAX(CAST(ts AS TIME)) FROM t GROUP BY m`,
    )
  })
})
