// DECODE / ENCODE (charsets as Java's), JSON_QUOTE / JSON_UNQUOTE, CURRENT_DATABASE(), GROUP_ID()
// in grouping sets, FLOOR / CEIL of a TIME, and PERCENTILE's arguments: values as Flink gives
// them, NULLs, and the errors of bad arguments with their SQL position.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import { formatValue } from '../../common/values.js'
import { fails } from '../engine/helpers.js'
import { materialize } from '../oracle/oracle.js'
import { decode, encode } from '../../expr/functions/charsets.js'
import { jsonQuote, jsonUnquote } from '../../expr/functions/json-quote.js'
import { exactPercentiles } from '../../operators/percentile.js'

async function rows(sql: string, session = new Session({ println: () => undefined })): Promise<string[][]> {
  const last = (await session.executeSql(sql)).at(-1) as Extract<StatementResult, { kind: 'rows' }>
  expect(last.kind).toBe('rows')
  return materialize(last.changes).map(row => row.map((v, i) => formatValue(v, last.schema[i]!.type)))
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase()

describe('ENCODE and DECODE', () => {
  it("encode as Java's String.getBytes: '?' for what a charset cannot hold, a byte order mark for UTF-16", () => {
    expect(hex(encode('a€', 'UTF-8'))).toBe('61E282AC')
    expect(hex(encode('a€', 'UTF-16'))).toBe('FEFF006120AC')
    expect(hex(encode('a€', 'UTF-16BE'))).toBe('006120AC')
    expect(hex(encode('a€', 'UTF-16LE'))).toBe('6100AC20')
    expect(hex(encode('aé€😀', 'ISO-8859-1'))).toBe('61E93F3F')
    expect(hex(encode('aé😀', 'US-ASCII'))).toBe('613F3F')
    expect(hex(encode('a\uD800', 'UTF-8'))).toBe('613F')
  })

  it('decode as new String(bytes, charset): U+FFFD for invalid bytes, the byte order mark read and dropped', () => {
    expect(decode(Uint8Array.from([0x61, 0xff]), 'US-ASCII')).toBe('a\uFFFD')
    expect(decode(Uint8Array.from([0xe9]), 'ISO-8859-1')).toBe('é')
    expect(decode(Uint8Array.from([0xc3]), 'UTF-8')).toBe('\uFFFD')
    expect(decode(Uint8Array.from([0xff, 0xfe, 0x61, 0x00]), 'UTF-16')).toBe('a')
    expect(decode(Uint8Array.from([0xfe, 0xff, 0x00, 0x61]), 'UTF-16')).toBe('a')
    expect(decode(Uint8Array.from([0x00, 0x61]), 'UTF-16')).toBe('a')
    for (const cs of ['UTF-8', 'UTF-16', 'UTF-16BE', 'UTF-16LE'] as const) expect(decode(encode('Flink 😀 é', cs), cs)).toBe('Flink 😀 é')
  })

  it('in SQL: round trips, charset names in any case, NULL in either argument gives NULL', async () => {
    expect(await rows(`SELECT DECODE(ENCODE('Flink', 'UTF-8'), 'UTF-8'), HEX(ENCODE('ab', 'utf-16le')), DECODE(UNHEX('466C696E6B'), 'us-ascii'),
      ENCODE(CAST(NULL AS STRING), 'UTF-8'), DECODE(X'61', CAST(NULL AS STRING)), DECODE(NULL, 'UTF-8')`))
      .toEqual([['Flink', '61006200', 'Flink', 'NULL', 'NULL', 'NULL']])
    // A charset from a column is checked per row.
    expect(await rows(`SELECT DECODE(ENCODE(s, c), c) FROM (VALUES ('é', 'UTF-16LE'), ('é', 'ISO-8859-1')) AS t(s, c)`)).toEqual([['é'], ['é']])
  })

  it('refuse an unknown charset where it is written (a literal) or at run time (a column), and DECODE of a string', async () => {
    const e = await fails(`SELECT 1,\n  ENCODE('a', 'UTF-32')`)
    expect(e.message).toBe("ENCODE: unsupported charset 'UTF-32'")
    expect(e.span?.start).toMatchObject({ line: 2, column: 3 })
    expect(e.help).toContain("'US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16'")
    const r = await fails(`SELECT DECODE(X'61', c) FROM (VALUES ('latin9')) AS t(c)`)
    expect(r.message).toContain("DECODE: unsupported charset 'latin9'")
    const d = await fails(`SELECT DECODE('abc', 'UTF-8')`)
    expect(d.message).toBe("cannot apply 'DECODE' to a STRING: it decodes BYTES")
    expect(d.span?.start).toMatchObject({ line: 1, column: 8 })
  })
})

describe('JSON_QUOTE and JSON_UNQUOTE', () => {
  it("JSON_QUOTE escapes quotes, backslash, '/', the named controls and every unit above U+007F (as Flink)", () => {
    expect(jsonQuote('Hello, World!')).toBe('"Hello, World!"')
    expect(jsonQuote('a"b\\c/d\n\t\r\b\f')).toBe('"a\\"b\\\\c\\/d\\n\\t\\r\\b\\f"')
    expect(jsonQuote('é😀')).toBe('"\\u00e9\\ud83d\\ude00"')
  })

  it('JSON_UNQUOTE undoes a valid JSON string literal and passes anything else through', () => {
    expect(jsonUnquote('"a\\tb\\u00e9\\/"')).toBe('a\tbé/')
    expect(jsonUnquote('Hello, World!')).toBe('Hello, World!')
    expect(jsonUnquote('"bad \\x escape"')).toBe('"bad \\x escape"')
    expect(jsonUnquote('123')).toBe('123')
    expect(jsonUnquote('"')).toBe('"')
    for (const s of ['', 'plain', 'é😀 "q" \\ /', '\n\t']) expect(jsonUnquote(jsonQuote(s))).toBe(s)
  })

  it('in SQL, NULL for NULL', async () => {
    expect(await rows(`SELECT JSON_QUOTE('a"b'), JSON_UNQUOTE('"[1]"'), JSON_QUOTE(CAST(NULL AS STRING)), JSON_UNQUOTE(CAST(NULL AS STRING))`))
      .toEqual([['"a\\"b"', '[1]', 'NULL', 'NULL']])
  })
})

describe('CURRENT_DATABASE()', () => {
  it('is the database USE chose, when the query was planned', async () => {
    const session = new Session({ println: () => undefined })
    expect(await rows('SELECT CURRENT_DATABASE()', session)).toEqual([['default_database']])
    await session.executeSql('CREATE DATABASE sales; USE sales;')
    expect(await rows('SELECT CURRENT_DATABASE(), UPPER(CURRENT_DATABASE())', session)).toEqual([['sales', 'SALES']])
    const e = await fails('SELECT CURRENT_DATABASE(1)')
    expect(e.message).toBe("'CURRENT_DATABASE' takes 0 arguments but was given 1")
  })
})

describe('GROUP_ID()', () => {
  it('tells apart grouping sets listed more than once', async () => {
    expect((await rows(`SELECT k, GROUP_ID(), GROUPING(k), COUNT(*) FROM (VALUES ('a'), ('b'), ('a')) AS t(k)
      GROUP BY GROUPING SETS ((k), (k), (), (k), ())`)).map(r => r.join(' ')).sort())
      .toEqual(['NULL 0 1 3', 'NULL 1 1 3', 'a 0 0 2', 'a 1 0 2', 'a 2 0 2', 'b 0 0 1', 'b 1 0 1', 'b 2 0 1'])
    expect(await rows(`SELECT k, GROUP_ID() FROM (VALUES ('a')) AS t(k) GROUP BY k`)).toEqual([['a', '0']])
    const e = await fails(`SELECT k, GROUP_ID(k) FROM (VALUES ('a')) AS t(k) GROUP BY ROLLUP (k)`)
    expect(e.message).toBe('GROUP_ID takes no arguments, got 1')
    expect(e.span?.start).toMatchObject({ line: 1, column: 11 })
  })
})

describe('FLOOR and CEIL of a TIME', () => {
  it('to HOUR, MINUTE, SECOND and MILLISECOND; a CEIL past 23:00 wraps to 00:00', async () => {
    expect(await rows(`SELECT FLOOR(TIME '12:44:31' TO MINUTE), CEIL(TIME '12:44:31' TO MINUTE), FLOOR(TIME '12:44:31' TO HOUR),
      CEIL(TIME '12:44:00' TO MINUTE), CEIL(TIME '23:44:31' TO HOUR), FLOOR(CAST(NULL AS TIME) TO SECOND)`))
      .toEqual([['12:44:00', '12:45:00', '12:00:00', '12:44:00', '00:00:00', 'NULL']])
    const e = await fails(`SELECT FLOOR(TIME '12:44:31' TO DAY)`)
    expect(e.message).toBe("'FLOOR_TO' does not support the unit 'DAY'")
  })
})

describe('PERCENTILE', () => {
  it("interpolates as Flink's PercentileAggFunction", () => {
    expect(exactPercentiles([[0, 1], [10, 2]], [0.3])).toEqual([(2 - 1.6) * 0 + (1.6 - 1) * 10])
    expect(exactPercentiles([[10, 1], [0, 1]], [0.75, 0.25, 0, 1])).toEqual([7.5, 2.5, 0, 10])
    expect(exactPercentiles([[5, 3]], [0.5])).toEqual([5])
    expect(exactPercentiles([[5, 0], [6, -1]], [0.5])).toBeNull()
  })

  it('in SQL: the examples of Flink, NULLs left out, NULL for no values', async () => {
    expect(await rows(`SELECT PERCENTILE(col, 0.5), PERCENTILE(col, ARRAY[0.25, 0.75]), PERCENTILE(col, 0.5, f),
        PERCENTILE(CAST(NULL AS INT), 0.5), PERCENTILE(col, ARRAY[0.5]) FILTER (WHERE col > 100)
      FROM (VALUES (0, 1), (10, 2), (CAST(NULL AS INT), 5), (4, CAST(NULL AS INT)), (7, 0)) AS t(col, f)`))
      .toEqual([['5.5', '[3.0, 7.75]', '10.0', 'NULL', 'NULL']])
  })

  it('refuses a percentage outside [0, 1], one that is not a constant, and a non-integer frequency, pointing at it', async () => {
    const e = await fails(`SELECT PERCENTILE(col,\n  ARRAY[0.5, 1.5]) FROM (VALUES (1)) AS t(col)`)
    expect(e.message).toBe('the percentage of PERCENTILE must be between 0 and 1, got 1.5')
    expect(e.span?.start).toMatchObject({ line: 2, column: 3 })
    expect((await fails(`SELECT PERCENTILE(col, col) FROM (VALUES (1)) AS t(col)`)).message)
      .toBe('the percentage of PERCENTILE must be a numeric constant or an ARRAY of them')
    expect((await fails(`SELECT PERCENTILE(col, 0.5, 'x') FROM (VALUES (1)) AS t(col)`)).message)
      .toBe('the frequency of PERCENTILE must be an integer, got CHAR(1)')
    expect((await fails(`SELECT PERCENTILE('a', 0.5)`)).message).toBe('PERCENTILE does not accept CHAR(1)')
    expect((await fails(`SELECT PERCENTILE(1)`)).message).toBe('PERCENTILE takes two or three arguments, got 1')
  })
})
