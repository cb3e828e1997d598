// STDDEV/VAR, FIRST_VALUE, LAST_VALUE, LISTAGG and ARRAY_AGG in a GROUP BY over an append-only input, over an
// updating input (their MapState sequences), and in TUMBLE windows, three ways on heap and RocksDB:
// straight; checkpointed and cancelled midway; restored from the checkpoint at another parallelism.
// The committed changelog must materialize to the same rows. (Where the updating input comes from
// several subtasks, their interleaving, and so the order LISTAGG keeps, may differ from run to
// run: that case compares the values each list holds, and that FIRST/LAST are among them.)
import { expect } from 'vitest'
import { describeRestoreCases, type RestoreCase, type Row } from '../support/restore-cases.js'

const WORDS = `(SELECT k, v, ts, NULLIF(CONCAT('w', CAST(MOD(v, 13) AS STRING)), 'w0') AS w, CAST(v AS DOUBLE) / 8 AS x FROM t)`

const CASES: readonly RestoreCase[] = [
  {
    name: 'GROUP BY over an append-only input',
    columns: 'k STRING, f STRING, l STRING, la STRING, sd DOUBLE, vs INT, vp DOUBLE, aa ARRAY<STRING>, ai ARRAY<STRING>',
    query: `SELECT k, FIRST_VALUE(w), LAST_VALUE(w), LISTAGG(w, ';'), STDDEV_POP(x), VAR_SAMP(v), VAR_POP(x), ARRAY_AGG(w), ARRAY_AGG(w IGNORE NULLS)
      FROM ${WORDS} GROUP BY k`,
  },
  {
    name: 'GROUP BY over an updating input',
    columns: 'b INT, la STRING, vp INT, sd INT, f STRING, l STRING, aa ARRAY<STRING>',
    query: `SELECT CAST(MOD(n, 4) AS INT), LISTAGG(kn), VAR_POP(sv), STDDEV_SAMP(sv), FIRST_VALUE(kn), LAST_VALUE(kn), ARRAY_AGG(kn)
      FROM (SELECT k, CONCAT(k, ':', CAST(COUNT(*) AS STRING)) AS kn, COUNT(*) AS n, SUM(v) AS sv FROM t GROUP BY k) GROUP BY MOD(n, 4)`,
    normalize: row => {
      const values = (row.la as string).split(',')
      return { ...row, la: values.sort().join(','), f: values.includes(row.f as string), l: values.includes(row.l as string),
        aa: (row.aa as string[]).join(',') === row.la ? 'as LISTAGG' : row.aa }
    },
  },
  {
    name: 'TUMBLE window aggregate',
    columns: 'k STRING, ws TIMESTAMP(3), la STRING, f INT, l INT, sd INT, vp DOUBLE, aa ARRAY<INT>',
    query: `SELECT k, window_start, LISTAGG(CAST(v AS STRING)), FIRST_VALUE(v), LAST_VALUE(v), STDDEV_SAMP(v), VAR_POP(CAST(v AS DOUBLE) / 4),
      ARRAY_AGG(NULLIF(MOD(v, 7), 0))
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
  },
]

describeRestoreCases({
  name: 'agg-more',
  seeded: { rows: 8000, keys: 12, seed: 5 },
  cases: CASES,
  checkStraight: rows => {
    expect(rows.length).toBeGreaterThan(3)
    // The lists are not trivial: the state held several values per group.
    expect(Math.max(...rows.map(r => ((JSON.parse(r) as Row).la as string).length))).toBeGreaterThan(20)
    // ARRAY_AGG held values (NULLs too, where the case has them) in every run compared.
    expect(rows.some(r => JSON.stringify((JSON.parse(r) as Row).aa).length > 10)).toBe(true)
  },
})
