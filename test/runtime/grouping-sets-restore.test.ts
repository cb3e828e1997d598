// GROUPING SETS (ROLLUP, CUBE) over an append-only and over an updating input, three ways on heap
// and RocksDB: straight; checkpointed and cancelled midway; restored from the checkpoint at another
// parallelism. The committed changelog must materialize to the same rows: the Expand is stateless,
// the group (or window) aggregate above it keeps each set's groups under keys that hold the set's id.
import { expect } from 'vitest'
import { describeRestoreCases, type RestoreCase, type Row } from '../support/restore-cases.js'

const CASES: readonly RestoreCase[] = [
  {
    name: 'ROLLUP over an append-only input',
    columns: 'k STRING, m INT, c BIGINT, s INT, g BIGINT',
    query: `SELECT k, MOD(v, 5), COUNT(*), SUM(v), GROUPING(k, MOD(v, 5)) FROM t GROUP BY ROLLUP(k, MOD(v, 5))`,
  },
  {
    name: 'CUBE over an updating input',
    columns: 'b INT, k STRING, c BIGINT, s INT, g BIGINT',
    query: `SELECT CAST(MOD(n, 4) AS INT), k, COUNT(*), SUM(sv), GROUPING(MOD(n, 4), k)
      FROM (SELECT k, COUNT(*) AS n, SUM(v) AS sv FROM t GROUP BY k) GROUP BY CUBE(MOD(n, 4), k)`,
  },
  {
    name: 'CUBE in a TUMBLE window aggregate (the window aggregate keys each set by its id)',
    columns: 'k STRING, m INT, ws TIMESTAMP(3), c BIGINT, s INT, g BIGINT',
    query: `SELECT k, MOD(v, 3), window_start, COUNT(*), SUM(v), GROUPING(k, MOD(v, 3))
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, CUBE(k, MOD(v, 3))`,
  },
]

describeRestoreCases({
  name: 'grouping-sets',
  seeded: { rows: 8000, keys: 12, seed: 7 },
  cases: CASES,
  checkStraight: rows => {
    expect(rows.length).toBeGreaterThan(3)
    // Every set produced rows: the grand total (all keys aggregated away) is among them.
    expect(rows.some(r => (JSON.parse(r) as Row).g === 3)).toBe(true)
  },
})
