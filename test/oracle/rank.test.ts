// Oracle tests for deduplication and Top-N: ROW_NUMBER / RANK / DENSE_RANK filtered on their result,
// over insert-only and updating inputs and over windows, must materialize to DuckDB's result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, rocksOptions } from './oracle.js'

const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 41, options: {} },
  { seed: 42, options: { 'execution.batch-size': '7' } },
  { seed: 1042, options: { ...rocksOptions(), 'execution.batch-size': '7', 'table.exec.mini-batch.enabled': 'false' } },
  { seed: 43, options: { 'execution.batch-size': '1', 'parallelism.default': '2' } },
]
const ROWS = 3000

/** `SELECT cols FROM (SELECT *, fn OVER (…) AS rn FROM src) WHERE cond`, the same text in both engines. */
function ranked(cols: string, fn: string, over: string, src: string, cond: string): string {
  return `SELECT ${cols} FROM (SELECT *, ${fn} OVER (${over}) AS rn FROM ${src}) WHERE ${cond}`
}

describe.each(DATA_SETS)('dedup and Top-N vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  // Rows of a key may share a time: the kept row is then either; (k, ts) is the same for both.
  it('keeps the first row per key by event time (an earlier late row replaces it)', async () => {
    const q = ranked('k, s, ts', 'ROW_NUMBER()', 'PARTITION BY k, s ORDER BY ts ASC', 't', 'rn = 1')
    const r = await data.expectSame(q, q, options)
    // Row by row, out-of-order rows arrive after a later row of their key and replace it (mini-batches fold most of them away).
    if (options['table.exec.mini-batch.enabled'] === 'false') expect(kindCounts(r.changes)[1]).toBeGreaterThan(0)
  })

  it('keeps the last row per key by event time', async () => {
    const q = ranked('k, ts', 'ROW_NUMBER()', 'PARTITION BY k ORDER BY ts DESC', 't', 'rn = 1')
    const r = await data.expectSame(q, q, options)
    expect(kindCounts(r.changes)[2]).toBeGreaterThan(0)
  })

  it('deduplicates per two keys, with the row number in the output', async () => {
    const q = ranked('k, MOD(v, 3) AS m, ts, rn', 'ROW_NUMBER()', 'PARTITION BY k, MOD(v, 3) ORDER BY ts DESC', 't', 'rn <= 1')
    await data.expectSame(q, q.replace('MOD(v, 3) AS', '(v % 3) AS').replace('MOD(v, 3) ORDER', '(v % 3) ORDER'), options)
  })

  it.each(['ROW_NUMBER()', 'RANK()', 'DENSE_RANK()'])('Top-3 by %s with ties, rank in the output', async fn => {
    const q = ranked('k, v, rn', fn, 'PARTITION BY k ORDER BY v DESC NULLS LAST', 't', 'rn <= 3')
    const r = await data.expectSame(q, q, options)
    expect(kindCounts(r.changes)[1]).toBeGreaterThan(0)
  })

  it.each(['ROW_NUMBER()', 'RANK()', 'DENSE_RANK()'])('ranks 2 to 4 by %s over two ORDER BY keys, rank not in the output', async fn => {
    const q = ranked('k, v, s', fn, 'PARTITION BY k ORDER BY v ASC NULLS FIRST, s DESC NULLS LAST', 't', 'rn BETWEEN 2 AND 4 AND rn < 5')
    await data.expectSame(q, q, options)
  })

  it('a global Top-5 (no PARTITION BY) by RANK', async () => {
    const q = ranked('b, rn', 'RANK()', 'ORDER BY b DESC NULLS LAST', 't', 'rn <= 5')
    await data.expectSame(q, q, options)
  })

  it.each(['ROW_NUMBER()', 'RANK()', 'DENSE_RANK()'])('Top-2 by %s over an updating input (a GROUP BY): rows move in and out', async fn => {
    // s breaks ties for ROW_NUMBER (it is unique within k), so the oracle has one answer.
    const q = ranked('k, s, c, rn', fn, 'PARTITION BY k ORDER BY c DESC, s NULLS LAST', '(SELECT k, s, COUNT(*) AS c FROM t GROUP BY k, s)', 'rn <= 2')
    const r = await data.expectSame(q, q, options)
    expect(kindCounts(r.changes)[3] + kindCounts(r.changes)[1]).toBeGreaterThan(0)
  })

  it('a Top-3 of SUMs that go down as well as up (retractions promote the next row)', async () => {
    const q = ranked('s, total, rn', 'RANK()', 'ORDER BY total DESC', '(SELECT s, SUM(v) AS total FROM t WHERE v IS NOT NULL GROUP BY s)', 'rn <= 3')
    await data.expectSame(q, q, options)
  })

  it('window Top-3 keys per tumbling window, emitted once per window', async () => {
    const inner = (win: string, wsCol: string, weCol: string) =>
      `(SELECT k, ${wsCol} AS wstart, ${weCol} AS wend, COUNT(*) AS c FROM ${win} GROUP BY k, ${wsCol}, ${weCol})`
    const weir = `SELECT k, wstart, c, rn FROM (SELECT *, RANK() OVER (PARTITION BY wstart, wend ORDER BY c DESC) AS rn FROM
      (SELECT k, window_start AS wstart, window_end AS wend, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
       GROUP BY k, window_start, window_end)) WHERE rn <= 3`
    const bucket = "time_bucket(INTERVAL '10 seconds', ts)"
    const duck = ranked('k, wstart, c, rn', 'RANK()', 'PARTITION BY wstart, wend ORDER BY c DESC', inner('t', bucket, `${bucket} + INTERVAL '10 seconds'`),
      'rn <= 3')
    const r = await data.expectSame(weir, duck, options)
    expect(kindCounts(r.changes)).toEqual([r.changes.length, 0, 0, 0])
  })

  it('window deduplication over a window TVF: the first row per key and window', async () => {
    const weir = ranked('k, window_start, ts', 'ROW_NUMBER()', 'PARTITION BY window_start, window_end, k ORDER BY ts',
      "TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))", 'rn = 1')
    const duck = ranked('k, ws, ts', 'ROW_NUMBER()', 'PARTITION BY ws, k ORDER BY ts', "(SELECT *, time_bucket(INTERVAL '5 seconds', ts) AS ws FROM t)",
      'rn = 1')
    const r = await data.expectSame(weir, duck, options)
    expect(kindCounts(r.changes)).toEqual([r.changes.length, 0, 0, 0])
  })
})
