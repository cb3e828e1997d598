// Oracle tests for the window TVFs: TUMBLE, HOP, CUMULATE and SESSION aggregates in Weir over
// generated out-of-order events must equal DuckDB's result for the same windows, emulated in SQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, selectAggs, rocksOptions } from './oracle.js'
import { rocksDir } from './oracle.js'
import { duckWindows } from './window-tvfs.js'

// Data sets differ in more than the seed: batch sizes move where watermarks fall between rows; a
// directory of files is read as several splits; a 500 ms grid of event times puts rows exactly on
// window bounds and makes gaps between rows exactly equal to the session gap.
const DATA_SETS: readonly { seed: number; tickMs: number; files: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 11, tickMs: 1, files: 1, options: {} },
  { seed: 22, tickMs: 1, files: 3, options: { 'execution.batch-size': '7' } },
  { seed: 1022, tickMs: 1, files: 3, options: { ...rocksOptions(), 'execution.batch-size': '7' } },
  { seed: 33, tickMs: 500, files: 1, options: { 'execution.batch-size': '50' } },
  // Large batches on RocksDB: a batch holds rows of one key in several windows (slices), interleaved
  // out of order, which the window aggregate's state requests name once per run of a key's rows.
  { seed: 1044, tickMs: 1, files: 1, options: { ...rocksOptions(), 'execution.batch-size': '500' } },
]
const ROWS = 4000

function duckQuery(windowed: string, keyed: boolean): string {
  const key = keyed ? 'k, ' : ''
  return `SELECT ${key}epoch_ms(ws), epoch_ms(we), ${selectAggs('duck')} FROM (${windowed}) GROUP BY ${key}ws, we`
}

function weirQuery(tvf: string, keyed: boolean): string {
  const key = keyed ? 'k, ' : ''
  return `SELECT ${key}window_start, window_end, ${selectAggs('weir')} FROM TABLE(${tvf}) GROUP BY ${key}window_start, window_end`
}

describe.each(DATA_SETS)('window aggregates vs DuckDB, seed $seed, tick $tickMs ms, $files file(s), options $options', ({ seed, tickMs, files, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, tickMs, files, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('TUMBLE(10 s) per key, NULL key as its own group', async () => {
    const r = await data.expectSame(
      weirQuery(`TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)`, true),
      duckQuery(duckWindows.tumble(10_000), true),
      options,
    )
    // A window aggregate emits final rows only.
    expect(kindCounts(r.changes).slice(1)).toEqual([0, 0, 0])
    expect(r.changes.some(c => c.row[0] === null), 'the NULL key has windows').toBe(true)
  })

  it('TUMBLE(1 min) over all keys', async () => {
    await data.expectSame(
      weirQuery(`TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)`, false),
      duckQuery(duckWindows.tumble(60_000), false),
      options,
    )
  })

  it('HOP(slide 5 s, size 15 s) per key', async () => {
    await data.expectSame(
      weirQuery(`HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)`, true),
      duckQuery(duckWindows.hop(5_000, 15_000), true),
      options,
    )
  })

  it('HOP(slide 5 s, size 15 s) per key over plain aggregates: kept as slices', async () => {
    await data.expectSame(
      `SELECT k, window_start, window_end, COUNT(*), SUM(v), MAX(v), MIN(d)
       FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY k, window_start, window_end`,
      `SELECT k, epoch_ms(ws), epoch_ms(we), COUNT(*), SUM(v), MAX(v), MIN(d) FROM (${duckWindows.hop(5_000, 15_000)}) GROUP BY k, ws, we`,
      options,
    )
  })

  it('HOP(slide 20 s, size 1 min) over all keys', async () => {
    await data.expectSame(
      weirQuery(`HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '20' SECOND, INTERVAL '1' MINUTE)`, false),
      duckQuery(duckWindows.hop(20_000, 60_000), false),
      options,
    )
  })

  it('HOP per key with HAVING', async () => {
    const having = 'HAVING COUNT(*) > 3 AND SUM(d) > 1000'
    await data.expectSame(
      `${weirQuery(`HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)`, true)} ${having}`,
      `${duckQuery(duckWindows.hop(5_000, 15_000), true)} ${having}`,
      options,
    )
  })

  it('CUMULATE(step 10 s, max 1 min) per key', async () => {
    await data.expectSame(
      weirQuery(`CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '1' MINUTE)`, true),
      duckQuery(duckWindows.cumulate(10_000, 60_000), true),
      options,
    )
  })

  it('SESSION(gap 3 s) partitioned by key', async () => {
    const r = await data.expectSame(
      weirQuery(`SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)`, true),
      duckQuery(duckWindows.session(3_000, 'k'), true),
      options,
    )
    // The data must give sessions of several rows as well as single-row ones, or this tests little.
    const counts = r.changes.map(c => c.row[3] as number)
    expect(counts.some(n => n === 1) && counts.some(n => n >= 5)).toBe(true)
  })

  it('TUMBLE over a filtered view, with a WHERE on the TVF output and an extra grouping expression', async () => {
    await data.expectSame(
      `CREATE VIEW priced AS SELECT k, v, d, s, ts FROM t WHERE d IS NOT NULL;
       SELECT window_end, MOD(v, 3) AS m, k, COUNT(*), SUM(d), MAX(s)
       FROM TABLE(TUMBLE(TABLE priced, DESCRIPTOR(ts), INTERVAL '20' SECOND))
       WHERE v <> 0
       GROUP BY window_start, window_end, k, MOD(v, 3)`,
      `SELECT epoch_ms(we), v % 3 AS m, k, COUNT(*), SUM(d), MAX(s)
       FROM (${duckWindows.tumble(20_000, '(SELECT * FROM t WHERE d IS NOT NULL)')})
       WHERE v <> 0
       GROUP BY ws, we, k, v % 3`,
      options,
    )
  })

  it('SESSION(gap 2 s) over all rows', async () => {
    await data.expectSame(
      weirQuery(`SESSION(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)`, false),
      duckQuery(duckWindows.session(2_000, ''), false),
      options,
    )
  })
})
