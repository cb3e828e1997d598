// ALTER TABLE … SET / RESET / RENAME TO and ALTER VIEW … RENAME TO: what they change, the messages
// they return, and the errors (with line:column) for what cannot be done.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import type { CatalogTable } from '../../planner/index.js'
import { fails } from './helpers.js'

const DDL = `CREATE TABLE t (a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'rows-per-second' = '5');`

async function session(sql = DDL): Promise<Session> {
  const s = new Session({ println: () => undefined })
  await s.executeSql(sql)
  return s
}

async function message(s: Session, sql: string): Promise<string> {
  const [r] = await s.executeSql(sql) as [Extract<StatementResult, { kind: 'ok' }>]
  expect(r.kind).toBe('ok')
  return r.message
}

const options = (s: Session, name: string): Readonly<Record<string, string>> => (s.catalog.get(name) as CatalogTable).options

describe('ALTER TABLE … SET / RESET', () => {
  it('sets new options and overwrites old ones, keeping their order', async () => {
    const s = await session()
    expect(await message(s, `ALTER TABLE t SET ('number-of-rows' = '3', 'rows-per-second' = '9')`)).toBe("table 't' altered")
    expect(options(s, 't')).toEqual({ connector: 'datagen', 'rows-per-second': '9', 'number-of-rows': '3' })
    expect(Object.keys(options(s, 't'))).toEqual(['connector', 'rows-per-second', 'number-of-rows'])
  })

  it('runs with the options it set: a bounded datagen ends after its rows', async () => {
    const s = await session(
      `CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '100')`,
    )
    await s.executeSql(`ALTER TABLE t SET ('fields.a.end' = '3')`)
    const [r] = await s.executeSql('SELECT a FROM t') as [Extract<StatementResult, { kind: 'rows' }>]
    expect(r.changes.map(c => c.row[0])).toEqual([1, 2, 3])
  })

  it('resets options; a key the table does not have is nothing to reset (as in Flink)', async () => {
    const s = await session()
    expect(await message(s, `ALTER TABLE t RESET ('rows-per-second', 'seed')`)).toBe("table 't' altered")
    expect(options(s, 't')).toEqual({ connector: 'datagen' })
  })

  it('checks the options as CREATE TABLE does, pointing at the bad one; the table is left as it was', async () => {
    const s = await session()
    const bad = await fails(`ALTER TABLE t SET (\n  'rows-per-second' = 'fast')`, s)
    expect(bad.message).toBe("invalid value 'fast' for option 'rows-per-second': expected a positive number")
    expect(bad.span?.start).toMatchObject({ line: 2, column: 23 })
    const unknown = await fails(`ALTER TABLE t SET ('rows-per-secnd' = '5')`, s)
    expect(unknown.message).toBe("unsupported option 'rows-per-secnd' for connector 'datagen'")
    expect(unknown.span?.start).toMatchObject({ line: 1, column: 20 })
    const connector = await fails(`ALTER TABLE t SET ('connector' = 'nosuch')`, s)
    expect(connector.message).toContain("'nosuch'")
    expect(connector.span?.start).toMatchObject({ line: 1, column: 34 })
    expect(options(s, 't')).toEqual({ connector: 'datagen', 'rows-per-second': '5' })
  })

  it("refuses to RESET 'connector', and an option the table then misses is checked", async () => {
    const s = await session(`CREATE TABLE f (a INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'json')`)
    const e = await fails(`ALTER TABLE f RESET ('format', 'connector')`, s)
    expect(e.message).toBe("ALTER TABLE … RESET cannot remove 'connector'")
    expect(e.span?.start).toMatchObject({ line: 1, column: 32 })
    expect(options(s, 'f')).toEqual({ connector: 'filesystem', path: '/tmp/x', format: 'json' })
    const missing = await fails(`ALTER TABLE f RESET ('path')`, s)
    expect(missing.message).toBe("required option 'path' is missing for connector 'filesystem'")
    // A kept option's span is in older text: the error points at this statement.
    expect(missing.span?.start).toMatchObject({ line: 1, column: 1 })
  })

  it('refuses SET / RESET on a view, and ALTER TABLE on a view', async () => {
    const s = await session(DDL + 'CREATE VIEW v AS SELECT a FROM t')
    const set = await fails(`ALTER VIEW v SET ('a' = 'b')`, s)
    expect(set.message).toBe('ALTER VIEW … SET is not supported: a view has no options')
    const kind = await fails(`ALTER TABLE v RESET ('a')`, s)
    expect(kind.message).toBe("'v' is a view, not a table")
    expect(kind.help).toBe('use ALTER VIEW v')
    expect(kind.span?.start).toMatchObject({ line: 1, column: 13 })
  })
})

describe('ALTER TABLE / VIEW … RENAME TO', () => {
  it('renames a table; queries use the new name and the old one is gone', async () => {
    const s = await session()
    expect(await message(s, 'ALTER TABLE t RENAME TO u')).toBe("table 't' renamed to 'u'")
    expect((await s.executeSql('SHOW TABLES'))[0]).toEqual({ kind: 'table', columns: ['table name'], rows: [['u']] })
    expect(s.catalog.get('u')?.name).toBe('u')
    const gone = await fails('SELECT a FROM t', s)
    expect(gone.message).toBe("table or view 't' not found")
  })

  it('renames a view', async () => {
    const s = await session(DDL + 'CREATE VIEW v AS SELECT a FROM t')
    expect(await message(s, 'ALTER VIEW v RENAME TO w')).toBe("view 'v' renamed to 'w'")
    expect((await s.executeSql('SHOW VIEWS'))[0]).toEqual({ kind: 'table', columns: ['view name'], rows: [['w']] })
  })

  it('changes only the case of a name', async () => {
    const s = await session()
    expect(await message(s, 'ALTER TABLE t RENAME TO T')).toBe("table 't' renamed to 'T'")
    expect(s.catalog.get('t')?.name).toBe('T')
  })

  it('refuses a name that is taken, pointing at it', async () => {
    const s = await session(DDL + `CREATE TABLE u (b INT) WITH ('connector' = 'datagen')`)
    const e = await fails('ALTER TABLE t\n  RENAME TO u', s)
    expect(e.message).toBe("cannot rename table 't' to 'u': table 'u' already exists")
    expect(e.span?.start).toMatchObject({ line: 2, column: 13 })
    expect(s.catalog.get('t')).toBeDefined()
  })

  it('refuses to rename a table or view that a view reads (Flink would leave the view broken)', async () => {
    const s = await session(
      DDL + `CREATE VIEW v AS SELECT a FROM t; CREATE VIEW w AS SELECT * FROM TABLE(TUMBLE(TABLE v2, DESCRIPTOR(ts), INTERVAL '1' SECOND))`.replace('v2', 't'),
    )
    const e = await fails('ALTER TABLE t RENAME TO u', s)
    expect(e.message).toBe("cannot rename table 't': view 'v' reads it")
    expect(e.help).toBe("DROP VIEW v first, then create it again over 'u'")
    await s.executeSql('DROP VIEW v')
    expect((await fails('ALTER TABLE t RENAME TO u', s)).message).toBe("cannot rename table 't': view 'w' reads it")
    await s.executeSql('CREATE VIEW v AS SELECT a FROM t; CREATE VIEW vv AS SELECT a FROM v')
    expect((await fails('ALTER VIEW v RENAME TO x', s)).message).toBe("cannot rename view 'v': view 'vv' reads it")
  })

  it('IF EXISTS: a missing table is no error; without it the error names the closest name', async () => {
    const s = await session()
    expect(await message(s, 'ALTER TABLE IF EXISTS nope RENAME TO u')).toBe("table 'nope' does not exist")
    expect(await message(s, `ALTER TABLE IF EXISTS nope SET ('a' = 'b')`)).toBe("table 'nope' does not exist")
    const e = await fails('ALTER TABLE tt RENAME TO u', s)
    expect(e.message).toBe("table or view 'tt' not found")
    expect(e.help).toBe("did you mean 't'?")
    expect(e.span?.start).toMatchObject({ line: 1, column: 13 })
  })
})
