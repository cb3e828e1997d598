// Oracle test for JSON_VALUE, JSON_QUERY and JSON_EXISTS: JSON text built from every generated row's
// columns, queried in Weir and DuckDB (json_extract_string, json_extract, json_exists) alike.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'

// {"k": <k>, "v": <v>, "a": [<v>, 2.5, {"x": <k>}]}: NULL where k or v is (CONCAT and || are NULL then).
const WEIR_JSON = `CONCAT('{"k":"', k, '","v":', CAST(v AS STRING), ',"a":[', CAST(v AS STRING), ',2.5,{"x":"', k, '"}]}')`
const DUCK_JSON = `('{"k":"' || k || '","v":' || CAST(v AS VARCHAR) || ',"a":[' || CAST(v AS VARCHAR) || ',2.5,{"x":"' || k || '"}]}')`

const EXPRS: readonly { readonly weir: string; readonly duck: string }[] = [
  { weir: `JSON_VALUE(j, '$.k')`, duck: `json_extract_string(j, '$.k')` },
  { weir: `JSON_VALUE(j, '$.v')`, duck: `json_extract_string(j, '$.v')` },
  { weir: `JSON_VALUE(j, 'lax $.a[0]')`, duck: `json_extract_string(j, '$.a[0]')` },
  { weir: `JSON_VALUE(j, '$.a[2].x')`, duck: `json_extract_string(j, '$.a[2].x')` },
  { weir: `JSON_VALUE(j, '$.missing')`, duck: `json_extract_string(j, '$.missing')` },
  { weir: `JSON_QUERY(j, '$.a[2]')`, duck: `CAST(json_extract(j, '$.a[2]') AS VARCHAR)` },
  { weir: `JSON_EXISTS(j, '$.k')`, duck: `json_exists(j, '$.k')` },
  { weir: `JSON_EXISTS(j, '$.a[5]')`, duck: `json_exists(j, '$.a[5]')` },
  { weir: `CAST(JSON_VALUE(j, '$.v') AS INT) = v`, duck: `CAST(json_extract_string(j, '$.v') AS INT) = v` },
]

describe.each([5, 6])('JSON functions vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 2000 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('JSON_VALUE, JSON_QUERY and JSON_EXISTS over JSON built from each row', async () => {
    const cols = (engine: 'weir' | 'duck') => EXPRS.map((e, i) => `${e[engine]} AS c${i}`).join(', ')
    await data.expectSame(
      `SELECT ts, k, v, ${cols('weir')} FROM (SELECT ts, k, v, ${WEIR_JSON} AS j FROM t)`,
      `SELECT ts, k, v, ${cols('duck')} FROM (SELECT ts, k, v, ${DUCK_JSON} AS j FROM t)`,
    )
  })
})
