// Oracle tests for cascading window aggregates: a window aggregate grouped by window_time, and a
// second window TVF over that window_time, against DuckDB computing both levels in SQL (and, where
// the sums are the same, one level over the raw rows): TUMBLE, HOP, CUMULATE and SESSION as the second level. On heap and RocksDB, over several files and
// at parallelism 2; then with rows late for the first level: those are dropped and counted, and
// nothing the first level emits is late for the second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, WATERMARK_DELAY_MS, canonWeirRow, expectSameMultiset, generateEvents, materialize, type Event, rocksOptions } from './oracle.js'
import { Rng } from './oracle.js'
import { timeAttrOf } from '../../common/types.js'

const DATA_SETS: readonly { seed: number; files: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 51, files: 1, options: {} },
  { seed: 52, files: 3, options: { 'execution.batch-size': '7' } },
  { seed: 53, files: 1, options: { ...rocksOptions(), 'execution.batch-size': '5' } },
  { seed: 54, files: 1, options: { 'execution.batch-size': '1', 'parallelism.default': '2' } },
]
const ROWS = 3000

/** Level 1 in Weir: per key k, over `tvf`, grouped by window_time as Flink's cascading example does. */
function level1(tvf: string): string {
  return `CREATE VIEW l1 AS SELECT k, window_start AS ws1, window_end AS we1, window_time AS rt,
      COUNT(*) AS n, SUM(d) AS sd, MIN(v) AS mn, MAX(v) AS mx
    FROM TABLE(${tvf}) GROUP BY k, window_start, window_end, window_time;`
}

/** DuckDB windows over column `col` (epoch ms) of `src`: each row with the [ws, we) of every window holding it. */
const duck = {
  tumble: (size: number, src: string, col: string) => `SELECT *, ${col} - ${col} % ${size} AS ws, ${col} - ${col} % ${size} + ${size} AS we FROM ${src}`,
  hop: (slide: number, size: number, src: string, col: string) =>
    `SELECT r.*, g.ws, g.ws + ${size} AS we FROM ${src} r,
       LATERAL (SELECT unnest(generate_series(r.${col} - r.${col} % ${slide} - ${size} + ${slide}, r.${col} - r.${col} % ${slide}, ${slide})) AS ws) g`,
  cumulate: (step: number, max: number, src: string, col: string) =>
    `SELECT r.*, r.${col} - r.${col} % ${max} AS ws, g.we FROM ${src} r,
       LATERAL (SELECT unnest(generate_series(r.${col} - r.${col} % ${step} + ${step}, r.${col} - r.${col} % ${max} + ${max}, ${step})) AS we) g`,
  // Sessions per k: a row at t covers [t, t + gap); one more than `gap` after the previous row of its key starts a new one.
  session: (gap: number, src: string, col: string) =>
    `SELECT *, MIN(${col}) OVER (PARTITION BY k, sid) AS ws, MAX(${col}) OVER (PARTITION BY k, sid) + ${gap} AS we
     FROM (SELECT *, SUM(fresh) OVER (PARTITION BY k ORDER BY ${col} ROWS UNBOUNDED PRECEDING) AS sid
           FROM (SELECT *, CASE WHEN ${col} - LAG(${col}) OVER (PARTITION BY k ORDER BY ${col}) <= ${gap} THEN 0 ELSE 1 END AS fresh FROM ${src}))`,
}

/** DuckDB's level 1 over the rows of `t` that `keep` admits: window_time (rt) is window_end − 1 ms. */
function duckLevel1(windows: (src: string) => string, keep = 'TRUE'): string {
  return `(SELECT k, ws AS ws1, we AS we1, we - 1 AS rt, COUNT(*) AS n, SUM(d) AS sd, MIN(v) AS mn, MAX(v) AS mx
    FROM (${windows(`(SELECT *, epoch_ms(ts) AS tms FROM t WHERE ${keep})`)}) GROUP BY k, ws, we)`
}

const TOTALS = { weir: 'SUM(n) AS n, SUM(sd) AS sd, MIN(mn) AS mn, MAX(mx) AS mx', duck: 'SUM(n), SUM(sd), MIN(mn), MAX(mx)' }

describe.each(DATA_SETS)('cascading window aggregates vs DuckDB, seed $seed, $files file(s), options $options', ({ seed, files, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, files, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('TUMBLE 5 s per key → TUMBLE 10 s over all keys: the totals equal one TUMBLE 10 s over the rows', async () => {
    const weir = `${level1("TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)")}
      SELECT window_start, window_end, ${TOTALS.weir}
      FROM TABLE(TUMBLE(TABLE l1, DESCRIPTOR(rt), INTERVAL '10' SECOND)) GROUP BY window_start, window_end`
    const oneLevel = `SELECT epoch_ms(ws), epoch_ms(we), COUNT(*), SUM(d), MIN(v), MAX(v)
      FROM (${duck.tumble(10_000, '(SELECT *, epoch_ms(ts) AS tms FROM t)', 'tms')}) GROUP BY ws, we`
    const twoLevels = `SELECT epoch_ms(ws), epoch_ms(we), ${TOTALS.duck} FROM (${duck.tumble(10_000, duckLevel1(s => duck.tumble(5000, s, 'tms')), 'rt')})
      GROUP BY ws, we`
    const r = await data.expectSame(weir, oneLevel, options)
    expect(materialize(r.changes).length).toBe((await data.duck(twoLevels)).length)
    await data.expectSame(weir, twoLevels, options)
  })

  it('TUMBLE 5 s per key → HOP (5 s, 15 s) per key, with the count of first-level windows: one HOP over the rows', async () => {
    const weir = `${level1("TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)")}
      SELECT k, window_start, window_end, COUNT(*) AS windows, ${TOTALS.weir}
      FROM TABLE(HOP(TABLE l1, DESCRIPTOR(rt), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY k, window_start, window_end`
    const twoLevels = `SELECT k, epoch_ms(ws), epoch_ms(we), COUNT(*), ${TOTALS.duck}
      FROM (${duck.hop(5000, 15_000, duckLevel1(s => duck.tumble(5000, s, 'tms')), 'rt')}) GROUP BY k, ws, we`
    await data.expectSame(weir, twoLevels, options)
    // The sums are those of one HOP over the rows (each 5 s window lies wholly inside the three HOP windows holding its end).
    const oneLevel = `SELECT k, epoch_ms(ws), epoch_ms(we), COUNT(*), SUM(d), MIN(v), MAX(v)
      FROM (${duck.hop(5000, 15_000, '(SELECT *, epoch_ms(ts) AS tms FROM t)', 'tms')}) GROUP BY k, ws, we`
    const totalsOnly = weir.replace('COUNT(*) AS windows, ', '')
    await data.expectSame(totalsOnly, oneLevel, options)
  })

  it('HOP (5 s, 10 s) per key → TUMBLE 20 s per key: each row counted in every HOP window that ends in the tumble', async () => {
    const weir = `${level1("HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)")}
      SELECT k, window_start, window_end, window_time, COUNT(*) AS windows, ${TOTALS.weir}
      FROM TABLE(TUMBLE(TABLE l1, DESCRIPTOR(rt), INTERVAL '20' SECOND)) GROUP BY k, window_start, window_end, window_time`
    const twoLevels = `SELECT k, epoch_ms(ws), epoch_ms(we), epoch_ms(we - 1), COUNT(*), ${TOTALS.duck}
      FROM (${duck.tumble(20_000, duckLevel1(s => duck.hop(5000, 10_000, s, 'tms')), 'rt')}) GROUP BY k, ws, we`
    const r = await data.expectSame(weir, twoLevels, options)
    // window_time of the second level is a time attribute again.
    expect(timeAttrOf(r.schema.find(f => f.name === 'window_time')!.type)).toBe('rowtime')
  })

  it('TUMBLE 2 s per key → CUMULATE (step 5 s, max 20 s) per key', async () => {
    const weir = `${level1("TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)")}
      SELECT k, window_start, window_end, COUNT(*) AS windows, ${TOTALS.weir}
      FROM TABLE(CUMULATE(TABLE l1, DESCRIPTOR(rt), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) GROUP BY k, window_start, window_end`
    const twoLevels = `SELECT k, epoch_ms(ws), epoch_ms(we), COUNT(*), ${TOTALS.duck}
      FROM (${duck.cumulate(5000, 20_000, duckLevel1(s => duck.tumble(2000, s, 'tms')), 'rt')}) GROUP BY k, ws, we`
    await data.expectSame(weir, twoLevels, options)
  })

  // The gap is no multiple of 1 s: first-level rows (1 s apart at the least) never merely touch a session. Two that do
  // merge only if the watermark jumps past end - 1 of the first session in one step (as in Flink), which the
  // DuckDB emulation cannot know.
  it('TUMBLE 1 s per key → SESSION (gap 2.5 s) partitioned by key', async () => {
    const weir = `${level1("TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)")}
      SELECT k, window_start, window_end, COUNT(*) AS windows, ${TOTALS.weir}
      FROM TABLE(SESSION(TABLE l1 PARTITION BY k, DESCRIPTOR(rt), INTERVAL '2.5' SECOND)) GROUP BY k, window_start, window_end`
    const twoLevels = `SELECT k, epoch_ms(ws), epoch_ms(we), COUNT(*), ${TOTALS.duck}
      FROM (${duck.session(2500, duckLevel1(s => duck.tumble(1000, s, 'tms')), 'rt')}) GROUP BY k, ws, we`
    const r = await data.expectSame(weir, twoLevels, options)
    // Sessions of one first-level window and of several: the data splits and merges sessions.
    const windows = r.changes.map(c => c.row[3] as number)
    expect(windows.some(n => n === 1) && windows.some(n => n >= 4)).toBe(true)
  })
})

/**
 * Generated rows with some made late on purpose: every 25th row is set 4–12 s behind the newest so
 * far (the watermark delay is 2 s), so most of them land in 5 s windows that have fired.
 */
function withLateRows(seed: number): Event[] {
  const rng = new Rng(seed)
  let newest = -Infinity
  return generateEvents({ seed, rows: ROWS }).map((e, i) => {
    const ts = i > 0 && i % 25 === 0 ? newest - rng.int(4000, 12_000) : e.ts
    newest = Math.max(newest, ts)
    return { ...e, ts }
  })
}

/**
 * Which rows a TUMBLE(size) drops as late, read one row per chunk: row i is late when its window has
 * fired, i.e. its end − 1 is at or below the watermark after rows 0..i−1 (their newest time − the delay).
 */
function lateForTumble(events: readonly Event[], size: number): number[] {
  const late: number[] = []
  let newest = -Infinity
  events.forEach((e, i) => {
    const end = e.ts - (e.ts % size) + size
    if (end - 1 <= newest - WATERMARK_DELAY_MS) late.push(i)
    newest = Math.max(newest, e.ts)
  })
  return late
}

describe.each<{ name: string; options: Readonly<Record<string, string>> }>([
  { name: 'heap', options: {} },
  { name: 'rocksdb, parallelism 2', options: { ...rocksOptions(), 'parallelism.default': '2' } },
])('rows late for the first level of a cascade ($name)', ({ options }) => {
  let data: OracleData
  let late: number[]
  beforeAll(async () => {
    const events = withLateRows(61)
    late = lateForTumble(events, 5000)
    data = await OracleData.create({ seed: 61, rows: ROWS, events })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('are dropped and counted by the first level; the second drops nothing', async () => {
    expect(late.length, 'the data must hold rows late for the first level').toBeGreaterThan(40)
    const weir = `${level1("TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)")}
      SELECT k, window_start, window_end, COUNT(*) AS windows, ${TOTALS.weir}
      FROM TABLE(TUMBLE(TABLE l1, DESCRIPTOR(rt), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`
    const result = await data.weir(weir, { ...options, 'execution.batch-size': '1' })
    // Exactly the first level's late rows: a second-level drop would add to the count.
    expect(result.lateRecordsDropped).toBe(late.length)
    const twoLevels = (keep: string) =>
      `SELECT k, epoch_ms(ws), epoch_ms(we), COUNT(*), ${TOTALS.duck}
       FROM (${duck.tumble(10_000, duckLevel1(s => duck.tumble(5000, s, 'tms'), keep), 'rt')}) GROUP BY k, ws, we`
    const actual = materialize(result.changes).map(row => canonWeirRow(result.schema, row))
    expectSameMultiset(actual, await data.duck(twoLevels(`rowid NOT IN (${late.join(', ')})`)))
    // Counted with the late rows, the result differs: the comparison above sees them.
    const all = await data.duck(twoLevels('TRUE'))
    expect(all.filter(r => !actual.includes(r)).length).toBeGreaterThan(0)
  })
})
