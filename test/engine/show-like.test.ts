// SHOW TABLES [FROM|IN db] [[NOT] LIKE 'p'] and SHOW COLUMNS FROM|IN t [[NOT] LIKE 'p'] (Flink's forms):
// SQL LIKE patterns, case-sensitive, and errors at the name for a database or table that is not there.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import { fails } from './helpers.js'

async function session(): Promise<Session> {
  const s = new Session({ println: () => undefined })
  await s.executeSql(`CREATE TABLE Orders (a INT, ab STRING, b_c INT, d AS a + 1) WITH ('connector' = 'datagen');
    CREATE TABLE other (x INT) WITH ('connector' = 'datagen');
    CREATE DATABASE d2; CREATE TABLE d2.z (x INT) WITH ('connector' = 'datagen')`)
  return s
}

async function rows(s: Session, sql: string): Promise<string[]> {
  const [r] = await s.executeSql(sql) as [Extract<StatementResult, { kind: 'table' }>]
  return r.rows.map(row => row.join(' | '))
}

describe('SHOW TABLES … LIKE', () => {
  it('keeps the names that match, or (NOT LIKE) the others; case-sensitive as in Flink', async () => {
    const s = await session()
    expect(await rows(s, `SHOW TABLES LIKE 'Ord%'`)).toEqual(['Orders'])
    expect(await rows(s, `SHOW TABLES NOT LIKE 'Ord%'`)).toEqual(['other'])
    expect(await rows(s, `SHOW TABLES LIKE 'ord%'`)).toEqual([])
    expect(await rows(s, `SHOW TABLES LIKE 'o_her'`)).toEqual(['other'])
  })

  it('lists another database with FROM / IN, and points at one that does not exist', async () => {
    const s = await session()
    expect(await rows(s, 'SHOW TABLES FROM d2')).toEqual(['z'])
    expect(await rows(s, `SHOW TABLES IN default_catalog.d2 LIKE '_'`)).toEqual(['z'])
    const e = await fails('SHOW TABLES\n  FROM nodb', s)
    expect(e.message).toBe("database 'nodb' does not exist in catalog 'default_catalog'")
    expect(e.span?.start).toMatchObject({ line: 2, column: 8 })
  })
})

describe('SHOW COLUMNS', () => {
  it("gives DESCRIBE's rows of the columns that match; \\ escapes _ and %", async () => {
    const s = await session()
    expect(await rows(s, 'SHOW COLUMNS FROM Orders')).toEqual(await rows(s, 'DESCRIBE Orders'))
    expect(await rows(s, `SHOW COLUMNS IN Orders LIKE 'a%'`)).toEqual(['a | INT | TRUE |  |  | ', 'ab | STRING | TRUE |  |  | '])
    expect(await rows(s, `SHOW COLUMNS FROM Orders LIKE '%\\_%'`)).toEqual(['b_c | INT | TRUE |  |  | '])
    expect(await rows(s, `SHOW COLUMNS FROM Orders NOT LIKE '%b%'`)).toEqual(['a | INT | TRUE |  |  | ', 'd | INT | TRUE |  | AS a + 1 | '])
  })

  it('points at a table that does not exist', async () => {
    const s = await session()
    const e = await fails('SHOW COLUMNS FROM nope', s)
    expect(e.message).toBe("table or view 'nope' not found")
    expect(e.span?.start).toMatchObject({ line: 1, column: 19 })
  })
})
