// A seeded append-only rates stream and a probe stream over one timeline, for temporal joins against
// a deduplicating view of the rates (`versioned_rates`: the last rate per key by its time). Both
// streams' times jitter by less than the watermark delay, so rates of one key often arrive out of
// their time order — the rows a keep-last deduplication would drop. Times are unique per key (an
// AS OF lookup then has one answer); some rates and orders have a NULL key, some orders a key
// without rates.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { formatTimestamp } from '../../common/values.js'
import { Rng } from './oracle.js'

export interface ViewOrder {
  readonly id: number
  readonly k: string | null
  readonly x: number
  readonly ts: number
}

export interface Rate {
  readonly k: string | null
  readonly r: number
  readonly ts: number
  /** Its position in the file: rates arrive in this order. */
  readonly seq: number
}

export interface ViewData {
  readonly orders: readonly ViewOrder[]
  readonly rates: readonly Rate[]
  /**
   * Weir DDL: `orders`, `rates` (append-only, watermarks 1 s behind), the view `versioned_rates`, and
   * `orders_pt`: the orders with a PROCTIME() column `pt`.
   */
  readonly ddl: string
}

const BASE = Date.UTC(2024, 0, 1)

export function writeViewData(dir: string, { seed, steps, keys }: { seed: number; steps: number; keys: number }): ViewData {
  const rng = new Rng(seed)
  const orders: ViewOrder[] = []
  const rates: Rate[] = []
  const taken = new Set<string>()
  for (let i = 0; i < steps; i++) {
    const t = BASE + i * 10
    // Jitter in whole steps of 10 ms: ties of an order's time with a rate's happen.
    const ts = t + rng.int(-40, 40) * 10
    if (rng.chance(0.35)) {
      const k = rng.chance(0.03) ? null : `k${rng.int(0, keys - 1)}`
      if (taken.has(`${k}@${ts}`)) continue
      taken.add(`${k}@${ts}`)
      rates.push({ k, r: rng.int(0, 100), ts, seq: rates.length })
    } else {
      const k = rng.chance(0.05) ? null : `k${rng.int(0, keys + 2)}`
      orders.push({ id: orders.length, k, x: rng.int(0, 100), ts })
    }
  }
  const ordersPath = join(dir, 'orders.jsonl')
  const ratesPath = join(dir, 'rates.jsonl')
  writeFileSync(ordersPath, orders.map(o => `{"id":${o.id},"k":${JSON.stringify(o.k)},"x":${o.x},"ts":"${formatTimestamp(o.ts)}"}`).join('\n') + '\n')
  writeFileSync(ratesPath, rates.map(r => `{"k":${JSON.stringify(r.k)},"r":${r.r},"ts":"${formatTimestamp(r.ts)}"}`).join('\n') + '\n')
  const ddl = `CREATE TABLE orders (id INT, k STRING, x INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${ordersPath}', 'format' = 'json');
    CREATE TABLE orders_pt (id INT, k STRING, x INT, ts TIMESTAMP(3), pt AS PROCTIME())
      WITH ('connector' = 'filesystem', 'path' = '${ordersPath}', 'format' = 'json');
    CREATE TABLE rates (k STRING, r INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${ratesPath}', 'format' = 'json');
    CREATE VIEW versioned_rates AS SELECT k, r, ts FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rownum FROM rates) WHERE rownum = 1;`
  return { orders, rates, ddl }
}
