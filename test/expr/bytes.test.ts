// BYTES / VARBINARY(n) / BINARY(n): x'…' literals, CAST between STRING and BYTES (UTF-8), HEX and
// UNHEX, comparisons byte by byte, GROUP BY and ORDER BY keys, the json and csv formats (base64, as
// Flink's), printing as x'…', and the errors of a bad literal or value.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import { formatType } from '../../common/types.js'
import { formatValue } from '../../common/values.js'
import { fails } from '../engine/helpers.js'
import { materialize } from '../oracle/oracle.js'

async function result(sql: string, session = new Session({ println: () => undefined })): Promise<Extract<StatementResult, { kind: 'rows' }>> {
  const last = (await session.executeSql(sql)).at(-1) as Extract<StatementResult, { kind: 'rows' }>
  expect(last.kind).toBe('rows')
  return last
}

async function rows(sql: string, session?: Session): Promise<string[][]> {
  const r = await result(sql, session)
  return materialize(r.changes).map(row => row.map((v, i) => formatValue(v, r.schema[i]!.type)))
}

const dir = (): string => mkdtempSync(join(tmpdir(), 'weir-bytes-'))
const parts = (d: string): string[] =>
  readdirSync(d).filter(f => f.startsWith('part-')).sort().flatMap(f => readFileSync(join(d, f), 'utf8').split('\n').filter(l => l.length > 0))

describe('BYTES values', () => {
  it("literals, CAST to and from STRING as UTF-8, printed as x'…'", async () => {
    expect(await rows(`SELECT x'0aFF', X'', CAST('héllo' AS BYTES), CAST(x'68c3a96c6c6f' AS STRING), CAST(x'00ff' AS VARBINARY(4)), CAST('a' AS BINARY(1))`))
      .toEqual([["x'0aff'", "x''", "x'68c3a96c6c6f'", 'héllo', "x'00ff'", "x'61'"]])
    const r = await result(`SELECT x'01' AS a, CAST(NULL AS BYTES) AS b`)
    expect(r.schema.map(f => formatType(f.type))).toEqual(['BYTES NOT NULL', 'BYTES'])
  })

  it('compare byte by byte, unsigned, a prefix first', async () => {
    expect(await rows(`SELECT x'0a' < x'0aff', x'ff' > x'0aff', x'0aff' = x'0AFF', x'0aff' <> x'0aff', x'01' IS DISTINCT FROM x'02', x'80' > x'7f'`))
      .toEqual([['TRUE', 'TRUE', 'TRUE', 'FALSE', 'TRUE', 'TRUE']])
  })

  it('HEX and UNHEX (an odd count of digits gets a leading 0; a non-hex character gives NULL, as Flink)', async () => {
    expect(await rows(`SELECT HEX(x'0aff'), UNHEX('0aFF'), UNHEX('abc'), UNHEX('zz'), HEX(UNHEX('00112233'))`))
      .toEqual([['0AFF', "x'0aff'", "x'0abc'", 'NULL', '00112233']])
  })

  it('a bad literal points at itself with line and column; MIN of BYTES is refused as in Flink', async () => {
    const e = await fails(`SELECT 1,\n   x'0g'`)
    expect(e.message).toBe("invalid binary literal x'0g'")
    expect(e.span?.start).toMatchObject({ line: 2, column: 4 })
    expect((await fails(`SELECT x'abc'`)).message).toBe("invalid binary literal x'abc'")
    const m = await fails(`SELECT MIN(x'01')`)
    expect(m.message).toContain('MIN')
  })
})

describe('BYTES columns', () => {
  it('GROUP BY and ORDER BY a BYTES key; json and csv write base64 as Flink does and read it back', async () => {
    const d = dir(), outJson = dir(), outCsv = dir()
    writeFileSync(join(d, 'in.csv'), ['CgE=,1', '/w==,2', 'CgE=,3', ',4', 'AA==,5'].join('\n') + '\n')
    const session = new Session({ println: () => undefined })
    await session.executeSql(`
      CREATE TABLE src (b BYTES, n INT) WITH ('connector' = 'filesystem', 'path' = '${d}', 'format' = 'csv');
      CREATE TABLE j (b VARBINARY(10), n INT) WITH ('connector' = 'filesystem', 'path' = '${outJson}', 'format' = 'json');
      CREATE TABLE c (b BYTES, n INT) WITH ('connector' = 'filesystem', 'path' = '${outCsv}', 'format' = 'csv');
      INSERT INTO j SELECT b, n FROM src;
      INSERT INTO c SELECT b, n FROM src;`)
    await session.awaitJobs()
    expect(parts(outJson)).toEqual(['{"b":"CgE=","n":1}', '{"b":"/w==","n":2}', '{"b":"CgE=","n":3}', '{"b":null,"n":4}', '{"b":"AA==","n":5}'])
    expect(parts(outCsv)).toEqual(['CgE=,1', '/w==,2', 'CgE=,3', ',4', 'AA==,5'])
    expect(await rows(`
      CREATE TABLE back (b BYTES, n INT) WITH ('connector' = 'filesystem', 'path' = '${outJson}', 'format' = 'json');
      SELECT b, SUM(n) FROM back GROUP BY b ORDER BY b`, session))
      .toEqual([['NULL', '4'], ["x'00'", '5'], ["x'0a01'", '4'], ["x'ff'", '2']])
  })

  it('a value that is not base64 is a bad record naming the file', async () => {
    const d = dir()
    writeFileSync(join(d, 'in.json'), '{"b":"CgE="}\n{"b":"not base64!"}\n')
    const e = await fails(`CREATE TABLE src (b BYTES) WITH ('connector' = 'filesystem', 'path' = '${d}', 'format' = 'json');
      SELECT * FROM src`)
    expect(e.message).toContain('"not base64!"')
    expect(e.message).toContain('BYTES')
    expect(`${e.message} ${e.help ?? ''}`).toContain('in.json')
  })
})
