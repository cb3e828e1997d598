// JSON_ARRAYAGG (the retractable LISTAGG of each value's JSON text) in a GROUP BY over an
// append-only input and in TUMBLE windows, on heap and RocksDB: straight; checkpointed and cancelled
// midway; restored from the checkpoint at another parallelism. The committed changelog must
// materialize to the same rows, and each array must be JSON holding the group's values.
import { expect } from 'vitest'
import { describeRestoreCases, type RestoreCase } from '../support/restore-cases.js'

const CASES: readonly RestoreCase[] = [
  {
    name: 'GROUP BY over an append-only input',
    columns: 'k STRING, a STRING, o STRING',
    query: `SELECT k, JSON_ARRAYAGG(NULLIF(MOD(v, 5), 0)), JSON_ARRAYAGG(JSON_OBJECT('v' VALUE v) NULL ON NULL) FROM t GROUP BY k`,
  },
  {
    name: 'TUMBLE window aggregate',
    columns: 'k STRING, ws TIMESTAMP(3), a STRING, o STRING',
    query: `SELECT k, window_start, JSON_ARRAYAGG(v), JSON_ARRAYAGG(CONCAT('w', CAST(v AS STRING)))
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
  },
]

describeRestoreCases({
  name: 'json-arrayagg',
  seeded: { rows: 6000, keys: 12, seed: 7 },
  cases: CASES,
  checkStraight: rows => {
    expect(rows.length).toBeGreaterThan(3)
    for (const r of rows) {
      const row = JSON.parse(r) as Record<string, string>
      expect(Array.isArray(JSON.parse(row.a!))).toBe(true)
      expect(Array.isArray(JSON.parse(row.o!))).toBe(true)
    }
    // The arrays are not trivial: the state held several values per group.
    expect(Math.max(...rows.map(r => (JSON.parse(JSON.parse(r).o as string) as unknown[]).length))).toBeGreaterThan(5)
  },
})
