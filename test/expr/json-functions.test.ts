// JSON_EXISTS, JSON_VALUE, JSON_QUERY (plain call forms, default ON EMPTY / ON ERROR) and JSON_STRING:
// Flink's documented examples, Jackson's number rendering, lax and strict paths, and refusals.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import { apply, call, col, errorOf, str } from './helpers.js'
import { refusal } from '../planner/refused.js'

const S = T.string()
const q = (name: string, json: unknown, path: unknown) => apply(name, [S, S], [json, path])

describe('JSON functions', () => {
  it("Flink's documented examples", () => {
    expect(q('JSON_EXISTS', '{"a": true}', '$.a')).toBe(true)
    expect(q('JSON_EXISTS', '{"a": true}', '$.b')).toBe(false)
    expect(q('JSON_EXISTS', '{"a": [{ "b": 1 }]}', '$.a[0].b')).toBe(true)
    expect(q('JSON_VALUE', '{"a": true}', '$.a')).toBe('true')
    expect(q('JSON_VALUE', '{"a.b": [0.998,0.996]}', '$.["a.b"][0]')).toBe('0.998')
    expect(q('JSON_QUERY', '{ "a": { "b": 1 } }', '$.a')).toBe('{"b":1}')
    expect(q('JSON_QUERY', '[1, 2]', '$')).toBe('[1,2]')
    expect(q('JSON_QUERY', null, '$')).toBe(null)
    expect(apply('JSON_STRING', [T.int()], [1])).toBe('1')
    expect(apply('JSON_STRING', [T.boolean()], [true])).toBe('true')
    expect(apply('JSON_STRING', [S], ['Hello, World!'])).toBe('"Hello, World!"')
    expect(apply('JSON_STRING', [T.timestamp(3)], [Date.UTC(1990, 5, 2, 13, 37, 42, 1)])).toBe('"1990-06-02T13:37:42.001"')
    expect(apply('JSON_STRING', [T.timestamp(3)], [Date.UTC(1990, 5, 2, 13, 37, 0, 0)])).toBe('"1990-06-02T13:37"')
    expect(apply('JSON_STRING', [T.int()], [null])).toBe(null)
  })

  it('numbers read as Jackson reads them: integers of any size, other numbers as Java doubles', () => {
    const v = (text: string) => q('JSON_VALUE', `{"n": ${text}}`, '$.n')
    expect(v('12')).toBe('12')
    expect(v('-0')).toBe('0')
    expect(v('12345678901234567890123')).toBe('12345678901234567890123')
    expect(v('1.50')).toBe('1.5')
    expect(v('1e2')).toBe('100.0')
    expect(v('1.0')).toBe('1.0')
    expect(v('1.5e7')).toBe('1.5E7')
    expect(v('0.00012')).toBe('1.2E-4')
    expect(q('JSON_QUERY', '{"a": [1.0, 2e0, 3]}', '$.a')).toBe('[1.0,2.0,3]')
  })

  it('members keep their order, strings their escapes', () => {
    expect(q('JSON_QUERY', '{"2": 1, "1": {"b": "x\\"y\\u00e9"}}', '$')).toBe('{"2":1,"1":{"b":"x\\"yé"}}')
    expect(q('JSON_VALUE', '{"s": "tab\\there"}', '$.s')).toBe('tab\there')
  })

  it('empty and error cases give NULL (JSON_EXISTS: FALSE)', () => {
    // A scalar is not a JSON_QUERY result, an object or array not a JSON_VALUE one.
    expect(q('JSON_QUERY', '{"a": 1}', '$.a')).toBe(null)
    expect(q('JSON_VALUE', '{"a": [1]}', '$.a')).toBe(null)
    expect(q('JSON_VALUE', '{"a": null}', '$.a')).toBe(null)
    // Not JSON, or trailing text.
    expect(q('JSON_VALUE', '{"a": 1', '$.a')).toBe(null)
    expect(q('JSON_VALUE', '{"a": 1} x', '$.a')).toBe(null)
    expect(q('JSON_EXISTS', 'nope', '$')).toBe(false)
    // Strict (the default) and lax paths: a member of an array, an index past the end.
    expect(q('JSON_EXISTS', '[1]', 'strict $.a')).toBe(false)
    expect(q('JSON_EXISTS', '[1]', 'lax $.a')).toBe(false)
    expect(q('JSON_VALUE', '[1, 2]', '$[5]')).toBe(null)
    expect(q('JSON_VALUE', '[1, 2]', '$[-1]')).toBe('2')
    expect(q('JSON_EXISTS', null, '$')).toBe(null)
  })

  it('wildcards, index lists and deep scans give every match as one array', () => {
    const doc = '{"a": [{"b": 1}, {"b": 2}, {"c": {"b": 3}}]}'
    expect(q('JSON_QUERY', doc, 'lax $.a[*].b')).toBe('[1,2]')
    expect(q('JSON_QUERY', doc, '$..b')).toBe('[1,2,3]')
    expect(q('JSON_QUERY', doc, '$.a[0, 2]')).toBe('[{"b":1},{"c":{"b":3}}]')
    expect(q('JSON_QUERY', doc, "$['a'][1]")).toBe('{"b":2}')
    // Several matches are not one JSON_VALUE.
    expect(q('JSON_VALUE', doc, 'lax $.a[*].b')).toBe(null)
    expect(q('JSON_EXISTS', doc, 'lax $.a[*].c')).toBe(true)
  })

  it('a path from a column is parsed per distinct text; one that cannot be parsed gives NULL', () => {
    const rex = call('JSON_VALUE', col(0, S), col(1, S))
    expect(apply('JSON_VALUE', [S, S], ['{"a": {"b": "x"}}', '$.a.b'])).toBe('x')
    expect(rex.type.nullable).toBe(true)
    expect(apply('JSON_VALUE', [S, S], ['{"a": 1}', 'a.b'])).toBe(null)
  })

  it('a literal path that cannot be parsed is refused where it is written', () => {
    expect(errorOf(() => call('JSON_VALUE', col(0, S), str('$.a['))).message).toBe(
      "JSON_VALUE: expected an index, a quoted name or * at character 5 of the JSON path '$.a['",
    )
    expect(errorOf(() => call('JSON_EXISTS', col(0, S), str('a.b'))).message).toContain(`a JSON path starts with '$'`)
    expect(errorOf(() => call('JSON_STRING', col(0, T.interval()))).message).toBe('JSON_STRING does not take values of type INTERVAL')
  })

  it('in SQL, the caret on the call', async () => {
    const e = await refusal(`SELECT JSON_QUERY('{}', '$..') FROM (VALUES (1)) AS t(x)`)
    expect(e).toMatchObject({ kind: 'plan', at: "JSON_QUERY('{}', '$..')" })
  })
})
