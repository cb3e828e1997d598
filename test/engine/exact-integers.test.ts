// Integers end to end: BIGINT exact beyond 2^53 from JSON and CSV through expressions, aggregates
// (wrapping as Flink does) and every sink; TINYINT and SMALLINT; out-of-range input values are bad
// records with their position, never wrapped or rounded.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Session, type StatementResult } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
import { formatType } from '../../common/types.js'

type Rows = Extract<StatementResult, { kind: 'rows' }>

const INT64_MAX = 2n ** 63n - 1n, INT64_MIN = -(2n ** 63n)

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'weir-integers-'))
}

function file(dir: string, name: string, lines: readonly string[]): string {
  const path = join(dir, name)
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

async function select(sql: string, session = new Session({ println: () => undefined })): Promise<Rows> {
  const results = await session.executeSql(sql)
  const last = results.at(-1)!
  if (last.kind !== 'rows') throw new Error(`expected rows, got ${last.kind}`)
  return last
}

async function failure(sql: string): Promise<WeirError> {
  const session = new Session({ println: () => undefined })
  const e = await session.executeSql(sql).then(() => session.awaitJobs()).then(() => undefined, (x: unknown) => x)
  expect(e).toBeInstanceOf(WeirError)
  return e as WeirError
}

function parts(dir: string): string[] {
  return readdirSync(dir).filter(f => f.startsWith('part-')).flatMap(f => readFileSync(join(dir, f), 'utf8').split('\n').filter(l => l !== ''))
}

const BIG_JSON = [
  '{"id": 9007199254740993, "n": 9223372036854775807, "g": "a"}',
  '{"id": 1, "n": -9223372036854775808, "g": "a"}',
  '{"id": -9007199254740993, "n": 9007199254740993, "g": "b"}',
  '{"id": 2, "n": "-9007199254740995", "g": "b"}',
]

describe('BIGINT from JSON, exactly', () => {
  it('reads every digit, keeps it through expressions, and prints it', async () => {
    const dir = tmp()
    const path = file(dir, 'in.jsonl', BIG_JSON)
    const printed: string[] = []
    const r = await select(`
      CREATE TABLE t (id BIGINT, n BIGINT, g STRING) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
      SELECT id, n, id + 1, n - 1, id = 9007199254740993 FROM t`, new Session({ println: l => printed.push(l) }))
    expect(r.changes.map(c => c.row)).toEqual([
      [9007199254740993n, INT64_MAX, 9007199254740994n, 9223372036854775806n, true],
      [1, INT64_MIN, 2, INT64_MAX, false],
      [-9007199254740993n, 9007199254740993n, -9007199254740992n, 9007199254740992n, false],
      [2, -9007199254740995n, 3, -9007199254740996n, false],
    ])
  })

  it('writes exact JSON numbers, CSV fields and printed rows', async () => {
    const dir = tmp()
    const path = file(dir, 'in.jsonl', BIG_JSON)
    const printed: string[] = []
    const session = new Session({ println: l => printed.push(l) })
    await session.executeSql(`
      CREATE TABLE t (id BIGINT, n BIGINT, g STRING) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
      CREATE TABLE j (id BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'json')}', 'format' = 'json');
      CREATE TABLE c (id BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'csv')}', 'format' = 'csv');
      CREATE TABLE p (id BIGINT, n BIGINT) WITH ('connector' = 'print');
      INSERT INTO j SELECT id, n FROM t;
      INSERT INTO c SELECT id, n FROM t;
      INSERT INTO p SELECT id, n FROM t;`)
    await session.awaitJobs()
    expect(parts(join(dir, 'json')).sort()).toEqual([
      '{"id":-9007199254740993,"n":9007199254740993}',
      '{"id":1,"n":-9223372036854775808}',
      '{"id":2,"n":-9007199254740995}',
      '{"id":9007199254740993,"n":9223372036854775807}',
    ])
    expect(parts(join(dir, 'csv')).sort()).toEqual([
      '-9007199254740993,9007199254740993',
      '1,-9223372036854775808',
      '2,-9007199254740995',
      '9007199254740993,9223372036854775807',
    ])
    expect(printed.sort()).toEqual([
      '+I[-9007199254740993, 9007199254740993]',
      '+I[1, -9223372036854775808]',
      '+I[2, -9007199254740995]',
      '+I[9007199254740993, 9223372036854775807]',
    ])
    // What the JSON sink wrote reads back as the same values.
    const back = await select(`CREATE TABLE b (id BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'json')}', 'format' = 'json');
      SELECT SUM(id), MAX(n), MIN(n) FROM b`)
    expect(back.changes.at(-1)!.row).toEqual([3, INT64_MAX, INT64_MIN])
  })

  it('reads CSV exactly', async () => {
    const dir = tmp()
    const path = file(dir, 'in.csv', ['9007199254740993,-9223372036854775808', '7,9223372036854775807'])
    const r = await select(`CREATE TABLE t (a BIGINT, b BIGINT) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv');
      SELECT a, b FROM t`)
    expect(r.changes.map(c => c.row)).toEqual([[9007199254740993n, INT64_MIN], [7, INT64_MAX]])
  })
})

describe('aggregates over integers wrap as Flink does', () => {
  it('SUM over 9223372036854775807 and -9223372036854775808 is -1; AVG, MIN, MAX, COUNT exact', async () => {
    const dir = tmp()
    const path = file(dir, 'in.jsonl', BIG_JSON)
    const ddl = `CREATE TABLE t (id BIGINT, n BIGINT, g STRING) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');`
    const grouped = await select(`${ddl} SELECT g, SUM(n), AVG(n), MIN(n), MAX(n), MAX(id), COUNT(n) FROM t GROUP BY g`)
    const finals = new Map(grouped.changes.filter(c => c.kind === 0 || c.kind === 2).map(c => [c.row[0], c.row.slice(1)]))
    expect(finals.get('a')).toEqual([-1, 0, INT64_MIN, INT64_MAX, 9007199254740993n, 2])
    expect(finals.get('b')).toEqual([-2, -1, -9007199254740995n, 9007199254740993n, 2, 2])
    // Overflow past MAX wraps: MAX + MAX = -2.
    const wrapped = await select(
      `${ddl} SELECT SUM(n) FROM (SELECT n FROM t WHERE n = 9223372036854775807 UNION ALL SELECT n FROM t WHERE n = 9223372036854775807)`,
    )
    expect(wrapped.changes.at(-1)!.row).toEqual([-2])
  })

  it('SUM and AVG of INT, SMALLINT and TINYINT keep their types and wrap', async () => {
    const dir = tmp()
    const path = file(dir, 'in.jsonl', ['{"i": 2147483647, "s": 32767, "t": 127}', '{"i": 1, "s": 1, "t": 1}'])
    const r = await select(`CREATE TABLE t (i INT, s SMALLINT, t TINYINT) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
      SELECT SUM(i), SUM(s), SUM(t), AVG(i), AVG(s), AVG(t), MAX(t) FROM t`)
    expect(r.schema.map(f => formatType(f.type))).toEqual(['INT', 'SMALLINT', 'TINYINT', 'INT', 'SMALLINT', 'TINYINT', 'TINYINT'])
    // AVG sums in BIGINT (as Flink), so it does not wrap: (2147483647 + 1) / 2.
    expect(r.changes.at(-1)!.row).toEqual([-2147483648, -32768, -128, 1073741824, 16384, 64, 127])
  })

  it('retracting SUM and MIN/MAX stay exact on bigints (a two-level aggregation)', async () => {
    const dir = tmp()
    const path = file(dir, 'in.jsonl', [
      '{"k": "x", "v": 9223372036854775807}',
      '{"k": "y", "v": 1}',
      '{"k": "x", "v": -9007199254740993}',
      '{"k": "y", "v": 9007199254740993}',
    ])
    const r = await select(`SET 'execution.batch-size' = '1'; SET 'table.exec.mini-batch.enabled' = 'false';
      CREATE TABLE t (k STRING, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
      SELECT SUM(m), MIN(m), MAX(m), COUNT(*) FROM (SELECT k, MAX(v) AS m FROM t GROUP BY k)`)
    const kinds = r.changes.map(c => c.kind)
    expect(kinds).toContain(1) // -U: the outer aggregate retracted
    expect(r.changes.at(-1)!.row).toEqual([INT64_MIN + 9007199254740992n, 9007199254740993n, INT64_MAX, 2])
  })

  it('window aggregates sum exactly too', async () => {
    const dir = tmp()
    const path = file(dir, 'in.jsonl', [
      '{"v": 9223372036854775807, "ts": "2024-01-01 00:00:01"}',
      '{"v": -9223372036854775808, "ts": "2024-01-01 00:00:02"}',
      '{"v": 9007199254740993, "ts": "2024-01-01 00:00:11"}',
      '{"v": 9007199254740993, "ts": "2024-01-01 00:00:12"}',
    ])
    const r = await select(
      `CREATE TABLE t (v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
      SELECT window_start, SUM(v), AVG(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end`,
    )
    expect(r.changes.map(c => c.row.slice(1))).toEqual([[-1, 0], [18014398509481986n, 9007199254740993n]])
  })
})

describe("values out of a column's range are bad records", () => {
  it.each([
    ['INT', '{"v": 2147483648}', 'between -2147483648 and 2147483647'],
    ['SMALLINT', '{"v": -32769}', 'between -32768 and 32767'],
    ['TINYINT', '{"v": "128"}', 'between -128 and 127'],
    ['BIGINT', '{"v": 9223372036854775808}', 'between -9223372036854775808 and 9223372036854775807'],
    ['BIGINT', '{"v": -9.3e18}', 'out of range'],
    ['TINYINT', '{"v": 1.5}', 'expected TINYINT'],
  ])('%s: %s fails with the file and line', async (type, line, expected) => {
    const dir = tmp()
    const path = file(dir, 'in.jsonl', ['{"v": 1}', line])
    const e = await failure(`CREATE TABLE t (v ${type}) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json'); SELECT v FROM t`)
    expect(e.message).toContain(`${path}:2`)
    expect(e.message).toContain(`column 'v'`)
    expect(e.message).toContain(expected)
    expect(e.record?.line).toBe(2)
  })

  it('a JSON number with a fraction is truncated for INT and BIGINT, as Flink reads it', async () => {
    const dir = tmp()
    const path = file(dir, 'in.jsonl', ['{"i": -1.9, "b": 9007199254740993.9}'])
    const r = await select(`CREATE TABLE t (i INT, b BIGINT) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json'); SELECT i, b FROM t`)
    expect(r.changes.map(c => c.row)).toEqual([[-1, 9007199254740993n]])
  })

  it('CSV too; and the ignore options skip such records', async () => {
    const dir = tmp()
    const path = file(dir, 'in.csv', ['1,1', '300,2', '3,70000', '-128,-32768'])
    const e = await failure(`CREATE TABLE t (a TINYINT, b SMALLINT) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv'); SELECT a FROM t`)
    expect(e.message).toContain(`${path}:2`)
    expect(e.message).toContain(`column 'a': expected TINYINT between -128 and 127, found "300" (out of range)`)
    const r = await select(
      `CREATE TABLE t (a TINYINT, b SMALLINT) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
      SELECT a, b FROM t`,
    )
    expect(r.changes.map(c => c.row)).toEqual([[1, 1], [-128, -32768]])
    const j = await select(
      `CREATE TABLE t (v INT) WITH ('connector' = 'filesystem', 'path' = '${
        file(dir, 'in.jsonl', ['{"v": 2147483648}', '{"v": 5}'])
      }', 'format' = 'json', 'json.ignore-parse-errors' = 'true');
      SELECT v FROM t`,
    )
    expect(j.changes.map(c => c.row)).toEqual([[5]])
  })
})

describe('SQL', () => {
  it('TINYINT and SMALLINT columns, casts and literals at the ends of each range', async () => {
    const r = await select(`SELECT CAST(127 AS TINYINT) + CAST(1 AS TINYINT), CAST(32767 AS SMALLINT) + CAST(1 AS SMALLINT),
      -9223372036854775808, 9223372036854775807 + 1, ABS(-2147483648), 9223372036854775808, -2147483648`)
    expect(r.schema.map(f => formatType(f.type))).toEqual(['TINYINT NOT NULL', 'SMALLINT NOT NULL', 'BIGINT NOT NULL', 'BIGINT NOT NULL', 'INT NOT NULL',
      'DECIMAL(19, 0) NOT NULL', 'INT NOT NULL'])
    expect(r.changes[0]!.row).toEqual([-128, -32768, INT64_MIN, INT64_MIN, -2147483648, 9223372036854775808n, -2147483648])
  })

  it('DESCRIBE names TINYINT and SMALLINT', async () => {
    const s = new Session()
    await s.executeSql(`CREATE TABLE t (a TINYINT, b SMALLINT NOT NULL) WITH ('connector' = 'datagen')`)
    const [desc] = await s.executeSql('DESCRIBE t') as [Extract<StatementResult, { kind: 'table' }>]
    expect(desc.rows.map(r => [r[0], r[1]])).toEqual([['a', 'TINYINT'], ['b', 'SMALLINT']])
  })
})

describe('datagen', () => {
  it('takes BIGINT min/max and sequence bounds beyond 2^53 exactly', async () => {
    const r = await select(`CREATE TABLE g (s BIGINT, r BIGINT, t TINYINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000', 'seed' = '7',
        'fields.s.kind' = 'sequence', 'fields.s.start' = '9223372036854775800', 'fields.s.end' = '9223372036854775807',
        'fields.r.min' = '9007199254740993', 'fields.r.max' = '9007199254740995');
      SELECT s, r, t FROM g`)
    const rows = r.changes.map(c => c.row)
    expect(rows.map(x => x[0])).toEqual(Array.from({ length: 8 }, (_, i) => 9223372036854775800n + BigInt(i)))
    expect(rows.every(x => typeof x[1] === 'bigint' && x[1] >= 9007199254740993n && x[1] <= 9007199254740995n)).toBe(true)
    expect(rows.every(x => typeof x[2] === 'number' && x[2] >= -128 && x[2] <= 127)).toBe(true)
    const full = await select(`CREATE TABLE g (r BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000', 'seed' = '1',
        'fields.r.min' = '-9223372036854775808', 'fields.r.max' = '9223372036854775807');
      SELECT MIN(r) < -4611686018427387904, MAX(r) > 4611686018427387904 FROM g`)
    expect(full.changes.at(-1)!.row).toEqual([true, true])
  })
})
