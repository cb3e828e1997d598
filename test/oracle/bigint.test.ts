// Oracle tests for BIGINT beyond 2^53: per-row arithmetic, comparisons and casts, grouping by such
// values (neighbours one apart, which a double merges), aggregates with and without retraction, and
// windows — Weir must equal DuckDB. DuckDB's SUM(BIGINT) is a HUGEINT that never wraps, so sums
// that overflow 64 bits are checked against Java's wrapping arithmetic instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, materialize, rocksOptions } from './oracle.js'

const ROWS = 3000
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 404, options: { 'execution.batch-size': '7' } },
  { seed: 505, options: { ...rocksOptions(), 'execution.batch-size': '7', 'table.exec.mini-batch.enabled': 'false' } },
]

/** Flink's AVG(BIGINT): the sum divided by the count, truncated toward zero (DuckDB's AVG is a DOUBLE). */
const DUCK_AVG_B = 'CASE WHEN COUNT(b) = 0 THEN NULL ELSE CAST(sign(SUM(b)) * (abs(SUM(b)) // COUNT(b)) AS BIGINT) END'

describe.each(DATA_SETS)('BIGINT vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('the data holds neighbours beyond 2^53 that a double cannot tell apart', () => {
    const beyond = new Set(data.events.map(e => e.b).filter((b): b is bigint => b !== null && (b >= 2n ** 53n || b <= -(2n ** 53n))))
    expect(beyond.has(2n ** 53n + 1n) && beyond.has(2n ** 53n + 2n)).toBe(true)
    expect(new Set([...beyond].map(Number)).size).toBeLessThan(beyond.size)
  })

  it('arithmetic, comparisons and casts per row', async () => {
    const cols = [
      ['b', 'b'],
      ['b + 1', 'b + 1'],
      ['b - 3', 'b - 3'],
      ['b * 3', 'b * 3'],
      ['b / 7', 'b // 7'],
      ['MOD(b, 1000)', 'b % 1000'],
      ['-b', '-b'],
      ['ABS(b)', 'abs(b)'],
      ['b + v', 'b + v'],
      ['b = 9007199254740993', 'b = 9007199254740993'],
      ['b > 9007199254740992', 'b > 9007199254740992'],
      ['b < -9007199254740993', 'b < -9007199254740993'],
      ['CAST(b AS DECIMAL(20, 0)) * 2', 'CAST(b AS DECIMAL(20, 0)) * 2'],
      ['CAST(b AS STRING)', 'CAST(b AS VARCHAR)'],
      ['CASE WHEN b > 0 THEN b ELSE 9223372036854775807 END', 'CASE WHEN b > 0 THEN b ELSE 9223372036854775807 END'],
      ['COALESCE(b, -9223372036854775808)', 'COALESCE(b, -9223372036854775808)'],
    ]
    await data.expectSame(
      `SELECT ${cols.map(c => c[0]).join(', ')} FROM t WHERE b IN (9007199254740993, 9007199254740994) OR b > 1000 OR b < 5`,
      `SELECT ${cols.map(c => c[1]).join(', ')} FROM t WHERE b IN (9007199254740993, 9007199254740994) OR b > 1000 OR b < 5`,
      options,
    )
  })

  it('GROUP BY k: SUM, AVG, MIN, MAX, COUNT and COUNT DISTINCT of BIGINT', async () => {
    const r = await data.expectSame(
      'SELECT k, SUM(b), AVG(b), MIN(b), MAX(b), COUNT(b), COUNT(DISTINCT b), SUM(b) FILTER (WHERE b > 9007199254740992) FROM t GROUP BY k',
      `SELECT k, SUM(b), ${DUCK_AVG_B}, MIN(b), MAX(b), COUNT(b), COUNT(DISTINCT b), SUM(b) FILTER (WHERE b > 9007199254740992) FROM t GROUP BY k`,
      options,
    )
    expect(kindCounts(r.changes)[1], 'updates were retracted').toBeGreaterThan(0)
  })

  it('GROUP BY the BIGINT itself keeps neighbours one apart as separate groups', async () => {
    await data.expectSame('SELECT b, COUNT(*), SUM(v) FROM t GROUP BY b', 'SELECT b, COUNT(*), SUM(v) FROM t GROUP BY b', options)
  })

  it('MIN/MAX and SUM over a retracting input (an aggregate of an aggregate)', async () => {
    await data.expectSame(
      'SELECT SUM(m), MIN(m), MAX(m), COUNT(*) FROM (SELECT k, MAX(b) AS m FROM t GROUP BY k)',
      'SELECT SUM(m), MIN(m), MAX(m), COUNT(*) FROM (SELECT k, MAX(b) AS m FROM t GROUP BY k)',
      options,
    )
  })

  it('TUMBLE per key', async () => {
    await data.expectSame(
      `SELECT k, window_start, SUM(b), MIN(b), MAX(b), COUNT(DISTINCT b) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
      `SELECT k, epoch_ms(ws), SUM(b), MIN(b), MAX(b), COUNT(DISTINCT b) FROM (SELECT *, epoch_ms(ts) - epoch_ms(ts) % 10000 AS ws FROM t) GROUP BY k, ws`,
      options,
    )
  })

  it('sums past 2^63 wrap as Java long does (DuckDB would widen, so the reference is computed here)', async () => {
    const r = await data.weir('SELECT k, SUM(b * 100), SUM(b) * 1000 FROM t GROUP BY k', options)
    const expected = new Map<string | null, [bigint, bigint]>()
    for (const e of data.events) {
      const [s, plain] = expected.get(e.k) ?? [0n, 0n]
      expected.set(e.k, e.b === null ? [s, plain] : [BigInt.asIntN(64, s + BigInt.asIntN(64, e.b * 100n)), plain + e.b])
    }
    const finals = materialize(r.changes).map(row => [row[0], BigInt(row[1] as bigint), BigInt(row[2] as bigint)])
    expect(finals.length).toBe(expected.size)
    let wrapped = 0
    for (const [k, s, t] of finals) {
      const [want, plain] = expected.get(k as string | null)!
      expect(s, `SUM(b * 100) of ${String(k)}`).toBe(want)
      expect(t, `SUM(b) * 1000 of ${String(k)}`).toBe(BigInt.asIntN(64, plain * 1000n))
      if (want !== plain * 100n) wrapped++
    }
    expect(wrapped, 'some sums must overflow, or this tests nothing').toBeGreaterThan(0)
  })
})
