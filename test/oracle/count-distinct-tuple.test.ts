// Oracle test for COUNT(DISTINCT a, b, …): distinct combinations, a row with any NULL argument left
// out, in GROUP BY over append-only and updating input and in a window aggregate, on heap and RocksDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, rocksOptions } from './oracle.js'
import { duckWindows } from './window-tvfs.js'

const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 71, options: { 'execution.batch-size': '7' } },
  { seed: 72, options: { ...rocksOptions(), 'execution.batch-size': '7' } },
]

/** DuckDB: the combination as one value, NULL when a part is (k holds no '|'). */
const duckTuple = (...cols: string[]) =>
  `CASE WHEN ${cols.map(c => `${c} IS NOT NULL`).join(' AND ')} THEN ${cols.map(c => `CAST(${c} AS VARCHAR)`).join(` || '|' || `)} END`

describe.each(DATA_SETS)('COUNT(DISTINCT a, b) vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 3000 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('per key and globally, beside COUNT(DISTINCT x) and with FILTER', async () => {
    await data.expectSame(
      `SELECT k, COUNT(DISTINCT s, MOD(v, 4)), COUNT(DISTINCT MOD(v, 4), s), COUNT(DISTINCT s), COUNT(DISTINCT s, v, d) FILTER (WHERE v > 10)
       FROM t GROUP BY k`,
      `SELECT k, COUNT(DISTINCT ${duckTuple('s', 'v % 4')}), COUNT(DISTINCT ${duckTuple('v % 4', 's')}), COUNT(DISTINCT s),
         COUNT(DISTINCT ${duckTuple('s', 'v', 'd')}) FILTER (WHERE v > 10)
       FROM t GROUP BY k`,
      options,
    )
    await data.expectSame(`SELECT COUNT(DISTINCT k, MOD(v, 5)) FROM t`, `SELECT COUNT(DISTINCT ${duckTuple('k', 'v % 5')}) FROM t`, options)
  })

  it('over an updating input (a GROUP BY below it retracts its rows)', async () => {
    const r = await data.expectSame(
      `SELECT m, COUNT(DISTINCT n, k) FROM (SELECT k, MOD(v, 3) AS m, COUNT(*) AS n FROM t GROUP BY k, MOD(v, 3)) GROUP BY m`,
      `SELECT m, COUNT(DISTINCT ${duckTuple('n', 'k')}) FROM (SELECT k, v % 3 AS m, COUNT(*) AS n FROM t GROUP BY k, v % 3) GROUP BY m`,
      options,
    )
    expect(r.changes.some(c => c.kind === 1 || c.kind === 3), 'retractions reached the distinct count').toBe(true)
  })

  it('in a TUMBLE(1 min) window aggregate', async () => {
    await data.expectSame(
      `SELECT window_start, window_end, COUNT(DISTINCT k, s) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
       GROUP BY window_start, window_end`,
      `SELECT epoch_ms(ws), epoch_ms(we), COUNT(DISTINCT ${duckTuple('k', 's')}) FROM (${duckWindows.tumble(60_000)}) GROUP BY ws, we`,
      options,
    )
  })
})
