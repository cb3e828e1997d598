// Sessions end to end: DDL and options, SHOW/DESCRIBE, INSERT into file sinks (rows and changelogs),
// processing-time windows, watermarks over several files, and the errors a user can cause.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Session, type StatementResult } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
import { fails } from './helpers.js'

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'weir-session-'))
}

function readParts(dir: string): string[] {
  return readdirSync(dir).filter(f => f.startsWith('part-')).sort().flatMap(f => readFileSync(join(dir, f), 'utf8').split('\n').filter(l => l.length > 0))
}

describe('catalog statements', () => {
  it('creates, lists, describes and drops tables and views', async () => {
    const s = new Session()
    await s.executeSql(`
      CREATE TABLE t (id BIGINT NOT NULL, name STRING, ts TIMESTAMP(3), d AS id * 2, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (id) NOT ENFORCED)
        WITH ('connector' = 'datagen');
      CREATE VIEW v AS SELECT id, name FROM t WHERE id > 10;`)
    const [show] = await s.executeSql('SHOW TABLES')
    expect(show).toEqual({ kind: 'table', columns: ['table name'], rows: [['t'], ['v']] })
    const [desc] = await s.executeSql('DESCRIBE t') as [Extract<StatementResult, { kind: 'table' }>]
    expect(desc.rows.map(r => [r[0], r[1], r[2]])).toEqual([
      ['id', 'BIGINT', 'FALSE'],
      ['name', 'STRING', 'TRUE'],
      ['ts', 'TIMESTAMP(3) *ROWTIME*', 'TRUE'],
      ['d', 'BIGINT', 'FALSE'],
    ])
    expect(desc.rows[0]![3]).toBe('PRI(id)')
    expect(desc.rows[2]![5]).toBe("ts - INTERVAL '1' SECOND")
    const [descView] = await s.executeSql('DESCRIBE v') as [Extract<StatementResult, { kind: 'table' }>]
    expect(descView.rows).toEqual([['id', 'BIGINT NOT NULL'], ['name', 'STRING']])
    await s.executeSql('DROP VIEW v; DROP TABLE IF EXISTS nope; DROP TABLE t')
    expect((await s.executeSql('SHOW TABLES'))[0]).toEqual({ kind: 'table', columns: ['table name'], rows: [] })
  })

  it('rejects a duplicate table unless IF NOT EXISTS', async () => {
    const s = new Session()
    await s.executeSql(`CREATE TABLE t (a INT) WITH ('connector' = 'datagen')`)
    const e = await fails(`CREATE TABLE t (a INT) WITH ('connector' = 'datagen')`, s)
    expect(e.message).toBe("table 't' already exists")
    expect(e.help).toContain('IF NOT EXISTS')
    const [r] = await s.executeSql(`CREATE TABLE IF NOT EXISTS t (a INT) WITH ('connector' = 'datagen')`)
    expect(r).toEqual({ kind: 'ok', message: "table 't' already exists" })
  })

  it('points at a bad option in the WITH clause', async () => {
    const e = await fails(`CREATE TABLE t (a INT) WITH (\n  'connector' = 'datagen',\n  'rows-per-secnd' = '5')`)
    expect(e.message).toContain("'rows-per-secnd'")
    expect(e.help).toContain("'rows-per-second'")
    expect(e.span?.start.line).toBe(3)
    expect(e.span?.start.column).toBe(3)
  })

  it('names an unknown connector with a suggestion', async () => {
    const e = await fails(`CREATE TABLE t (a INT) WITH ('connector' = 'filesytem', 'path' = '/x')`)
    expect(e.message).toContain("unknown connector 'filesytem'")
    expect(e.help).toContain("'filesystem'")
  })

  it('rejects a WATERMARK on a non-timestamp column', async () => {
    const e = await fails(`CREATE TABLE t (a INT, WATERMARK FOR a AS a) WITH ('connector' = 'datagen')`)
    expect(e.message).toContain("WATERMARK FOR 'a' needs a TIMESTAMP(3) or TIMESTAMP_LTZ(3) column, but it is INT")
  })

  it('checks SET keys and values', async () => {
    const e1 = await fails(`SET 'table.exec.state.tll' = '1 h'`)
    expect(e1.message).toBe("unknown option 'table.exec.state.tll'")
    expect(e1.help).toBe("did you mean 'table.exec.state.ttl'?")
    const e2 = await fails(`SET 'table.exec.state.ttl' = 'soon'`)
    expect(e2.message).toContain("invalid value 'soon' for option 'table.exec.state.ttl'")
    const s = new Session()
    await s.executeSql(`SET 'table.exec.state.ttl' = '1 h'`)
    expect(s.currentOptions['table.exec.state.ttl']).toBe('1 h')
    await s.executeSql(`RESET 'table.exec.state.ttl'`)
    expect(s.currentOptions['table.exec.state.ttl']).toBeUndefined()
  })

  it('rejects ORDER BY and joins without an equality with messages that say what to do', async () => {
    const ddl = `CREATE TABLE t (a INT, b INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');`
    const unbounded = `CREATE TABLE u (a INT) WITH ('connector' = 'datagen');`
    expect((await fails(unbounded + 'SELECT * FROM u ORDER BY a')).message).toBe(
      "ORDER BY without LIMIT needs a bounded input, but 'u' (connector 'datagen') is unbounded",
    )
    expect((await fails(ddl + 'SELECT * FROM t x JOIN t y ON x.a < y.a')).message).toMatch(
      /has no equality condition between its two sides, so its state would have no key/,
    )
  })

  it('rejects an INSERT whose columns do not fit the sink', async () => {
    const ddl = `CREATE TABLE t (a INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
      CREATE TABLE o (a INT, b INT) WITH ('connector' = 'blackhole');`
    const e1 = await fails(ddl + 'INSERT INTO o SELECT a FROM t')
    expect(e1.message).toBe("the query produces 1 columns but 'o' has 2 (a, b)")
    const e2 = await fails(ddl + 'INSERT INTO o SELECT a, s FROM t')
    expect(e2.message).toBe("column 2 of the query ('s') is STRING, but sink column 'b' is INT")
    expect(e2.help).toContain('CAST(s AS INT)')
  })
})

describe('jobs', () => {
  it('writes insert-only rows as JSON lines, with exact decimals and timestamps', async () => {
    const out = tmp()
    const s = new Session()
    const input = join(tmp(), 'in.jsonl')
    writeFileSync(input, '{"id": 1, "price": 0.10, "ts": "2024-01-01 10:00:00.5"}\n{"id": 2, "price": 0.20, "ts": "2024-01-01 10:00:01"}\n')
    await s.executeSql(`
      CREATE TABLE prices (id BIGINT, price DECIMAL(10, 2), ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
      CREATE TABLE out (id BIGINT, total DECIMAL(11, 2), ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO out SELECT id, price + 0.20, ts FROM prices;`)
    await s.awaitJobs()
    expect(readParts(out)).toEqual([
      '{"id":1,"total":0.30,"ts":"2024-01-01 10:00:00.500"}',
      '{"id":2,"total":0.40,"ts":"2024-01-01 10:00:01.000"}',
    ])
    expect(readdirSync(out).some(f => f.endsWith('.inprogress'))).toBe(false)
  })

  it('writes an updating query as a debezium-json changelog', async () => {
    const out = tmp()
    const s = new Session()
    await s.executeSql(`
      SET 'execution.batch-size' = '1';
      CREATE TABLE orders (id BIGINT, \`user\` STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
      CREATE TABLE per_user (u STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
      INSERT INTO per_user SELECT \`user\`, COUNT(*) FROM orders WHERE \`user\` = 'a' GROUP BY \`user\`;`)
    await s.awaitJobs()
    expect(readParts(out).map(l => JSON.parse(l))).toEqual([
      { before: null, after: { u: 'a', n: 1 }, op: 'c' },
      { before: { u: 'a', n: 1 }, after: null, op: 'd' },
      { before: null, after: { u: 'a', n: 2 }, op: 'c' },
      { before: { u: 'a', n: 2 }, after: null, op: 'd' },
      { before: null, after: { u: 'a', n: 3 }, op: 'c' },
    ])
  })

  it('fires processing-time windows over PROCTIME() when a bounded source ends', async () => {
    const s = new Session()
    const [r] = (await s.executeSql(`
      CREATE TABLE gen (id BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'rows-per-second' = '100000', 'number-of-rows' = '5000',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000');
      SELECT COUNT(*) AS n, SUM(id) AS s FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(pt), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;
    `)).slice(-1) as [Extract<StatementResult, { kind: 'rows' }>]
    const total = r.changes.reduce((a, c) => a + (c.row[0] as number), 0)
    const sum = r.changes.reduce((a, c) => a + (c.row[1] as number), 0)
    expect(total).toBe(5000)
    expect(sum).toBe(5000 * 5001 / 2)
  })

  it('windows by PROCTIME() selected in a view, as Nexmark q12 does', async () => {
    const s = new Session()
    const results = await s.executeSql(`
      CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100000', 'number-of-rows' = '5000',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5000');
      CREATE VIEW v AS SELECT *, PROCTIME() AS p_time FROM gen;
      DESCRIBE v;
      SELECT COUNT(*) AS n, SUM(id) AS s FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(p_time), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;
    `)
    const described = results.at(-2) as Extract<StatementResult, { kind: 'table' }>
    expect(described.rows.at(-1)).toEqual(['p_time', 'TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*'])
    const r = results.at(-1) as Extract<StatementResult, { kind: 'rows' }>
    expect(r.changes.reduce((a, c) => a + (c.row[0] as number), 0)).toBe(5000)
    expect(r.changes.reduce((a, c) => a + (c.row[1] as number), 0)).toBe(5000 * 5001 / 2)
  })

  it('takes the minimum watermark over the files of a directory being read, and ends with a final watermark', async () => {
    const dir = tmp()
    mkdirSync(join(dir, 'in'))
    writeFileSync(join(dir, 'in', 'a.csv'), 'k,2024-01-01 00:00:01.000\nk,2024-01-01 00:00:12.000\n')
    writeFileSync(join(dir, 'in', 'b.csv'), 'k,2024-01-01 00:00:05.000\nk,2024-01-01 00:00:25.000\n')
    const s = new Session()
    const results = await s.executeSql(`
      CREATE TABLE ev (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'in')}', 'format' = 'csv');
      SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;`)
    const r = results.at(-1) as Extract<StatementResult, { kind: 'rows' }>
    // File a moves the watermark to 00:00:12 (window [0, 10) fires with one row); file b's 00:00:05 row is then late.
    expect(r.changes.map(c => [new Date(c.row[0] as number).toISOString(), c.row[1]])).toEqual([
      ['2024-01-01T00:00:00.000Z', 1],
      ['2024-01-01T00:00:10.000Z', 1],
      ['2024-01-01T00:00:20.000Z', 1],
    ])
    expect(r.metrics.lateRecordsDropped).toBe(1)
  })

  it('runs a VALUES query with column aliases', async () => {
    const s = new Session()
    const [r] = await s.executeSql(`SELECT x * 2 AS y, UPPER(s) AS u FROM (VALUES (1, 'a'), (2, 'b')) AS t(x, s)`)
    const rows = (r as Extract<StatementResult, { kind: 'rows' }>).changes.map(c => c.row)
    expect(rows).toEqual([[2, 'A'], [4, 'B']])
  })

  it('fails the job on a malformed record with the file and line, and skips it when told to', async () => {
    const dir = tmp()
    const file = join(dir, 'in.jsonl')
    writeFileSync(file, '{"a": 1}\n{"a": 2}\n{"a": \n{"a": 4}\n')
    const e = await fails(`CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'json');
      CREATE TABLE o (a INT) WITH ('connector' = 'blackhole'); INSERT INTO o SELECT a FROM t;`)
    expect(e.record?.source).toBe(file)
    expect(e.record?.line).toBe(3)
    expect(e.help).toContain("'json.ignore-parse-errors' = 'true'")
    const s = new Session()
    const results = await s.executeSql(
      `CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'json', 'json.ignore-parse-errors' = 'true');
      SELECT a FROM t;`,
    )
    const r = results.at(-1) as Extract<StatementResult, { kind: 'rows' }>
    expect(r.changes.map(c => c.row[0])).toEqual([1, 2, 4])
    expect(r.metrics.skippedRecords).toBe(1)
  })
})

describe('WITH scoping', () => {
  it('a CTE cannot refer to itself or to a later CTE', async () => {
    const ddl = `CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');`
    expect((await fails(ddl + 'WITH x AS (SELECT a FROM x) SELECT a FROM x')).message).toBe("table or view 'x' not found")
    expect((await fails(ddl + 'WITH x AS (SELECT a FROM y), y AS (SELECT a FROM t) SELECT a FROM x')).message).toBe("table or view 'y' not found")
  })
})
