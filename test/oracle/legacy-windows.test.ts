// Oracle tests for Flink's legacy group windows (`GROUP BY k, TUMBLE(ts, …)` with TUMBLE_START/END and
// the HOP and SESSION forms): Weir runs them as the window table function, and their results over
// generated out-of-order events must equal DuckDB's for the same windows, on heap and RocksDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { kindCounts, OracleData, selectAggs, rocksOptions } from './oracle.js'
import { duckWindows } from './window-tvfs.js'

const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 41, options: { 'execution.batch-size': '7' } },
  { seed: 42, options: { ...rocksOptions() } },
]

/** DuckDB: per key (when keyed) and window, the window's bounds and the aggregates. */
function duckQuery(windowed: string, keyed: boolean): string {
  const key = keyed ? 'k, ' : ''
  return `SELECT ${key}epoch_ms(ws), epoch_ms(we), ${selectAggs('duck')} FROM (${windowed}) GROUP BY ${key}ws, we`
}

describe.each(DATA_SETS)('legacy group windows vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 3000 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('GROUP BY k, TUMBLE(ts, 10 s) with TUMBLE_START and TUMBLE_END', async () => {
    const r = await data.expectSame(
      `SELECT k, TUMBLE_START(ts, INTERVAL '10' SECOND), TUMBLE_END(ts, INTERVAL '10' SECOND), ${selectAggs('weir')}
       FROM t GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND)`,
      duckQuery(duckWindows.tumble(10_000), true),
      options,
    )
    // Final rows only, as a window aggregate emits.
    expect(kindCounts(r.changes).slice(1)).toEqual([0, 0, 0])
  })

  it('HOP(ts, 5 s, 15 s) over all rows, the window first in GROUP BY, an alias on the table', async () => {
    await data.expectSame(
      `SELECT HOP_START(x.ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND) AS s, HOP_END(x.ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND) AS e,
         ${selectAggs('weir')}
       FROM t AS x GROUP BY HOP(x.ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND)`,
      duckQuery(duckWindows.hop(5_000, 15_000), false),
      options,
    )
  })

  it('SESSION(ts, 3 s) is per group key, with HAVING on an auxiliary call', async () => {
    const r = await data.expectSame(
      `SELECT k, SESSION_START(ts, INTERVAL '3' SECOND), SESSION_END(ts, INTERVAL '3' SECOND), ${selectAggs('weir')}
       FROM t GROUP BY SESSION(ts, INTERVAL '3' SECOND), k
       HAVING SESSION_END(ts, INTERVAL '3' SECOND) > SESSION_START(ts, INTERVAL '3' SECOND)`,
      duckQuery(duckWindows.session(3_000, 'k'), true),
      options,
    )
    const counts = r.changes.map(c => c.row[3] as number)
    expect(counts.some(n => n === 1) && counts.some(n => n >= 5), 'sessions of one row and of several').toBe(true)
  })

  it('TUMBLE over a subquery with a WHERE, and TUMBLE_ROWTIME feeding an outer window', async () => {
    await data.expectSame(
      `SELECT TUMBLE_START(rt, INTERVAL '20' SECOND), TUMBLE_END(rt, INTERVAL '20' SECOND), SUM(n)
       FROM (
         SELECT k, TUMBLE_ROWTIME(ts, INTERVAL '10' SECOND) AS rt, COUNT(*) AS n
         FROM (SELECT * FROM t WHERE v IS NOT NULL) GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND)
       ) GROUP BY TUMBLE(rt, INTERVAL '20' SECOND)`,
      `SELECT epoch_ms(ws), epoch_ms(we), SUM(n) FROM (
         SELECT *, tms - tms % 20000 AS ws, tms - tms % 20000 + 20000 AS we FROM (
           SELECT k, we - 1 AS tms, COUNT(*) AS n FROM (${duckWindows.tumble(10_000, '(SELECT * FROM t WHERE v IS NOT NULL)')}) GROUP BY k, ws, we))
       GROUP BY ws, we`,
      options,
    )
  })
})
