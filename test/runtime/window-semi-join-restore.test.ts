// Window semi and anti joins three ways over the same input — straight through; checkpointed and
// cancelled midway; restored from the latest checkpoint at another parallelism — on heap and RocksDB:
// the rows the exactly-once sink committed must be the same every time (insert-only: each left row
// once, when its window closed).
import { expect } from 'vitest'
import { describeRestoreCases, type RestoreCase } from '../support/restore-cases.js'
import { RESTORE_BACKENDS } from '../support/restore-runs.js'

const W = "(SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)))"
const SAME = 'a.window_start = b.window_start AND a.window_end = b.window_end'
const CASES: readonly RestoreCase[] = [
  { name: 'window IN', query: `SELECT k, v FROM ${W} a WHERE a.k IN (SELECT k FROM ${W} b WHERE b.v > 80 AND ${SAME})` },
  { name: 'window NOT EXISTS', query: `SELECT k, v FROM ${W} a WHERE NOT EXISTS (SELECT * FROM ${W} b WHERE b.k = a.k AND b.v < 20 AND ${SAME})` },
  { name: 'window NOT IN', query: `SELECT k, v FROM ${W} a WHERE a.v NOT IN (SELECT v * 2 FROM ${W} b WHERE ${SAME})` },
]

describeRestoreCases({
  name: 'window-semi',
  seeded: { rows: 5000, keys: 30, seed: 7 },
  cases: CASES,
  columns: 'k STRING, v INT',
  // Each query reads t twice.
  sourceRows: () => 2 * 5000,
  matrix: RESTORE_BACKENDS.map(b => ({ b, a: 1, z: 3 })),
  checkStraight: rows => expect(rows.length).toBeGreaterThan(10),
})
