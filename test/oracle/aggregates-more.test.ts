// Oracle tests for STDDEV_POP/SAMP, VAR_POP/SAMP (and the aliases STDDEV, VARIANCE), FIRST_VALUE,
// LAST_VALUE and LISTAGG: GROUP BY over an append-only input, over an updating input (an aggregate
// of a GROUP BY subquery, so every row retracts and re-adds a value), and in TUMBLE windows.
// Arrival order is the file's order (one file, one split), DuckDB's rowid: FIRST/LAST/LISTAGG
// follow it in both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, rocksOptions } from './oracle.js'

const ROWS = 3000
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 41, options: {} },
  { seed: 42, options: { 'execution.batch-size': '1', 'table.exec.mini-batch.enabled': 'false' } },
  { seed: 1042, options: { ...rocksOptions(), 'execution.batch-size': '1', 'table.exec.mini-batch.enabled': 'false' } },
]

/** Flink's STDDEV/VAR over an INT: (Σx² − (Σx)² / n) / n (or n − 1) in integer arithmetic, truncating. */
function duckIntVar(col: string, sample: boolean, over = ''): string {
  const n = `COUNT(${col})${over}`
  const d = sample ? `NULLIF(${n} - 1, 0)` : `NULLIF(${n}, 0)`
  return `CAST((SUM(CAST(${col} AS HUGEINT) * ${col})${over} - (SUM(CAST(${col} AS HUGEINT))${over} * SUM(${col})${over}) // NULLIF(${n}, 0)) // ${d} AS BIGINT)`
}

/**
 * STDDEV/VAR of a DOUBLE column whose values are multiples of 1/8 (the generated x and its sums),
 * computed exactly in HUGEINT and rounded once, as Weir's shifted sums give it: comparing with
 * DuckDB's own (Welford) result would flip the 9th digit where the exact value is a tie.
 */
function duckDblVar(col: string, sample: boolean, sqrt: boolean, where = '', over = ''): string {
  const f = (where ? ` FILTER (WHERE ${where})` : '') + over
  const n = `COUNT(${col})${f}`
  const e = `CAST(${col} * 8 AS HUGEINT)`
  const d = sample ? `NULLIF(${n} - 1, 0)` : `NULLIF(${n}, 0)`
  const v = `CAST(${n} * SUM(${e} * ${e})${f} - SUM(${e})${f} * SUM(${e})${f} AS DOUBLE) / CAST(64 * ${n} * ${d} AS DOUBLE)`
  return sqrt ? `sqrt(${v})` : v
}

const STATS_WEIR = 'STDDEV_POP(x), STDDEV_SAMP(x), VAR_POP(x), VAR_SAMP(x), STDDEV(x), VARIANCE(x), VAR_POP(v), VAR_SAMP(v), '
  + 'VAR_POP(d), STDDEV_SAMP(x) FILTER (WHERE v > 0)'
const STATS_DUCK = `${duckDblVar('x', false, true)}, ${duckDblVar('x', true, true)}, ${duckDblVar('x', false, false)}, ${duckDblVar('x', true, false)}, `
  + `${duckDblVar('x', true, true)}, ${duckDblVar('x', true, false)}, ${duckIntVar('v', false)}, `
  + `${duckIntVar('v', true)}, CAST(round(var_pop(d), 6) AS DECIMAL(38, 6)), ${duckDblVar('x', true, true, 'v > 0')}`

describe.each(DATA_SETS)('statistical and value aggregates vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('GROUP BY over an append-only input', async () => {
    const r = await data.expectSame(
      `SELECT k, ${STATS_WEIR}, FIRST_VALUE(s), LAST_VALUE(s), LISTAGG(s), LISTAGG(s, ' | '), FIRST_VALUE(v), LAST_VALUE(ts) FROM t GROUP BY k`,
      `SELECT k, ${STATS_DUCK}, arg_min(s, rowid) FILTER (WHERE s IS NOT NULL), arg_max(s, rowid) FILTER (WHERE s IS NOT NULL),
         string_agg(s, ',' ORDER BY rowid), string_agg(s, ' | ' ORDER BY rowid),
         arg_min(v, rowid) FILTER (WHERE v IS NOT NULL), arg_max(ts, rowid) FILTER (WHERE ts IS NOT NULL) FROM t GROUP BY k`,
      options,
    )
    expect(r.schema.slice(1, 11).map(f => f.type.kind)).toEqual(['DOUBLE', 'DOUBLE', 'DOUBLE', 'DOUBLE', 'DOUBLE', 'DOUBLE', 'INT', 'INT', 'DECIMAL', 'DOUBLE'])
  })

  it('STDDEV/VAR over an updating input: per-group totals that change with every row', async () => {
    const inner = 'SELECT s, COUNT(*) AS n, SUM(x) AS sx, SUM(v) AS sv FROM t GROUP BY s'
    const r = await data.expectSame(
      `SELECT MOD(n, 3) AS b, STDDEV_POP(sx), STDDEV_SAMP(sx), VAR_POP(sx), VAR_SAMP(sx), VAR_POP(sv), STDDEV_SAMP(sv), COUNT(*)
       FROM (${inner}) GROUP BY MOD(n, 3)`,
      `SELECT n % 3 AS b, ${duckDblVar('sx', false, true)}, ${duckDblVar('sx', true, true)}, ${duckDblVar('sx', false, false)},
         ${duckDblVar('sx', true, false)}, ${duckIntVar('sv', false)},
         CAST(trunc(sqrt(${duckIntVar('sv', true)})) AS BIGINT), COUNT(*)
       FROM (${inner}) GROUP BY n % 3`,
      options,
    )
    expect(kindCounts(r.changes)[1], 'the outer aggregate saw retractions').toBeGreaterThan(0)
  })

  it('FIRST_VALUE, LAST_VALUE, LISTAGG over an updating input keep arrival order through retractions', async () => {
    // Each row of key k retracts "k:n-1" and adds "k:n": the live values are ordered by each key's last row.
    const inner = "SELECT k, CONCAT(k, ':', CAST(COUNT(*) AS STRING)) AS kn, COUNT(*) AS n FROM t GROUP BY k"
    const duckInner = "SELECT k, k || ':' || CAST(COUNT(*) AS VARCHAR) AS kn, COUNT(*) AS n, MAX(rowid) AS last_row FROM t GROUP BY k"
    if (options['execution.batch-size'] === '1') {
      await data.expectSame(
        `SELECT FIRST_VALUE(kn), LAST_VALUE(kn), LISTAGG(kn), LISTAGG(kn, ';') FROM (${inner})`,
        `SELECT arg_min(kn, last_row), arg_max(kn, last_row), string_agg(kn, ',' ORDER BY last_row), string_agg(kn, ';' ORDER BY last_row)
         FROM (${duckInner})`,
        options,
      )
      await data.expectSame(
        `SELECT MOD(n, 2) AS b, FIRST_VALUE(kn), LAST_VALUE(kn), LISTAGG(kn) FROM (${inner}) GROUP BY MOD(n, 2)`,
        `SELECT n % 2 AS b, arg_min(kn, last_row), arg_max(kn, last_row), string_agg(kn, ',' ORDER BY last_row) FROM (${duckInner}) GROUP BY n % 2`,
        options,
      )
    }
    // Whatever the batching, the set of values is exact: compare the sorted parts.
    const r = await data.weir(`SELECT LISTAGG(kn) AS l FROM (${inner})`, options)
    const rows = materializeOne(r.changes)
    const expected = (await data.duck(`SELECT kn FROM (${duckInner}) WHERE kn IS NOT NULL ORDER BY kn`)).map(x => JSON.parse(x) as string)
    expect((rows as string).split(',').sort()).toEqual(expected)
  })

  it.each([['ROWS BETWEEN 3 PRECEDING AND CURRENT ROW', 'ROWS BETWEEN 3 PRECEDING AND CURRENT ROW'], [
    "RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW",
    'RANGE BETWEEN INTERVAL 2 SECOND PRECEDING AND CURRENT ROW',
  ]])(
    'OVER (PARTITION BY k ORDER BY ts %s): rows leave the frame through the sequences',
    async (frame, duckFrame) => {
      const order = frame.startsWith('ROWS') ? 'ts, rowid' : 'ts'
      const r = await data.expectSame(
        `SELECT k, v, ts, FIRST_VALUE(s) OVER w, LAST_VALUE(s) OVER w, LISTAGG(s) OVER w, VAR_SAMP(v) OVER w, STDDEV_POP(x) OVER w
         FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ${frame})`,
        `SELECT k, v, ts, first_value(s IGNORE NULLS) OVER w, last_value(s IGNORE NULLS) OVER w, string_agg(s, ',' ORDER BY ts, rowid) OVER w,
           ${duckIntVar('v', true, ' OVER w')}, ${duckDblVar('x', false, true, '', ' OVER w')}
         FROM t WINDOW w AS (PARTITION BY k ORDER BY ${order} ${duckFrame})`,
        options,
      )
      expect(kindCounts(r.changes)).toEqual([ROWS, 0, 0, 0])
    },
  )

  it('TUMBLE window aggregate', async () => {
    const duckSrc = 'SELECT *, rowid AS rid, epoch_ms(ts) - epoch_ms(ts) % 10000 AS ws FROM t'
    await data.expectSame(
      `SELECT k, window_start, ${STATS_WEIR}, FIRST_VALUE(s), LAST_VALUE(s), LISTAGG(s, '/')
       FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
      `SELECT k, to_timestamp(ws / 1000)::TIMESTAMP, ${STATS_DUCK}, arg_min(s, rid) FILTER (WHERE s IS NOT NULL),
         arg_max(s, rid) FILTER (WHERE s IS NOT NULL), string_agg(s, '/' ORDER BY rid) FROM (${duckSrc}) GROUP BY k, ws`,
      options,
    )
  })
})

/** The one live row's one column of a changelog. */
function materializeOne(changes: readonly { kind: number; row: readonly unknown[] }[]): unknown {
  let live: unknown = undefined
  for (const c of changes) live = c.kind === 0 || c.kind === 2 ? c.row[0] : undefined
  return live
}
