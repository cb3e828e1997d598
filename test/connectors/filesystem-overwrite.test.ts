// INSERT OVERWRITE into a filesystem table from a bounded query: the table's earlier files (any
// visible file: earlier parts and a user's own) are replaced by exactly the query's rows — checked
// against DuckDB over the same input — without checkpoints, with them, cancelled midway (nothing of
// the job visible, the old rows still there) and restored, when the query reads the table it
// overwrites, and with no rows at all. Unbounded queries and sinks that only append are refused.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DuckDBInstance } from '@duckdb/node-api'
import { holdsEnd, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'
import { sqlError, visibleRows } from './helpers.js'

const ROWS = 20_000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-fs-overwrite-'))
  input = join(root, 'in.json')
  const lines: string[] = []
  for (let i = 0; i < ROWS; i++) lines.push(JSON.stringify({ id: i, v: (i * 37) % 101 }))
  writeFileSync(input, lines.join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A sink folder holding what an earlier run left: a part file and a file of the user's. */
function oldTable(): string {
  const out = mkdtempSync(join(root, 'out-'))
  writeFileSync(join(out, 'part-old-0000000000.json'), '{"id":-1,"w":-1}\n{"id":-2,"w":-2}\n')
  writeFileSync(join(out, 'mine.json'), '{"id":-3,"w":-3}\n')
  return out
}

const SQL = (out: string, where = 'v > 20'): string => `
  CREATE TABLE t (id INT, v INT) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
  CREATE TABLE o (id INT, w INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
  INSERT OVERWRITE o SELECT id, v * 2 FROM t WHERE ${where};`

async function oracle(where = 'v > 20'): Promise<string[]> {
  const db = await DuckDBInstance.create(':memory:')
  const con = await db.connect()
  try {
    const rows = (await con.runAndReadAll(`SELECT id, v * 2 FROM read_json('${input}') WHERE ${where}`)).getRows()
    return rows.map(([id, w]) => JSON.stringify({ id: Number(id), w: Number(w) })).sort()
  } finally {
    con.closeSync()
    db.closeSync()
  }
}

describe('INSERT OVERWRITE into a filesystem table', () => {
  it('without checkpoints: the old files are gone and the table holds the query rows, as DuckDB computes them', async () => {
    const out = oldTable()
    await runInsertJob(SQL(out), {})
    const expected = await oracle()
    expect(expected.length).toBeGreaterThan(1000)
    expect(visibleRows(out)).toEqual(expected)
  })

  it('INSERT INTO the same table appends instead (the old rows stay)', async () => {
    const out = oldTable()
    await runInsertJob(SQL(out).replace('INSERT OVERWRITE', 'INSERT INTO'), {})
    expect(visibleRows(out)).toHaveLength((await oracle()).length + 3)
  })

  it('a query without rows leaves the table empty', async () => {
    const out = oldTable()
    await runInsertJob(SQL(out, 'v > 1000'), {})
    expect(visibleRows(out)).toEqual([])
  })

  describe.each(RESTORE_BACKENDS)('with checkpoints ($name)', b => {
    it('publishes at the end only; cancelled midway the old rows are still all there; restored, it ends as a straight run', async () => {
      const dir = mkdtempSync(join(root, 'run-'))
      const options = {
        ...b.options(dir),
        'execution.checkpointing.interval': '5 ms',
        'state.checkpoints.dir': mkdtempSync(join(dir, 'chk-')),
        'execution.batch-size': '1',
      }
      const straight = oldTable()
      await runInsertJob(SQL(straight), options)
      expect(visibleRows(straight)).toEqual(await oracle())

      const out = oldTable()
      const before = visibleRows(out)
      const cancel = new AbortController()
      let seenMidway: string[] | undefined
      // Its own checkpoint folder, which the second run resumes from.
      const resumable = { ...options, 'state.checkpoints.dir': mkdtempSync(join(dir, 'chk-')) }
      const first = await runInsertJob(SQL(out), resumable, cancel.signal, id => {
        if (id >= 2 && seenMidway === undefined) {
          seenMidway = visibleRows(out)
          cancel.abort()
        }
      }, holdsEnd(cancel.signal))
      expect(first.cancelled).toBe(true)
      expect(seenMidway, 'after two completed checkpoints the table still holds its old rows only').toEqual(before)
      expect(visibleRows(out)).toEqual(before)
      const second = await runInsertJob(SQL(out), resumable)
      expect(second.sourceRecordsRead, 'the restored run resumed midway').toBeLessThan(ROWS)
      expect(visibleRows(out)).toEqual(await oracle())
    }, 60_000)
  })

  it('overwrites the table the query reads: every old row read, then replaced', async () => {
    const out = oldTable()
    await runInsertJob(SQL(out), {})
    const sql = `CREATE TABLE o (id INT, w INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT OVERWRITE o SELECT id, w + 1 FROM o;`
    await runInsertJob(sql, { 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'self-chk-')) })
    const expected = (await oracle()).map(l => JSON.parse(l) as { id: number; w: number }).map(r => JSON.stringify({ id: r.id, w: r.w + 1 })).sort()
    expect(visibleRows(out)).toEqual(expected)
  })

  it('refuses an unbounded query and a sink that only appends, at their place', async () => {
    mkdirSync(join(root, 'x'), { recursive: true })
    const unbounded = await sqlError(`CREATE TABLE g (a INT) WITH ('connector' = 'datagen');
CREATE TABLE o (a INT) WITH ('connector' = 'filesystem', 'path' = '${join(root, 'x')}', 'format' = 'json');
INSERT OVERWRITE o SELECT a FROM g;`)
    expect(unbounded.message).toBe(`INSERT OVERWRITE needs a bounded query, but 'g' (connector 'datagen') is unbounded`)
    expect(unbounded.span?.start).toMatchObject({ line: 3, column: 20 })
    const printed = await sqlError(`CREATE TABLE p (a INT) WITH ('connector' = 'print');
INSERT OVERWRITE p SELECT 1;`)
    expect(printed.message).toBe(`INSERT OVERWRITE cannot overwrite table 'p': connector 'print' only appends`)
    expect(printed.span?.start).toMatchObject({ line: 2, column: 18 })
  })
})
