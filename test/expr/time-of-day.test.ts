// TIME(p): literals, CAST, HOUR/MINUTE/SECOND/EXTRACT, TIME ± INTERVAL (wrapping at midnight),
// comparisons, LOCALTIME / CURRENT_TIME, GROUP BY and ORDER BY keys, the json and csv formats, and
// the errors a bad literal or value gives — against the values Flink documents.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import { formatValue } from '../../common/values.js'
import { formatType } from '../../common/types.js'
import { materialize } from '../oracle/oracle.js'
import { fails } from '../engine/helpers.js'

/** Runs the statements; the last one's rows (materialized inserts), each value as Flink prints it. */
async function rows(sql: string): Promise<string[][]> {
  const results = await new Session({ println: () => undefined }).executeSql(sql)
  const last = results.at(-1) as Extract<StatementResult, { kind: 'rows' }>
  expect(last.kind).toBe('rows')
  return last.changes.map(c => c.row.map((v, i) => formatValue(v, last.schema[i]!.type)))
}

async function types(sql: string): Promise<string[]> {
  const results = await new Session({ println: () => undefined }).executeSql(sql)
  const last = results.at(-1) as Extract<StatementResult, { kind: 'rows' }>
  return last.schema.map(f => `${f.name} ${formatType(f.type)}`)
}

const dir = (): string => mkdtempSync(join(tmpdir(), 'weir-time-'))
const parts = (d: string): string[] =>
  readdirSync(d).filter(f => f.startsWith('part-')).sort().flatMap(f => readFileSync(join(d, f), 'utf8').split('\n').filter(l => l.length > 0))

describe('TIME values', () => {
  it('literals take the precision of their fraction and print as Flink prints them', async () => {
    expect(await rows(`SELECT TIME '12:34:56.789', TIME '01:02:03', TIME '00:00:00', TIME '23:59:59.5'`))
      .toEqual([['12:34:56.789', '01:02:03', '00:00:00', '23:59:59.5']])
    expect(await types(`SELECT TIME '12:34:56.789' AS a, TIME '01:02:03' AS b, LOCALTIME AS c`)).toEqual(['a TIME(3) NOT NULL', 'b TIME(0) NOT NULL',
      'c TIME(0) NOT NULL'])
  })

  it('CAST to and from STRING, from TIMESTAMP, and to TIMESTAMP', async () => {
    expect(await rows(`SELECT CAST('23:59:59' AS TIME), CAST(' 7:05:09.123 ' AS TIME(3)), CAST(TIME '12:34:56.789' AS STRING),
      CAST(CAST('12:34:56.789' AS TIME(3)) AS TIME), CAST(TIMESTAMP '2024-01-02 10:11:12.345' AS TIME(3)), CAST(TIME '10:11:12' AS TIMESTAMP(0)),
      TRY_CAST('24:00:00' AS TIME)`))
      .toEqual([['23:59:59', '07:05:09.123', '12:34:56.789', '12:34:56', '10:11:12.345', '1970-01-01 10:11:12.000', 'NULL']])
  })

  it('HOUR, MINUTE, SECOND and EXTRACT read a TIME; date fields are refused', async () => {
    expect(await rows(`SELECT HOUR(TIME '12:34:56'), MINUTE(TIME '12:34:56'), SECOND(TIME '12:34:56'), EXTRACT(MILLISECOND FROM TIME '12:34:56.789'),
      EXTRACT(HOUR FROM TIME '00:00:00')`)).toEqual([['12', '34', '56', '789', '0']])
    const e = await fails(`SELECT EXTRACT(YEAR FROM TIME '12:34:56')`)
    expect(e.message).toBe('cannot extract YEAR from a TIME')
  })

  it('TIME ± a day-time interval wraps around midnight; comparisons order by time of day', async () => {
    expect(await rows(`SELECT TIME '23:00:00' + INTERVAL '2' HOUR, TIME '01:00:00' - INTERVAL '90' MINUTE, INTERVAL '1' SECOND + TIME '10:00:00',
      TIME '10:00:00' + INTERVAL '3' DAY, TIME '10:00:00' < TIME '11:00:00', TIME '10:00:00' = CAST('10:00:00' AS TIME), TIME '10:00:00' > '09:59:59'`))
      .toEqual([['01:00:00', '23:30:00', '10:00:01', '10:00:00', 'TRUE', 'TRUE', 'TRUE']])
    const e = await fails(`SELECT TIME '10:00:00' - TIME '09:00:00'`)
    expect(e.message).toBe('cannot subtract TIME(0) from TIME(0)')
  })

  it('LOCALTIME and CURRENT_TIME: the time of day in UTC (the session zone), in whole seconds', async () => {
    const before = Date.now() % 86_400_000
    const [[a, b]] = await rows(`SELECT LOCALTIME, CURRENT_TIME`)
    const after = Date.now() % 86_400_000
    const toMs = (t: string): number => t.split(':').reduce((acc, x) => acc * 60 + Number(x), 0) * 1000
    for (const t of [a!, b!]) {
      expect(t).toMatch(/^\d\d:\d\d:\d\d$/)
      if (after > before) expect(toMs(t)).toBeGreaterThanOrEqual(before - (before % 1000))
      if (after > before) expect(toMs(t)).toBeLessThanOrEqual(after)
    }
  })

  it('a bad literal points at itself with line and column', async () => {
    const e = await fails(`SELECT 1,\n  TIME '25:00:00'`)
    expect(e.message).toBe("invalid TIME literal '25:00:00'")
    expect(e.span?.start).toMatchObject({ line: 2, column: 3 })
    expect(e.help).toContain('HH:mm:ss')
    const c = await fails(`SELECT CAST('12:61:00' AS TIME)`)
    expect(c.message).toBe("cannot cast '12:61:00' to TIME(0)")
    const p = await fails(`CREATE TABLE t (a TIME(10)) WITH ('connector' = 'datagen')`)
    expect(p.message).toBe('TIME precision must be between 0 and 9, got 10')
  })
})

describe('TIME columns', () => {
  it('GROUP BY and ORDER BY a TIME key over a file; json writes whole seconds as Flink does, csv keeps milliseconds', async () => {
    const d = dir(), outJson = dir(), outCsv = dir()
    writeFileSync(join(d, 'in.csv'), ['09:00:00.250,1', '08:30:00,2', '09:00:00.250,3', '23:59:59.999,4', ',5'].join('\n') + '\n')
    const session = new Session({ println: () => undefined })
    await session.executeSql(`
      CREATE TABLE src (t TIME(3), n INT) WITH ('connector' = 'filesystem', 'path' = '${d}', 'format' = 'csv');
      CREATE TABLE j (t TIME(3), total INT) WITH ('connector' = 'filesystem', 'path' = '${outJson}', 'format' = 'json');
      CREATE TABLE c (t TIME(3), n INT) WITH ('connector' = 'filesystem', 'path' = '${outCsv}', 'format' = 'csv');
      INSERT INTO j SELECT t, n FROM src;
      INSERT INTO c SELECT t, n FROM src;`)
    await session.awaitJobs()
    expect(parts(outJson)).toEqual(['{"t":"09:00:00","total":1}', '{"t":"08:30:00","total":2}', '{"t":"09:00:00","total":3}', '{"t":"23:59:59","total":4}',
      '{"t":null,"total":5}'])
    expect(parts(outCsv)).toEqual(['09:00:00.25,1', '08:30:00,2', '09:00:00.25,3', '23:59:59.999,4', ',5'])
    const [, grouped] = await session.executeSql(`
      CREATE TABLE back (t TIME(3), n INT) WITH ('connector' = 'filesystem', 'path' = '${outCsv}', 'format' = 'csv');
      SELECT t, SUM(n) AS s, MIN(t) AS lo FROM back GROUP BY t ORDER BY t`) as [unknown, Extract<StatementResult, { kind: 'rows' }>]
    expect(materialize(grouped.changes).map(r => r.map((v, i) => formatValue(v, grouped.schema[i]!.type))))
      .toEqual([['NULL', '5', 'NULL'], ['08:30:00.000', '2', '08:30:00.000'], ['09:00:00.250', '4', '09:00:00.250'], ['23:59:59.999', '4', '23:59:59.999']])
    const [, fromJson] = await session.executeSql(`
      CREATE TABLE jb (t TIME(3), total INT) WITH ('connector' = 'filesystem', 'path' = '${outJson}', 'format' = 'json');
      SELECT t FROM jb WHERE total = 4`) as [unknown, Extract<StatementResult, { kind: 'rows' }>]
    expect(fromJson.changes.map(c => formatValue(c.row[0], fromJson.schema[0]!.type))).toEqual(['23:59:59.000'])
  })

  it('a bad TIME in a file is a bad record with its file and line', async () => {
    const d = dir()
    writeFileSync(join(d, 'in.json'), '{"t":"10:00:00"}\n{"t":"24:10:00"}\n')
    const e = await fails(`CREATE TABLE src (t TIME) WITH ('connector' = 'filesystem', 'path' = '${d}', 'format' = 'json');
      SELECT * FROM src`)
    expect(e.message).toContain('"24:10:00"')
    expect(e.message).toContain('TIME(0)')
    expect(`${e.message} ${e.help ?? ''}`).toContain('in.json')
  })
})

describe('OVERLAPS', () => {
  it("Flink's documented examples, swapped ends, touching ends, and a period that is not two values", async () => {
    expect(await rows(`SELECT (TIME '2:55:00', INTERVAL '1' HOUR) OVERLAPS (TIME '3:30:00', INTERVAL '2' HOUR),
      (TIME '9:00:00', TIME '10:00:00') OVERLAPS (TIME '10:15:00', INTERVAL '3' HOUR),
      (TIMESTAMP '2024-01-10 00:00:00', TIMESTAMP '2024-01-01 00:00:00') OVERLAPS (DATE '2024-01-05', DATE '2024-01-06'),
      (DATE '2024-01-01', DATE '2024-01-10') OVERLAPS (DATE '2024-01-10', DATE '2024-01-20'),
      (DATE '2024-01-01', CAST(NULL AS DATE)) OVERLAPS (DATE '2024-01-10', DATE '2024-01-20')`))
      .toEqual([['TRUE', 'FALSE', 'TRUE', 'TRUE', 'NULL']])
    const e = await fails(`SELECT (1, 2) OVERLAPS (3, 4)`)
    expect(e.message).toBe('OVERLAPS needs periods of one datetime type, got INT, INT, INT, INT')
    const p = await fails(`SELECT DATE '2024-01-01' OVERLAPS (DATE '2024-01-10', DATE '2024-01-20')`)
    expect(p.message).toBe('OVERLAPS compares two periods written (start, end) or (start, interval)')
  })
})
