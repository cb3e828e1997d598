// STDDEV/VAR, FIRST_VALUE, LAST_VALUE and LISTAGG with DISTINCT (their value counts in MapState, and
// over an updating input their own value sequences) in a GROUP BY over an append-only input, over an
// updating input, and in TUMBLE windows, three ways on heap and RocksDB: straight; checkpointed and
// cancelled midway; restored from the checkpoint at another parallelism. The committed changelog
// must materialize to the same rows. (Where the updating input comes from several subtasks, the
// order LISTAGG keeps may differ from run to run: that case compares the values each list holds.)
import { expect } from 'vitest'
import { describeRestoreCases, type RestoreCase, type Row } from '../support/restore-cases.js'

const WORDS = `(SELECT k, v, ts, NULLIF(CONCAT('w', CAST(MOD(v, 13) AS STRING)), 'w0') AS w, CAST(MOD(v, 17) AS DOUBLE) / 8 AS x FROM t)`

const CASES: readonly RestoreCase[] = [
  {
    name: 'GROUP BY over an append-only input',
    columns: 'k STRING, f STRING, l STRING, la STRING, sd DOUBLE, vs INT, vp DOUBLE',
    query: `SELECT k, FIRST_VALUE(DISTINCT w), LAST_VALUE(DISTINCT w), LISTAGG(DISTINCT w, ';'), STDDEV_POP(DISTINCT x),
      VAR_SAMP(DISTINCT MOD(v, 11)), VAR_POP(DISTINCT x) FROM ${WORDS} GROUP BY k`,
  },
  {
    name: 'GROUP BY over an updating input',
    columns: 'b INT, la STRING, vp INT, sd INT, f STRING, l STRING',
    query: `SELECT CAST(MOD(n, 2) AS INT), LISTAGG(DISTINCT m), VAR_POP(DISTINCT sv), STDDEV_SAMP(DISTINCT sv), FIRST_VALUE(DISTINCT m),
      LAST_VALUE(DISTINCT m)
      FROM (SELECT k, CAST(MOD(COUNT(*), 7) AS STRING) AS m, COUNT(*) AS n, MOD(SUM(v), 9) AS sv FROM t GROUP BY k) GROUP BY MOD(n, 2)`,
    normalize: row => {
      const values = (row.la as string).split(',')
      return { ...row, la: values.sort().join(','), f: values.includes(row.f as string), l: values.includes(row.l as string) }
    },
  },
  {
    name: 'TUMBLE window aggregate',
    columns: 'k STRING, ws TIMESTAMP(3), la STRING, f INT, l INT, sd INT, vp DOUBLE',
    query: `SELECT k, window_start, LISTAGG(DISTINCT CAST(MOD(v, 5) AS STRING)), FIRST_VALUE(DISTINCT MOD(v, 5)), LAST_VALUE(DISTINCT MOD(v, 5)),
      STDDEV_SAMP(DISTINCT MOD(v, 23)), VAR_POP(DISTINCT CAST(MOD(v, 6) AS DOUBLE) / 4)
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
  },
]

describeRestoreCases({
  name: 'agg-distinct',
  seeded: { rows: 8000, keys: 12, seed: 7 },
  cases: CASES,
  checkStraight: rows => {
    expect(rows.length).toBeGreaterThan(1)
    // The lists hold several distinct values per group.
    expect(Math.max(...rows.map(r => ((JSON.parse(r) as Row).la as string).length))).toBeGreaterThan(5)
  },
})
