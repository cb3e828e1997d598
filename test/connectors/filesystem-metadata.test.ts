// The filesystem source's metadata columns (file.path, file.name, file.size, file.modification-time):
// every row carries the facts of the file it was read from — checked against DuckDB's own
// `filename` of each JSON line and against stat(); with the decode thread on and off, for CSV, and
// across a checkpoint and restore; bad keys and types are refused at the column, and a table with a
// non-VIRTUAL metadata column cannot be written.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DuckDBInstance } from '@duckdb/node-api'
import { Session, type StatementResult } from '../../engine/session.js'
import { materialize } from '../oracle/oracle.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'
import { sqlError, visibleRows } from './helpers.js'

let root: string
let json: string
let csv: string
const FILES = ['a.json', 'b.json', 'c.json']
const ROWS = 6000

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-fs-metadata-'))
  json = join(root, 'json')
  csv = join(root, 'csv')
  mkdirSync(json)
  mkdirSync(csv)
  // Files of different lengths and times, so that a row given another file's facts shows.
  let id = 0
  for (const [f, name] of FILES.entries()) {
    const lines: string[] = []
    for (let i = 0; i < ROWS / FILES.length + f * 17 - 17; i++) lines.push(JSON.stringify({ id: id++, v: (id * 7) % 23 }))
    writeFileSync(join(json, name), lines.join('\n') + '\n')
    const when = new Date(Date.UTC(2024, 4, 1 + f, 12, 0, 0, 250 * f))
    utimesSync(join(json, name), when, when)
    writeFileSync(join(csv, name.replace('.json', '.csv')), lines.map(l => `${(JSON.parse(l) as { id: number }).id},x${f}`).join('\n') + '\n')
  }
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const TABLE = (path: string, extra = ''): string =>
  `CREATE TABLE t (
  id INT, v INT,
  p STRING METADATA FROM 'file.path',
  n STRING METADATA FROM 'file.name' VIRTUAL,
  s BIGINT METADATA FROM 'file.size' VIRTUAL,
  m TIMESTAMP_LTZ(3) METADATA FROM 'file.modification-time' VIRTUAL
) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json'${extra});`

/** The query's final rows (its changelog applied). */
function rowsOf(r: StatementResult | undefined): unknown[][] {
  if (r?.kind !== 'rows') throw new Error(`expected rows, got ${r?.kind}`)
  return materialize(r.changes).map(row => [...row])
}

async function query(sql: string): Promise<unknown[][]> {
  const results = await new Session({ println: () => undefined }).executeSql(sql)
  return rowsOf(results.at(-1))
}

async function duck(sql: string): Promise<unknown[][]> {
  const db = await DuckDBInstance.create(':memory:')
  const con = await db.connect()
  try {
    return (await con.runAndReadAll(sql)).getRows().map(r => r.map(v => (typeof v === 'bigint' ? Number(v) : v)))
  } finally {
    con.closeSync()
    db.closeSync()
  }
}

const byFirst = (a: unknown[], b: unknown[]): number => String(a[0]).localeCompare(String(b[0]))

describe.each(['false', 'true'])('filesystem metadata columns (decode thread %s)', thread => {
  const withThread = `, 'source.decode-thread' = '${thread}'`

  it("gives each row its file's path, matching DuckDB's filename of the same line", async () => {
    const weir = await query(`${TABLE(json, withThread)} SELECT p, COUNT(*), SUM(id), MIN(id), MAX(id) FROM t GROUP BY p;`)
    const oracle = await duck(`SELECT filename, COUNT(*), SUM(id), MIN(id), MAX(id) FROM read_json('${json}/*.json', filename = true) GROUP BY filename`)
    expect(oracle).toHaveLength(FILES.length)
    expect(weir.map(r => r.map(Number).map((x, i) => (i === 0 ? r[0] : x))).sort(byFirst)).toEqual(oracle.sort(byFirst))
  })

  it("gives each row its file's name, size and modification time, as stat() says", async () => {
    const weir = await query(`${TABLE(json, withThread)} SELECT n, s, m, COUNT(*) FROM t GROUP BY n, s, m;`)
    const expected = FILES.map(name => {
      const st = statSync(join(json, name))
      const lines = readFileSync(join(json, name), 'utf8').trim().split('\n').length
      return [name, st.size, Math.floor(st.mtimeMs), lines]
    })
    expect(weir.sort(byFirst)).toEqual(expected)
    // The times were set apart to the millisecond: a file's time is not another's.
    expect(new Set(weir.map(r => r[2])).size).toBe(FILES.length)
  })
})

describe('filesystem metadata columns', () => {
  it('reads a CSV file, and a metadata column in a filter and beside a projection of the record', async () => {
    const rows = await query(`CREATE TABLE c (id INT, tag STRING, n STRING METADATA FROM 'file.name' VIRTUAL)
      WITH ('connector' = 'filesystem', 'path' = '${csv}', 'format' = 'csv');
      SELECT tag, n, COUNT(*) FROM c WHERE n <> 'b.csv' GROUP BY tag, n;`)
    const count = (f: string): number => readFileSync(join(csv, f), 'utf8').trim().split('\n').length
    expect(rows.sort(byFirst)).toEqual([['x0', 'a.csv', count('a.csv')], ['x2', 'c.csv', count('c.csv')]])
  })

  describe.each(RESTORE_BACKENDS)('checkpointed and restored ($name)', b => {
    it('gives the rows read after the restore the facts of their own file', async () => {
      const dir = mkdtempSync(join(root, 'run-'))
      const out = (name: string): string => join(dir, name)
      const sql = (o: string): string =>
        `${TABLE(json)}
        CREATE TABLE o (id INT, n STRING, s BIGINT) WITH ('connector' = 'filesystem', 'path' = '${o}', 'format' = 'json');
        INSERT INTO o SELECT id, n, s FROM t;`
      await runInsertJob(sql(out('straight')), { ...b.options(dir), 'execution.batch-size': '7' })
      await checkpointedThenRestored({ root: dir, out: out('restored'), sql: sql(out('restored')), options: b.options(dir), a: 1, z: 1, sourceRows: ROWS })
      const straight = visibleRows(out('straight'))
      expect(straight.length).toBeGreaterThan(ROWS - 40)
      expect(visibleRows(out('restored'))).toEqual(straight)
      const sizes = new Map(FILES.map(f => [f, statSync(join(json, f)).size]))
      for (const l of straight) {
        const r = JSON.parse(l) as { n: string; s: number }
        expect(r.s).toBe(sizes.get(r.n))
      }
    }, 60_000)
  })

  it('refuses an unknown key, a wrong type, and writing a non-VIRTUAL metadata column, at the column', async () => {
    const unknown = await sqlError(`CREATE TABLE x (id INT, p STRING METADATA FROM 'file.paht')
      WITH ('connector' = 'filesystem', 'path' = '${json}', 'format' = 'json');`)
    expect(unknown.message).toContain(`connector 'filesystem' has no metadata 'file.paht' (column 'p')`)
    expect(unknown.help).toContain(`did you mean 'file.path'?`)
    expect(unknown.span?.start.line).toBe(1)
    const typed = await sqlError(`CREATE TABLE x (id INT, s INT METADATA FROM 'file.size')
      WITH ('connector' = 'filesystem', 'path' = '${json}', 'format' = 'json');`)
    expect(typed.message).toBe(`metadata 'file.size' of connector 'filesystem' is BIGINT, but column 's' is declared INT`)
    expect(typed.span?.start.column).toBe(25)
    const written = await sqlError(`${TABLE(json)} INSERT INTO t SELECT id, v, 'x' FROM t;`)
    expect(written.message).toContain(`connector 'filesystem' cannot write metadata 'file.path' (column 'p')`)
  })
})
