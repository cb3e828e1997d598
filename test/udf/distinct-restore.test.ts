// User-defined aggregates called with DISTINCT: each value (each combination, for several arguments) is
// accumulated once, when it first appears in its group, and retracted when its last row leaves it — in a
// GROUP BY, over an updating input, in TUMBLE windows and in SESSION windows (whose merges merge the value
// counts); straight on heap, and checkpointed then restored at another parallelism on both backends. Each row
// also computes the built-in DISTINCT equivalent, which the UDF must equal.
import { expect } from 'vitest'
import { resolve } from 'node:path'
import { describeRestoreCases, type RestoreCase } from '../support/restore-cases.js'

const M = resolve(import.meta.dirname, 'modules')

// In each: `a`/`sa` are the UDF's, `b`/`sb` the built-in equivalents; `n` counts all rows (DISTINCT must differ from it somewhere).
const CASES: readonly RestoreCase[] = [
  {
    name: 'GROUP BY',
    columns: 'k STRING, a DOUBLE, b DOUBLE, sa BIGINT, sb BIGINT, n BIGINT',
    query: `SELECT k, wavg(DISTINCT v, 1.0), AVG(DISTINCT CAST(v AS DOUBLE)), total(DISTINCT v), CAST(SUM(DISTINCT v) AS BIGINT), total(v)
      FROM t GROUP BY k`,
  },
  {
    // Each key's count moves from one group to the next: its value is retracted from one group's counts, added to another's.
    name: 'GROUP BY over an updating input (retract)',
    columns: 'g INT, sa BIGINT, sb BIGINT, n BIGINT',
    query: `SELECT CAST(MOD(n, 3) AS INT), total(DISTINCT MOD(n, 5)), CAST(SUM(DISTINCT MOD(n, 5)) AS BIGINT), total(MOD(n, 5))
      FROM (SELECT k, CAST(COUNT(*) AS INT) AS n FROM t GROUP BY k) GROUP BY MOD(n, 3)`,
  },
  {
    name: 'TUMBLE window aggregate',
    columns: 'k STRING, ws TIMESTAMP(3), a DOUBLE, b DOUBLE, sa BIGINT, sb BIGINT, n BIGINT',
    query: `SELECT k, window_start, wavg(DISTINCT MOD(v, 5), 1.0), AVG(DISTINCT CAST(MOD(v, 5) AS DOUBLE)), total(DISTINCT MOD(v, 7)),
      CAST(SUM(DISTINCT MOD(v, 7)) AS BIGINT), total(MOD(v, 7))
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
  },
  {
    name: 'SESSION window aggregate (merging sessions merges the value counts)',
    columns: 'k STRING, ws TIMESTAMP(3), sa BIGINT, sb BIGINT, n BIGINT',
    query: `SELECT k, window_start, total(DISTINCT MOD(v, 7)), CAST(SUM(DISTINCT MOD(v, 7)) AS BIGINT), total(MOD(v, 7))
      FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end`,
  },
]

/** Every row's UDF results equal the built-in ones beside them. */
function expectUdfEqualsBuiltIn(rows: readonly string[]): void {
  for (const r of rows) {
    const o = JSON.parse(r) as Record<string, unknown>
    if ('a' in o) expect(o['a'], r).toBe(o['b'])
    expect(o['sa'], r).toBe(o['sb'])
  }
}

describeRestoreCases({
  name: 'udf-distinct',
  seeded: { rows: 5000, keys: 12, seed: 29 },
  cases: CASES,
  prelude: `
    CREATE FUNCTION wavg AS '${M}/aggregates.ts#weightedAvg';
    CREATE FUNCTION total AS '${M}/aggregates.ts#total';`,
  checkStraight: rows => {
    expect(rows.length).toBeGreaterThanOrEqual(3)
    // Some group saw a value twice: the DISTINCT sum is below the plain one there.
    expect(rows.some(r => {
      const o = JSON.parse(r) as Record<string, number>
      return o['sa']! < o['n']!
    })).toBe(true)
  },
  checkEach: expectUdfEqualsBuiltIn,
})
