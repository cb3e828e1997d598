// PARTITIONED BY filesystem tables: the sink writes each row into the folder its partition values
// name (`dt=…/kind=…`, Hive's layout, the values escaped; NULL in __DEFAULT_PARTITION__) and leaves
// those columns out of the files; the source reads them back from the folder names. Checked against
// DuckDB, which reads the same layout with hive_partitioning, over the same input: without
// checkpoints, and with them cancelled midway and restored (on heap and RocksDB). Partition commit
// writes _SUCCESS into a partition only once it is complete by its trigger.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DuckDBInstance } from '@duckdb/node-api'
import { Session } from '../../engine/session.js'
import { RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'
import { sqlError } from './helpers.js'

const ROWS = 6_000
const DAYS = 6
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-fs-partitioned-'))
  input = join(root, 'in.json')
  const lines: string[] = []
  // In time order: day d holds rows [d*1000, (d+1)*1000); kinds include a NULL and characters a path cannot hold.
  const kinds = ['a', 'b/c', 'd:e', null, 'f=g']
  for (let i = 0; i < ROWS; i++) {
    const day = Math.floor(i / (ROWS / DAYS))
    const ts = `2024-05-0${day + 1} ${String(Math.floor((i % 1000) / 50)).padStart(2, '0')}:00:00`
    lines.push(JSON.stringify({ id: i, v: (i * 37) % 101, kind: kinds[i % kinds.length], ts }))
  }
  writeFileSync(input, lines.join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const SOURCE = (): string =>
  `CREATE TABLE t (id INT, v INT, kind STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');`
const SINK = (out: string, extra = ''): string =>
  `CREATE TABLE o (id INT, v INT, dt STRING, kind STRING) PARTITIONED BY (dt, kind)
  WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json'${extra});`
const INSERT = `INSERT INTO o SELECT id, v, DATE_FORMAT(ts, 'yyyy-MM-dd'), kind FROM t WHERE v > 10;`

/** Rows as sorted JSON lines of {id, v, dt, kind}. */
function lines(rows: readonly (readonly unknown[])[]): string[] {
  return rows.map(([id, v, dt, kind]) => JSON.stringify({ id: Number(id), v: Number(v), dt: String(dt), kind: kind ?? null })).sort()
}

async function duck(sql: string): Promise<unknown[][]> {
  const db = await DuckDBInstance.create(':memory:')
  const con = await db.connect()
  try {
    return (await con.runAndReadAll(sql)).getRows() as unknown[][]
  } finally {
    con.closeSync()
    db.closeSync()
  }
}

/** The query's rows, computed by DuckDB from the input. */
async function expected(): Promise<string[]> {
  return lines(await duck(`SELECT id, v, strftime(CAST(ts AS TIMESTAMP), '%Y-%m-%d'), kind FROM read_json('${input}') WHERE v > 10`))
}

/** What DuckDB reads from the sink's folders (Hive partitioning; its NULL folder is our default name). */
async function written(out: string): Promise<string[]> {
  const rows = await duck(`SELECT id, v, dt, kind FROM read_json('${out}/*/*/*.json', hive_partitioning = true, hive_types_autocast = false,
    columns = {id: 'INT', v: 'INT'})`)
  return lines(rows.map(([id, v, dt, kind]) => [id, v, dt, kind === '__DEFAULT_PARTITION__' ? null : decodeURIComponent(String(kind))]))
}

async function readBack(sql: string): Promise<unknown[][]> {
  const session = new Session({ println: () => undefined })
  const last = (await session.executeSql(sql)).at(-1)!
  if (last.kind !== 'rows') throw new Error(`expected rows, got ${last.kind}`)
  expect(last.changes.every(c => c.kind === 0)).toBe(true)
  return last.changes.map(c => c.row)
}

describe('PARTITIONED BY: the filesystem sink', () => {
  it('writes each row into its partition folder, without the partition columns, as DuckDB reads them back', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(`${SOURCE()}${SINK(out)}${INSERT}`, {})
    const days = readdirSync(out).filter(f => !f.startsWith('.')).sort()
    expect(days).toEqual(['dt=2024-05-01', 'dt=2024-05-02', 'dt=2024-05-03', 'dt=2024-05-04', 'dt=2024-05-05', 'dt=2024-05-06'])
    expect(readdirSync(join(out, 'dt=2024-05-01')).sort()).toEqual(['kind=__DEFAULT_PARTITION__', 'kind=a', 'kind=b%2Fc', 'kind=d%3Ae', 'kind=f%3Dg'])
    const file = readdirSync(join(out, 'dt=2024-05-01', 'kind=a')).find(f => !f.startsWith('.'))!
    const first = JSON.parse(readFileSync(join(out, 'dt=2024-05-01', 'kind=a', file), 'utf8').split('\n')[0]!) as object
    expect(Object.keys(first), 'partition columns live in the folder names only').toEqual(['id', 'v'])
    const want = await expected()
    expect(want.length).toBeGreaterThan(4000)
    expect(await written(out)).toEqual(want)
  })

  it('the filesystem source reads the partition columns back from the folder names (NULL and escaped values too)', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(`${SOURCE()}${SINK(out)}${INSERT}`, {})
    const rows = await readBack(`${SINK(out)} SELECT id, v, dt, kind FROM o;`)
    expect(lines(rows)).toEqual(await expected())
  })
})
