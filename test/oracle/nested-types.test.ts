// Oracle test for ROW, ARRAY and MAP: values built from each generated row, read back by subscript,
// field, CARDINALITY and ELEMENT, and used as GROUP BY keys (a ROW, an ARRAY with NULL elements),
// in Weir and DuckDB (STRUCT, LIST, MAP) alike. Both count list indexes from 1 and give NULL outside.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'

describe.each([7, 8])('nested types vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 2000 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('subscripts, fields, CARDINALITY and ELEMENT of values built per row', async () => {
    await data.expectSame(
      `SELECT ts, k, v, ARRAY[v, v * 2, NULL][2], ARRAY[v, 1][3], ARRAY[k, s][0], CARDINALITY(ARRAY[k, s, k]), ELEMENT(ARRAY[d]),
         MAP['a', v, 'b', v + 1]['b'], MAP['a', v]['zz'], CAST(ROW(k, b) AS ROW<kk STRING, bb BIGINT>).bb,
         ARRAY[CAST(ROW(s, x) AS ROW<s STRING, x DOUBLE>)][1].s, CARDINALITY(MAP['a', 1, 'b', 2, 'a', 3]) FROM t`,
      `SELECT ts, k, v, [v, v * 2, NULL][2], [v, 1][3], NULL::VARCHAR, len([k, s, k]), [d][1],
         map(['a', 'b'], [v, v + 1])['b'], map(['a'], [v])['zz'], {'kk': k, 'bb': b}.bb,
         [{'s': s, 'x': x}][1].s, 2 FROM t`,
    )
  })

  it('GROUP BY a ROW key and an ARRAY key (NULL fields and elements group together)', async () => {
    await data.expectSame(
      `SELECT r.kk, r.m, COUNT(*), SUM(v), MAX(x) FROM (SELECT CAST(ROW(k, MOD(v, 3)) AS ROW<kk STRING, m INT>) AS r, v, x FROM t) GROUP BY r`,
      `SELECT r.kk, r.m, COUNT(*), SUM(v), MAX(x) FROM (SELECT {'kk': k, 'm': v % 3} AS r, v, x FROM t) GROUP BY r`,
    )
    await data.expectSame(
      `SELECT a[1], a[2], CARDINALITY(a), COUNT(*), MIN(d) FROM (SELECT ARRAY[k, s] AS a, d FROM t) GROUP BY a`,
      `SELECT a[1], a[2], len(a), COUNT(*), MIN(d) FROM (SELECT [k, s] AS a, d FROM t) GROUP BY a`,
    )
  })
})
