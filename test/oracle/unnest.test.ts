// Oracle test for UNNEST: a JSON-lines file of rows holding arrays of strings and of integers (NULL,
// empty, with NULL elements and repeats), arrays of ROWs (NULL elements, NULL fields) and maps, read
// by Weir and by DuckDB (read_json with the same column types). CROSS JOIN and comma forms, WITH
// ORDINALITY, LEFT JOIN … ON TRUE, chained UNNESTs, filters, a GROUP BY and a window aggregate over
// the elements (on heap and RocksDB), and UNNEST over an updating input (a GROUP BY's arrays).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance, DuckDBTypeId, type DuckDBConnection } from '@duckdb/node-api'
import { Session } from '../../engine/session.js'
import { canonDuck, canonWeirRow, expectSameMultiset, kindCounts, materialize, Rng, type WeirResult, rocksOptions } from './oracle.js'

const WORDS = ['a', 'b', 'c', 'Dd', 'e e', '']
const START_MS = Date.UTC(2024, 2, 10, 23, 59, 0)

interface Item {
  readonly name: string | null
  readonly qty: number | null
}

function generate(seed: number, rows: number): string[] {
  const rng = new Rng(seed)
  const maybe = <T>(p: number, f: () => T): T | null => (rng.chance(p) ? null : f())
  const list = <T>(max: number, f: () => T): T[] => Array.from({ length: rng.int(0, max) }, f)
  const lines: string[] = []
  for (let i = 0; i < rows; i++) {
    const m: Record<string, number | null> = {}
    for (const key of list(3, () => rng.pick(['x', 'y', 'z', 'w']))) m[key] = maybe(0.2, () => rng.int(-5, 50))
    lines.push(JSON.stringify({
      id: i,
      k: rng.pick(['p', 'q', 'r']),
      tags: maybe(0.1, () => list(4, () => maybe(0.15, () => rng.pick(WORDS)))),
      nums: maybe(0.1, () => list(5, () => maybe(0.1, () => rng.int(-3, 9)))),
      items: maybe(0.1, () => list(3, () => maybe(0.1, (): Item => ({ name: maybe(0.1, () => rng.pick(WORDS)), qty: maybe(0.2, () => rng.int(0, 4)) })))),
      m: maybe(0.1, () => m),
      // In time order: the window aggregate drops no row as late.
      ts: new Date(START_MS + i * 97).toISOString().replace('T', ' ').replace('Z', ''),
    }))
  }
  return lines
}

const WEIR_DDL = (path: string): string =>
  `CREATE TABLE t (id INT, k STRING, tags ARRAY<STRING>, nums ARRAY<INT>, items ARRAY<ROW<name STRING, qty INT>>, m MAP<STRING, INT>,
     ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
   WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');`

const DUCK_COLUMNS = `{id: 'INTEGER', k: 'VARCHAR', tags: 'VARCHAR[]', nums: 'INTEGER[]', items: 'STRUCT(name VARCHAR, qty INTEGER)[]',
  m: 'MAP(VARCHAR, INTEGER)', ts: 'TIMESTAMP'}`

const ROCKS = (): Record<string, string> => ({ ...rocksOptions(), 'execution.batch-size': '7' })

describe.each([11, 12])('UNNEST vs DuckDB, seed %i', seed => {
  let dir: string
  let path: string
  let instance: DuckDBInstance
  let con: DuckDBConnection

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-unnest-'))
    path = join(dir, 'rows.jsonl')
    writeFileSync(path, generate(seed, 1500).join('\n') + '\n')
    instance = await DuckDBInstance.create(':memory:')
    con = await instance.connect()
    await con.run(`CREATE TABLE t AS SELECT * FROM read_json('${path}', format = 'newline_delimited', columns = ${DUCK_COLUMNS})`)
  })
  afterAll(() => {
    con?.closeSync()
    instance?.closeSync()
    rmSync(dir, { recursive: true, force: true })
  })

  async function weir(query: string, options: Readonly<Record<string, string>> = {}): Promise<WeirResult> {
    const sets = Object.entries(options).map(([k, v]) => `SET '${k}' = '${v}';\n`).join('')
    const results = await new Session({ println: () => undefined }).executeSql(`${sets}${WEIR_DDL(path)}\n${query}`)
    const last = results.at(-1)
    if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
    return { schema: last.schema, changes: last.changes, lateRecordsDropped: last.metrics.lateRecordsDropped }
  }

  async function expectSame(weirSql: string, duckSql: string, options: Readonly<Record<string, string>> = {}): Promise<WeirResult> {
    const result = await weir(weirSql, options)
    expect(result.lateRecordsDropped).toBe(0)
    const reader = await con.runAndReadAll(duckSql)
    const doubles = reader.columnTypes().map(t => t.typeId === DuckDBTypeId.DOUBLE)
    const expected = reader.getRows().map(row => row.map((v, i) => canonDuck(v, doubles[i]!)).join(' | '))
    expect(expected.length, 'the oracle query returned no rows').toBeGreaterThan(0)
    expectSameMultiset(materialize(result.changes).map(row => canonWeirRow(result.schema, row)), expected)
    return result
  }

  it('an array of scalars: CROSS JOIN, the comma form, NULL elements kept, NULL and empty arrays gone', async () => {
    const r = await expectSame('SELECT id, x FROM t CROSS JOIN UNNEST(t.tags) AS u(x)', 'SELECT id, x FROM t, unnest(t.tags) AS u(x)')
    expect(r.changes.some(c => c.row[1] === null)).toBe(true)
    await expectSame('SELECT id, k, n FROM t, UNNEST(nums) AS u(n)', 'SELECT id, k, n FROM t, unnest(t.nums) AS u(n)')
    // Without a column list the element is EXPR$0 (Calcite's name).
    const unnamed = await expectSame('SELECT id, EXPR$0 FROM t, UNNEST(t.nums)', 'SELECT id, n FROM t, unnest(t.nums) AS u(n)')
    expect(unnamed.schema.map(f => f.name)).toEqual(['id', 'EXPR$0'])
  })

  it('WITH ORDINALITY: 1-based positions, for arrays and maps', async () => {
    await expectSame(
      'SELECT id, x, pos FROM t CROSS JOIN UNNEST(t.tags) WITH ORDINALITY AS u(x, pos)',
      'SELECT id, x, pos FROM t, unnest(t.tags) WITH ORDINALITY AS u(x, pos)',
    )
    await expectSame(
      'SELECT id, mk, mv, p FROM t CROSS JOIN UNNEST(t.m) WITH ORDINALITY AS u(mk, mv, p)',
      'SELECT id, e.key, e.value, p FROM t, unnest(map_entries(t.m)) WITH ORDINALITY AS u(e, p)',
    )
  })

  it('an array of ROWs expands to its fields (named as the ROW names them); a map to KEY and VALUE', async () => {
    const rows = await expectSame('SELECT id, name, qty FROM t CROSS JOIN UNNEST(t.items)', 'SELECT id, it.name, it.qty FROM t, unnest(t.items) AS u(it)')
    expect(rows.schema.map(f => f.name)).toEqual(['id', 'name', 'qty'])
    await expectSame(
      'SELECT id, n, q, p FROM t, UNNEST(t.items) WITH ORDINALITY AS u(n, q, p) WHERE q IS NOT NULL',
      'SELECT id, it.name, it.qty, p FROM t, unnest(t.items) WITH ORDINALITY AS u(it, p) WHERE it.qty IS NOT NULL',
    )
    const map = await expectSame('SELECT id, u.KEY, VALUE FROM t CROSS JOIN UNNEST(t.m) AS u',
      'SELECT id, e.key, e.value FROM t, unnest(map_entries(t.m)) AS u(e)')
    expect(map.schema.map(f => f.name)).toEqual(['id', 'KEY', 'VALUE'])
  })

  it('LEFT JOIN … ON TRUE keeps a row whose array or map is NULL or empty, once, with NULLs', async () => {
    const r = await expectSame(
      'SELECT id, x, pos FROM t LEFT JOIN UNNEST(t.tags) WITH ORDINALITY AS u(x, pos) ON TRUE',
      `SELECT id, x, pos FROM t, unnest(t.tags) WITH ORDINALITY AS u(x, pos)
       UNION ALL SELECT id, NULL, NULL FROM t WHERE tags IS NULL OR len(tags) = 0`,
    )
    expect(r.changes.some(c => c.row[2] === null)).toBe(true)
    // WHERE over the padded columns filters after the padding; over the row's own columns, before.
    await expectSame(
      `SELECT id, x FROM t LEFT JOIN UNNEST(t.tags) AS u(x) ON TRUE WHERE x IS NULL AND MOD(id, 2) = 1`,
      `SELECT id, x FROM t, unnest(t.tags) AS u(x) WHERE x IS NULL AND id % 2 = 1
       UNION ALL SELECT id, NULL FROM t WHERE (tags IS NULL OR len(tags) = 0) AND id % 2 = 1`,
    )
    await expectSame(
      'SELECT id, mk, mv FROM t LEFT JOIN UNNEST(t.m) AS u(mk, mv) ON TRUE',
      `SELECT id, e.key, e.value FROM t, unnest(map_entries(t.m)) AS u(e)
       UNION ALL SELECT id, NULL, NULL FROM t WHERE m IS NULL OR cardinality(m) = 0`,
    )
  })

  it('filters and projections over the elements and the row; chained UNNESTs; JOIN … ON', async () => {
    await expectSame(
      `SELECT id, UPPER(x), n * 2 FROM t CROSS JOIN UNNEST(t.tags) AS u(x) CROSS JOIN UNNEST(t.nums) AS w(n) WHERE x <> 'a' AND MOD(id, 3) = 0 AND n > 0`,
      `SELECT id, upper(x), n * 2 FROM t, unnest(t.tags) AS u(x), unnest(t.nums) AS w(n) WHERE x <> 'a' AND id % 3 = 0 AND n > 0`,
    )
    await expectSame(
      `SELECT id, n FROM t JOIN UNNEST(t.nums) AS u(n) ON n > 3 AND k = 'p'`,
      `SELECT id, n FROM t, unnest(t.nums) AS u(n) WHERE n > 3 AND k = 'p'`,
    )
    await expectSame(`SELECT id, x FROM (SELECT * FROM t, UNNEST(t.tags) AS u(x)) WHERE id < 500`, `SELECT id, x FROM t, unnest(t.tags) AS u(x) WHERE id < 500`)
  })

  it.each([['heap', 'heap'], ['rocksdb', 'rocks'], ['rocksdb at parallelism 3', 'rocks-p3']] as const)('GROUP BY the elements (an updating result), on %s',
    async (_name, backend) => {
      const options: Record<string, string> = backend === 'heap'
        ? { 'execution.batch-size': '7' }
        : { ...ROCKS(), ...(backend === 'rocks-p3' ? { 'parallelism.default': '3' } : {}) }
      const r = await expectSame(
        'SELECT x, COUNT(*), SUM(id), MAX(pos) FROM t CROSS JOIN UNNEST(t.tags) WITH ORDINALITY AS u(x, pos) GROUP BY x',
        'SELECT x, COUNT(*), SUM(id), MAX(pos) FROM t, unnest(t.tags) WITH ORDINALITY AS u(x, pos) GROUP BY x',
        options,
      )
      const [, before, after] = kindCounts(r.changes)
      expect(before).toBeGreaterThan(0)
      expect(after).toBe(before)
      await expectSame(
        'SELECT k, name, SUM(qty), COUNT(*) FROM t CROSS JOIN UNNEST(t.items) AS u(name, qty) GROUP BY k, name',
        'SELECT k, it.name, SUM(it.qty), COUNT(*) FROM t, unnest(t.items) AS u(it) GROUP BY k, it.name',
        options,
      )
    })

  it.each([['heap', {}], ['rocksdb', 'rocks']] as const)('a window aggregate over the elements (the time attribute kept), on %s', async (_name, backend) => {
    const options: Record<string, string> = backend === 'rocks' ? ROCKS() : {}
    await expectSame(
      `SELECT window_start, x, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT ts, x FROM t CROSS JOIN UNNEST(t.tags) AS u(x)), DESCRIPTOR(ts), INTERVAL '10' SECOND))
       GROUP BY window_start, window_end, x`,
      `SELECT time_bucket(INTERVAL '10 seconds', ts) AS ws, x, COUNT(*) FROM t, unnest(t.tags) AS u(x) GROUP BY ws, x`,
      options,
    )
    // The UNNEST after the window TVF (Flink's window columns pass through its Correlate): a window aggregate too, insert-only.
    const after = await expectSame(
      `SELECT window_start, window_end, x, COUNT(*), MAX(pos), SUM(id) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
         LEFT JOIN UNNEST(tags) WITH ORDINALITY AS u(x, pos) ON TRUE WHERE MOD(id, 4) <> 1 GROUP BY window_start, window_end, x`,
      `SELECT time_bucket(INTERVAL '10 seconds', ts) AS ws, ws + INTERVAL '10 seconds', x, COUNT(*), MAX(pos), SUM(id) FROM (
         SELECT ts, id, x, pos FROM t, unnest(t.tags) WITH ORDINALITY AS u(x, pos)
         UNION ALL SELECT ts, id, NULL, NULL FROM t WHERE tags IS NULL OR len(tags) = 0) WHERE id % 4 <> 1 GROUP BY ws, x`,
      options,
    )
    expect(kindCounts(after.changes).slice(1)).toEqual([0, 0, 0])
  })

  it.each([['heap', {}], ['rocksdb', 'rocks']] as const)('over an updating input, each element row carries its row kind, on %s', async (_name, backend) => {
    const options: Record<string, string> = backend === 'rocks' ? ROCKS() : { 'execution.batch-size': '7' }
    // The array changes whenever MAX(id) of its group does: its old elements are retracted (-U), its new ones added (+U).
    const r = await expectSame(
      `SELECT k, x, pos FROM (SELECT k, ARRAY[k, CAST(MAX(id) AS STRING), CAST(COUNT(*) AS STRING)] AS a FROM t GROUP BY k) g
         CROSS JOIN UNNEST(g.a) WITH ORDINALITY AS u(x, pos)`,
      `SELECT k, x, pos FROM (SELECT k, [k, CAST(MAX(id) AS VARCHAR), CAST(COUNT(*) AS VARCHAR)] AS a FROM t GROUP BY k) g,
         unnest(g.a) WITH ORDINALITY AS u(x, pos)`,
      options,
    )
    const [inserts, before, after, deletes] = kindCounts(r.changes)
    expect(inserts).toBe(3 * 3)
    expect(before).toBeGreaterThan(0)
    expect(after).toBe(before)
    expect(deletes).toBe(0)
    // Each -U / +U comes as one row per element: the three positions of an array in order.
    const firstBefore = r.changes.findIndex(c => c.kind === 1)
    expect(r.changes.slice(firstBefore, firstBefore + 3).map(c => [c.kind, c.row[2]])).toEqual([[1, 1], [1, 2], [1, 3]])
  })
})
