// A primary key implies NOT NULL, as in Flink: DESCRIBE says so, queries type its columns NOT NULL,
// a source refuses a record without a value there (compiled expressions trust the type), and a sink
// enforces its NOT NULL columns per 'table.exec.sink.not-null-enforcer' (ERROR, or DROP).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { Session, type StatementResult } from '../../engine/session.js'
import { fails } from './helpers.js'

type Table = Extract<StatementResult, { kind: 'table' }>

function input(lines: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'weir-pk-')), 'in.json')
  writeFileSync(file, lines)
  return file
}

describe('primary key columns', () => {
  it('are NOT NULL in DESCRIBE and in the types of queries over the table', async () => {
    const s = new Session()
    await s.executeSql(`
      CREATE TABLE t (id BIGINT, region STRING, v INT, PRIMARY KEY (id, region) NOT ENFORCED) WITH ('connector' = 'datagen');
      CREATE VIEW w AS SELECT id, id + 1 AS next, region, v FROM t;`)
    const [desc] = await s.executeSql('DESCRIBE t') as [Table]
    expect(desc.rows.map(r => [r[0], r[1], r[2], r[3]])).toEqual([
      ['id', 'BIGINT', 'FALSE', 'PRI(id, region)'],
      ['region', 'STRING', 'FALSE', 'PRI(id, region)'],
      ['v', 'INT', 'TRUE', ''],
    ])
    const [view] = await s.executeSql('DESCRIBE w') as [Table]
    expect(view.rows).toEqual([['id', 'BIGINT NOT NULL'], ['next', 'BIGINT NOT NULL'], ['region', 'STRING NOT NULL'], ['v', 'INT']])
  })

  it('cannot be computed columns', async () => {
    const e = await fails(`CREATE TABLE t (a INT, b AS a + 1, PRIMARY KEY (b) NOT ENFORCED) WITH ('connector' = 'datagen')`)
    expect(e.message).toBe("primary key column 'b' is a computed column")
    expect(e.span?.start.column).toBe(49)
  })

  it('refuse a NULL from a file source as a bad record, which ignore-parse-errors skips', async () => {
    const file = input('{"id": 1, "v": 10}\n{"id": null, "v": 20}\n{"v": 30}\n{"id": 4, "v": 40}\n')
    const table = (extra: string): string =>
      `CREATE TABLE t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'json'${extra});`
    const e = await fails(`${table('')} SELECT id, v FROM t`)
    expect(e.message).toBe(`bad record at ${file}:2 (table 't'): column 'id' is NOT NULL, but the record has no value for it`)
    expect(e.record).toMatchObject({ source: file, line: 2, record: '{"id": null, "v": 20}' })
    expect(e.help).toBe(`set 'json.ignore-parse-errors' = 'true' to skip bad records`)
    const s = new Session()
    const [, rows] = await s.executeSql(`${table(`, 'json.ignore-parse-errors' = 'true'`)} SELECT id, v, id IS NULL AS missing FROM t`)
    expect((rows as Extract<StatementResult, { kind: 'rows' }>).changes.map(c => c.row)).toEqual([[1, 10, false], [4, 40, false]])
  })

  it('cannot be given NULLs by datagen', async () => {
    const e = await fails(`CREATE TABLE t (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen', 'fields.id.null-rate' = '0.5')`)
    expect(e.message).toBe("option 'fields.id.null-rate' would give NOT NULL column 'id' NULL values")
  })
})

describe("a sink's NOT NULL columns", () => {
  const ddl = (out: string): string => `
    CREATE TABLE src (id INT, v INT) WITH ('connector' = 'filesystem', 'path' = '${
    input('{"id": 1, "v": 10}\n{"id": null, "v": 20}\n{"id": 3, "v": 30}\n')
  }', 'format' = 'json');
    CREATE TABLE out (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');`

  it('fail the job on a NULL by default, naming the column, the table and the row', async () => {
    const out = mkdtempSync(join(tmpdir(), 'weir-pk-out-'))
    const e = await fails(`${ddl(out)} INSERT INTO out SELECT id, v FROM src`)
    expect(e.kind).toBe('execution')
    expect(e.message).toBe("column 'id' of table 'out' is NOT NULL, but the query gave a row with NULL there")
    expect(e.record).toEqual({ source: "the rows written to table 'out'", record: '+I[NULL, 20]' })
    expect(e.help).toBe(
      "filter such rows out (WHERE id IS NOT NULL) or give a default (COALESCE), or SET 'table.exec.sink.not-null-enforcer' = 'DROP' to drop them",
    )
  })

  it("drop the row with 'table.exec.sink.not-null-enforcer' = 'DROP'", async () => {
    const out = mkdtempSync(join(tmpdir(), 'weir-pk-out-'))
    const s = new Session()
    await s.executeSql(`SET 'table.exec.sink.not-null-enforcer' = 'DROP'; ${ddl(out)} INSERT INTO out SELECT id, v FROM src`)
    const [metrics] = await s.awaitJobs()
    // The job's counts leave the dropped row out.
    expect([metrics!.sinkRows['out'], metrics!.sinkCommittedRows['out']]).toEqual([2, 2])
    const written = readdirSync(out).filter(f => f.startsWith('part-')).flatMap(f => readFileSync(join(out, f), 'utf8').trim().split('\n'))
    expect(written).toEqual(['{"id":1,"v":10}', '{"id":3,"v":30}'])
  })

  it('must be in the column list of an INSERT that names its columns', async () => {
    const out = mkdtempSync(join(tmpdir(), 'weir-pk-out-'))
    const e = await fails(`${ddl(out)}\nINSERT INTO out (v) SELECT v FROM src`)
    expect(e.message).toBe("column 'id' of 'out' is NOT NULL, but the INSERT's column list leaves it out")
    expect(e.help).toBe("list 'id' and select a value for it")
    expect(e.span?.start).toMatchObject({ line: 4, column: 18 })
  })
})
