// JSON_OBJECTAGG, COLLECT, ARRAY_AGG(DISTINCT), APPROX_COUNT_DISTINCT, APPROX_PERCENTILE and PERCENTILE (their MapStates) in a GROUP BY
// over an updating input, in TUMBLE windows and in SESSION windows (whose merges merge the maps), on
// heap and RocksDB: straight; checkpointed and cancelled midway; restored from the checkpoint at
// another parallelism. The committed changelog must materialize to the same rows.
import { expect } from 'vitest'
import { describeRestoreCases, type RestoreCase } from '../support/restore-cases.js'

const CASES: readonly RestoreCase[] = [
  {
    // Each key's count moves from one group to the next: its member and element are retracted from one, added to another.
    name: 'GROUP BY over an updating input',
    columns: 'g INT, o STRING, c STRING, n INT, p DOUBLE, q DOUBLE',
    query: `SELECT CAST(MOD(n, 3) AS INT), JSON_OBJECTAGG(KEY k VALUE n), CAST(COLLECT(MOD(n, 7)) AS STRING), CARDINALITY(COLLECT(DISTINCT k)),
        APPROX_PERCENTILE(n, 0.5), PERCENTILE(n, 0.3)
      FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) GROUP BY MOD(n, 3)`,
  },
  {
    name: 'TUMBLE window aggregate',
    columns: 'k STRING, ws TIMESTAMP(3), a BIGINT, c STRING, d ARRAY<INT>, p DOUBLE',
    query: `SELECT k, window_start, APPROX_COUNT_DISTINCT(v), CAST(COLLECT(MOD(v, 5)) AS STRING), ARRAY_AGG(DISTINCT MOD(v, 4)),
        APPROX_PERCENTILE(v - 500, 0.9)
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
  },
  {
    name: 'SESSION window aggregate (merging sessions merges the maps)',
    columns: 'k STRING, ws TIMESTAMP(3), a BIGINT, c STRING, o STRING, p DOUBLE, q ARRAY<DOUBLE>',
    query: `SELECT k, window_start, APPROX_COUNT_DISTINCT(v), CAST(COLLECT(MOD(v, 5)) AS STRING),
        JSON_OBJECTAGG(KEY CONCAT(CAST(ts AS STRING), ':', CAST(v AS STRING)) VALUE v) FILTER (WHERE MOD(v, 10) = 0),
        APPROX_PERCENTILE(v, 0.25, 0.001), PERCENTILE(v, ARRAY[0.1, 0.5], MOD(v, 3))
      FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end`,
  },
]

describeRestoreCases({
  name: 'keyed-aggs',
  seeded: { rows: 6000, keys: 12, seed: 11 },
  cases: CASES,
  checkStraight: rows => {
    expect(rows.length).toBeGreaterThanOrEqual(3)
    // The collections are not trivial: some group held several elements.
    expect(Math.max(...rows.map(r => ((JSON.parse(r) as { c: string }).c.match(/=/g) ?? []).length))).toBeGreaterThan(2)
  },
})
