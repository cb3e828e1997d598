// Event-time temporal joins against DuckDB: orders joined with the version of their key's rate valid
// at their time, where DuckDB finds that version with an ASOF JOIN over the same change events (a
// delete is a version that matches nothing). INNER and LEFT, a residual condition, NULL keys and
// keys without versions, on heap and RocksDB, in small batches and at parallelism 3.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { Session } from '../../engine/session.js'
import { formatTimestamp } from '../../common/values.js'
import { canonDuck, canonWeirRow, expectSameMultiset, kindCounts, materialize, rocksOptions } from './oracle.js'
import { writeVersionedData, type VersionedData } from './versioned-data.js'

const DATA_SETS: readonly { seed: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 41, options: { 'execution.batch-size': '7' } },
  { seed: 42, options: { ...rocksOptions(), 'execution.batch-size': '5' } },
  { seed: 43, options: { 'execution.batch-size': '1', 'parallelism.default': '3' } },
]

/** The version valid at each order's time, NULL-padded where there is none or it is a delete. */
const ASOF = `FROM orders o ASOF LEFT JOIN versions v ON o.k = v.k AND o.ts >= v.ts`

describe.each(DATA_SETS)('temporal joins vs DuckDB, seed $seed, options $options', ({ seed, options }) => {
  let dir: string
  let data: VersionedData
  let db: DuckDBInstance
  let con: DuckDBConnection
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weir-temporal-'))
    data = writeVersionedData(dir, { seed, steps: 1500, keys: 12 })
    db = await DuckDBInstance.create(':memory:')
    con = await db.connect()
    await con.run('CREATE TABLE orders (id INT, k VARCHAR, x INT, ts TIMESTAMP); CREATE TABLE versions (k VARCHAR, r INT, ts TIMESTAMP, deleted BOOLEAN)')
    const str = (s: string | null) => (s === null ? 'NULL' : `'${s}'`)
    await con.run(`INSERT INTO orders VALUES ${data.orders.map(o => `(${o.id}, ${str(o.k)}, ${o.x}, TIMESTAMP '${formatTimestamp(o.ts)}')`).join(',')}`)
    await con.run(`INSERT INTO versions VALUES ${data.versions.map(v => `('${v.k}', ${v.r}, TIMESTAMP '${formatTimestamp(v.ts)}', ${v.deleted})`).join(',')}`)
  })
  afterAll(() => {
    con?.closeSync()
    db?.closeSync()
    rmSync(dir, { recursive: true, force: true })
  })

  async function expectSame(weirSql: string, duckSql: string): Promise<void> {
    const sets = Object.entries(options).map(([k, v]) => `SET '${k}' = '${v}';\n`).join('')
    const results = await new Session({ println: () => undefined }).executeSql(`${sets}${data.ddl}\n${weirSql}`)
    const last = results.at(-1)
    if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
    // Append-only: every change is an insert.
    expect(kindCounts(last.changes).slice(1)).toEqual([0, 0, 0])
    const actual = materialize(last.changes).map(row => canonWeirRow(last.schema, row))
    const reader = await con.runAndReadAll(duckSql)
    const expected = reader.getRows().map(row => row.map(v => canonDuck(v, false)).join(' | '))
    expect(expected.length).toBeGreaterThan(50)
    expectSameMultiset(actual, expected)
  }

  it('LEFT JOIN: each order with the version valid at its time; deleted, unknown and NULL keys padded', async () => {
    await expectSame(
      'SELECT o.id, o.k, o.ts, r.r, r.ts FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k',
      `SELECT o.id, o.k, o.ts, CASE WHEN NOT v.deleted THEN v.r END, CASE WHEN NOT v.deleted THEN v.ts END ${ASOF}`,
    )
    // The data has what the comparison is about: orders after a delete, and orders on a version updated later.
    const [[afterDelete, superseded]] = (await con.runAndReadAll(`SELECT count(*) FILTER (WHERE v.deleted),
      count(*) FILTER (WHERE EXISTS (SELECT 1 FROM versions w WHERE w.k = o.k AND w.ts > v.ts AND w.ts <= o.ts + INTERVAL 3 SECOND)) ${ASOF}`)).getRows()
    expect(Number(afterDelete)).toBeGreaterThan(5)
    expect(Number(superseded)).toBeGreaterThan(20)
  })

  it('INNER JOIN with a residual condition tested against the version found', async () => {
    await expectSame(
      'SELECT o.id, r.r, o.x FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON r.k = o.k AND r.r > o.x',
      `SELECT o.id, v.r, o.x ${ASOF} WHERE NOT v.deleted AND v.r > o.x`,
    )
  })

  it('LEFT JOIN whose residual fails pads the order (no older version is tried)', async () => {
    await expectSame(
      'SELECT o.id, r.r FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k AND r.r > o.x',
      `SELECT o.id, CASE WHEN NOT v.deleted AND v.r > o.x THEN v.r END ${ASOF}`,
    )
  })
})
