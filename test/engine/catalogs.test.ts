// Catalogs and databases as namespaces: CREATE CATALOG / DATABASE, USE, SHOW …, DROP …; a name of one
// part is in the current database, `db.t` in the current catalog, `cat.db.t` anywhere; a view's query
// names what it reads from the database it was created in; bad names are refused at their place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session, type StatementResult } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'

let root: string
let input: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-catalogs-'))
  input = join(root, 'in.jsonl')
  writeFileSync(input, ['{"id":1,"v":10,"name":"a"}', '{"id":2,"v":20,"name":"b"}', '{"id":1,"v":5,"name":"c"}', '{"id":3,"v":7,"name":"d"}'].join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const table = (name: string, columns: string): string =>
  `CREATE TABLE ${name} (${columns}) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');`

function rowsOf(r: StatementResult | undefined): unknown[][] {
  if (r?.kind !== 'rows') throw new Error(`expected rows, got ${r?.kind}`)
  return r.changes.map(c => [...c.row])
}

function listed(r: StatementResult | undefined): string[] {
  if (r?.kind !== 'table') throw new Error(`expected a table, got ${r?.kind}`)
  return r.rows.map(row => row.join(' '))
}

describe('catalogs and databases', () => {
  it('resolves one-, two- and three-part names, and binds a view where it was created', async () => {
    const session = new Session({ println: () => undefined })
    const results = await session.executeSql(`
      ${table('src', 'id INT, v INT')}
      CREATE DATABASE staging COMMENT 'work tables';
      ${table('staging.src', 'id INT, name STRING')}
      SHOW DATABASES;
      USE staging;
      SHOW TABLES;
      SHOW CURRENT DATABASE;
      CREATE VIEW names AS SELECT name FROM src WHERE id = 1;
      USE default_database;
      SELECT * FROM staging.names;
      SELECT s.id, d.name FROM src s JOIN default_catalog.staging.src d ON s.id = d.id WHERE s.v > 6;
      SELECT * FROM src WHERE id = 2;`)
    const [databases, tables, current, view, joined, plain] = [3, 5, 6, 9, 10, 11].map(i => results[i])
    expect(listed(databases)).toEqual(['default_database', 'staging'])
    expect(listed(tables)).toEqual(['src'])
    expect(listed(current)).toEqual(['staging'])
    // The view's `src` is staging.src (it has `name`), though it is used from default_database.
    expect(rowsOf(view)).toEqual([['a'], ['c']])
    expect(rowsOf(joined).map(r => r.join(':')).sort()).toEqual(['1:a', '1:c', '2:b', '3:d'])
    expect(rowsOf(plain)).toEqual([[2, 20]])
  })

  it('CREATE CATALOG, USE CATALOG, SHOW CATALOGS, and DROP DATABASE only when empty or with CASCADE', async () => {
    const session = new Session({ println: () => undefined })
    const results = await session.executeSql(`
      ${table('src', 'id INT, v INT')}
      CREATE CATALOG other WITH ('type' = 'generic_in_memory', 'default-database' = 'main');
      CREATE DATABASE other.extra;
      SHOW CATALOGS;
      USE CATALOG other;
      SHOW CURRENT CATALOG;
      SHOW CURRENT DATABASE;
      SHOW DATABASES;
      SELECT COUNT(*) FROM default_catalog.default_database.src;`)
    expect(listed(results[3])).toEqual(['default_catalog', 'other'])
    expect(listed(results[5])).toEqual(['other'])
    expect(listed(results[6])).toEqual(['main'])
    expect(listed(results[7])).toEqual(['extra', 'main'])
    expect(rowsOf(results[8]).at(-1)).toEqual([4])
    await session.executeSql(`CREATE DATABASE filled; ${table('filled.t', 'id INT')}`)
    await expect(session.executeSql('DROP DATABASE filled')).rejects.toThrow("database 'filled' is not empty: it holds table 't'")
    await session.executeSql('DROP DATABASE filled CASCADE')
    expect(listed((await session.executeSql('SHOW DATABASES'))[0])).toEqual(['extra', 'main'])
    await expect(session.executeSql('DROP DATABASE main')).rejects.toThrow("cannot drop database 'main': it is the current database")
  })

  it.each([
    { sql: 'SELECT * FROM nowhere.src', message: "database 'nowhere' does not exist in catalog 'default_catalog'", at: '2:15' },
    { sql: 'SELECT * FROM cat.db.src', message: "catalog 'cat' does not exist", at: '2:15' },
    { sql: 'SELECT * FROM a.b.c.d', message: "'a.b.c.d' has too many parts", at: '2:15' },
    { sql: 'USE staging', message: "database 'staging' does not exist in catalog 'default_catalog'", at: '2:5' },
    { sql: "CREATE CATALOG h WITH ('type' = 'hive')", message: "catalog type 'hive' is not supported", at: '2:33' },
    { sql: 'CREATE CATALOG h', message: "CREATE CATALOG needs its 'type'", at: '2:16' },
    { sql: 'CREATE DATABASE default_database', message: "database 'default_database' already exists in catalog 'default_catalog'", at: '2:17' },
    { sql: 'DROP TABLE src CASCADE', message: 'DROP TABLE takes no CASCADE', at: '2:1' },
    { sql: 'DROP DATABASE default_database FOO', message: "unexpected 'FOO', expected RESTRICT or CASCADE", at: '2:32' },
  ])('refuses: $message', async ({ sql, message, at }) => {
    const session = new Session({ println: () => undefined })
    const error = await session.executeSql(`${table('src', 'id INT')}\n${sql}`).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(WeirError)
    expect((error as WeirError).message).toContain(message)
    const span = (error as WeirError).span!
    expect(`${span.start.line}:${span.start.column}`).toBe(at)
  })
})
