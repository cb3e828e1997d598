// Semi/anti joins, INTERSECT / EXCEPT, scalar-subquery joins (correlated too) and marker joins three ways over the same input —
// straight through; checkpointed and cancelled midway; restored from the latest checkpoint at
// another parallelism — on heap and RocksDB: the changelog the exactly-once sink committed must
// materialize to the same rows every time. (Two inputs interleave differently from run to run, so
// the changes themselves may differ; what they add up to may not.)
import { expect } from 'vitest'
import { describeRestoreCases, type RestoreCase } from '../support/restore-cases.js'
import { RESTORE_BACKENDS } from '../support/restore-runs.js'

const CASES: readonly RestoreCase[] = [
  { name: 'IN (uncorrelated)', query: `SELECT k, v FROM t WHERE v IN (SELECT v + 50 FROM t WHERE k = 'k3')` },
  { name: 'correlated NOT IN', query: `SELECT k, v FROM t a WHERE a.v NOT IN (SELECT b.v * 3 FROM t b WHERE b.k = a.k)` },
  { name: 'NOT EXISTS', query: `SELECT k, v FROM t a WHERE NOT EXISTS (SELECT 1 FROM t b WHERE b.k = a.k AND b.v = a.v + 1)` },
  { name: 'EXCEPT ALL', query: `SELECT k, MOD(v, 7) FROM t WHERE v < 60 EXCEPT ALL SELECT k, MOD(v, 7) FROM t WHERE v > 30` },
  { name: 'scalar subquery', query: `SELECT k, v FROM t WHERE v >= (SELECT MAX(v) - 2 FROM t WHERE k = 'k1')` },
  { name: 'IN under OR (marker join)', query: `SELECT k, v FROM t WHERE v IN (SELECT v * 2 FROM t WHERE k = 'k3') OR v < 5` },
  {
    name: 'row-valued NOT IN with NULLs (marker join)',
    query: `SELECT k, v FROM t a WHERE (a.k, NULLIF(MOD(a.v, 7), 0)) NOT IN (SELECT b.k, NULLIF(MOD(b.v, 11), 0) FROM t b WHERE b.v > 97)`,
  },
  { name: 'correlated scalar subquery in WHERE', query: `SELECT k, v FROM t a WHERE a.v > (SELECT AVG(b.v) + 45 FROM t b WHERE b.k = a.k)` },
  {
    name: 'correlated COUNT in the SELECT list',
    query: `SELECT k, CAST((SELECT COUNT(*) FROM t b WHERE b.k = a.k AND b.v > 98) AS INT) FROM t a WHERE a.v < 3`,
  },
]

describeRestoreCases({
  name: 'subquery',
  seeded: { rows: 5000, keys: 30, seed: 7 },
  cases: CASES,
  columns: 'k STRING, v INT',
  watermark: false,
  // Each query reads t twice.
  sourceRows: () => 2 * 5000,
  matrix: RESTORE_BACKENDS.map(b => ({ b, a: 1, z: 3 })),
  checkStraight: rows => expect(rows.length).toBeGreaterThan(10),
})
