// APPROX_PERCENTILE's documented error bound, checked against DuckDB's exact percentiles on several
// distributions (uniform, exponential, lognormal spanning nine decades, normal around 0, small
// integers with many duplicates): the estimate is within relative error α of the value at rank
// ⌊q·(n − 1)⌋ (DuckDB's quantile_disc), and between (1 − α)× and (1 + α)× the values quantile_cont
// interpolates between. Over an updating input (each value retracted and replaced) the same holds
// for the final values. GROUP BY, on heap and RocksDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { Session } from '../../engine/session.js'
import { materialize, ORACLE_BACKENDS, Rng } from './oracle.js'

const N = 6_000
const QS = [0, 0.01, 0.25, 0.5, 0.9, 0.99, 1]

function sample(rng: Rng, g: string): number {
  const u = () => Math.max(rng.next(), 1e-12)
  const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u())
  switch (g) {
    case 'uniform':
      return u() * 1000
    case 'exponential':
      return -50 * Math.log(u())
    case 'lognormal':
      return Math.exp(3 * normal())
    case 'normal':
      return 100 * normal()
    default:
      return Math.floor(u() * 21)
  }
}

const GROUPS = ['uniform', 'exponential', 'lognormal', 'normal', 'integers']

let dir: string
let duck: DuckDBConnection
let ddl: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weir-approx-percentile-'))
  const rng = new Rng(77)
  const rows: { g: string; i: number; x: number }[] = []
  for (const g of GROUPS) for (let i = 0; i < N; i++) rows.push({ g, i, x: sample(rng, g) })
  // Each (g, i) also gets a second row: the updating test sums the two, the first sum retracted.
  const second = rows.map(r => ({ g: r.g, i: r.i, x: sample(rng, r.g) }))
  const path = join(dir, 't.jsonl')
  writeFileSync(path, [...rows, ...second].map(r => JSON.stringify(r)).join('\n') + '\n')
  ddl = `CREATE TABLE t (g STRING, i INT, x DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');`
  const db = await DuckDBInstance.create(':memory:')
  duck = await db.connect()
  await duck.run(`CREATE TABLE t AS SELECT * FROM read_json('${path}', columns = {g: 'VARCHAR', i: 'INTEGER', x: 'DOUBLE'})`)
})

afterAll(() => {
  duck?.closeSync()
  rmSync(dir, { recursive: true, force: true })
})

async function weir(query: string, options: Record<string, string>): Promise<Map<string, number[]>> {
  const sets = Object.entries(options).map(([k, v]) => `SET '${k}' = '${v}';`).join('\n')
  const results = await new Session({ println: () => undefined }).executeSql(`${sets}\n${ddl}\n${query}`)
  const last = results[results.length - 1]
  if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
  return new Map(materialize(last.changes).map(r => [r[0] as string, r.slice(1) as number[]]))
}

async function exact(source: string, fn: 'quantile_disc' | 'quantile_cont'): Promise<Map<string, number[]>> {
  const reader = await duck.runAndReadAll(`SELECT g, ${QS.map(q => `${fn}(x, ${q})`).join(', ')} FROM (${source}) GROUP BY g`)
  return new Map(reader.getRows().map(r => [r[0] as string, r.slice(1).map(Number)]))
}

/** Checks every group's estimates against DuckDB's exact percentiles of `source` (the same rows Weir aggregated). */
async function expectWithinBound(got: Map<string, number[]>, source: string, alpha: number): Promise<void> {
  const disc = await exact(source, 'quantile_disc')
  const cont = await exact(source, 'quantile_cont')
  expect([...got.keys()].sort()).toEqual([...GROUPS].sort())
  const slack = 1e-9
  for (const g of GROUPS) {
    QS.forEach((q, j) => {
      const est = got.get(g)![j]!
      const lower = disc.get(g)![j]!
      const where = `${g} q=${q} α=${alpha}: estimate ${est}, exact ${lower} (quantile_cont ${cont.get(g)![j]})`
      expect(Math.abs(est - lower), where).toBeLessThanOrEqual(alpha * Math.abs(lower) + slack)
      // quantile_cont interpolates between the value at that rank and the next.
      const c = cont.get(g)![j]!
      const lo = Math.min(lower, c), hi = Math.max(lower, c)
      expect(est, where).toBeGreaterThanOrEqual(lo - alpha * Math.abs(lo) - slack)
      expect(est, where).toBeLessThanOrEqual(hi + alpha * Math.abs(hi) + slack)
    })
  }
}

describe.each(ORACLE_BACKENDS)('APPROX_PERCENTILE vs DuckDB on $name', ({ options }) => {
  for (const alpha of [0.01, 0.001]) {
    it(`within relative error ${alpha} of the exact percentile, five distributions`, async () => {
      const calls = QS.map(q => `APPROX_PERCENTILE(x, ${q}, ${alpha})`).join(', ')
      const got = await weir(`SELECT g, ${calls} FROM t GROUP BY g`, options())
      await expectWithinBound(got, 'SELECT g, x FROM t', alpha)
    }, 120_000)
  }

  it('over an updating input: each (g, i) sum retracted and replaced by the next', async () => {
    const inner = 'SELECT g, i, SUM(x) AS x FROM t GROUP BY g, i'
    const calls = QS.map(q => `APPROX_PERCENTILE(x, ${q})`).join(', ')
    const got = await weir(`SELECT g, ${calls} FROM (${inner}) GROUP BY g`, { ...options(), 'execution.batch-size': '64' })
    await expectWithinBound(got, inner, 0.01)
  }, 120_000)
})

describe('APPROX_PERCENTILE refuses, where it is written', () => {
  const refused = async (sql: string) => {
    try {
      await new Session({ println: () => undefined }).executeSql(sql)
    } catch (e) {
      return e as { message: string; span?: { start: { column: number } } }
    }
    throw new Error('expected a refusal')
  }
  const from = ' FROM (VALUES (1, 2)) AS t(x, y)'
  it.each([
    ['SELECT APPROX_PERCENTILE(x, 1.5)', "APPROX_PERCENTILE's percentage must be a numeric literal in [0, 1]", 29],
    ['SELECT APPROX_PERCENTILE(x, y)', "APPROX_PERCENTILE's percentage must be a numeric literal in [0, 1]", 29],
    ['SELECT APPROX_PERCENTILE(x, 0.5, 0)', "APPROX_PERCENTILE's accuracy must be a numeric literal in (0, 1)", 34],
    ['SELECT APPROX_PERCENTILE(x)', 'APPROX_PERCENTILE takes two or three arguments, got 1', 8],
    ["SELECT APPROX_PERCENTILE('a', 0.5)", 'APPROX_PERCENTILE does not accept CHAR(1)', 8],
    ['SELECT APPROX_PERCENTILE(DISTINCT x, 0.5)', 'APPROX_PERCENTILE(DISTINCT …) is not supported', 8],
  ])('%s', async (sql, message, column) => {
    const e = await refused(sql + from)
    expect(e.message).toBe(message)
    expect(e.span?.start.column).toBe(column)
  })
})
