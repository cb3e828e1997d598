// Oracle tests for OVER aggregates: every row of generated out-of-order events with aggregates over
// ROWS, RANGE (peers included) and UNBOUNDED frames in Weir must equal DuckDB's window functions
// over the same rows (DuckDB has SQL's frame semantics; Weir computes rows in time order).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, duckAvgDecimal, kindCounts, rocksDir, type Agg, rocksOptions } from './oracle.js'
import { Session } from '../../engine/session.js'

// A 500 ms grid of event times gives many peers (rows of a key at the same time): RANGE frames
// must count all of them for each, ROWS frames take them in arrival order. Several files are read
// as several splits, whose rows interleave in no fixed order: there only RANGE frames are compared
// (a ROWS frame over peers depends on their order, as in any SQL engine).
const DATA_SETS: readonly { seed: number; tickMs: number; files: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 11, tickMs: 1, files: 1, options: {} },
  { seed: 22, tickMs: 1, files: 3, options: { 'execution.batch-size': '7' } },
  { seed: 1022, tickMs: 500, files: 1, options: { ...rocksOptions(), 'execution.batch-size': '7' } },
  { seed: 33, tickMs: 500, files: 1, options: { 'execution.batch-size': '50' } },
]
const ROWS = 3000

/** Each aggregate over window `w`, spelled for both engines (Flink's AVG(INT) truncates, its AVG(DECIMAL) rounds half up). */
const OVER_AGGREGATES: readonly Agg[] = [
  { weir: 'COUNT(*) OVER w', duck: 'COUNT(*) OVER w' },
  { weir: 'COUNT(v) OVER w', duck: 'COUNT(v) OVER w' },
  { weir: 'SUM(v) OVER w', duck: 'SUM(v) OVER w' },
  { weir: 'SUM(d) OVER w', duck: 'SUM(d) OVER w' },
  { weir: 'MIN(v) OVER w', duck: 'MIN(v) OVER w' },
  { weir: 'MAX(d) OVER w', duck: 'MAX(d) OVER w' },
  { weir: 'MIN(s) OVER w', duck: 'MIN(s) OVER w' },
  { weir: 'MAX(b) OVER w', duck: 'MAX(b) OVER w' },
  { weir: 'AVG(x) OVER w', duck: 'AVG(x) OVER w' },
  { weir: 'AVG(v) OVER w', duck: 'CAST(trunc(AVG(v) OVER w) AS INT)' },
  { weir: 'AVG(d) OVER w', duck: duckAvgDecimal('d', 2).replaceAll('SUM(d)', 'SUM(d) OVER w').replaceAll('COUNT(d)', 'COUNT(d) OVER w') },
  { weir: 'COUNT(DISTINCT s) OVER w', duck: 'COUNT(DISTINCT s) OVER w' },
  { weir: 'COUNT(*) FILTER (WHERE v > 10) OVER w', duck: 'COUNT(*) FILTER (WHERE v > 10) OVER w' },
  { weir: "SUM(d) FILTER (WHERE s LIKE '%a%') OVER w", duck: "SUM(d) FILTER (WHERE s LIKE '%a%') OVER w" },
]

const COLUMNS = 'k, v, d, x, s, ts, b'
const select = (engine: keyof Agg, aggs: readonly Agg[]) => aggs.map((a, i) => `${a[engine]} AS a${i}`).join(', ')

/**
 * The same query in both engines: every column of t, then the aggregates over `w`. DuckDB orders
 * peers by insertion (rowid, the arrival order of a single file) where a ROWS frame needs an order.
 */
function both(frame: string, partition: string, aggs: readonly Agg[] = OVER_AGGREGATES): { weir: string; duck: string } {
  const by = partition ? `PARTITION BY ${partition} ` : ''
  const duckFrame = frame.replace(/INTERVAL '(\d+)' SECOND/g, 'INTERVAL $1 SECOND')
  const tieBreak = frame.startsWith('ROWS') ? ', rowid' : ''
  return {
    weir: `SELECT ${COLUMNS}, ${select('weir', aggs)} FROM t WINDOW w AS (${by}ORDER BY ts ${frame})`,
    duck: `SELECT ${COLUMNS}, ${select('duck', aggs)} FROM t WINDOW w AS (${by}ORDER BY ts${tieBreak} ${duckFrame})`,
  }
}

describe.each(DATA_SETS)('OVER aggregates vs DuckDB, seed $seed, tick $tickMs ms, $files file(s), options $options', ({ seed, tickMs, files, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, tickMs, files, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  const expectSame = async (q: { weir: string; duck: string }) => {
    const r = await data.expectSame(q.weir, q.duck, options)
    // One appended row per input row, never an update.
    expect(kindCounts(r.changes)).toEqual([ROWS, 0, 0, 0])
    return r
  }

  it("RANGE BETWEEN INTERVAL '2' SECOND PRECEDING per key, peers included, NULL key as its own partition", async () => {
    const r = await expectSame(both("RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW", 'k'))
    expect(r.changes.some(c => c.row[0] === null), 'the NULL key has rows').toBe(true)
  })

  it('RANGE BETWEEN UNBOUNDED PRECEDING (the default frame) per key', async () => {
    await expectSame(both('', 'k'))
  })

  it("RANGE BETWEEN INTERVAL '5' SECOND PRECEDING over one global partition", async () => {
    await expectSame(both("RANGE BETWEEN INTERVAL '5' SECOND PRECEDING AND CURRENT ROW", ''))
  })

  it.skipIf(files > 1)('ROWS BETWEEN 3 PRECEDING per key (peers in arrival order)', async () => {
    await expectSame(both('ROWS BETWEEN 3 PRECEDING AND CURRENT ROW', 'k'))
  })

  it.skipIf(files > 1)('ROWS BETWEEN UNBOUNDED PRECEDING and ROWS CURRENT ROW per key', async () => {
    await expectSame(both('ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW', 'k'))
    await expectSame(both('ROWS BETWEEN CURRENT ROW AND CURRENT ROW', 'k', OVER_AGGREGATES.slice(0, 6)))
  })

  it.skipIf(files > 1)('several frames and ROW_NUMBER in one SELECT', async () => {
    const spec = (frame: string) => `(PARTITION BY k ORDER BY ts${frame})`
    await expectSame({
      weir: `SELECT ${COLUMNS}, ROW_NUMBER() OVER ${spec('')} AS rn, SUM(v) OVER ${spec(' ROWS 5 PRECEDING')} AS s5,
               MAX(v) OVER ${spec(" RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW")} AS m1,
               MIN(d) OVER ${spec(' ROWS 2 PRECEDING')} AS m2, COUNT(*) OVER ${spec('')} AS c FROM t`,
      duck: `SELECT ${COLUMNS}, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts, rowid) AS rn,
               SUM(v) OVER (PARTITION BY k ORDER BY ts, rowid ROWS 5 PRECEDING) AS s5,
               MAX(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 1 SECOND PRECEDING AND CURRENT ROW) AS m1,
               MIN(d) OVER (PARTITION BY k ORDER BY ts, rowid ROWS 2 PRECEDING) AS m2, COUNT(*) OVER (PARTITION BY k ORDER BY ts) AS c FROM t`,
    })
  })

  it.skipIf(files > 1)('LAG with offsets 0 to 3 and defaults, beside the aggregates (peers in arrival order)', async () => {
    const spec = '(PARTITION BY k ORDER BY ts)'
    const duckSpec = '(PARTITION BY k ORDER BY ts, rowid)'
    const lags = ['LAG(v)', 'LAG(s, 2)', "LAG(s, 3, 'none')", 'LAG(d, 1, d)', 'LAG(x, 0)', 'LAG(b, 2, 0)', 'LAG(ts, 1)']
    await expectSame({
      weir: `SELECT ${COLUMNS}, ${lags.map((l, i) => `${l} OVER ${spec} AS l${i}`).join(', ')}, SUM(v) OVER ${spec} AS total FROM t`,
      duck: `SELECT ${COLUMNS}, ${lags.map((l, i) => `${l} OVER ${duckSpec} AS l${i}`).join(', ')}, SUM(v) OVER (PARTITION BY k ORDER BY ts) AS total FROM t`,
    })
  })

  it('RANK and DENSE_RANK in time order (peers: rows at one time), per key and over one global partition', async () => {
    for (const by of ['PARTITION BY k ', '']) {
      await expectSame({
        weir: `SELECT ${COLUMNS}, RANK() OVER w AS r, DENSE_RANK() OVER w AS dr, COUNT(*) OVER w AS c FROM t WINDOW w AS (${by}ORDER BY ts)`,
        duck: `SELECT ${COLUMNS}, RANK() OVER w AS r, DENSE_RANK() OVER w AS dr, COUNT(*) OVER w AS c FROM t WINDOW w AS (${by}ORDER BY ts)`,
      })
    }
  })
})

describe('late rows of an OVER aggregate', () => {
  it.each(['heap', 'rocksdb'])('are dropped and counted in the job metrics (%s)', async backend => {
    const state = backend === 'rocksdb' ? `SET 'state.backend' = 'rocksdb'; SET 'state.dir' = '${rocksDir()}';` : ''
    const session = new Session({ println: () => undefined })
    // test/golden/data/late: x at 00:00:02 and :05, then :30 (the watermark follows it), then :01 (late) and :31.
    const results = await session.executeSql(`${state}
      CREATE TABLE ev (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
        WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/late', 'format' = 'csv');
      SELECT k, ts, COUNT(*) OVER (PARTITION BY k ORDER BY ts) FROM ev`)
    const last = results.at(-1)!
    if (last.kind !== 'rows') throw new Error(`expected rows, got ${last.kind}`)
    expect(last.metrics.lateRecordsDropped).toBe(1)
    expect(last.changes.map(c => c.row[2])).toEqual([1, 2, 3, 4])
  })
})
