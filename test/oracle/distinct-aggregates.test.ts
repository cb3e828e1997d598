// DISTINCT for STDDEV_POP/SAMP, VAR_POP/SAMP (VARIANCE), FIRST_VALUE, LAST_VALUE and LISTAGG against
// DuckDB, as Flink computes them: the aggregate sees each value once, when it first appears in the
// group (and, over an updating input, loses it when its last row is retracted). So FIRST_VALUE(DISTINCT
// s) is FIRST_VALUE(s), LAST_VALUE(DISTINCT s) the value that appeared for the first time last, and
// LISTAGG(DISTINCT s) the values in order of first appearance. Arrival order is DuckDB's rowid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, materialize, rocksOptions } from './oracle.js'

const ROWS = 3000
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 51, options: {} },
  { seed: 1052, options: { ...rocksOptions(), 'execution.batch-size': '1', 'table.exec.mini-batch.enabled': 'false' } },
]

/** Flink's STDDEV/VAR over an INT: (Σx² − (Σx)² / n) / n (or n − 1) in integer arithmetic, truncating. */
function duckIntVar(col: string, sample: boolean): string {
  const n = `COUNT(${col})`
  const d = sample ? `NULLIF(${n} - 1, 0)` : `NULLIF(${n}, 0)`
  return `CAST((SUM(CAST(${col} AS HUGEINT) * ${col}) - (SUM(CAST(${col} AS HUGEINT)) * SUM(${col})) // NULLIF(${n}, 0)) // ${d} AS BIGINT)`
}

/** STDDEV/VAR of a DOUBLE column of multiples of 1/8, exact in HUGEINT and rounded once (see aggregates-more.test.ts). */
function duckDblVar(col: string, sample: boolean, sqrt: boolean): string {
  const n = `COUNT(${col})`
  const e = `CAST(${col} * 8 AS HUGEINT)`
  const d = sample ? `NULLIF(${n} - 1, 0)` : `NULLIF(${n}, 0)`
  const v = `CAST(${n} * SUM(${e} * ${e}) - SUM(${e}) * SUM(${e}) AS DOUBLE) / CAST(64 * ${n} * ${d} AS DOUBLE)`
  return sqrt ? `sqrt(${v})` : v
}

describe.each(DATA_SETS)('DISTINCT statistical and value aggregates vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('STDDEV/VAR(DISTINCT …) over an append-only input: the statistic of the distinct values', async () => {
    // v: INT (integer arithmetic), x: DOUBLE; MOD(v, 7) repeats, so DISTINCT differs from ALL.
    const r = await data.expectSame(
      `SELECT k, STDDEV_POP(DISTINCT x), STDDEV_SAMP(DISTINCT x), VAR_POP(DISTINCT x), VARIANCE(DISTINCT x),
         VAR_POP(DISTINCT MOD(v, 7)), VAR_SAMP(DISTINCT MOD(v, 7)), VAR_SAMP(MOD(v, 7)) FROM t GROUP BY k`,
      `SELECT a.k, sp, ss, vp, vs, ivp, ivs, iall FROM
         (SELECT k, ${duckDblVar('x', false, true)} AS sp, ${duckDblVar('x', true, true)} AS ss, ${duckDblVar('x', false, false)} AS vp,
            ${duckDblVar('x', true, false)} AS vs FROM (SELECT DISTINCT k, x FROM t) GROUP BY k) a
         JOIN (SELECT k, ${duckIntVar('m', false)} AS ivp, ${duckIntVar('m', true)} AS ivs FROM (SELECT DISTINCT k, v % 7 AS m FROM t) GROUP BY k) b
           ON a.k IS NOT DISTINCT FROM b.k
         JOIN (SELECT k, ${duckIntVar('m', true)} AS iall FROM (SELECT k, v % 7 AS m FROM t) GROUP BY k) c ON a.k IS NOT DISTINCT FROM c.k`,
      options,
    )
    // DISTINCT made a difference somewhere (the check can fail on a DISTINCT that is ignored).
    expect(materialize(r.changes).some(row => row[6] !== row[7])).toBe(true)
  })

  it('FIRST_VALUE, LAST_VALUE, LISTAGG (DISTINCT …): each value once, at its first appearance', async () => {
    const firsts = 'SELECT k, s, MIN(rowid) AS first_row FROM t WHERE s IS NOT NULL GROUP BY k, s'
    const r = await data.expectSame(
      `SELECT k, FIRST_VALUE(DISTINCT s), LAST_VALUE(DISTINCT s), LISTAGG(DISTINCT s), LISTAGG(DISTINCT s, ' | '), LAST_VALUE(s),
         LISTAGG(DISTINCT s) FILTER (WHERE v > 0) FROM t GROUP BY k`,
      `SELECT a.k, f, l, la, lb, lall, lf FROM
         (SELECT k, arg_min(s, first_row) AS f, arg_max(s, first_row) AS l, string_agg(s, ',' ORDER BY first_row) AS la,
            string_agg(s, ' | ' ORDER BY first_row) AS lb FROM (${firsts}) GROUP BY k) a
         JOIN (SELECT k, arg_max(s, rowid) FILTER (WHERE s IS NOT NULL) AS lall FROM t GROUP BY k) b ON a.k IS NOT DISTINCT FROM b.k
         LEFT JOIN (SELECT k, string_agg(s, ',' ORDER BY first_row) AS lf
           FROM (SELECT k, s, MIN(rowid) AS first_row FROM t WHERE s IS NOT NULL AND v > 0 GROUP BY k, s) GROUP BY k) c ON a.k IS NOT DISTINCT FROM c.k`,
      options,
    )
    // LAST_VALUE(DISTINCT s) is not LAST_VALUE(s) for some group.
    expect(materialize(r.changes).some(row => row[2] !== row[5])).toBe(true)
  })

  it('over an updating input: a value leaves with its last row', async () => {
    // Each key's row is retracted and re-added with its new count: MOD(n, 5) values come and go.
    const inner = 'SELECT k, COUNT(*) AS n, CAST(MOD(COUNT(*), 5) AS INT) AS m, SUM(x) AS sx FROM t GROUP BY k'
    const duckInner = 'SELECT k, COUNT(*) AS n, CAST(COUNT(*) % 5 AS INTEGER) AS m, SUM(x) AS sx FROM t GROUP BY k'
    const r = await data.expectSame(
      `SELECT MOD(n, 2) AS b, VAR_POP(DISTINCT m), STDDEV_SAMP(DISTINCT m), VAR_SAMP(DISTINCT sx), COUNT(DISTINCT m) FROM (${inner}) GROUP BY MOD(n, 2)`,
      `SELECT b, ivp, isd, vs, c FROM
         (SELECT n % 2 AS b, ${duckIntVar('m', false)} AS ivp, CAST(trunc(sqrt(${duckIntVar('m', true)})) AS BIGINT) AS isd, COUNT(m) AS c
            FROM (SELECT DISTINCT n % 2 AS n, m FROM (${duckInner})) GROUP BY n % 2) a
         JOIN (SELECT n % 2 AS b2, ${duckDblVar('sx', true, false)} AS vs FROM (SELECT DISTINCT n % 2 AS n, sx FROM (${duckInner})) GROUP BY n % 2) d
           ON a.b = d.b2`,
      options,
    )
    expect(kindCounts(r.changes)[1], 'the outer aggregate saw retractions').toBeGreaterThan(0)
    // LISTAGG(DISTINCT …) over it holds exactly the live distinct values (their order follows the retractions).
    const l = await data.weir(`SELECT LISTAGG(DISTINCT CAST(m AS STRING)), FIRST_VALUE(DISTINCT m), LAST_VALUE(DISTINCT m) FROM (${inner})`, options)
    const live = materialize(l.changes)[0]!
    const expected = (await data.duck(`SELECT DISTINCT m FROM (${duckInner}) ORDER BY m`)).map(x => String(JSON.parse(x)))
    const values = (live[0] as string).split(',')
    expect([...values].sort()).toEqual(expected)
    expect(values).toContain(String(live[1]))
    expect(values).toContain(String(live[2]))
  })

  it('TUMBLE window aggregate', async () => {
    const src = 'SELECT *, rowid AS rid, epoch_ms(ts) - epoch_ms(ts) % 10000 AS ws FROM t'
    await data.expectSame(
      `SELECT k, window_start, VAR_POP(DISTINCT x), LISTAGG(DISTINCT s, '/'), LAST_VALUE(DISTINCT s)
       FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
      `SELECT a.k, to_timestamp(a.ws / 1000)::TIMESTAMP, vp, la, l FROM
         (SELECT k, ws, ${duckDblVar('x', false, false)} AS vp FROM (SELECT DISTINCT k, ws, x FROM (${src})) GROUP BY k, ws) a
         LEFT JOIN (SELECT k, ws, string_agg(s, '/' ORDER BY first_row) AS la, arg_max(s, first_row) AS l
           FROM (SELECT k, ws, s, MIN(rid) AS first_row FROM (${src}) WHERE s IS NOT NULL GROUP BY k, ws, s) GROUP BY k, ws) b
           ON a.k IS NOT DISTINCT FROM b.k AND a.ws = b.ws`,
      options,
    )
  })
})
