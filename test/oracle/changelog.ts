// A seeded Debezium changelog of a keyed table, for the changelog-source tests: change events
// (snapshot reads, inserts, updates that move rows between groups, deletes, re-inserts of deleted
// keys) as debezium-json lines, and DuckDB holding the table's final state, folded from the events
// themselves, as the oracle.
import { DuckDBInstance, DuckDBTypeId, type DuckDBConnection } from '@duckdb/node-api'
import { formatDecimal, formatTimestamp } from '../../common/values.js'
import { canonDuck, Rng } from './oracle.js'

/** A row of `products (id INT, k STRING, v INT, d DECIMAL(10, 2), ts TIMESTAMP(3))`; `d` unscaled. */
export interface Product {
  readonly id: number
  readonly k: string | null
  readonly v: number | null
  readonly d: bigint | null
  readonly ts: number
}

/** One change event: the key it is about (Kafka partitions by it) and its debezium-json text. */
export interface ChangeEvent {
  readonly id: number
  readonly text: string
}

export const PRODUCTS_COLUMNS = 'id INT, k STRING, v INT, d DECIMAL(10, 2), ts TIMESTAMP(3)'

const START_MS = Date.UTC(2024, 4, 1, 12, 0, 0)
const GROUPS = ['red', 'green', 'blue', 'cyan', 'magenta']

function rowJson(p: Product): string {
  // Decimals as exact JSON numbers, as Weir's sink writes them (the reader takes them from the text).
  return `{"id":${p.id},"k":${JSON.stringify(p.k)},"v":${p.v ?? 'null'},"d":${p.d === null ? 'null' : formatDecimal(p.d, 2)},` +
    `"ts":"${formatTimestamp(p.ts)}"}`
}

function event(op: string, before: Product | null, after: Product | null, at: number): string {
  return `{"before":${before === null ? 'null' : rowJson(before)},"after":${after === null ? 'null' : rowJson(after)},` +
    `"source":{"db":"shop","table":"products","ts_ms":${at}},"op":"${op}","ts_ms":${at + 5}}`
}

/**
 * `count` change events: a snapshot of about a tenth of them ('r'), then inserts of new or deleted
 * keys ('c'), updates ('u', about half, often moving the row to another group) and deletes ('d').
 */
export function generateChangelog(seed: number, count: number): ChangeEvent[] {
  const rng = new Rng(seed)
  const live = new Map<number, Product>()
  const deleted: number[] = []
  let nextId = 0
  let at = START_MS
  const product = (id: number): Product => ({
    id,
    k: rng.chance(0.05) ? null : rng.pick(GROUPS),
    v: rng.chance(0.1) ? null : rng.int(-100, 1000),
    d: rng.chance(0.1) ? null : BigInt(rng.int(-5_000, 500_000)),
    ts: at,
  })
  const events: ChangeEvent[] = []
  for (let i = 0; i < count; i++) {
    at += rng.int(0, 200)
    const ids = [...live.keys()]
    const r = rng.next()
    if (i < count / 10) {
      const p = product(nextId++)
      live.set(p.id, p)
      events.push({ id: p.id, text: event('r', null, p, at) })
    } else if (ids.length > 0 && r < 0.5) {
      const before = live.get(rng.pick(ids))!
      const after = { ...product(before.id), k: rng.chance(0.5) ? before.k : rng.pick(GROUPS) }
      live.set(after.id, after)
      events.push({ id: after.id, text: event('u', before, after, at) })
    } else if (ids.length > 0 && r < 0.65) {
      const before = live.get(rng.pick(ids))!
      live.delete(before.id)
      deleted.push(before.id)
      events.push({ id: before.id, text: event('d', before, null, at) })
    } else {
      const id = deleted.length > 0 && rng.chance(0.3) ? deleted.splice(rng.int(0, deleted.length - 1), 1)[0]! : nextId++
      const p = product(id)
      live.set(id, p)
      events.push({ id, text: event('c', null, p, at) })
    }
  }
  return events
}

/** The table's final state: the events folded in order, from their own text (not the generator's state). */
export function foldChangelog(events: readonly ChangeEvent[]): Map<number, Record<string, unknown>> {
  const state = new Map<number, Record<string, unknown>>()
  for (const e of events) {
    const o = JSON.parse(e.text) as { op: string; before: { id: number } | null; after: { id: number } | null }
    if (o.op === 'd') state.delete(o.before!.id)
    else state.set(o.after!.id, o.after!)
  }
  return state
}

/** DuckDB holding `products` as the events leave it. */
export class ChangelogOracle {
  private constructor(private readonly instance: DuckDBInstance, private readonly con: DuckDBConnection, readonly rows: number) {}

  static async create(events: readonly ChangeEvent[]): Promise<ChangelogOracle> {
    const instance = await DuckDBInstance.create(':memory:')
    const con = await instance.connect()
    await con.run('CREATE TABLE products (id INTEGER, k VARCHAR, v INTEGER, d DECIMAL(10, 2), ts TIMESTAMP)')
    const rows = [...foldChangelog(events).values()]
    const sql = (v: unknown): string => (v === null ? 'NULL' : typeof v === 'string' ? `'${v.replaceAll("'", "''")}'` : String(v))
    for (let i = 0; i < rows.length; i += 500) {
      const values = rows.slice(i, i + 500).map(r => `(${r['id']}, ${sql(r['k'])}, ${sql(r['v'])}, ${sql(r['d'])}, TIMESTAMP '${r['ts']}')`)
      await con.run(`INSERT INTO products VALUES ${values.join(',\n')}`)
    }
    return new ChangelogOracle(instance, con, rows.length)
  }

  /** A query's rows, every cell in the oracle's canonical form (test/oracle/oracle.ts), sorted. */
  async query(sql: string): Promise<string[]> {
    const reader = await this.con.runAndReadAll(sql)
    const doubles = reader.columnTypes().map(t => t.typeId === DuckDBTypeId.DOUBLE || t.typeId === DuckDBTypeId.FLOAT)
    return reader.getRows().map(row => row.map((v, i) => canonDuck(v, doubles[i]!)).join(' | ')).sort()
  }

  close(): void {
    this.con.closeSync()
    this.instance.closeSync()
  }
}

/** The GROUP BY both engines compute over `products` (its changelog in Weir, its final state in DuckDB). */
export const GROUPED = 'SELECT k, COUNT(*) AS n, SUM(v) AS sv, SUM(d) AS sd, MAX(v) AS mx, MIN(d) AS mn FROM products GROUP BY k'
