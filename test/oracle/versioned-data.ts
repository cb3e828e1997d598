// A seeded versioned table and a probe stream over one timeline, for temporal join tests: `rates`
// is a debezium-json changelog (creates, updates, deletes — a delete's `before` carries the time
// of the delete) with strictly increasing times per key, and `orders` are probe rows whose times
// jitter by less than the watermark delay, some on keys that never get a version and some NULL.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { formatTimestamp } from '../../common/values.js'
import { Rng } from './oracle.js'

export interface Order {
  readonly id: number
  readonly k: string | null
  readonly x: number
  readonly ts: number
}

export interface Version {
  readonly k: string
  readonly r: number
  readonly ts: number
  readonly deleted: boolean
}

export interface VersionedData {
  readonly orders: readonly Order[]
  readonly versions: readonly Version[]
  readonly ordersPath: string
  readonly ratesPath: string
  /** Weir DDL of `orders` and `rates` (PRIMARY KEY k, watermarks 1 s behind). */
  readonly ddl: string
}

const BASE = Date.UTC(2024, 0, 1)

export function writeVersionedData(dir: string, { seed, steps, keys }: { seed: number; steps: number; keys: number }): VersionedData {
  const rng = new Rng(seed)
  const orders: Order[] = []
  const versions: Version[] = []
  const lines: string[] = []
  const live = new Map<string, { r: number; ts: number }>()
  for (let i = 0; i < steps; i++) {
    const t = BASE + i * 10
    if (rng.chance(0.35)) {
      const k = `k${rng.int(0, keys - 1)}`
      const before = live.get(k)
      const image = (r: number, ts: number) => `{"k":"${k}","r":${r},"ts":"${formatTimestamp(ts)}"}`
      if (before !== undefined && rng.chance(0.25)) {
        // A delete, stamped with its own time (as a CDC table's update_time column would be).
        lines.push(`{"before":${image(before.r, t)},"after":null,"op":"d"}`)
        versions.push({ k, r: before.r, ts: t, deleted: true })
        live.delete(k)
      } else {
        const r = rng.int(0, 100)
        const beforeJson = before === undefined ? 'null' : image(before.r, before.ts)
        lines.push(`{"before":${beforeJson},"after":${image(r, t)},"op":"${before === undefined ? 'c' : 'u'}"}`)
        versions.push({ k, r, ts: t, deleted: false })
        live.set(k, { r, ts: t })
      }
    } else {
      // Ties with version times happen: jitter is in whole steps of 10 ms.
      const ts = t + rng.int(-30, 30) * 10
      const k = rng.chance(0.05) ? null : `k${rng.int(0, keys + 2)}`
      orders.push({ id: orders.length, k, x: rng.int(0, 100), ts })
    }
  }
  const ordersPath = join(dir, 'orders.jsonl')
  const ratesPath = join(dir, 'rates.jsonl')
  writeFileSync(ordersPath, orders.map(o => `{"id":${o.id},"k":${JSON.stringify(o.k)},"x":${o.x},"ts":"${formatTimestamp(o.ts)}"}`).join('\n') + '\n')
  writeFileSync(ratesPath, lines.join('\n') + '\n')
  const ddl = `CREATE TABLE orders (id INT, k STRING, x INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${ordersPath}', 'format' = 'json');
    CREATE TABLE rates (k STRING, r INT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${ratesPath}', 'format' = 'debezium-json');`
  return { orders, versions, ordersPath, ratesPath, ddl }
}
