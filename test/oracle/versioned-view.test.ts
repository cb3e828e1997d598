// Event-time temporal joins against a deduplicating view (Flink's versioned view: the last rate per
// key by its rowtime) vs DuckDB, where an ASOF JOIN over every rate finds the one valid at each
// order's time. Rates of a key arrive out of their time order here: the join must still see each of
// them (a keep-last deduplication would have dropped them). INNER and LEFT, a residual condition, a
// view over the view, the row number selected, NULL keys; on heap and RocksDB, in small batches and at
// parallelism 3. And a processing-time join against the view: each order once, with a rate of its key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { Session } from '../../engine/session.js'
import { formatTimestamp } from '../../common/values.js'
import { canonDuck, canonWeirRow, expectSameMultiset, kindCounts, materialize, rocksOptions } from './oracle.js'
import { writeViewData, type ViewData } from './versioned-view-data.js'

const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 51, options: { 'execution.batch-size': '7' } },
  { seed: 52, options: { ...rocksOptions(), 'execution.batch-size': '5' } },
  { seed: 53, options: { 'execution.batch-size': '1', 'parallelism.default': '3' } },
]

/** The rate valid at each order's time: the latest of its key not after it. */
const ASOF = `FROM orders o ASOF LEFT JOIN rates v ON o.k = v.k AND o.ts >= v.ts`

describe.each(DATA_SETS)('temporal joins against a deduplicating view vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let dir: string
  let data: ViewData
  let db: DuckDBInstance
  let con: DuckDBConnection
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-versioned-view-'))
    data = writeViewData(dir, { seed, steps: 1500, keys: 12 })
    db = await DuckDBInstance.create(':memory:')
    con = await db.connect()
    await con.run('CREATE TABLE orders (id INT, k VARCHAR, x INT, ts TIMESTAMP); CREATE TABLE rates (k VARCHAR, r INT, ts TIMESTAMP, seq INT)')
    const str = (s: string | null) => (s === null ? 'NULL' : `'${s}'`)
    await con.run(`INSERT INTO orders VALUES ${data.orders.map(o => `(${o.id}, ${str(o.k)}, ${o.x}, TIMESTAMP '${formatTimestamp(o.ts)}')`).join(',')}`)
    await con.run(`INSERT INTO rates VALUES ${data.rates.map(r => `(${str(r.k)}, ${r.r}, TIMESTAMP '${formatTimestamp(r.ts)}', ${r.seq})`).join(',')}`)
  })
  afterAll(() => {
    con?.closeSync()
    db?.closeSync()
    rmSync(dir, { recursive: true, force: true })
  })

  async function weirRows(weirSql: string): Promise<string[]> {
    const sets = Object.entries(options).map(([k, v]) => `SET '${k}' = '${v}';\n`).join('')
    const results = await new Session({ println: () => undefined }).executeSql(`${sets}${data.ddl}\n${weirSql}`)
    const last = results.at(-1)
    if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
    // Append-only: every change is an insert.
    expect(kindCounts(last.changes).slice(1)).toEqual([0, 0, 0])
    return materialize(last.changes).map(row => canonWeirRow(last.schema, row))
  }

  async function expectSame(weirSql: string, duckSql: string): Promise<void> {
    const actual = await weirRows(weirSql)
    const reader = await con.runAndReadAll(duckSql)
    const expected = reader.getRows().map(row => row.map(v => canonDuck(v, false)).join(' | '))
    expect(expected.length).toBeGreaterThan(50)
    expectSameMultiset(actual, expected)
  }

  it('LEFT JOIN: each order with the rate valid at its time, also one that arrived after a later rate of its key', async () => {
    await expectSame(
      'SELECT o.id, o.k, o.ts, r.r, r.ts FROM orders o LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k',
      `SELECT o.id, o.k, o.ts, v.r, v.ts ${ASOF}`,
    )
    // What the comparison is about: orders whose rate arrived after a later rate of its key (a keep-last
    // deduplication drops such a rate), orders on a rate of the same time, and orders without one.
    const [[outOfOrder, sameTime, none]] = (await con.runAndReadAll(`SELECT
      count(*) FILTER (WHERE EXISTS (SELECT 1 FROM rates w WHERE w.k = v.k AND w.ts > v.ts AND w.seq < v.seq)),
      count(*) FILTER (WHERE o.ts = v.ts), count(*) FILTER (WHERE v.k IS NULL) ${ASOF}`)).getRows()
    expect(Number(outOfOrder)).toBeGreaterThan(20)
    expect(Number(sameTime)).toBeGreaterThan(3)
    expect(Number(none)).toBeGreaterThan(20)
  })

  it('INNER JOIN with a residual condition tested against the rate found', async () => {
    await expectSame(
      'SELECT o.id, r.r, o.x FROM orders AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON r.k = o.k AND r.r > o.x',
      `SELECT o.id, v.r, o.x ${ASOF} WHERE v.r > o.x`,
    )
  })

  it('a view over the versioned view, and a versioned view that selects its row number', async () => {
    const views = `CREATE VIEW doubled AS SELECT k, r * 2 AS r2, ts AS since FROM versioned_rates;
      CREATE VIEW numbered AS SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM rates) WHERE rn = 1;`
    await expectSame(
      `${views}\nSELECT o.id, d.r2, d.since, n.rn FROM orders o LEFT JOIN doubled FOR SYSTEM_TIME AS OF o.ts AS d ON o.k = d.k
        LEFT JOIN numbered FOR SYSTEM_TIME AS OF o.ts AS n ON n.k = o.k`,
      `SELECT o.id, v.r * 2, v.ts, CASE WHEN v.k IS NOT NULL THEN 1 END ${ASOF}`,
    )
  })

  it('processing time: each order once, with a rate of its own key or NULL', async () => {
    const rows = await weirRows(
      'SELECT o.id, o.k, r.k, r.r, r.ts FROM orders_pt o LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.pt AS r ON o.k = r.k',
    )
    expect(rows.map(r => Number(r.split(' | ')[0])).sort((a, b) => a - b)).toEqual(data.orders.map(o => o.id))
    const rates = new Set(data.rates.map(r => `${JSON.stringify(r.k)} | ${r.r} | ${formatTimestamp(r.ts)}`))
    for (const row of rows) {
      const [, k, rk, ...rate] = row.split(' | ')
      if (rk === 'NULL') continue
      expect(rk).toBe(k)
      expect(rates.has([rk, ...rate].join(' | ')), row).toBe(true)
    }
  })
})
