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
import { holdSourceEndsUntil, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'
import { holdSourceAfter } from '../support/source-holds.js'
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
    expect(leaves(out).some(l => l.success), 'no commit policy: no success files').toBe(false)
  })

  it('the filesystem source reads the partition columns back from the folder names (NULL and escaped values too)', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(`${SOURCE()}${SINK(out)}${INSERT}`, {})
    const rows = await readBack(`${SINK(out)} SELECT id, v, dt, kind FROM o;`)
    expect(lines(rows)).toEqual(await expected())
  })
})

/** Leaf partition folders (relative), and whether each has its success file. */
function leaves(out: string): { folder: string; success: boolean; rows: number }[] {
  const found: { folder: string; success: boolean; rows: number }[] = []
  for (const dt of readdirSync(out).filter(f => f.startsWith('dt='))) {
    for (const kind of readdirSync(join(out, dt)).filter(f => f.startsWith('kind='))) {
      const dir = join(out, dt, kind)
      const files = readdirSync(dir)
      const rows = files.filter(f => !f.startsWith('.') && !f.startsWith('_'))
        .reduce((n, f) => n + readFileSync(join(dir, f), 'utf8').split('\n').filter(l => l !== '').length, 0)
      found.push({ folder: `${dt}/${kind}`, success: files.includes('_SUCCESS'), rows })
    }
  }
  return found.sort((a, b) => a.folder.localeCompare(b.folder))
}

describe.each(RESTORE_BACKENDS)('PARTITIONED BY with checkpoints ($name)', b => {
  it('cancelled midway and restored, the partitions hold exactly the rows of a straight run; at the end each has its _SUCCESS', async () => {
    const dir = mkdtempSync(join(root, 'run-'))
    const options = { ...b.options(dir), 'execution.checkpointing.interval': '5 ms', 'execution.batch-size': '1',
      'state.checkpoints.dir': mkdtempSync(join(dir, 'chk-')) }
    const out = mkdtempSync(join(root, 'out-'))
    const sql = `${SOURCE()}${SINK(out, `, 'sink.partition-commit.policy.kind' = 'success-file'`)}${INSERT}`
    const cancel = new AbortController()
    let midway = 0
    // The source is held after half its input until the cancel: a checkpoint (the third or later) then
    // commits the rows read so far, and none after them, however fast the host reads.
    const first = await runInsertJob(sql, options, cancel.signal, id => {
      if (id >= 3 && midway === 0) {
        midway = leaves(out).reduce((n, l) => n + l.rows, 0)
        if (midway > 0) cancel.abort()
      }
    }, holdSourceAfter(ROWS / 2, cancel.signal))
    expect(first.cancelled).toBe(true)
    const want = await expected()
    expect(midway).toBeGreaterThan(0)
    expect(midway).toBeLessThan(want.length)
    const second = await runInsertJob(sql, options)
    expect(second.sourceRecordsRead, 'the restored run resumed midway').toBeLessThan(ROWS)
    expect(await written(out)).toEqual(want)
    expect(leaves(out).filter(l => !l.success)).toEqual([])
    expect(leaves(out)).toHaveLength(DAYS * 5)
  }, 60_000)
})

describe('partition commit triggers', () => {
  it(`'partition-time': a partition gets its _SUCCESS only once complete (the watermark passed its day), while the job still runs`, async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const sink = SINK(out, `, 'sink.partition-commit.policy.kind' = 'success-file', 'sink.partition-commit.trigger' = 'partition-time',
      'partition.time-extractor.timestamp-pattern' = '$dt 00:00:00', 'sink.partition-commit.delay' = '1 d'`)
    const final = new Map<string, number>()
    for (const l of lines(await duck(`SELECT id, v, strftime(CAST(ts AS TIMESTAMP), '%Y-%m-%d'), kind FROM read_json('${input}') WHERE v > 10`))) {
      const r = JSON.parse(l) as { dt: string; kind: string | null }
      const key = `dt=${r.dt}/kind=${r.kind === null ? '__DEFAULT_PARTITION__' : encodeURIComponent(r.kind)}`
      final.set(key, (final.get(key) ?? 0) + 1)
    }
    let committedEarly = 0
    const incomplete: string[] = []
    // The source's end held until two checkpoints have completed: the last day stays open (the watermark
    // has not passed it) while they commit the earlier days, however slow the host.
    const checkpointed = new AbortController()
    let checkpoints = 0
    await runInsertJob(`${SOURCE()}${sink}${INSERT}`, { 'execution.checkpointing.interval': '5 ms', 'execution.batch-size': '1',
      'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')) }, undefined, () => {
      const now = leaves(out)
      for (const l of now.filter(x => x.success)) {
        if (l.rows !== final.get(l.folder)) incomplete.push(`${l.folder}: ${l.rows} of ${final.get(l.folder)}`)
      }
      if (now.some(l => l.success) && now.some(l => l.folder.startsWith('dt=2024-05-06') && !l.success)) committedEarly++
      if (++checkpoints >= 2) checkpointed.abort()
    }, holdSourceEndsUntil(checkpointed.signal, 40_000))
    expect(incomplete).toEqual([])
    expect(committedEarly, 'earlier days were committed before the last one was').toBeGreaterThan(0)
    expect(leaves(out).every(l => l.success)).toBe(true)
  }, 60_000)

  it(`'process-time' with a delay: no _SUCCESS while the job runs (an hour has not passed), every one at the end of the input`, async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const sink = SINK(out, `, 'sink.partition-commit.policy.kind' = 'success-file', 'sink.partition-commit.delay' = '1 h'`)
    let early = 0
    let checkpoints = 0
    // The source's end held until two checkpoints have completed while the job runs, however slow the host.
    const checkpointed = new AbortController()
    await runInsertJob(`${SOURCE()}${sink}${INSERT}`, { 'execution.checkpointing.interval': '5 ms', 'execution.batch-size': '1',
      'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')) }, undefined, () => {
      checkpoints++
      early += leaves(out).filter(l => l.success).length
      if (checkpoints >= 2) checkpointed.abort()
    }, holdSourceEndsUntil(checkpointed.signal, 40_000))
    // Each checkpoint while the job ran saw no _SUCCESS.
    expect(checkpoints, 'checkpoints while the job ran').toBeGreaterThanOrEqual(2)
    expect(early).toBe(0)
    expect(leaves(out).every(l => l.success)).toBe(true)
    expect(await written(out)).toEqual(await expected())
  }, 60_000)
})

describe('INSERT … PARTITION and INSERT OVERWRITE of a partitioned table', () => {
  /** A table written in full, then overwritten by `sql`; the rows DuckDB reads from it after. */
  async function overwrite(sql: string, options: Record<string, string> = {}): Promise<{ out: string; rows: string[] }> {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(`${SOURCE()}${SINK(out)}${INSERT}`, {})
    await runInsertJob(`${SOURCE()}${SINK(out)}${sql}`, options)
    return { out, rows: await written(out) }
  }

  it('a static PARTITION puts every row in its folder; the query gives the other columns', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(`${SOURCE()}${SINK(out)}INSERT INTO o PARTITION (dt = '2023-12-31') SELECT id, v, kind FROM t WHERE v > 10;`, {})
    expect(readdirSync(out).filter(f => !f.startsWith('.'))).toEqual(['dt=2023-12-31'])
    const want = (await expected()).map(l => ({ ...JSON.parse(l) as object, dt: '2023-12-31' })).map(r => JSON.stringify(r)).sort()
    expect(await written(out)).toEqual(want)
  })

  for (const checkpoints of [false, true]) {
    const options = (): Record<string, string> =>
      checkpoints ? { 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')) } : {}
    it(`dynamic INSERT OVERWRITE replaces the partitions the query writes, and only those${checkpoints ? ' (with checkpoints)' : ''}`, async () => {
      const { rows } = await overwrite(`INSERT OVERWRITE o SELECT id, v * 1000, DATE_FORMAT(ts, 'yyyy-MM-dd'), kind FROM t WHERE v > 50 AND id < 2000;`,
        options())
      const all = (await expected()).map(l => JSON.parse(l) as { id: number; v: number; dt: string; kind: string | null })
      const replaced = new Set(
        (await duck(
          `SELECT DISTINCT strftime(CAST(ts AS TIMESTAMP), '%Y-%m-%d') || '/' || coalesce(kind, '') FROM read_json('${input}') WHERE v > 50 AND id < 2000`,
        ))
          .map(([p]) => String(p)),
      )
      const kept = all.filter(r => !replaced.has(`${r.dt}/${r.kind ?? ''}`))
      const fresh = await duck(`SELECT id, v * 1000, strftime(CAST(ts AS TIMESTAMP), '%Y-%m-%d'), kind FROM read_json('${input}') WHERE v > 50 AND id < 2000`)
      expect(rows).toEqual([...kept.map(r => JSON.stringify(r)), ...lines(fresh)].sort())
      expect(kept.length).toBeGreaterThan(0)
    })

    it(`INSERT OVERWRITE … PARTITION (all keys) replaces that one partition, even with no rows${checkpoints ? ' (with checkpoints)' : ''}`, async () => {
      const { out, rows } = await overwrite(`INSERT OVERWRITE o PARTITION (dt = '2024-05-02', kind = 'a') SELECT id, v FROM t WHERE v > 1000;`, options())
      const want = (await expected()).filter(l => !(l.includes('"dt":"2024-05-02"') && l.includes('"kind":"a"')))
      expect(rows).toEqual(want)
      expect(leaves(out).find(l => l.folder === 'dt=2024-05-02/kind=a')?.rows).toBe(0)
    })
  }
})

describe('partition columns of other types', () => {
  it('INT and DATE partitions: folders by their text, read back as their types, as DuckDB reads them', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const table = `CREATE TABLE p (id INT, d DATE, h INT) PARTITIONED BY (d, h) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');`
    await runInsertJob(`${SOURCE()}${table}INSERT INTO p SELECT id, CAST(ts AS DATE), CAST(HOUR(ts) AS INT) FROM t WHERE id % 7 = 0;`, {})
    expect(readdirSync(join(out, 'd=2024-05-03'))).toContain('h=0')
    const rows = await readBack(`${table} SELECT id, d, h, h + 1 FROM p WHERE h >= 10;`)
    const got = rows.map(r => `${String(r[0])} ${typeof r[1]} ${String(r[2])} ${String(r[3])}`).sort()
    const want = (await duck(`SELECT id, hour(CAST(ts AS TIMESTAMP)) FROM read_json('${input}') WHERE id % 7 = 0 AND hour(CAST(ts AS TIMESTAMP)) >= 10`))
      .map(([id, h]) => `${String(id)} number ${String(h)} ${Number(h) + 1}`).sort()
    expect(got).toEqual(want)
    expect(got.length).toBeGreaterThan(100)
  })

  it('a folder whose value is not of the column type fails the read naming the folder', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const table = `CREATE TABLE p (id INT, h INT) PARTITIONED BY (h) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');`
    await runInsertJob(`${SOURCE()}${table}INSERT INTO p SELECT id, 1 FROM t WHERE id < 5;`, {})
    const bad = join(out, 'h=seven')
    rmSync(bad, { recursive: true, force: true })
    writeFileSync(join(out, 'h=1', 'extra.json'), '{"id":99}\n')
    await import('node:fs/promises').then(fs => fs.mkdir(bad)).then(() => writeFileSync(join(bad, 'x.json'), '{"id":100}\n'))
    const e = await readBack(`${table} SELECT * FROM p;`).then(() => undefined, (x: unknown) => x as Error)
    expect(e?.message).toMatch(/partition folder 'h=seven' of table 'p' has 'seven' for column 'h', which is not a/)
  })
})

describe('PARTITIONED BY refused where it cannot work, at its place', () => {
  const fs = (cols: string, by: string, extra = ''): string =>
    `CREATE TABLE o (${cols}) PARTITIONED BY (${by}) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'json'${extra});`
  it.each([
    [fs('a INT, b STRING', 'c'), `partition column 'c' is not a column of 'o'`, 50],
    [fs('a INT, b AS a + 1', 'b'), `partition column 'b' is a computed column`, 52],
    [fs('a INT, b STRING', 'a, b'), `every physical column of 'o' is a partition column: its files would hold nothing`, 49],
    [fs('a INT, b ARRAY<INT>', 'b'), `partition column 'b' is ARRAY<INT>: a folder name cannot hold it`, 54],
    [fs('a INT, b STRING', 'b, b'), `partition column 'b' is named twice`, 53],
  ])('%s', async (sql, message, column) => {
    const e = await sqlError(sql)
    expect(e.message).toBe(message)
    expect(e.span?.start).toMatchObject({ line: 1, column })
  })

  it('other connectors, commit policies Weir has not, a PARTITION clause that does not fit', async () => {
    expect((await sqlError(`CREATE TABLE k (a INT, b STRING) PARTITIONED BY (b) WITH ('connector' = 'datagen');`)).message)
      .toBe(`connector 'datagen' does not support PARTITIONED BY`)
    const metastore = await sqlError(fs('a INT, b STRING', 'b', `, 'sink.partition-commit.policy.kind' = 'metastore'`))
    expect(metastore.message).toBe(`partition commit policy 'metastore' is not supported`)
    const plain = `CREATE TABLE s (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'json');\n`
    const notPartitioned = await sqlError(`${plain}INSERT INTO s PARTITION (b = 'x') SELECT 1;`)
    expect(notPartitioned.message).toBe(`table 's' is not partitioned: INSERT cannot name a PARTITION`)
    expect(notPartitioned.span?.start).toMatchObject({ line: 2, column: 26 })
    const part = `${fs('a INT, b STRING, n INT', 'b, n')}\n`
    expect((await sqlError(`${part}INSERT INTO o PARTITION (a = 1) SELECT 1, 'x', 2;`)).message).toBe(`'a' is not a partition column of 'o'`)
    const badInt = await sqlError(`${part}INSERT INTO o PARTITION (n = 'seven') SELECT 1, 'x';`)
    expect(badInt.message).toBe(`partition value 'seven' is not a INT (column 'n')`)
    expect(badInt.span?.start).toMatchObject({ line: 2, column: 26 })
    expect((await sqlError(`${part}INSERT INTO o PARTITION (n = 3) SELECT 1;`)).message)
      .toBe(`the query produces 1 columns but 'o' has 2 columns besides its static partition (a, b)`)
  })

  it('SHOW CREATE TABLE prints it; LIKE copies it unless told EXCLUDING PARTITIONS', async () => {
    const session = new Session({ println: () => undefined })
    const res = await session.executeSql(`${fs('a INT, b STRING', 'b')}
CREATE TABLE o2 WITH ('path' = '/tmp/y') LIKE o;
CREATE TABLE o3 WITH ('path' = '/tmp/z') LIKE o (EXCLUDING PARTITIONS);
SHOW CREATE TABLE o2; SHOW CREATE TABLE o3;`)
    const texts = res.flatMap(r => (r.kind === 'explain' ? [r.text] : []))
    expect(texts[0]).toContain('\nPARTITIONED BY (`b`)\nWITH (')
    expect(texts[1]).not.toContain('PARTITIONED')
  })
})

describe('Nexmark q10 with its published text, and the rolling policy', () => {
  const BID = (events: number): string =>
    `CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '${events}', 'nexmark.event.rate' = '1000');\n`
  const Q10 = (out: string, rolling = `'sink.rolling-policy.rollover-interval' = '1min'`): string =>
    `CREATE TABLE fs_sink (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  dateTime  TIMESTAMP(3),
  extra  VARCHAR,
  dt STRING,
  hm STRING
) PARTITIONED BY (dt, hm) WITH (
  'connector' = 'filesystem',
  'path' = 'file://${out}/bid/',
  'format' = 'csv',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 min',
  'sink.partition-commit.policy.kind' = 'success-file',
  'partition.time-extractor.timestamp-pattern' = '$dt $hm:00',
  ${rolling}
);

INSERT INTO fs_sink
SELECT auction, bidder, price, dateTime, extra, DATE_FORMAT(dateTime, 'yyyy-MM-dd'), DATE_FORMAT(dateTime, 'HH:mm')
FROM bid;`

  /** The bids as a JSON file, which DuckDB turns into the rows q10 must write. */
  async function bidsOracle(events: number): Promise<string[]> {
    const all = mkdtempSync(join(root, 'bids-'))
    await runInsertJob(`${BID(events)}CREATE TABLE allbids (auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3), extra STRING)
      WITH ('connector' = 'filesystem', 'path' = '${all}', 'format' = 'json');
      INSERT INTO allbids SELECT auction, bidder, price, dateTime, extra FROM bid;`, {})
    const rows = await duck(`SELECT auction, strftime(CAST(dateTime AS TIMESTAMP), '%Y-%m-%d'), strftime(CAST(dateTime AS TIMESTAMP), '%H:%M')
      FROM read_json('${all}/*.json')`)
    return rows.map(([a, dt, hm]) => `${String(a)} ${String(dt)} ${String(hm)}`).sort()
  }

  async function q10Rows(out: string): Promise<string[]> {
    const rows = await duck(`SELECT column0, dt, hm FROM read_csv('${out}/bid/*/*/*.csv', hive_partitioning = true, hive_types_autocast = false,
      header = false)`)
    return rows.map(([a, dt, hm]) => `${String(a)} ${String(dt)} ${decodeURIComponent(String(hm))}`).sort()
  }

  it('q10 writes every bid into its dt/hm partition (checked by DuckDB), each with its _SUCCESS', async () => {
    const out = mkdtempSync(join(root, 'q10-'))
    await runInsertJob(`${BID(30_000)}${Q10(out)}`, { 'execution.checkpointing.interval': '20 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')) })
    const want = await bidsOracle(30_000)
    expect(want.length).toBeGreaterThan(20_000)
    expect(await q10Rows(out)).toEqual(want)
    const days = readdirSync(join(out, 'bid')).filter(d => d.startsWith('dt='))
    expect(days.length).toBeGreaterThan(0)
    for (const d of days) {
      for (const hm of readdirSync(join(out, 'bid', d))) expect(existsSync(join(out, 'bid', d, hm, '_SUCCESS'))).toBe(true)
    }
  }, 60_000)

  it(`'sink.rolling-policy.file-size' rolls parts between checkpoints; the rows are still each written once`, async () => {
    const out = mkdtempSync(join(root, 'q10-'))
    let checkpoints = 0
    await runInsertJob(`${BID(20_000)}${Q10(out, `'sink.rolling-policy.file-size' = '2 kb'`)}`, { 'execution.checkpointing.interval': '1 h',
      'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')) }, undefined, () => checkpoints++)
    const parts = readdirSync(join(out, 'bid'), { recursive: true }).map(String).filter(f => f.endsWith('.csv'))
    expect(checkpoints, 'one checkpoint: the one after the end').toBeLessThanOrEqual(1)
    const partitions = new Set(parts.map(f => f.split('/').slice(0, 2).join('/')))
    // Without rolling: one part per partition (one checkpoint); a part rolls at the end of the batch that fills it.
    expect(parts.length).toBeGreaterThan(3 * partitions.size)
    expect(await q10Rows(out)).toEqual(await bidsOracle(20_000))
  }, 60_000)

  it('refuses a rolling option it cannot read, and a path that is not local', async () => {
    const bad = await sqlError(Q10('/tmp/q', `'sink.rolling-policy.file-size' = 'big'`))
    expect(bad.message).toBe(`invalid value 'big' for option 'sink.rolling-policy.file-size': expected a size such as '128 mb' or '1 gb'`)
    const s3 = await sqlError(`CREATE TABLE o (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 's3://bucket/x', 'format' = 'json');`)
    expect(s3.message).toBe(`filesystem path 's3://bucket/x' is not local: only local paths and file:// URIs are supported`)
  })
})

describe('partition pruning', () => {
  it('a WHERE on partition columns skips the folders it rules out (a broken file there is never read); other conditions still filter rows', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(`${SOURCE()}${SINK(out)}${INSERT}`, {})
    // A file that fails any read of its folder: only a pruned folder lets the queries below succeed.
    writeFileSync(join(out, 'dt=2024-05-01', 'kind=a', 'broken.json'), 'not json\n')
    const pruned = await readBack(`${SINK(out)} SELECT id, v, dt, kind FROM o WHERE dt >= '2024-05-03' AND kind IN ('a', 'b/c') AND v < 50;`)
    const want = (await expected()).filter(l => {
      const r = JSON.parse(l) as { v: number; dt: string; kind: string | null }
      return r.dt >= '2024-05-03' && (r.kind === 'a' || r.kind === 'b/c') && r.v < 50
    })
    expect(want.length).toBeGreaterThan(100)
    expect(lines(pruned)).toEqual(want)
    // Without a condition on the partition, the broken file is read and fails the job, naming it.
    const e = await readBack(`${SINK(out)} SELECT id FROM o WHERE v < 50;`).then(() => undefined, (x: unknown) => x as Error)
    expect(e?.message).toMatch(/broken\.json/)
  })
})
