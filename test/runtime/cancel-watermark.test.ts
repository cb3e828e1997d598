// A cancelled job stops where it is: an input that stopped because of the cancel did not reach the
// end of its data, so it must not count as ended (a watermark of +∞) for an operator whose other
// input is still being read — or a temporal join would join probe rows with versions it has not
// read yet, and a window over two inputs would fire without the rows of the stopped one. Nor does
// a cancelled job take another checkpoint, which would commit what it did while stopping.
//
// The race is made certain with the 'source-end' fault point: the end of one source is held back
// (as a slow reader or a loaded host holds it) while the other has already stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { formatTimestamp } from '../../common/values.js'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import type { FaultInjector } from '../../runtime/faults.js'
import { visibleRows } from '../connectors/helpers.js'

let root: string
let ddl: string
/** The temporal join's rows (JSON lines as the file sink writes them), computed here. */
let joined: string[]

// Versions lag: each 10 ms step of the first 30 s has ten versions (one per key) and one order, so
// read chunk for chunk the versions fall seconds behind the orders; the orders go on for 200 s.
const STEPS = 20_000
const VERSION_STEPS = 3_000
const KEYS = 10
const BASE = Date.UTC(2024, 0, 1)

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-cancel-wm-'))
  const orders: string[] = []
  const rates: string[] = []
  joined = []
  for (let i = 0; i < STEPS; i++) {
    const ts = formatTimestamp(BASE + i * 10)
    if (i < VERSION_STEPS) {
      for (let j = 0; j < KEYS; j++) {
        const before = i === 0 ? 'null' : `{"k":"k${j}","r":${((i - 1) * KEYS + j) % 97},"ts":"${formatTimestamp(BASE + (i - 1) * 10)}"}`
        rates.push(`{"before":${before},"after":{"k":"k${j}","r":${(i * KEYS + j) % 97},"ts":"${ts}"},"op":"${i === 0 ? 'c' : 'u'}"}`)
      }
    }
    orders.push(`{"id":${i},"k":"k${i % KEYS}","ts":"${ts}"}`)
    // The version valid at the order's time: from the order's own step, or the last one.
    const v = Math.min(i, VERSION_STEPS - 1)
    joined.push(JSON.stringify({ id: i, k: `k${i % KEYS}`, ts, r: (v * KEYS + (i % KEYS)) % 97, rts: formatTimestamp(BASE + v * 10) }))
  }
  writeFileSync(join(root, 'orders.jsonl'), orders.join('\n') + '\n')
  writeFileSync(join(root, 'rates.jsonl'), rates.join('\n') + '\n')
  ddl = `CREATE TABLE orders (id INT, k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${join(root, 'orders.jsonl')}', 'format' = 'json');
    CREATE TABLE rates (k STRING, r INT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${join(root, 'rates.jsonl')}', 'format' = 'debezium-json');`
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

const TEMPORAL = `SELECT o.id, o.k, o.ts, r.r, r.ts AS rts FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k`

/**
 * Holds the end of `table`'s reader (of one subtask) after a cancel until a checkpoint completes or `ms` pass: the
 * other source stops first, and a checkpoint could be taken in between.
 */
function holdEnd(table: string, ms: number, checkpointed: () => Promise<void>, subtask?: number): FaultInjector {
  return {
    at: (point, detail) => {
      if (point !== 'source-end') return
      const d = detail as { table: string; subtask: number; cancelled: boolean }
      if (d.table === table && d.cancelled && (subtask === undefined || d.subtask === subtask)) return Promise.race([checkpointed(), sleep(ms)])
    },
  }
}

async function run(sql: string, options: Record<string, string>, extra: {
  signal?: AbortSignal
  onCheckpoint?: (id: number) => void
  println?: (line: string) => void
  faults?: FaultInjector
} = {}): Promise<JobMetrics> {
  const session = new Session({
    println: extra.println ?? (() => undefined),
    signal: extra.signal,
    options: { 'pipeline.name': 'cancel-wm', 'state.backend': 'heap', ...options },
    onCheckpoint: (_job, id) => extra.onCheckpoint?.(id),
    faults: extra.faults,
  })
  await session.executeSql(sql)
  const [metrics] = await session.awaitJobs()
  return metrics as JobMetrics
}

/** Runs `sql` (into a print sink), cancelled once `n` rows are printed, with the end of `held` held back 100 ms after the cancel. */
async function printedUntilCancelled(sql: string, options: Record<string, string>, n: number,
  held: string): Promise<{ metrics: JobMetrics; printed: string[] }>
{
  const cancel = new AbortController()
  const printed: string[] = []
  const metrics = await run(sql, options, {
    signal: cancel.signal,
    println: l => {
      printed.push(l)
      if (printed.length === n) cancel.abort()
    },
    faults: holdEnd(held, 100, () => new Promise<void>(() => undefined)),
  })
  return { metrics, printed }
}

describe('a cancelled input does not end the watermark', () => {
  it('temporal join, exactly-once file sink: no checkpoint after the cancel, and the restored run gives every row once, right', { timeout: 60_000 },
    async () => {
      const sql = `${ddl}
      CREATE TABLE out (id INT, k STRING, ts TIMESTAMP(3), r INT, rts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${
        join(root, 'out')
      }', 'format' = 'json');
      INSERT INTO out ${TEMPORAL};`
      const options = { 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': join(root, 'chk'), 'execution.batch-size': '20' }
      const cancel = new AbortController()
      const completed: number[] = []
      let afterCancel: (() => void) | undefined
      const checkpointAfterCancel = new Promise<void>(resolve => (afterCancel = resolve))
      const first = await run(sql, options, {
        signal: cancel.signal,
        onCheckpoint: id => {
          completed.push(id)
          if (cancel.signal.aborted) afterCancel!()
          if (id >= 2) cancel.abort()
        },
        // The orders (probe) side stops last; the rates (versions) side has stopped by then, far behind.
        faults: holdEnd('orders', 400, () => checkpointAfterCancel),
      })
      expect(first.cancelled).toBe(true)
      // Cancelled when checkpoint 2 completed: none triggered after it (one in flight may complete).
      expect(Math.max(...completed)).toBeLessThanOrEqual(3)
      const want = new Set(joined)
      // What the cancelled run committed is already right.
      const partial = visibleRows(join(root, 'out'))
      expect(partial.length).toBeLessThan(STEPS)
      expect(partial.filter(r => !want.has(r))).toEqual([])

      await run(sql, { ...options, 'execution.checkpointing.interval': '200 ms' })
      expect(visibleRows(join(root, 'out'))).toEqual([...joined].sort())
    })

  it('temporal join, print sink: every row printed before the job stopped is right', { timeout: 60_000 }, async () => {
    const sql = `${ddl}
      CREATE TABLE out (id INT, k STRING, ts TIMESTAMP(3), r INT, rts TIMESTAMP(3)) WITH ('connector' = 'print');
      INSERT INTO out ${TEMPORAL};`
    const want = new Set(joined.map(l => {
      const o = JSON.parse(l) as { id: number; k: string; ts: string; r: number; rts: string }
      return `+I[${o.id}, ${o.k}, ${o.ts}, ${o.r}, ${o.rts}]`
    }))
    const { metrics, printed } = await printedUntilCancelled(sql, { 'execution.batch-size': '20' }, 20, 'orders')
    expect(metrics.cancelled).toBe(true)
    expect(printed.length).toBeGreaterThanOrEqual(20)
    expect(printed.length).toBeLessThan(STEPS)
    expect(printed.filter(r => !want.has(r))).toEqual([])
  })

  it('window LEFT join: no window fires without the rows of the input that stopped', { timeout: 60_000 }, async () => {
    // `a` has one row per 10 ms, `b` ten per 10 ms matching it: read chunk for chunk, `b` lags
    // behind in time, so when it stops, `a` is seconds ahead. Every `a` row has ten matches.
    const base = Date.UTC(2024, 0, 1)
    const ts = (i: number) => formatTimestamp(base + i * 10)
    writeFileSync(join(root, 'a.jsonl'), Array.from({ length: 3_000 }, (_, i) => `{"v":${i},"ts":"${ts(i)}"}`).join('\n') + '\n')
    writeFileSync(join(root, 'b.jsonl'),
      Array.from({ length: 30_000 }, (_, j) => `{"k":${Math.floor(j / 10)},"ts":"${ts(Math.floor(j / 10))}"}`).join('\n') + '\n')
    const table = (name: string, cols: string) =>
      `CREATE TABLE ${name} (${cols}, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '${
        join(root, `${name}.jsonl`)
      }', 'format' = 'json');`
    const sql = `${table('a', 'v INT')} ${table('b', 'k INT')}
      CREATE TABLE out (v INT, k INT) WITH ('connector' = 'print');
      INSERT INTO out SELECT a.v, b.k
        FROM (SELECT * FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' SECOND))) a
        LEFT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '1' SECOND))) b
        ON a.v = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end;`
    const straight: string[] = []
    await run(sql, {}, { println: l => straight.push(l) })
    expect(straight.length).toBe(30_000)
    expect(straight.filter(l => l.endsWith('NULL]'))).toEqual([])

    const { metrics, printed } = await printedUntilCancelled(sql, { 'execution.batch-size': '50' }, 100, 'a')
    expect(metrics.cancelled).toBe(true)
    expect(printed.length).toBeGreaterThanOrEqual(100)
    expect(printed.length).toBeLessThan(straight.length)
    expect(printed.filter(l => l.endsWith('NULL]'))).toEqual([])
  })
})
