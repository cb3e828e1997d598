// JSON(s) inside JSON_OBJECT / JSON_ARRAY, as Flink's docs (sql_functions.yml) and JsonFunctionsITCase
// give it: the text inserted as JSON, not as a string, compacted; NULL or blank text is NULL (then ON
// NULL applies); anywhere else JSON() is refused with Flink's message.
import { describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { Session, type StatementResult } from '../../engine/session.js'
import { refusal } from '../planner/refused.js'

async function values(...exprs: string[]): Promise<unknown[]> {
  const [r] = await new Session().executeSql(
    `SELECT ${exprs.join(', ')} FROM (VALUES ('{"key":"value"}', '{"key": {"value": 42}}', CAST(NULL AS STRING))) AS t(f0, f1, n)`,
  )
  return (r as Extract<StatementResult, { kind: 'rows' }>).changes.map(c => c.row as unknown[])[0]!
}

describe('JSON(…) in JSON_OBJECT and JSON_ARRAY', () => {
  it("Flink's documented examples and ITCase", async () => {
    expect(await values(
      `JSON_OBJECT('K' VALUE JSON('{"K2": 42}'))`,
      `JSON_OBJECT('K' VALUE JSON('{"K2":{"K3":42}}'))`,
      `JSON_OBJECT('K' VALUE JSON(''))`,
      `JSON_ARRAY(JSON('{"K":{"K2":42}}'))`,
      `JSON_OBJECT(KEY 'p1' VALUE JSON(f0), KEY 'p2' VALUE JSON(f1), KEY 'p3' VALUE JSON('[1, 2, 3]'))`,
      `JSON_ARRAY(JSON(f0), JSON(f1), JSON('[1, 2, 3]'))`,
      `JSON_OBJECT('a' VALUE JSON(n), 'b' VALUE f0)`,
      `JSON_OBJECT('a' VALUE JSON(n) ABSENT ON NULL)`,
      `JSON_ARRAY(JSON(n), JSON('  '), JSON('"s"'), JSON(' 7 ') NULL ON NULL)`,
    )).toEqual([
      '{"K":{"K2":42}}',
      '{"K":{"K2":{"K3":42}}}',
      '{"K":null}',
      '[{"K":{"K2":42}}]',
      '{"p1":{"key":"value"},"p2":{"key":{"value":42}},"p3":[1,2,3]}',
      '[{"key":"value"},{"key":{"value":42}},[1,2,3]]',
      '{"a":null,"b":"{\\"key\\":\\"value\\"}"}',
      '{}',
      '[null,null,"s",7]',
    ])
  })

  it('is refused outside a JSON_OBJECT / JSON_ARRAY value, with the caret on the call', async () => {
    let r = await refusal(`SELECT JSON('{"value": 42}') FROM (VALUES (1)) AS t(x)`)
    expect(r.message).toBe('The JSON() function is currently only supported inside a JSON_OBJECT() or JSON_ARRAY() function')
    expect(r.at).toBe(`JSON('{"value": 42}')`)
    r = await refusal(`SELECT JSON_OBJECT(KEY JSON('{}') VALUE 'value' ABSENT ON NULL) FROM (VALUES (1)) AS t(x)`)
    expect(r.at).toBe(`JSON('{}')`)
    r = await refusal(`SELECT JSON_ARRAY(JSON(1)) FROM (VALUES (1)) AS t(x)`)
    expect(r.message).toBe("cannot apply 'JSON' to (INT NOT NULL)")
    expect(r.at).toBe('JSON(1)')
  })

  it('text that is not JSON fails the job naming JSON and the text', async () => {
    const e = await values(`JSON_ARRAY(JSON('{"a": '))`).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toMatch(/^JSON received text that is not JSON: .*; text '\{"a": '$/)
  })
})
