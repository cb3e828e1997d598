// ALTER TABLE … DROP CONSTRAINT name: Flink drops the primary key by its constraint name (the one
// written in CONSTRAINT name, else `PK_` + its columns joined by `_`); SHOW CREATE TABLE prints it;
// a name that is not the key's is refused with a caret under it, naming the key's.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import { renderError } from '../../common/errors.js'
import { fails } from './helpers.js'

async function session(sql: string): Promise<Session> {
  const s = new Session({ println: () => undefined })
  await s.executeSql(sql)
  return s
}

async function describeRows(s: Session, t = 't'): Promise<string[]> {
  const [r] = await s.executeSql(`DESCRIBE ${t}`) as [Extract<StatementResult, { kind: 'table' }>]
  return r.rows.map(row => row.join(' | '))
}

async function showCreate(s: Session, t = 't'): Promise<string> {
  const [r] = await s.executeSql(`SHOW CREATE TABLE ${t}`)
  return (r as { text: string }).text
}

const NAMED = `CREATE TABLE t (id INT, day STRING, v DOUBLE, CONSTRAINT pk PRIMARY KEY (id, day) NOT ENFORCED) WITH ('connector' = 'datagen')`

describe('ALTER TABLE … DROP CONSTRAINT', () => {
  it('drops a primary key by the name CONSTRAINT gave it; its columns stay NOT NULL', async () => {
    const s = await session(NAMED)
    expect(await showCreate(s)).toContain('  CONSTRAINT `pk` PRIMARY KEY (`id`, `day`) NOT ENFORCED')
    await s.executeSql('ALTER TABLE t DROP CONSTRAINT PK')
    expect(await describeRows(s)).toEqual(['id | INT | FALSE |  |  | ', 'day | STRING | FALSE |  |  | ', 'v | DOUBLE | TRUE |  |  | '])
    expect(await showCreate(s)).not.toContain('PRIMARY KEY')
    expect((await fails('ALTER TABLE t DROP CONSTRAINT pk', s)).message).toBe("table 't' has no constraint 'pk': it has no primary key")
  })

  it("names an unnamed key as Flink does, PK_ and its columns, also a column's own PRIMARY KEY", async () => {
    const s = await session(`CREATE TABLE t (id INT, day STRING, PRIMARY KEY (id, day) NOT ENFORCED) WITH ('connector' = 'datagen');
      CREATE TABLE u (id INT PRIMARY KEY NOT ENFORCED, x INT) WITH ('connector' = 'datagen')`)
    expect(await showCreate(s)).toContain('  CONSTRAINT `PK_id_day` PRIMARY KEY (`id`, `day`) NOT ENFORCED')
    await s.executeSql('ALTER TABLE t DROP CONSTRAINT PK_id_day; ALTER TABLE u DROP CONSTRAINT PK_id')
    expect((await describeRows(s))[0]).toBe('id | INT | FALSE |  |  | ')
    expect((await describeRows(s, 'u'))[0]).toBe('id | INT | FALSE |  |  | ')
  })

  it('keeps the name through a rename of a key column and through CREATE TABLE … LIKE; a key added later takes its own', async () => {
    const s = await session(`${NAMED}; ALTER TABLE t RENAME id TO k; CREATE TABLE t2 WITH ('connector' = 'datagen') LIKE t`)
    expect(await showCreate(s)).toContain('CONSTRAINT `pk` PRIMARY KEY (`k`, `day`)')
    expect(await showCreate(s, 't2')).toContain('CONSTRAINT `pk` PRIMARY KEY (`k`, `day`)')
    await s.executeSql('ALTER TABLE t DROP CONSTRAINT pk; ALTER TABLE t ADD CONSTRAINT byv PRIMARY KEY (v) NOT ENFORCED')
    expect(await showCreate(s)).toContain('CONSTRAINT `byv` PRIMARY KEY (`v`)')
    await s.executeSql('ALTER TABLE t MODIFY PRIMARY KEY (k) NOT ENFORCED')
    expect(await showCreate(s)).toContain('CONSTRAINT `PK_k` PRIMARY KEY (`k`)')
  })

  it("refuses a name that is not the key's, with a caret under it and the key's name in the help", async () => {
    const s = await session(NAMED)
    const sql = 'ALTER TABLE t\n  DROP CONSTRAINT pk_t'
    expect(renderError(await fails(sql, s), sql)).toBe([
      "error: table 't' has no constraint 'pk_t': its primary key (id, day) is named 'pk'",
      ' --> <sql>:2:19',
      '  |',
      '2 |   DROP CONSTRAINT pk_t',
      '  |                   ^^^^',
      'help: ALTER TABLE t DROP CONSTRAINT pk, or DROP PRIMARY KEY',
    ].join('\n'))
    // The key is still there.
    expect((await describeRows(s))[0]).toBe('id | INT | FALSE | PRI(id, day) |  | ')
  })
})
