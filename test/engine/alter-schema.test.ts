// ALTER TABLE … ADD / MODIFY / DROP / RENAME c TO d: the schema DESCRIBE shows after each, Flink's
// rules for what cannot be done (with line:column), and that the altered table is what queries read.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import { renderError } from '../../common/errors.js'
import { fails } from './helpers.js'

const DDL = `CREATE TABLE t (
  a INT,
  b STRING,
  e AS a * 2,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '3', 'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '3');`

async function session(sql = DDL): Promise<Session> {
  const s = new Session({ println: () => undefined })
  await s.executeSql(sql)
  return s
}

/** DESCRIBE's rows as 'name | type | null | key | extras | watermark'. */
async function describeRows(s: Session, t = 't'): Promise<string[]> {
  const [r] = await s.executeSql(`DESCRIBE ${t}`) as [Extract<StatementResult, { kind: 'table' }>]
  return r.rows.map(row => row.join(' | '))
}

const names = async (s: Session): Promise<string[]> => (await describeRows(s)).map(r => r.split(' | ')[0]!)

describe('ALTER TABLE … ADD', () => {
  it('adds columns at the end, FIRST or AFTER another, with a computed column and a primary key', async () => {
    const s = await session()
    await s.executeSql(`ALTER TABLE t ADD (x STRING COMMENT 'last', y AS UPPER(b) FIRST, z DOUBLE AFTER a, PRIMARY KEY (a) NOT ENFORCED)`)
    expect(await names(s)).toEqual(['y', 'a', 'z', 'b', 'e', 'ts', 'x'])
    const rows = await describeRows(s)
    expect(rows[1]).toBe('a | INT | FALSE | PRI(a) |  | ')
    expect(rows[0]).toBe('y | STRING | TRUE |  | AS UPPER(b) | ')
    await s.executeSql('ALTER TABLE t ADD w INT')
    expect((await names(s)).at(-1)).toBe('w')
  })

  it('queries read the added columns', async () => {
    const s = await session()
    await s.executeSql('ALTER TABLE t ADD (c AS a + 10 AFTER a)')
    const [r] = await s.executeSql('SELECT a, c FROM t') as [Extract<StatementResult, { kind: 'rows' }>]
    expect(r.changes.map(c => c.row)).toEqual([[1, 11], [2, 12], [3, 13]])
  })

  it('refuses a column that exists, AFTER a column that does not, a second key or watermark', async () => {
    const s = await session()
    const twice = await fails('ALTER TABLE t ADD (c INT, B INT)', s)
    expect(twice.message).toBe("column 'b' already exists in table 't'")
    expect(twice.span?.start).toMatchObject({ line: 1, column: 27 })
    const after = await fails('ALTER TABLE t ADD c INT AFTER nope', s)
    expect(after.message).toBe("column 'nope' named by AFTER does not exist in table 't'")
    expect(after.span?.start).toMatchObject({ line: 1, column: 31 })
    const wm = await fails('ALTER TABLE t ADD WATERMARK FOR ts AS ts', s)
    expect(wm.message).toBe("table 't' already has a watermark: FOR ts AS ts - INTERVAL '1' SECOND")
    expect(wm.help).toContain('DROP WATERMARK')
    await s.executeSql('ALTER TABLE t ADD PRIMARY KEY (a) NOT ENFORCED')
    const pk = await fails('ALTER TABLE t ADD PRIMARY KEY (b) NOT ENFORCED', s)
    expect(pk.message).toBe("table 't' already has a primary key (a)")
    const computedKey = await fails('ALTER TABLE t DROP PRIMARY KEY; ALTER TABLE t ADD PRIMARY KEY (e) NOT ENFORCED', s)
    expect(computedKey.message).toBe("primary key column 'e' is a computed column")
    const enforced = await fails('ALTER TABLE t ADD PRIMARY KEY (a)', s)
    expect(enforced.message).toBe('PRIMARY KEY constraints cannot be enforced')
    expect(await names(s)).toEqual(['a', 'b', 'e', 'ts'])
  })

  it('checks what it adds as CREATE TABLE does: a computed column binds, a watermark is on a timestamp', async () => {
    const s = await session()
    const bad = await fails('ALTER TABLE t ADD c AS nope + 1', s)
    expect(bad.message).toContain("'nope'")
    expect(bad.span?.start).toMatchObject({ line: 1, column: 24 })
    await s.executeSql('ALTER TABLE t DROP WATERMARK')
    const wm = await fails('ALTER TABLE t ADD WATERMARK FOR b AS b', s)
    expect(wm.message).toContain("WATERMARK FOR 'b' needs a TIMESTAMP(3)")
  })
})

describe('ALTER TABLE … MODIFY', () => {
  it('changes a column in place or moves it; a key column stays NOT NULL', async () => {
    const s = await session()
    await s.executeSql('ALTER TABLE t ADD PRIMARY KEY (a) NOT ENFORCED')
    await s.executeSql('ALTER TABLE t MODIFY (a BIGINT, b STRING FIRST, e AS a * 3)')
    const rows = await describeRows(s)
    expect(rows.map(r => r.split(' | ')[0])).toEqual(['b', 'a', 'e', 'ts'])
    expect(rows[1]).toBe('a | BIGINT | FALSE | PRI(a) |  | ')
    expect(rows[2]).toBe('e | BIGINT | FALSE |  | AS a * 3 | ')
  })

  it('replaces the watermark and the primary key', async () => {
    const s = await session()
    await s.executeSql(`ALTER TABLE t ADD PRIMARY KEY (a) NOT ENFORCED; ALTER TABLE t MODIFY (PRIMARY KEY (b) NOT ENFORCED, WATERMARK FOR ts AS ts)`)
    const rows = await describeRows(s)
    expect(rows[1]).toBe('b | STRING | FALSE | PRI(b) |  | ')
    expect(rows[3]).toBe('ts | TIMESTAMP(3) *ROWTIME* | TRUE |  |  | ts')
  })

  it('refuses a column, key or watermark that is not there, and a change that breaks a computed column', async () => {
    const s = await session()
    const col = await fails('ALTER TABLE t MODIFY (x STRING FIRST)', s)
    expect(col.message).toBe("column 'x' does not exist in table 't', so it cannot be modified")
    expect(col.span?.start).toMatchObject({ line: 1, column: 23 })
    expect((await fails('ALTER TABLE t MODIFY PRIMARY KEY (a) NOT ENFORCED', s)).message).toBe("table 't' has no primary key to modify")
    const broken = await fails('ALTER TABLE t MODIFY a BOOLEAN', s)
    expect(broken.message).toMatch(/^after this change, a computed column of 't' is not valid: /)
    expect(broken.span?.start).toMatchObject({ line: 1, column: 1 })
    expect((await fails('ALTER TABLE t MODIFY b INT AFTER b', s)).message).toBe("column 'b' cannot be placed AFTER itself")
    await s.executeSql('ALTER TABLE t DROP WATERMARK')
    expect((await fails('ALTER TABLE t MODIFY WATERMARK FOR ts AS ts', s)).message).toBe("table 't' has no watermark to modify")
  })
})

describe('ALTER TABLE … DROP and RENAME … TO', () => {
  it('drops columns, the watermark and the primary key (whose columns stay NOT NULL, as in Flink)', async () => {
    const s = await session()
    await s.executeSql('ALTER TABLE t ADD PRIMARY KEY (a) NOT ENFORCED')
    await s.executeSql('ALTER TABLE t DROP PRIMARY KEY; ALTER TABLE t DROP WATERMARK; ALTER TABLE t DROP (e, ts); ALTER TABLE t DROP b')
    expect(await describeRows(s)).toEqual(['a | INT | FALSE |  |  | '])
  })

  it('refuses to drop a column something uses, a missing one, or every column', async () => {
    const s = await session()
    const used = await fails('ALTER TABLE t DROP a', s)
    expect(used.message).toBe("column 'a' cannot be dropped: computed column 'e' uses it")
    expect(used.span?.start).toMatchObject({ line: 1, column: 20 })
    expect((await fails('ALTER TABLE t DROP ts', s)).message).toBe("column 'ts' cannot be dropped: the watermark uses it (FOR ts AS ts - INTERVAL '1' SECOND)")
    const missing = await fails('ALTER TABLE t DROP (b, bb)', s)
    expect(missing.message).toBe("column 'bb' does not exist in table 't'")
    expect(missing.help).toBe("did you mean 'b'?")
    expect((await fails('ALTER TABLE t DROP PRIMARY KEY', s)).message).toBe("table 't' has no primary key to drop")
    await s.executeSql('ALTER TABLE t DROP WATERMARK')
    expect((await fails('ALTER TABLE t DROP WATERMARK', s)).message).toBe("table 't' has no watermark to drop")
    await s.executeSql('ALTER TABLE t ADD PRIMARY KEY (b) NOT ENFORCED')
    expect((await fails('ALTER TABLE t DROP b', s)).message).toBe("column 'b' cannot be dropped: it is in the primary key (b)")
    expect((await fails('ALTER TABLE t DROP (a, b, e, ts)', s)).message).toBe("cannot drop every column of table 't'")
    expect(await names(s)).toEqual(['a', 'b', 'e', 'ts'])
  })

  it('renames a column, with the primary key and the watermark that name it', async () => {
    const s = await session(`CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen')`)
    // The watermark's expression names ts: renaming ts is refused (the expression would break).
    expect((await fails('ALTER TABLE t RENAME ts TO t2', s)).message).toBe("column 'ts' cannot be renamed: the watermark's expression uses it (ts)")
    await s.executeSql('ALTER TABLE t RENAME a TO id')
    expect(await describeRows(s)).toEqual(['id | INT | FALSE | PRI(id) |  | ', 'ts | TIMESTAMP(3) *ROWTIME* | TRUE |  |  | ts'])
    const taken = await fails('ALTER TABLE t RENAME id TO TS', s)
    expect(taken.message).toBe("cannot rename column 'id' to 'TS': table 't' already has a column 'ts'")
    expect(taken.span?.start).toMatchObject({ line: 1, column: 28 })
  })

  it('refuses renaming a column a computed column uses, and schema changes of a view', async () => {
    const s = await session()
    expect((await fails('ALTER TABLE t RENAME a TO a2', s)).message).toBe("column 'a' cannot be renamed: computed column 'e' uses it")
    await s.executeSql('CREATE VIEW v AS SELECT a FROM t')
    expect((await fails('ALTER VIEW v ADD c INT', s)).message).toBe("'v' is a view: ALTER VIEW changes its name only, not its columns")
  })

  it('renders its errors with a caret under the column', async () => {
    const s = await session()
    const sql = 'ALTER TABLE t\n  DROP (b, nope)'
    expect(renderError(await fails(sql, s), sql)).toBe([
      "error: column 'nope' does not exist in table 't'",
      ' --> <sql>:2:12',
      '  |',
      '2 |   DROP (b, nope)',
      '  |            ^^^^',
      'help: DESCRIBE t lists its columns',
    ].join('\n'))
  })
})
