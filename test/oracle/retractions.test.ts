// Oracle tests for retractions through two and three levels of aggregation: with tiny batches the
// inner GROUP BY emits many -U/+U (and unpaired ones where HAVING drops and restores groups); the outer
// aggregate consumes them, and the materialized final result must equal DuckDB's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, duckAvgDecimal, kindCounts, rocksOptions } from './oracle.js'
import { rocksDir } from './oracle.js'

const ROWS = 3000
const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 7, options: { 'execution.batch-size': '7' } },
  { seed: 8, options: { 'execution.batch-size': '7', 'table.exec.mini-batch.enabled': 'false' } },
  { seed: 1008, options: { ...rocksOptions(), 'execution.batch-size': '7', 'table.exec.mini-batch.enabled': 'false' } },
  { seed: 9, options: { 'execution.batch-size': '1' } },
]

/** The same query text in both engines, with Flink's MOD spelled as DuckDB's %. */
function both(sql: string): [string, string] {
  return [sql, sql.replace(/MOD\(([^,]+), (\d+)\)/g, '($1 % $2)')]
}

describe.each(DATA_SETS)('two-level aggregates vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('the inner aggregate alone retracts updates (the path the outer level must handle)', async () => {
    const r = await data.expectSame(...both('SELECT s, COUNT(*) AS cnt FROM t GROUP BY s'), options)
    const [ins, undo, redo] = kindCounts(r.changes)
    expect(undo).toBeGreaterThan(ins)
    expect(redo).toBe(undo)
  })

  it('histogram of group sizes: SELECT cnt, COUNT(*) FROM (… GROUP BY s) GROUP BY cnt', async () => {
    const r = await data.expectSame(...both(
      'SELECT cnt, COUNT(*) AS groups FROM (SELECT s, COUNT(*) AS cnt FROM t GROUP BY s) GROUP BY cnt',
    ), options)
    // Buckets empty out as groups grow past them: the outer level must delete rows too.
    expect(kindCounts(r.changes)[3]).toBeGreaterThan(0)
  })

  it('MAX, MIN, SUM, COUNT(DISTINCT) over retracted per-group totals', async () => {
    await data.expectSame(...both(
      `SELECT MAX(total), MIN(total), SUM(total), COUNT(DISTINCT total), COUNT(*), COUNT(total)
       FROM (SELECT s, SUM(v) AS total FROM t GROUP BY s)`,
    ), options)
    // AVG over the DECIMAL(38, 2) totals is DECIMAL(38, 6) in Flink; DuckDB's AVG is a DOUBLE.
    const inner = 'SELECT k, MOD(v, 10) AS m, SUM(d) AS total FROM t GROUP BY k, MOD(v, 10)'
    await data.expectSame(
      `SELECT MAX(total), MIN(total), SUM(total), COUNT(DISTINCT total), AVG(total) FROM (${inner})`,
      `SELECT MAX(total), MIN(total), SUM(total), COUNT(DISTINCT total), ${duckAvgDecimal('total', 2)} FROM (${both(inner)[1]})`,
      options,
    )
  })

  it('groups that HAVING drops and restores (-D/+I) feeding an outer GROUP BY', async () => {
    // COUNT(*) % 2 = 0 flips with every row of a group, so groups keep leaving and rejoining.
    const inner = 'SELECT s, COUNT(*) AS n, SUM(d) AS total FROM t GROUP BY s HAVING MOD(COUNT(*), 2) = 0'
    const r = await data.expectSame(...both(inner), options)
    const { left, rejoined } = groupPresence(r.changes)
    expect(left, 'groups HAVING removed').toBeGreaterThan(10)
    expect(rejoined, 'groups HAVING restored').toBeGreaterThan(10)
    await data.expectSame(...both(
      `SELECT MOD(n, 5) AS b, COUNT(*), SUM(total), MAX(total), COUNT(DISTINCT s) FROM (${inner}) GROUP BY MOD(n, 5)`,
    ), options)
    await data.expectSame(...both(
      `SELECT COUNT(*), MIN(n), MAX(n), SUM(n) FROM (SELECT s, COUNT(*) AS n FROM t GROUP BY s HAVING SUM(v) > 300)`,
    ), options)
  })

  it('groups moving between outer buckets: MIN/MAX on strings and timestamps, AVG(BIGINT), DISTINCT with FILTER', async () => {
    // Every row moves its group from bucket MOD(n, 3) to the next, so each outer group sees a
    // retraction and an insertion per row, and its MIN/MAX must be recomputed from what remains.
    const inner = 'SELECT s, COUNT(*) AS n, SUM(v) AS total, MAX(ts) AS last_ts, MIN(k) AS first_k FROM t GROUP BY s'
    const outer = (avgN: string) =>
      `SELECT MOD(n, 3) AS b, COUNT(*), MIN(s), MAX(s), MIN(last_ts), MAX(last_ts), MAX(first_k), ${avgN},
              SUM(total), MIN(total), COUNT(total), COUNT(DISTINCT total) FILTER (WHERE n > 10)
       FROM (${both(inner)[1]}) GROUP BY MOD(n, 3)`
    // Flink's AVG(BIGINT) is a BIGINT truncated toward zero.
    await data.expectSame(outer('AVG(n)'), both(outer('CAST(trunc(AVG(n)) AS BIGINT)'))[1], options)
  })

  it('three levels: a count of the histogram of group sizes', async () => {
    await data.expectSame(...both(
      `SELECT COUNT(*), SUM(groups), MAX(groups)
       FROM (SELECT cnt, COUNT(*) AS groups FROM (SELECT s, COUNT(*) AS cnt FROM t GROUP BY s) GROUP BY cnt)`,
    ), options)
  })

  it('SELECT DISTINCT and a filter over a retracting aggregate', async () => {
    await data.expectSame(...both('SELECT DISTINCT mx FROM (SELECT s, MAX(v) AS mx FROM t GROUP BY s)'), options)
    await data.expectSame(...both(
      'SELECT mx, COUNT(*) FROM (SELECT s, MAX(d) AS mx FROM t GROUP BY s) WHERE mx > 500 GROUP BY mx',
    ), options)
  })

  it('window aggregate (insert-only) feeding a GROUP BY', async () => {
    await data.expectSame(
      `SELECT k, COUNT(*) AS windows, SUM(n), MAX(n), MIN(window_start)
       FROM (SELECT k, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '30' SECOND))
             GROUP BY k, window_start, window_end)
       GROUP BY k`,
      `SELECT k, COUNT(*) AS windows, SUM(n), MAX(n), MIN(ws)
       FROM (SELECT k, epoch_ms(epoch_ms(ts) - epoch_ms(ts) % 30000) AS ws, COUNT(*) AS n FROM t GROUP BY k, ws)
       GROUP BY k`,
      options,
    )
  })
})

/**
 * How often a group (keyed by column 0) left the result — a retraction not replaced by the next
 * change — and how often a group that had left came back. As in Flink, a filter after an aggregate
 * passes row kinds through, so a group that HAVING drops leaves with -U (not -D) and returns with +U.
 */
function groupPresence(changes: readonly { kind: number; row: readonly unknown[] }[]): { left: number; rejoined: number } {
  const gone = new Set<unknown>()
  let left = 0, rejoined = 0
  changes.forEach(({ kind, row }, i) => {
    const key = row[0]
    if (kind === 1 || kind === 3) {
      const next = changes[i + 1]
      const replaced = next !== undefined && (next.kind === 0 || next.kind === 2) && next.row[0] === key
      if (!replaced) {
        left++
        gone.add(key)
      }
    } else if (gone.delete(key)) {
      rejoined++
    }
  })
  return { left, rejoined }
}
