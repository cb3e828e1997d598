// The SQL/JSON functions over a JSON-lines file whose `payload` column holds JSON text (random
// documents: fields missing, JSON null, of another kind, broken text). DuckDB is the oracle where its
// json functions mean the same (json_extract_string on string-or-null members, json_type for IS JSON
// OBJECT, both on texts JSON.parse takes: DuckDB also takes a trailing comma); the clause behaviours are computed here from JSON.parse
// with Flink's rules (lax: a miss or JSON null is "empty"; a value of the wrong kind is "error").
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { seededRandom } from '../../common/random.js'
import { Session, type StatementResult } from '../../engine/session.js'

const ROWS = 600

function payloads(seed: number): string[] {
  const rnd = seededRandom(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const out: string[] = []
  for (let i = 0; i < ROWS; i++) {
    const shape = rnd()
    if (shape < 0.05) {
      out.push(pick(['{"name": "cut', 'not json', '', '{"a": 1,}']))
      continue
    }
    if (shape < 0.1) {
      out.push(pick(['5', '"text"', 'true', 'null']))
      continue
    }
    const doc: Record<string, unknown> = {}
    const name = rnd()
    if (name < 0.7) doc.name = pick(['ann', 'bo', 'c"d', 'e\\f', 'gé', ''])
    else if (name < 0.8) doc.name = null
    const n = rnd()
    if (n < 0.5) doc.n = Math.floor(rnd() * 2000) - 1000
    else if (n < 0.6) doc.n = pick([1.5, -0.25, 3e9, 2147483647, -2147483648, 2147483648])
    else if (n < 0.7) doc.n = pick(['7', 'x'])
    else if (n < 0.75) doc.n = null
    else if (n < 0.8) doc.n = { v: 1 }
    const obj = rnd()
    if (obj < 0.5) doc.obj = { x: Math.floor(rnd() * 10) }
    else if (obj < 0.6) doc.obj = { y: 1 }
    else if (obj < 0.7) doc.obj = pick([[1], 'o'])
    const tags = rnd()
    if (tags < 0.4) doc.tags = Array.from({ length: Math.floor(rnd() * 3) }, () => pick(['a', 'b', 1, 2]))
    else if (tags < 0.55) doc.tags = pick(['solo', 3])
    else if (tags < 0.6) doc.tags = null
    else if (tags < 0.7) doc.tags = { t: 1 }
    // Members in a random order: Weir keeps the written order when it writes JSON back.
    const keys = Object.keys(doc).sort(() => rnd() - 0.5)
    out.push(`{${keys.map(k => `${JSON.stringify(k)}: ${JSON.stringify(doc[k])}`).join(', ')}}`)
  }
  return out
}

function parse(text: string): { ok: true; v: unknown } | { ok: false } {
  try {
    return { ok: true, v: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** JSON_VALUE(p, 'lax $.n' RETURNING INT DEFAULT -1 ON EMPTY DEFAULT -2 ON ERROR) by Flink's rules (JsonFunctionsITCase). */
function expectedN(text: string): number {
  const p = parse(text)
  if (!p.ok) return -2
  const n = isObject(p.v) ? p.v.n : undefined
  if (n === undefined || n === null || typeof n === 'object') return -1
  // A number truncates toward zero, a string converts as CAST does; out of INT's range is an error.
  const x = typeof n === 'number' ? Math.trunc(n) + 0 : typeof n === 'string' && /^-?\d+$/.test(n) ? Number(n) : NaN
  return Number.isInteger(x) && x >= -2147483648 && x <= 2147483647 ? x : -2
}

/** JSON_EXISTS(p, 'lax $.obj.x'): a broken text is FALSE (FALSE ON ERROR). */
function expectedExists(text: string): boolean {
  const p = parse(text)
  return p.ok && isObject(p.v) && isObject(p.v.obj) && 'x' in p.v.obj
}

/** JSON_QUERY(p, 'lax $.tags' WITH CONDITIONAL ARRAY WRAPPER EMPTY ARRAY ON EMPTY): NULL for a broken text. */
function expectedTags(text: string): string | null {
  const p = parse(text)
  if (!p.ok) return null
  const t = isObject(p.v) ? p.v.tags : undefined
  if (t === undefined || t === null) return '[]'
  return JSON.stringify(Array.isArray(t) ? t : [t])
}

/** JSON_OBJECT('id' VALUE id, 'name' VALUE JSON_VALUE(p, 'lax $.name') ABSENT ON NULL). */
function expectedObject(id: number, text: string): string {
  const p = parse(text)
  const name = p.ok && isObject(p.v) ? p.v.name : undefined
  return JSON.stringify(typeof name === 'string' ? { id, name } : { id })
}

describe.each([11, 12])('JSON functions over a JSON-lines file, seed %i', seed => {
  let dir: string
  let path: string
  let docs: string[]
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'weir-json-lines-'))
    path = join(dir, 'events.jsonl')
    docs = payloads(seed)
    writeFileSync(path, docs.map((d, id) => JSON.stringify({ id, payload: d })).join('\n') + '\n')
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('JSON_VALUE, JSON_EXISTS, JSON_QUERY, IS JSON and JSON_OBJECT per row', async () => {
    const [r] = await new Session({ println: () => undefined }).executeSql(`
      CREATE TABLE t (id BIGINT, payload STRING) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
      SELECT id, JSON_VALUE(payload, '$.name'),
        JSON_VALUE(payload, 'lax $.n' RETURNING INT DEFAULT -1 ON EMPTY DEFAULT -2 ON ERROR),
        JSON_EXISTS(payload, 'lax $.obj.x'),
        JSON_QUERY(payload, 'lax $.tags' WITH CONDITIONAL ARRAY WRAPPER EMPTY ARRAY ON EMPTY),
        payload IS JSON OBJECT,
        JSON_OBJECT('id' VALUE id, 'name' VALUE JSON_VALUE(payload, 'lax $.name') ABSENT ON NULL)
      FROM t`).then(rs => rs.slice(-1))
    const got = (r as Extract<StatementResult, { kind: 'rows' }>).changes.map(c => c.row as unknown[]).sort((a, b) => Number(a[0]) - Number(b[0]))
    expect(got.length).toBe(ROWS)

    // DuckDB: the names (members that are strings or null, in valid documents) and IS JSON OBJECT.
    const duck = await DuckDBInstance.create(':memory:')
    const con = await duck.connect()
    const reader = await con.runAndReadAll(`
      SELECT id, CASE WHEN json_type(j) = 'OBJECT' THEN json_extract_string(j, '$.name') END, valid AND json_type(j) = 'OBJECT'
      FROM (SELECT id, json_valid(payload) AS valid, CASE WHEN json_valid(payload) THEN payload ELSE 'null' END AS j
        FROM read_json('${path}', format = 'newline_delimited', columns = {id: 'BIGINT', payload: 'VARCHAR'})) ORDER BY id`)
    const oracle = reader.getRows()
    con.closeSync()
    duck.closeSync()
    expect(oracle.length).toBe(ROWS)

    for (let i = 0; i < ROWS; i++) {
      const row = got[i]!
      const text = docs[i]!
      const context = `row ${i}: ${text}`
      expect(Number(row[0]), context).toBe(i)
      // DuckDB reads `{"a": 1,}` as JSON; Jackson (Flink) and JSON.parse do not: DuckDB answers only for texts both take.
      const valid = parse(text).ok
      expect(row[1], context).toBe(valid ? oracle[i]![1] ?? null : null)
      expect(row[5], context).toBe(valid ? oracle[i]![2] : false)
      expect(row[2], context).toBe(expectedN(text))
      expect(row[3], context).toBe(expectedExists(text))
      expect(row[4], context).toBe(expectedTags(text))
      expect(row[6], context).toBe(expectedObject(i, text))
    }
  })
})
