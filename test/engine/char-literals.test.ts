// A string literal is CHAR(n) NOT NULL as in Flink (n its length): TYPEOF, `||` of CHARs (the
// summed length), CASE / COALESCE / UNION of CHARs (one length: that CHAR; different lengths: a
// STRING and no padding — Flink pads to the longest, a deliberate difference), a literal written to
// a STRING column, DESCRIBE of a view and CREATE TABLE AS SELECT of a literal column.
import { describe, expect, it } from 'vitest'
import { type CompatPage, runCase } from '../compat/compat-case.js'

const PAGE: CompatPage = {
  page: 'char literals',
  tables: [{ name: 'src', columns: 'id INT, s STRING', rows: [{ id: 1, s: 'x' }, { id: 2, s: 'yy' }] }],
  cases: [],
}

async function lines(sql: string, before?: string): Promise<string[]> {
  const outcome = await runCase(PAGE, { name: sql, sql, expect: [], ...(before !== undefined ? { before } : {}) })
  if (!outcome.ok) throw new Error(outcome.error)
  return outcome.lines
}

describe('string literals are CHAR(n)', () => {
  it("types a literal CHAR(n) NOT NULL, '' CHAR(0), and || of CHARs the CHAR of their lengths", async () => {
    expect(await lines(`SELECT TYPEOF('a'), TYPEOF('a', TRUE), TYPEOF(''), TYPEOF('héllo')`)).toEqual([
      'CHAR(1) NOT NULL | CHAR(1) NOT NULL | CHAR(0) NOT NULL | CHAR(5) NOT NULL',
    ])
    expect(await lines(`SELECT TYPEOF('a' || 'bc'), 'a' || 'bc', TYPEOF(CONCAT('a', 'bc')), TYPEOF(s || 'a') FROM src WHERE id = 1`)).toEqual([
      'CHAR(3) NOT NULL | abc | STRING NOT NULL | STRING',
    ])
  })

  it('gives CASE and COALESCE of CHARs of one length that CHAR, of different lengths an unpadded STRING', async () => {
    const sql = `SELECT id, CASE WHEN id = 1 THEN 'a' ELSE 'bcd' END, TYPEOF(CASE WHEN id = 1 THEN 'a' ELSE 'bcd' END),
      TYPEOF(CASE WHEN id = 1 THEN 'ab' ELSE 'cd' END), CHAR_LENGTH(CASE WHEN id = 1 THEN 'a' ELSE 'bcd' END),
      TYPEOF(COALESCE(CAST(NULL AS STRING), 'x')), CASE WHEN id = 1 THEN 'a' ELSE 'bcd' END = 'a' FROM src`
    expect(await lines(sql)).toEqual([
      '1 | a | STRING NOT NULL | CHAR(2) NOT NULL | 1 | STRING NOT NULL | TRUE',
      '2 | bcd | STRING NOT NULL | CHAR(2) NOT NULL | 3 | STRING NOT NULL | FALSE',
    ])
  })

  it('unions CHARs of different lengths without padding, and compares a CHAR as the string it is', async () => {
    expect(await lines(`SELECT c, CHAR_LENGTH(c) FROM (SELECT 'a' AS c UNION ALL SELECT 'bcd' AS c)`)).toEqual(['a | 1', 'bcd | 3'])
    expect(await lines(`SELECT 'a' = 'a ', 'a' < 'ab', 'b' IN ('a', 'bb', 'b')`)).toEqual(['FALSE | TRUE | TRUE'])
  })

  it('writes a CHAR literal into a STRING column, and a view and CTAS of a literal column are CHAR(n) NOT NULL', async () => {
    const out = await lines(`SELECT * FROM sink`,
      `CREATE TABLE sink (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '\${dir}/sink', 'format' = 'json');
      INSERT INTO sink SELECT 'key', id FROM src`)
    expect(out).toEqual(['key | 1', 'key | 2'])
    expect(await lines(`CREATE VIEW v AS SELECT 'x' AS c, s FROM src; DESCRIBE v`)).toEqual(['c | CHAR(1) NOT NULL', 's | STRING'])
    const ctas = await lines(`DESCRIBE t`,
      `CREATE TABLE t WITH ('connector' = 'filesystem', 'path' = '\${dir}/t', 'format' = 'json') AS SELECT 'abc' AS c, id FROM src`)
    expect(ctas).toEqual(['c | CHAR(3) | FALSE |  |  | ', 'id | INT | TRUE |  |  | '])
  })
})
