// The SQL/JSON clauses (RETURNING, ON EMPTY, ON ERROR, WRAPPER), IS JSON, JSON_OBJECT and JSON_ARRAY,
// through SQL: Flink's documented examples (docs/data/sql_functions.yml, "JSON Functions"; the comment
// on each case gives the documented result), NULL inputs, defaults, refusals when planned and the
// run-time failures of ERROR ON EMPTY / ERROR ON ERROR.
import { describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { Session, type StatementResult } from '../../engine/session.js'
import { parseExpression } from '../../grammar/index.js'
import { refusal } from '../planner/refused.js'

async function rows(sql: string): Promise<unknown[][]> {
  const [r] = await new Session().executeSql(sql)
  return (r as Extract<StatementResult, { kind: 'rows' }>).changes.map(c => c.row as unknown[])
}

/** Each expression's value over one row. */
async function values(...exprs: string[]): Promise<unknown[]> {
  return (await rows(`SELECT ${exprs.join(', ')} FROM (VALUES (1)) AS t(one)`))[0]!
}

const one = async (expr: string): Promise<unknown> => (await values(expr))[0]

async function failure(sql: string): Promise<WeirError> {
  try {
    await rows(sql)
  } catch (e) {
    if (e instanceof WeirError) return e
    throw e
  }
  throw new Error(`expected ${sql} to fail`)
}

describe('JSON_VALUE with RETURNING, ON EMPTY and ON ERROR', () => {
  it("Flink's documented examples", async () => {
    expect(await values(
      `JSON_VALUE('{"a": true}', '$.a')`, // "true"
      `JSON_VALUE('{"a": true}', '$.a' RETURNING BOOLEAN)`, // TRUE
      `JSON_VALUE('{"a": true}', 'lax $.b' DEFAULT FALSE ON EMPTY)`, // "false"
      `JSON_VALUE('{"a": true}', 'strict $.b' DEFAULT FALSE ON ERROR)`, // "false"
      `JSON_VALUE('{"a.b": [0.998,0.996]}','$.["a.b"][0]' RETURNING DOUBLE)`, // 0.998D
      `JSON_VALUE('{"contains blank": "right"}', 'strict $.[''contains blank'']' NULL ON EMPTY DEFAULT 'wrong' ON ERROR)`, // "right"
    )).toEqual(['true', true, 'false', 'false', 0.998, 'right'])
  })

  it('RETURNING converts the scalar found; one that does not convert is the error case', async () => {
    expect(await values(
      `JSON_VALUE('{"n": 42}', '$.n' RETURNING INT)`,
      `JSON_VALUE('{"n": 42}', '$.n' RETURNING DOUBLE)`,
      `JSON_VALUE('{"n": 1.5}', '$.n' RETURNING DOUBLE)`,
      `JSON_VALUE('{"n": 1e2}', '$.n' RETURNING INT)`,
      `JSON_VALUE('{"n": "42"}', '$.n' RETURNING INT DEFAULT -1 ON ERROR)`,
      `JSON_VALUE('{"n": "4x"}', '$.n' RETURNING INT DEFAULT -1 ON ERROR)`,
      `JSON_VALUE('{"n": 3000000000}', '$.n' RETURNING INT DEFAULT -1 ON ERROR)`,
      `JSON_VALUE('{"n": 200}', '$.n' RETURNING TINYINT DEFAULT -1 ON ERROR)`,
      `JSON_VALUE('{"n": 42}', '$.n' RETURNING STRING)`,
      `JSON_VALUE('{"n": 42}', '$.n' RETURNING BOOLEAN DEFAULT TRUE ON ERROR)`,
      `JSON_VALUE('{"n": true}', '$.n' RETURNING INT DEFAULT -1 ON ERROR)`,
      `JSON_VALUE('{"n": "true"}', '$.n' RETURNING BOOLEAN)`,
    )).toEqual([42, 42, 1.5, 100, 42, -1, -1, -1, '42', true, -1, true])
  })

  it("Flink's JsonFunctionsITCase cases: truncation toward zero, overflow and DECIMAL precision are the error case", async () => {
    const doc = `'{"type": "account", "age": 42, "balance": 13.37, "neg": -13.89, "bigCount": 9999999999, "longBalance": 123456789.987654321}'`
    expect(await values(
      `JSON_VALUE(${doc}, '$.age' RETURNING TINYINT)`, // 42
      `JSON_VALUE(${doc}, '$.age' RETURNING SMALLINT)`, // 42
      `JSON_VALUE(${doc}, '$.age' RETURNING BIGINT)`, // 42L
      `JSON_VALUE(${doc}, '$.bigCount' RETURNING BIGINT)`, // 9999999999L
      `JSON_VALUE(${doc}, '$.balance' RETURNING DECIMAL(10, 2))`, // 13.37
      `JSON_VALUE(${doc}, '$.longBalance' RETURNING DOUBLE)`, // 123456789.987654321
      `JSON_VALUE(${doc}, '$.bigCount' RETURNING INTEGER)`, // NULL (overflow)
      `JSON_VALUE(${doc}, '$.balance' RETURNING INTEGER)`, // 13
      `JSON_VALUE(${doc}, '$.neg' RETURNING INTEGER)`, // -13
      `JSON_VALUE(${doc}, '$.longBalance' RETURNING DECIMAL(5, 2))`, // NULL (precision)
      `JSON_VALUE(${doc}, '$.longBalance' RETURNING DECIMAL(5, 2) DEFAULT '0.00' ON ERROR)`, // 0.00
      `JSON_VALUE(${doc}, '$.type' RETURNING INTEGER DEFAULT 42 ON ERROR)`, // 42
      `JSON_VALUE(${doc}, 'lax $.invalid' RETURNING INTEGER DEFAULT 42 ON EMPTY ERROR ON ERROR)`, // 42
      `JSON_VALUE(${doc}, 'strict $.invalid' RETURNING INTEGER NULL ON EMPTY DEFAULT 42 ON ERROR)`, // 42
      `JSON_VALUE(${doc}, 'strict $.invalid' ERROR ON EMPTY NULL ON ERROR)`, // NULL
    )).toEqual([42, 42, 42, 9999999999, 1337n, 123456789.987654321, null, 13, -13, null, 0n, 42, 42, 42, null])
  })

  it('empty: lax paths that match nothing, JSON null, a lax object; error: bad JSON, strict misses, a strict object', async () => {
    const v = (json: string, path: string) => `JSON_VALUE('${json}', '${path}' DEFAULT 'E' ON EMPTY DEFAULT 'X' ON ERROR)`
    expect(await values(
      v('{"a": 1}', 'lax $.b'),
      v('{"a": null}', '$.a'),
      v('{"a": {"b": 1}}', 'lax $.a'),
      v('{"a": 1', '$.a'),
      v('{"a": 1}', 'strict $.b'),
      v('{"a": {"b": 1}}', 'strict $.a'),
      v('{"a": [1, 2]}', 'strict $.a[*]'),
      v('{"a": 1}', '$.a'),
    )).toEqual(['E', 'E', 'E', 'X', 'X', 'X', 'X', '1'])
  })

  it('DEFAULT values become the RETURNING type; for STRING numbers and booleans become their Java text', async () => {
    expect(await values(
      `JSON_VALUE('{}', 'lax $.a' DEFAULT 1.50 ON EMPTY)`,
      `JSON_VALUE('{}', 'lax $.a' DEFAULT 7 ON EMPTY)`,
      `JSON_VALUE('{}', 'lax $.a' RETURNING DOUBLE DEFAULT 7 ON EMPTY)`,
      `JSON_VALUE('{}', 'lax $.a' RETURNING INT DEFAULT one + 1 ON EMPTY)`,
      `JSON_VALUE('{}', 'lax $.a' RETURNING INT DEFAULT NULL ON EMPTY)`,
      `JSON_VALUE('{}', 'lax $.a' RETURNING INT DEFAULT 5 ON ERROR)`,
      `JSON_VALUE('{}', 'lax $.a' RETURNING INT DEFAULT '12' ON EMPTY)`,
      `JSON_VALUE('{}', 'lax $.a' DEFAULT DATE '2020-01-02' ON EMPTY)`,
    )).toEqual(['1.50', '7', 7, 2, null, null, 12, '2020-01-02'])
  })

  it('NULL text or path gives NULL, whatever the clauses', async () => {
    expect(await values(
      `JSON_VALUE(CAST(NULL AS STRING), '$.a' ERROR ON EMPTY ERROR ON ERROR)`,
      `JSON_VALUE('{"a": 1}', CAST(NULL AS STRING) RETURNING INT DEFAULT 1 ON EMPTY)`,
      `JSON_QUERY(CAST(NULL AS STRING), '$' EMPTY ARRAY ON EMPTY)`,
      `JSON_EXISTS(CAST(NULL AS STRING), '$' TRUE ON ERROR)`,
    )).toEqual([null, null, null, null])
  })

  it('ERROR ON ERROR and ERROR ON EMPTY fail the job naming the function, the path and the JSON', async () => {
    const onError = await failure(`SELECT JSON_VALUE(s, 'strict $.b' ERROR ON ERROR) FROM (VALUES ('{"a": 1}')) AS t(s)`)
    expect(onError.kind).toBe('execution')
    expect(onError.message).toBe(`JSON_VALUE: no member 'b'; path 'strict $.b', JSON '{"a": 1}'`)
    expect(onError.help).toContain('ERROR ON ERROR fails the job here')
    const onEmpty = await failure(`SELECT JSON_VALUE(s, 'lax $.b' ERROR ON EMPTY) FROM (VALUES ('{"a": 1}')) AS t(s)`)
    expect(onEmpty.message).toBe(`JSON_VALUE: the path matches no scalar value (ERROR ON EMPTY); path 'lax $.b', JSON '{"a": 1}'`)
    const typed = await failure(`SELECT JSON_VALUE(s, '$.a' RETURNING INT ERROR ON ERROR) FROM (VALUES ('{"a": "x"}')) AS t(s)`)
    expect(typed.message).toBe(`JSON_VALUE: cannot return "x" as INT; path '$.a', JSON '{"a": "x"}'`)
    const notJson = await failure(`SELECT JSON_QUERY(s, '$' ERROR ON ERROR) FROM (VALUES ('nope')) AS t(s)`)
    expect(notJson.message).toMatch(/^JSON_QUERY: the text is not JSON \(.*\); path '\$', JSON 'nope'$/)
    const exists = await failure(`SELECT JSON_EXISTS(s, 'strict $.b' ERROR ON ERROR) FROM (VALUES ('{"a": 1}')) AS t(s)`)
    expect(exists.message).toBe(`JSON_EXISTS: no member 'b'; path 'strict $.b', JSON '{"a": 1}'`)
    // Without ERROR the same rows give the default behaviours.
    expect(await rows(`SELECT JSON_VALUE(s, 'strict $.b'), JSON_EXISTS(s, 'strict $.b') FROM (VALUES ('{"a": 1}')) AS t(s)`)).toEqual([[null, false]])
  })

  it('refuses when planned: RETURNING types Flink does not convert to, DEFAULT values of the wrong type, clauses of other functions', async () => {
    const r1 = await refusal(`SELECT JSON_VALUE('{}', '$.a' RETURNING DATE) FROM (VALUES (1)) AS t(one)`)
    expect(r1.message).toBe('JSON_VALUE cannot return DATE')
    expect(r1.help).toContain('STRING, BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, DOUBLE or DECIMAL(p, s)')
    expect(r1.at).toBe('DATE')
    const r2 = await refusal(`SELECT JSON_VALUE('{}', '$.a' RETURNING INT DEFAULT 'x' ON EMPTY) FROM (VALUES (1)) AS t(one)`)
    expect(r2.message).toBe(`cannot cast 'x' to INT`)
    expect(r2.at).toBe(`'x'`)
    const r3 = await refusal(`SELECT JSON_VALUE('{}', '$.a' RETURNING BOOLEAN DEFAULT DATE '2020-01-01' ON ERROR) FROM (VALUES (1)) AS t(one)`)
    expect(r3.message).toBe('JSON_VALUE … RETURNING BOOLEAN cannot take DEFAULT of type DATE ON ERROR')
    expect(r3.at).toBe(`DATE '2020-01-01'`)
    const r4 = await refusal(
      `SELECT JSON_VALUE('{}', '$.a' RETURNING DECIMAL(10, 2) DEFAULT TIMESTAMP '2020-01-01 00:00:00' ON EMPTY) FROM (VALUES (1)) AS t(one)`,
    )
    expect(r4.message).toBe('JSON_VALUE … RETURNING DECIMAL(10, 2) cannot take DEFAULT of type TIMESTAMP(0) ON EMPTY')
    const r5 = await refusal(`SELECT JSON_VALUE('{}', '$.a' EMPTY ARRAY ON EMPTY) FROM (VALUES (1)) AS t(one)`)
    expect(r5.message).toBe(`JSON_VALUE takes NULL, ERROR, DEFAULT e ON EMPTY: 'EMPTY ARRAY ON EMPTY'`)
    expect(r5.at).toBe('EMPTY ARRAY ON EMPTY')
    const r6 = await refusal(`SELECT JSON_EXISTS('{}', '$.a' NULL ON ERROR) FROM (VALUES (1)) AS t(one)`)
    expect(r6.message).toBe(`JSON_EXISTS takes TRUE, FALSE, UNKNOWN, ERROR ON ERROR: 'NULL ON ERROR'`)
    const r7 = await refusal(`SELECT UPPER('a' NULL ON NULL) FROM (VALUES (1)) AS t(one)`)
    expect(r7.message).toBe(`UPPER takes no 'NULL ON NULL' clause`)
    const r8 = await refusal(`SELECT JSON_VALUE('{}', '$.a' NULL ON EMPTY ERROR ON EMPTY) FROM (VALUES (1)) AS t(one)`)
    expect(r8.message).toBe(`JSON_VALUE has a second ON EMPTY clause: 'ERROR ON EMPTY'`)
    const noValue = await refusal(`SELECT JSON_VALUE('{}', '$.a' DEFAULT ON EMPTY) FROM (VALUES (1)) AS t(one)`)
    expect(noValue.message).toBe(`JSON_VALUE needs a value after DEFAULT: 'DEFAULT ON EMPTY'`)
    expect(noValue.at).toBe('DEFAULT ON EMPTY')
    const r9 = await refusal(`SELECT JSON_VALUE('{}', '$.a', 'x') FROM (VALUES (1)) AS t(one)`)
    expect(r9.message).toBe('JSON_VALUE takes 2 arguments but was given 3')
    const r10 = await refusal(`SELECT JSON_QUERY('{}', '$' RETURNING INT) FROM (VALUES (1)) AS t(one)`)
    expect(r10.message).toBe('JSON_QUERY … RETURNING INT is not supported')
  })
})

describe('JSON_EXISTS … ON ERROR', () => {
  it("Flink's documented examples and the other behaviours", async () => {
    expect(await values(
      `JSON_EXISTS('{"a": true}', '$.a')`, // TRUE
      `JSON_EXISTS('{"a": [{ "b": 1 }]}', '$.a[0].b')`, // TRUE
      `JSON_EXISTS('{"a": true}', 'strict $.b' TRUE ON ERROR)`, // TRUE
      `JSON_EXISTS('{"a": true}', '$.b')`, // FALSE
      `JSON_EXISTS('{"a": true}', 'strict $.b' FALSE ON ERROR)`, // FALSE
      `JSON_EXISTS('{"a": true}', 'strict $.b' UNKNOWN ON ERROR)`,
      `JSON_EXISTS('{"a": true}', 'lax $.b' ERROR ON ERROR)`,
      `JSON_EXISTS('not json', '$' TRUE ON ERROR)`,
    )).toEqual([true, true, true, false, false, null, false, true])
  })
})

describe('JSON_QUERY with WRAPPER, ON EMPTY and ON ERROR', () => {
  it("Flink's documented examples", async () => {
    expect(await values(
      `JSON_QUERY('{ "a": { "b": 1 } }', '$.a')`, // '{ "b": 1 }' (Jackson writes it compact)
      `JSON_QUERY('[1, 2]', '$')`, // '[1, 2]'
      `JSON_QUERY(CAST(NULL AS STRING), '$')`, // NULL
      `JSON_QUERY('{}', '$' WITH CONDITIONAL ARRAY WRAPPER)`, // '[{}]'
      `JSON_QUERY('[1, 2]', '$' WITH CONDITIONAL ARRAY WRAPPER)`, // '[1, 2]'
      `JSON_QUERY('[1, 2]', '$' WITH UNCONDITIONAL ARRAY WRAPPER)`, // '[[1, 2]]'
      `JSON_QUERY('1', '$')`, // NULL: scalars must be wrapped
      `JSON_QUERY('1', '$' WITH CONDITIONAL ARRAY WRAPPER)`, // '[1]'
      `JSON_QUERY('{}', 'lax $.invalid' EMPTY OBJECT ON EMPTY)`, // '{}'
      `JSON_QUERY('{}', 'strict $.invalid' EMPTY ARRAY ON ERROR)`, // '[]'
    )).toEqual(['{"b":1}', '[1,2]', null, '[{}]', '[1,2]', '[[1,2]]', null, '[1]', '{}', '[]'])
  })

  it('WITH [ARRAY] WRAPPER is unconditional, WITHOUT is the default; wildcards give one array', async () => {
    const doc = `'{"a": [{"c": "c1"}, {"c": "c2"}], "s": "x"}'`
    expect(await values(
      `JSON_QUERY(${doc}, '$.s' WITH WRAPPER)`,
      `JSON_QUERY(${doc}, '$.a' WITH ARRAY WRAPPER)`,
      `JSON_QUERY(${doc}, '$.a' WITHOUT ARRAY WRAPPER)`,
      `JSON_QUERY(${doc}, 'lax $.a[*].c' WITH CONDITIONAL WRAPPER)`,
      `JSON_QUERY(${doc}, 'lax $.a[*].c' WITH UNCONDITIONAL WRAPPER)`,
      `JSON_QUERY(${doc}, 'strict $.s' EMPTY OBJECT ON ERROR)`,
      `JSON_QUERY(${doc}, 'lax $.s' EMPTY OBJECT ON EMPTY)`,
      `JSON_QUERY(${doc}, 'lax $.zz' WITH WRAPPER EMPTY ARRAY ON EMPTY)`,
      `JSON_QUERY(${doc}, '$.a' RETURNING STRING)`,
    )).toEqual(['["x"]', '[[{"c":"c1"},{"c":"c2"}]]', '[{"c":"c1"},{"c":"c2"}]', '["c1","c2"]', '[["c1","c2"]]', '{}', '{}', '[]', '[{"c":"c1"},{"c":"c2"}]'])
  })
})

describe('IS JSON', () => {
  it("Flink's documented examples", async () => {
    expect(await values(`'1' IS JSON`, `'[]' IS JSON`, `'{}' IS JSON`, `'"abc"' IS JSON`, `'1' IS JSON SCALAR`, `'{}' IS JSON OBJECT`))
      .toEqual([true, true, true, true, true, true])
    expect(await values(`'abc' IS JSON`, `'1' IS JSON ARRAY`, `'1' IS JSON OBJECT`, `'{}' IS JSON SCALAR`, `'{}' IS JSON ARRAY`))
      .toEqual([false, false, false, false, false])
  })

  it('NOT, VALUE, NULL input (NULL, as Flink since FLINK-39943) and use in WHERE', async () => {
    expect(
      await values(`'{}' IS NOT JSON ARRAY`, `'x' IS NOT JSON`, `'[1]' IS JSON VALUE`, `CAST(NULL AS STRING) IS JSON`,
        `CAST(NULL AS STRING) IS NOT JSON OBJECT`),
    )
      .toEqual([true, true, true, null, null])
    expect(await rows(`SELECT s FROM (VALUES ('{"a":1}'), ('[1]'), ('x'), ('2')) AS t(s) WHERE s IS JSON AND s IS NOT JSON SCALAR`))
      .toEqual([['{"a":1}'], ['[1]']])
    expect((await refusal(`SELECT 1 IS JSON FROM (VALUES (1)) AS t(one)`)).message).toBe('IS JSON applies to strings, not INT NOT NULL')
  })
})

describe('JSON_OBJECT and JSON_ARRAY', () => {
  it("Flink's documented examples", async () => {
    expect(await values(
      `JSON_OBJECT()`, // '{}'
      `JSON_OBJECT('K1' VALUE 'V1', 'K2' VALUE 'V2')`, // '{"K1":"V1","K2":"V2"}'
      `JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) NULL ON NULL)`, // '{"K1":null}'
      `JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) ABSENT ON NULL)`, // '{}'
      `JSON_OBJECT(KEY 'K1' VALUE JSON_OBJECT(KEY 'K2' VALUE 'V'))`, // '{"K1":{"K2":"V"}}'
      `JSON_ARRAY()`, // '[]'
      `JSON_ARRAY(1, '2')`, // '[1,"2"]'
      `JSON_ARRAY(CAST(NULL AS STRING) NULL ON NULL)`, // '[null]'
      `JSON_ARRAY(CAST(NULL AS STRING) ABSENT ON NULL)`, // '[]'
      `JSON_ARRAY(JSON_ARRAY(1))`, // '[[1]]'
    )).toEqual(['{}', '{"K1":"V1","K2":"V2"}', '{"K1":null}', '{}', '{"K1":{"K2":"V"}}', '[]', '[1,"2"]', '[null]', '[]', '[[1]]'])
  })

  it('defaults: NULL ON NULL for JSON_OBJECT, ABSENT ON NULL for JSON_ARRAY; order kept, a repeated key takes the last value in its first place', async () => {
    expect(await values(
      `JSON_OBJECT('a' VALUE CAST(NULL AS INT), 'b' VALUE 1)`,
      `JSON_ARRAY(1, CAST(NULL AS INT), 2)`,
      `JSON_OBJECT('z' VALUE 1, 'a' VALUE 2, 'z' VALUE 3)`,
      `JSON_OBJECT('a' VALUE NULL)`,
      `JSON_ARRAY(NULL, 1 NULL ON NULL)`,
    )).toEqual(['{"a":null,"b":1}', '[1,2]', '{"z":3,"a":2}', '{"a":null}', '[null,1]'])
  })

  it('values by type as Flink writes them; a JSON string from elsewhere stays a string', async () => {
    expect(await values(
      `JSON_ARRAY(1.50, CAST(2.5 AS DOUBLE), CAST(1e20 AS DOUBLE), CAST(9007199254740993 AS BIGINT), TRUE, 'q"uote', DATE '2020-01-02', TIMESTAMP '2020-01-02 03:04:05', TIMESTAMP '2020-01-02 03:04:05.120')`,
      `JSON_OBJECT('r' VALUE ROW(1, 'a'), 'a' VALUE ARRAY[1, CAST(NULL AS INT)], 'm' VALUE MAP['k', 1])`,
      `JSON_ARRAY('{"a":1}', JSON_OBJECT('a' VALUE 1))`,
      `JSON_OBJECT('x' VALUE JSON_QUERY('{"a":[1]}', '$.a'))`,
    )).toEqual([
      '[1.50,2.5,1.0E20,9007199254740993,true,"q\\"uote","2020-01-02","2020-01-02T03:04:05","2020-01-02T03:04:05.120"]',
      '{"r":{"EXPR$0":1,"EXPR$1":"a"},"a":[1,null],"m":{"k":1}}',
      '["{\\"a\\":1}",{"a":1}]',
      '{"x":"[1]"}',
    ])
  })

  it("JSON_STRING writes nested values the same way (Flink's documented JSON_STRING(ARRAY[1, 2]) is '[1,2]')", async () => {
    expect(await values(`JSON_STRING(ARRAY[1, 2])`, `JSON_STRING(MAP['a', ROW(TRUE, CAST(NULL AS STRING))])`, `JSON_STRING(CAST(NULL AS INT))`))
      .toEqual(['[1,2]', '{"a":{"EXPR$0":true,"EXPR$1":null}}', null])
  })

  it('keys must be string literals; pairs only in JSON_OBJECT', async () => {
    expect((await refusal(`SELECT JSON_OBJECT(s VALUE 1) FROM (VALUES ('k')) AS t(s)`)).message).toBe('a JSON_OBJECT key must be a string literal')
    expect((await refusal(`SELECT JSON_OBJECT('a', 1) FROM (VALUES (1)) AS t(one)`)).message).toBe(
      "JSON_OBJECT takes key–value pairs written 'key' VALUE value",
    )
    expect((await refusal(`SELECT JSON_ARRAY('a' VALUE 1) FROM (VALUES (1)) AS t(one)`)).message).toBe('JSON_ARRAY takes values, not KEY … VALUE pairs')
    expect((await refusal(`SELECT JSON_ARRAY(1 EMPTY ON NULL) FROM (VALUES (1)) AS t(one)`)).message)
      .toBe(`JSON_ARRAY takes NULL ON NULL or ABSENT ON NULL: 'EMPTY ON NULL'`)
  })
})

describe('the clause words stay names', () => {
  it('columns named value, key, returning, default, empty, error, absent, wrapper', async () => {
    const r = await rows(`SELECT JSON_OBJECT(KEY 'k' VALUE value, 'key' VALUE key), value, key, UPPER(returning), COALESCE(default, empty, error),
        absent + wrapper, JSON_VALUE(value, 'lax $.a' DEFAULT key ON EMPTY), JSON_VALUE(value, '$.a' DEFAULT key ON EMPTY)
      FROM (VALUES ('{"b":1}', 'x', 'r', 'd', 'e', 'f', 1, 2)) AS t(value, key, returning, default, empty, error, absent, wrapper)`)
    expect(r).toEqual([['{"k":"{\\"b\\":1}","key":"x"}', '{"b":1}', 'x', 'R', 'd', 3, 'x', null]])
  })

  it('parses the clause words and keeps CAST … WITHOUT TIME ZONE and NOT NULL types', () => {
    const show = (sql: string) => JSON.stringify(parseExpression(sql), (k, v) => (k === 'span' ? undefined : v))
    expect(show(`CAST(a AS TIMESTAMP(3) WITHOUT TIME ZONE NOT NULL)`)).toContain('"notNull":true')
    expect(show(`JSON_VALUE(j, '$.a' RETURNING INT NULL ON EMPTY)`)).toContain('"onEmpty":{"kind":"NULL"}')
    expect(show(`JSON_QUERY(j, '$' RETURNING STRING WITH ARRAY WRAPPER)`)).toContain('"wrapper":"UNCONDITIONAL"')
  })
})
