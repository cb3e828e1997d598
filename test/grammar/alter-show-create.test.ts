// Parsing ALTER TABLE / ALTER VIEW and SHOW CREATE TABLE / VIEW, and the expression and query texts
// CREATE keeps for SHOW CREATE.
import { describe, expect, it } from 'vitest'
import { parseSql } from '../../grammar/index.js'
import { renderError } from '../../common/errors.js'
import { errorOf, id, one, strip, syntaxErrorOf } from './helpers.js'

const name = (...parts: string[]) => ({ parts: parts.map(p => id(p)) })

describe('ALTER', () => {
  it('parses SET, RESET and RENAME TO, with IF EXISTS and qualified names', () => {
    expect(strip(one(`ALTER TABLE t SET ('a' = '1', 'b.c' = 'x''y')`))).toEqual({
      kind: 'AlterObject',
      object: 'TABLE',
      name: name('t'),
      ifExists: false,
      action: { kind: 'SetOptions', options: [{ key: 'a', value: '1' }, { key: 'b.c', value: "x'y" }] },
    })
    expect(strip(one(`alter table if exists db.t reset ('a', 'b')`))).toMatchObject({
      ifExists: true,
      name: name('db', 't'),
      action: { kind: 'ResetOptions', keys: [{ key: 'a' }, { key: 'b' }] },
    })
    expect(strip(one('ALTER VIEW v RENAME TO w'))).toMatchObject({ object: 'VIEW', action: { kind: 'Rename', to: name('w') } })
  })

  it('points at where each key is', () => {
    const st = one(`ALTER TABLE t RESET ('a',\n 'b')`)
    if (st.kind !== 'AlterObject' || st.action.kind !== 'ResetOptions') throw new Error(st.kind)
    expect(st.action.keys[1]!.span.start).toMatchObject({ line: 2, column: 2 })
  })

  it('keeps ALTER and RENAME usable as names', () => {
    expect(one('SELECT alter, rename FROM t').kind).toBe('QueryStatement')
  })

  it('refuses an empty RESET list, a repeated SET key and a missing action', () => {
    expect(() => parseSql('ALTER TABLE t RESET ()')).toThrow(/a string/)
    expect(() => parseSql(`ALTER TABLE t SET ('a' = '1', 'a' = '2')`)).toThrow("option 'a' is given twice")
    expect(() => parseSql('ALTER TABLE t')).toThrow()
  })
})

describe('ALTER TABLE … ADD / MODIFY / DROP / RENAME c TO d', () => {
  it('parses ADD and MODIFY of one element or a list, with FIRST / AFTER', () => {
    const st = strip(one(`ALTER TABLE t ADD (x INT FIRST, y AS x + 1 AFTER a, WATERMARK FOR ts AS ts, PRIMARY KEY (x) NOT ENFORCED)`))
    expect(st).toMatchObject({
      action: {
        kind: 'AddSchema',
        columns: [
          { column: { kind: 'PhysicalColumn', name: id('x') }, position: { kind: 'First' } },
          { column: { kind: 'ComputedColumn', name: id('y'), exprText: 'x + 1' }, position: { kind: 'After', column: id('a') } },
        ],
        watermark: { column: id('ts'), exprText: 'ts' },
        primaryKey: { columns: [id('x')], enforced: false },
      },
    })
    expect(strip(one('alter table t modify b STRING'))).toMatchObject({
      action: { kind: 'ModifySchema', columns: [{ column: { kind: 'PhysicalColumn', name: id('b') } }] },
    })
  })

  it('parses DROP of columns, PRIMARY KEY and WATERMARK, and RENAME c TO d', () => {
    expect(strip(one('ALTER TABLE t DROP (a, b)'))).toMatchObject({ action: { kind: 'DropColumns', columns: [id('a'), id('b')] } })
    expect(strip(one('ALTER TABLE t DROP a'))).toMatchObject({ action: { kind: 'DropColumns', columns: [id('a')] } })
    expect(strip(one('ALTER TABLE t DROP PRIMARY KEY'))).toMatchObject({ action: { kind: 'DropPrimaryKey' } })
    expect(strip(one('ALTER TABLE t DROP WATERMARK'))).toMatchObject({ action: { kind: 'DropWatermark' } })
    expect(strip(one('ALTER TABLE t RENAME a TO `b c`'))).toMatchObject({ action: { kind: 'RenameColumn', from: id('a'), to: id('b c', true) } })
    expect(strip(one('ALTER TABLE t RENAME TO u'))).toMatchObject({ action: { kind: 'Rename', to: name('u') } })
  })

  it('keeps ADD, MODIFY, AFTER and COLUMNS usable as names', () => {
    expect(one('SELECT add, modify, after, columns FROM t').kind).toBe('QueryStatement')
    expect(strip(one('ALTER TABLE t ADD after INT AFTER add'))).toMatchObject({
      action: { columns: [{ column: { name: id('after') }, position: { kind: 'After', column: id('add') } }] },
    })
  })

  it('refuses FIRST / AFTER on a watermark or key, two keys, and a DROP of nothing, with line:column', () => {
    expect(syntaxErrorOf('ALTER TABLE t ADD (\n  WATERMARK FOR ts AS ts FIRST)')).toMatchObject({
      at: '2:26',
      message: 'FIRST places a column; a watermark or primary key has no place',
    })
    expect(syntaxErrorOf('ALTER TABLE t ADD (a INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (a) NOT ENFORCED)')).toMatchObject({
      at: '1:52',
      message: 'a table has at most one PRIMARY KEY',
    })
    expect(syntaxErrorOf('ALTER TABLE t DROP')).toMatchObject({ at: '1:19', message: expect.stringMatching(/^unexpected end of input/) })
    const sql = 'ALTER TABLE t ADD PRIMARY KEY (a) NOT ENFORCED AFTER b'
    expect(renderError(errorOf(() => parseSql(sql)), sql)).toBe([
      'error: AFTER places a column; a watermark or primary key has no place',
      ' --> <sql>:1:48',
      '  |',
      '1 | ALTER TABLE t ADD PRIMARY KEY (a) NOT ENFORCED AFTER b',
      '  |                                                ^^^^^',
      'help: remove FIRST / AFTER from this element',
    ].join('\n'))
  })
})

describe('SHOW TABLES / SHOW COLUMNS with FROM and LIKE', () => {
  it('parses FROM / IN and [NOT] LIKE', () => {
    expect(strip(one(`SHOW TABLES FROM c.db NOT LIKE 'a%'`))).toEqual({ kind: 'ShowTables', what: 'TABLES', from: name('c', 'db'),
      like: { pattern: 'a%', not: true } })
    expect(strip(one(`show columns in t like '_x'`))).toEqual({ kind: 'ShowColumns', table: name('t'), like: { pattern: '_x', not: false } })
    expect(strip(one('SHOW TABLES'))).toEqual({ kind: 'ShowTables', what: 'TABLES' })
  })

  it('refuses SHOW COLUMNS without FROM and LIKE without a pattern, with line:column', () => {
    expect(syntaxErrorOf('SHOW COLUMNS t')).toMatchObject({ at: '1:14', message: expect.stringMatching(/^unexpected 't'/) })
    expect(syntaxErrorOf('SHOW TABLES LIKE\n  x')).toMatchObject({ at: '2:3', message: expect.stringMatching(/^unexpected 'x', expected a string/) })
  })
})

describe('SHOW CREATE', () => {
  it('parses SHOW CREATE TABLE and SHOW CREATE VIEW', () => {
    expect(strip(one('SHOW CREATE TABLE db.t'))).toEqual({ kind: 'ShowCreate', object: 'TABLE', name: name('db', 't') })
    expect(strip(one('show create view v'))).toEqual({ kind: 'ShowCreate', object: 'VIEW', name: name('v') })
  })

  it('CREATE keeps computed columns, the watermark and a view query as written', () => {
    const t = one("CREATE TABLE t (a INT, b AS a  *  2 -- two\n, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ()")
    if (t.kind !== 'CreateTable') throw new Error(t.kind)
    expect(t.columns[1]).toMatchObject({ kind: 'ComputedColumn', exprText: 'a  *  2' })
    expect(t.watermark?.exprText).toBe("ts - INTERVAL '1' SECOND")
    expect(one('CREATE VIEW v AS SELECT a\n FROM t;')).toMatchObject({ queryText: 'SELECT a\n FROM t' })
  })
})

describe('CREATE TABLE … LIKE', () => {
  it('parses the base table and the options in order, with or without columns and WITH', () => {
    const t = one(`CREATE TABLE t2 (x INT) WITH ('a' = 'b') LIKE db.t1 (including all Overwriting OPTIONS EXCLUDING metadata)`)
    expect(strip(t)).toMatchObject({
      kind: 'CreateTable',
      columns: [{ name: id('x') }],
      options: [{ key: 'a', value: 'b' }],
      like: {
        table: name('db', 't1'),
        options: [
          { strategy: 'INCLUDING', feature: 'ALL' },
          { strategy: 'OVERWRITING', feature: 'OPTIONS' },
          { strategy: 'EXCLUDING', feature: 'METADATA' },
        ],
      },
    })
    expect(strip(one('CREATE TABLE t2 LIKE t1'))).toMatchObject({ columns: [], options: [], like: { table: name('t1'), options: [] } })
  })

  it('refuses unknown words and a table without columns or LIKE, pointing at them', () => {
    expect(() => parseSql('CREATE TABLE t2 LIKE t1 (COPYING ALL)')).toThrow("unknown LIKE option 'COPYING'")
    expect(() => parseSql('CREATE TABLE t2 LIKE t1 (INCLUDING ROWS)')).toThrow("unknown LIKE feature 'ROWS'")
    expect(() => parseSql("CREATE TABLE t2 WITH ('a' = 'b')")).toThrow('CREATE TABLE needs its columns')
  })
})
