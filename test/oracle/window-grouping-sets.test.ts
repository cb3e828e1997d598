// Oracle tests for GROUPING SETS, ROLLUP and CUBE in window aggregates: Weir's TUMBLE, HOP and
// CUMULATE aggregates with grouping sets (NULL keys in the data, GROUPING() in the output) must
// equal DuckDB's GROUP BY ws, we, GROUPING SETS (…) over the same windows assigned by arithmetic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, selectAggs, rocksOptions } from './oracle.js'
import { duckWindows } from './window-tvfs.js'

const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 41, options: { 'execution.batch-size': '7' } },
  { seed: 42, options: { ...rocksOptions(), 'execution.batch-size': '7' } },
]

describe.each(DATA_SETS)('window aggregates with grouping sets vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, tickMs: 1, files: 1, rows: 3000 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('TUMBLE(10 s) with GROUPING SETS ((k), ()): a row per key and a total per window, append-only', async () => {
    const r = await data.expectSame(
      `SELECT k, window_start, window_end, ${selectAggs('weir')}, GROUPING(k) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
        GROUP BY window_start, window_end, GROUPING SETS ((k), ())`,
      `SELECT k, epoch_ms(ws), epoch_ms(we), ${selectAggs('duck')}, GROUPING(k) FROM (${duckWindows.tumble(10_000)}) GROUP BY ws, we, GROUPING SETS ((k), ())`,
      options,
    )
    expect(kindCounts(r.changes).slice(1)).toEqual([0, 0, 0])
    expect(r.changes.some(c => c.row[0] === null && c.row.at(-1) === 0), 'the NULL key has its own rows, told apart by GROUPING').toBe(true)
  })

  it('HOP(5 s, 15 s) with ROLLUP (k)', async () => {
    await data.expectSame(
      `SELECT k, window_start, window_end, COUNT(*), SUM(v), GROUPING(k) FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))
        GROUP BY window_start, window_end, ROLLUP (k)`,
      `SELECT k, epoch_ms(ws), epoch_ms(we), COUNT(*), SUM(v), GROUPING(k) FROM (${duckWindows.hop(5_000, 15_000)}) GROUP BY ws, we, ROLLUP (k)`,
      options,
    )
  })

  it('CUMULATE(5 s, 20 s) with CUBE (k, v % 3) and GROUPING of both', async () => {
    await data.expectSame(
      `SELECT k, v % 3, window_start, window_end, COUNT(*), MAX(d), GROUPING(k, v % 3) FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND))
        GROUP BY window_start, window_end, CUBE (k, v % 3)`,
      `SELECT k, v % 3, epoch_ms(ws), epoch_ms(we), COUNT(*), MAX(d), GROUPING(k, v % 3) FROM (${
        duckWindows.cumulate(5_000, 20_000)
      }) GROUP BY ws, we, CUBE (k, v % 3)`,
      options,
    )
  })
})
