// JSON_QUERY(json, path RETURNING ARRAY<STRING> …): Flink's documented example (sql_functions.yml:
// `JSON_QUERY('{"a":[{"c":"c1"},{"c":"c2"}]}', 'lax $.a[*].c' RETURNING ARRAY<STRING>)` returns
// ['c1','c2']) and its JsonFunctionsITCase cases ("stringifying RETURNING<ARRAY>", the wrapper /
// ON EMPTY / ON ERROR cases on `{"a":"[1,2]"}`): strings unquoted, JSON null a NULL element, objects
// and arrays as JSON text; EMPTY OBJECT refused when planned. (Flink's ITCase writes the object
// {"itemId":1234, "count":10} back as {"count":10,"itemId":1234}, its map's order; Weir keeps the
// text's key order, so the case here is written in that order.)
import { describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { Session, type StatementResult } from '../../engine/session.js'
import { refusal } from '../planner/refused.js'

async function values(...exprs: string[]): Promise<unknown[]> {
  const [r] = await new Session().executeSql(`SELECT ${exprs.join(', ')} FROM (VALUES (1)) AS t(one)`)
  return (r as Extract<StatementResult, { kind: 'rows' }>).changes.map(c => c.row as unknown[])[0]!
}

const A = `'{"a":"[1,2]"}'`

describe('JSON_QUERY … RETURNING ARRAY<STRING>', () => {
  it("Flink's documented example and ITCase element texts", async () => {
    expect(await values(
      `JSON_QUERY('{"a":[{"c":"c1"},{"c":"c2"}]}', 'lax $.a[*].c' RETURNING ARRAY<STRING>)`,
      `JSON_QUERY('{"items": [{"count":10, "itemId":1234}, null, {"count":11, "itemId":4567}]}', '$.items' RETURNING ARRAY<STRING>)`,
      `JSON_QUERY('{"items": [[1234, 2345], null, ["itemId", "count"]]}', '$.items' RETURNING ARRAY<STRING>)`,
      `JSON_QUERY('{"arr": ["abc", null, "def"]}', '$.arr' RETURNING ARRAY<STRING>)`,
      `JSON_QUERY('{"m": [1.50, true, 1e2, "x\\"y"]}', '$.m' RETURNING ARRAY<STRING>)`,
      `JSON_QUERY('{"e": []}', '$.e' RETURNING ARRAY<STRING>)`,
      `JSON_QUERY(CAST(NULL AS STRING), '$' RETURNING ARRAY<STRING>)`,
    )).toEqual([
      ['c1', 'c2'],
      ['{"count":10,"itemId":1234}', null, '{"count":11,"itemId":4567}'],
      ['[1234,2345]', null, '["itemId","count"]'],
      ['abc', null, 'def'],
      ['1.5', 'true', '100.0', 'x"y'],
      [],
      null,
    ])
  })

  it('wrapper, ON EMPTY and ON ERROR as the STRING form (ITCase on {"a":"[1,2]"})', async () => {
    expect(await values(
      `JSON_QUERY(${A}, '$.a' RETURNING ARRAY<STRING>)`, // a strict scalar: error, NULL ON ERROR
      `JSON_QUERY(${A}, '$.a' RETURNING ARRAY<STRING> WITH CONDITIONAL WRAPPER)`, // ['[1,2]']
      `JSON_QUERY(${A}, '$.a' RETURNING ARRAY<STRING> WITHOUT WRAPPER EMPTY ARRAY ON ERROR)`, // []
      `JSON_QUERY(${A}, 'lax $.b' RETURNING ARRAY<STRING> EMPTY ARRAY ON EMPTY)`,
      `JSON_QUERY(${A}, 'lax $.b' RETURNING ARRAY<STRING>)`,
      `JSON_QUERY('{"o": {"k": 1}}', '$.o' RETURNING ARRAY<STRING> EMPTY ARRAY ON ERROR)`, // an object is not an array
      `JSON_QUERY('{"o": {"k": 1}}', '$.o' RETURNING ARRAY<STRING> WITH WRAPPER)`,
      `CARDINALITY(JSON_QUERY('[1, 2, 3]', '$' RETURNING ARRAY<STRING>))`,
    )).toEqual([null, ['[1,2]'], [], [], null, [], ['{"k":1}'], 3])
  })

  it('fails the job with ERROR ON ERROR / ERROR ON EMPTY, naming path and text', async () => {
    const fail = async (sql: string): Promise<WeirError> => {
      try {
        await values(sql)
      } catch (e) {
        if (e instanceof WeirError) return e
        throw e
      }
      throw new Error(`expected ${sql} to fail`)
    }
    expect((await fail(`JSON_QUERY(${A}, '$.a' RETURNING ARRAY<STRING> WITHOUT WRAPPER ERROR ON ERROR)`)).message)
      .toBe(`JSON_QUERY: the path matches the scalar "[1,2]", not an object or array; path '$.a', JSON '{"a":"[1,2]"}'`)
    expect((await fail(`JSON_QUERY('{"o": {}}', '$.o' RETURNING ARRAY<STRING> ERROR ON ERROR)`)).message)
      .toBe(`JSON_QUERY: the path matches an object, not an array (RETURNING ARRAY<STRING>); path '$.o', JSON '{"o": {}}'`)
    expect((await fail(`JSON_QUERY('{}', 'lax $.o' RETURNING ARRAY<STRING> ERROR ON EMPTY)`)).message)
      .toBe(`JSON_QUERY: the path matches no object or array (ERROR ON EMPTY); path 'lax $.o', JSON '{}'`)
  })

  it('refuses EMPTY OBJECT (as Flink) and other RETURNING types where written', async () => {
    const r1 = await refusal(`SELECT JSON_QUERY(${A}, '$.a' RETURNING ARRAY<STRING> WITHOUT WRAPPER EMPTY OBJECT ON ERROR) FROM (VALUES (1)) AS t(one)`)
    expect(r1.message).toBe('JSON_QUERY … RETURNING ARRAY<STRING> cannot take EMPTY OBJECT ON ERROR')
    expect(r1.at).toBe('EMPTY OBJECT ON ERROR')
    const r2 = await refusal(`SELECT JSON_QUERY(${A}, '$.a' RETURNING ARRAY<STRING> EMPTY OBJECT ON EMPTY) FROM (VALUES (1)) AS t(one)`)
    expect(r2.message).toBe('JSON_QUERY … RETURNING ARRAY<STRING> cannot take EMPTY OBJECT ON EMPTY')
    const r3 = await refusal(`SELECT JSON_QUERY(${A}, '$.a' RETURNING ARRAY<DATE>) FROM (VALUES (1)) AS t(one)`)
    expect(r3.message).toBe('JSON_QUERY … RETURNING ARRAY<DATE> is not supported')
    expect(r3.at).toBe('ARRAY<DATE>')
    const r4 = await refusal(`SELECT JSON_QUERY(${A}, '$.a' RETURNING ARRAY<ARRAY<INT>>) FROM (VALUES (1)) AS t(one)`)
    expect(r4.at).toBe('ARRAY<ARRAY<INT>>')
    const r5 = await refusal(`SELECT JSON_QUERY(${A}, '$.a' RETURNING ARRAY<INT> EMPTY OBJECT ON EMPTY) FROM (VALUES (1)) AS t(one)`)
    expect(r5.message).toBe('JSON_QUERY … RETURNING ARRAY<INT> cannot take EMPTY OBJECT ON EMPTY')
  })
})

// FLINK-40463 (Flink master, 2026-10): RETURNING ARRAY<T> for T a JSON_VALUE RETURNING type; its
// JsonFunctionsITCase data {"ints": [1, 2, 3], "doubles": [1.5, 2.5], "bools": [true, false], "withNull":
// [1, null, 3], "bigints": [1, 9999999999]}; strings coerced ("42" → 42), a value that does not fit
// follows ON ERROR.
const D =
  `'{"ints": [1, 2, 3], "doubles": [1.5, 2.5], "bools": [true, false], "withNull": [1, null, 3], "bigints": [1, 9999999999], "strs": ["42", "true", "x"], "mixed": [1, {"a": 1}]}'`

describe('JSON_QUERY … RETURNING ARRAY<T> (T other than STRING)', () => {
  it('converts each element as JSON_VALUE … RETURNING T does', async () => {
    expect(await values(
      `JSON_QUERY(${D}, '$.ints' RETURNING ARRAY<INT>)`,
      `JSON_QUERY(${D}, '$.ints' RETURNING ARRAY<TINYINT>)`,
      `JSON_QUERY(${D}, '$.doubles' RETURNING ARRAY<DOUBLE>)`,
      `JSON_QUERY(${D}, '$.bools' RETURNING ARRAY<BOOLEAN>)`,
      `JSON_QUERY(${D}, '$.withNull' RETURNING ARRAY<INT>)`,
      `JSON_QUERY(${D}, '$.bigints' RETURNING ARRAY<BIGINT>)`,
      `JSON_QUERY(${D}, '$.doubles' RETURNING ARRAY<DECIMAL(4, 2)>)`,
      `JSON_QUERY(${D}, '$.strs[0]' RETURNING ARRAY<INT> WITH WRAPPER)`,
      `JSON_QUERY(${D}, '$.strs[1]' RETURNING ARRAY<BOOLEAN> WITH WRAPPER)`,
      `JSON_QUERY(${D}, 'lax $.none' RETURNING ARRAY<INT> EMPTY ARRAY ON EMPTY)`,
      `ARRAY_MAX(JSON_QUERY(${D}, '$.ints' RETURNING ARRAY<INT>)) + 1`,
    )).toEqual([[1, 2, 3], [1, 2, 3], [1.5, 2.5], [true, false], [1, null, 3], [1, 9999999999], [150n, 250n], [42], [true], [], 4])
  })

  it('an element that does not convert (overflow, text, an object) follows ON ERROR', async () => {
    expect(await values(
      `JSON_QUERY(${D}, '$.bigints' RETURNING ARRAY<INT>)`,
      `JSON_QUERY(${D}, '$.strs' RETURNING ARRAY<INT> EMPTY ARRAY ON ERROR)`,
      `JSON_QUERY(${D}, '$.mixed' RETURNING ARRAY<INT>)`,
      `JSON_QUERY(${D}, '$.bools' RETURNING ARRAY<INT>)`,
      `JSON_QUERY(${D}, '$.mixed' RETURNING ARRAY<STRING>)`,
    )).toEqual([null, [], null, null, ['1', '{"a":1}']])
    await expect(values(`JSON_QUERY(${D}, '$.bigints' RETURNING ARRAY<INT> ERROR ON ERROR)`)).rejects.toThrow(
      "JSON_QUERY: cannot return the element 9999999999 as INT; path '$.bigints'",
    )
  })

  it('is typed ARRAY<T> (UNNEST gives T)', async () => {
    const [r] = await new Session().executeSql(`SELECT x + 1 AS y FROM (VALUES (1)) AS t(one)
      CROSS JOIN UNNEST(JSON_QUERY('[10, 20]', '$' RETURNING ARRAY<BIGINT>)) AS u(x)`)
    const rows = r as Extract<StatementResult, { kind: 'rows' }>
    expect(rows.schema.map(f => f.type.kind)).toEqual(['BIGINT'])
    expect(rows.changes.map(c => c.row)).toEqual([[11], [21]])
  })
})

describe('JSON_QUERY … RETURNING ARRAY<STRING> over a column', () => {
  it('feeds CROSS JOIN UNNEST, one row per element (a NULL, bad JSON or missing array gives no rows)', async () => {
    const [r] = await new Session().executeSql(`SELECT id, item, JSON_VALUE(item, '$.sku') AS sku
      FROM (VALUES (1, '{"items": [{"sku": "a"}, {"sku": "b"}]}'), (2, CAST(NULL AS STRING)), (3, '{"items": '), (4, '{"other": 1}'),
        (5, '{"items": ["x", null]}')) AS o(id, doc)
      CROSS JOIN UNNEST(JSON_QUERY(doc, 'lax $.items' RETURNING ARRAY<STRING>)) AS u(item)`)
    const got = (r as Extract<StatementResult, { kind: 'rows' }>).changes.map(c => c.row as unknown[])
    expect(got).toEqual([[1, '{"sku":"a"}', 'a'], [1, '{"sku":"b"}', 'b'], [5, 'x', null], [5, null, null]])
  })
})
