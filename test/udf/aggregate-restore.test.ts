// User-defined aggregates (their accumulators in keyed state) in a GROUP BY, over an updating input
// (retract), in TUMBLE windows and in SESSION windows (merge), on heap and RocksDB: straight;
// checkpointed at one parallelism on worker threads (each loads the module again), cancelled midway
// and restored at another. Each row also computes the built-in equivalent, which the UDF must equal.
import { expect } from 'vitest'
import { resolve } from 'node:path'
import { describeRestoreCases, type RestoreCase } from '../support/restore-cases.js'

const M = resolve(import.meta.dirname, 'modules')

// In each: `a` is the UDF's, `b` the built-in equivalent.
const CASES: readonly RestoreCase[] = [
  {
    name: 'GROUP BY',
    columns: 'k STRING, a DOUBLE, b DOUBLE, sa BIGINT, sb BIGINT',
    query: `SELECT k, wavg(v, 1.0), AVG(CAST(v AS DOUBLE)), spread(v), CAST(MAX(v) - MIN(v) AS BIGINT) FROM t GROUP BY k`,
  },
  {
    // Each key's count moves from one group to the next: it is retracted from one accumulator, added to another.
    name: 'GROUP BY over an updating input (retract)',
    columns: 'g INT, a DOUBLE, b DOUBLE',
    query:
      `SELECT CAST(MOD(n, 3) AS INT), wavg(n, 1.0), AVG(CAST(n AS DOUBLE)) FROM (SELECT k, CAST(COUNT(*) AS INT) AS n FROM t GROUP BY k) GROUP BY MOD(n, 3)`,
  },
  {
    name: 'TUMBLE window aggregate',
    columns: 'k STRING, ws TIMESTAMP(3), a DOUBLE, b DOUBLE, sa BIGINT, sb BIGINT',
    query: `SELECT k, window_start, wavg(v, 1.0), AVG(CAST(v AS DOUBLE)), spread(v), CAST(MAX(v) - MIN(v) AS BIGINT)
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
  },
  {
    name: 'SESSION window aggregate (merging sessions merges the accumulators)',
    columns: 'k STRING, ws TIMESTAMP(3), a DOUBLE, b DOUBLE',
    query: `SELECT k, window_start, wavg(v, 1.0), AVG(CAST(v AS DOUBLE))
      FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end`,
  },
]

/** Every row's UDF results equal the built-in ones beside them. */
function expectUdfEqualsBuiltIn(rows: readonly string[]): void {
  for (const r of rows) {
    const o = JSON.parse(r) as Record<string, unknown>
    expect(o['a'], r).toBe(o['b'])
    if ('sa' in o) expect(o['sa'], r).toBe(o['sb'])
  }
}

describeRestoreCases({
  name: 'udf-aggs',
  seeded: { rows: 5000, keys: 12, seed: 23 },
  cases: CASES,
  prelude: `
    CREATE FUNCTION wavg AS '${M}/aggregates.ts#weightedAvg';
    CREATE FUNCTION spread AS '${M}/aggregates.ts#spread';`,
  checkStraight: rows => expect(rows.length).toBeGreaterThanOrEqual(3),
  checkEach: expectUdfEqualsBuiltIn,
})
