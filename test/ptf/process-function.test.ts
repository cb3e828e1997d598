// Process table functions from SQL: a per-key counter (ValueState, a scalar argument), a MapState
// function in plain JavaScript, and event-time timers with a ListState, each checked against a
// hand-computed oracle on heap and RocksDB; the counter straight, checkpointed, and restored at
// another parallelism gives the same rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Session } from '../../engine/session.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const MODULES = resolve(import.meta.dirname, 'modules')
const ROWS = 2000
const BASE = Date.UTC(2024, 0, 1)

interface Payment {
  card_id: string
  merchant: string
  amount: number
  ts: number
}

const payments: Payment[] = Array.from({ length: ROWS }, (_, i) => ({
  card_id: `c${(i * 7) % 11}`,
  merchant: `m${(i * 13) % 5}`,
  amount: ((i * 37) % 200) + 0.25,
  ts: BASE + i * 700,
}))

let root: string
let data: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-ptf-'))
  data = join(root, 'payments.jsonl')
  const ts = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
  writeFileSync(data, payments.map(p => JSON.stringify({ ...p, ts: ts(p.ts) })).join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const ddl = (out: string, outColumns: string): string => `
  CREATE TABLE payments (card_id STRING, merchant STRING, amount DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '${data}', 'format' = 'json');
  CREATE TABLE out (${outColumns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');`

const counterSql = (out: string): string =>
  `${ddl(out, 'card_id STRING, n BIGINT, total DOUBLE, flagged BOOLEAN')}
  CREATE FUNCTION counter AS '${MODULES}/counter.ts' LANGUAGE TYPESCRIPT;
  INSERT INTO out SELECT * FROM counter(input => TABLE payments PARTITION BY card_id, threshold => 500);`

/** The counter's rows as the oracle computes them, canonical. */
function counterOracle(): string[] {
  const totals = new Map<string, { n: number; total: number }>()
  return payments.map(p => {
    const was = totals.get(p.card_id) ?? { n: 0, total: 0 }
    const now = { n: was.n + 1, total: was.total + p.amount }
    totals.set(p.card_id, now)
    return `${p.card_id}|${now.n}|${now.total.toFixed(4)}|${now.total > 500}`
  }).sort()
}

function counterRows(out: string): string[] {
  return debeziumRows(out).map(r => {
    const o = JSON.parse(r) as { card_id: string; n: number; total: number; flagged: boolean }
    return `${o.card_id}|${o.n}|${o.total.toFixed(4)}|${o.flagged}`
  }).sort()
}

describe.each(RESTORE_BACKENDS)('process table functions on $name', b => {
  it('a per-key counter (ValueState) with a scalar argument matches the oracle', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(counterSql(out), b.options(root))
    const rows = counterRows(out)
    expect(rows).toHaveLength(ROWS)
    expect(rows).toEqual(counterOracle())
  })

  it('a MapState function in JavaScript matches the oracle', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(`${ddl(out, 'card_id STRING, merchant STRING, times BIGINT, merchants INT')}
      CREATE FUNCTION merchants AS '${MODULES}/merchants.js';
      INSERT INTO out SELECT * FROM merchants(input => TABLE payments PARTITION BY card_id) AS m WHERE m.times > 1;`, b.options(root))
    const seen = new Map<string, Map<string, number>>()
    const expected: string[] = []
    for (const p of payments) {
      const m = seen.get(p.card_id) ?? new Map<string, number>()
      seen.set(p.card_id, m)
      const times = (m.get(p.merchant) ?? 0) + 1
      m.set(p.merchant, times)
      if (times > 1) expected.push(JSON.stringify({ card_id: p.card_id, merchant: p.merchant, times, merchants: m.size }))
    }
    expect(expected.length).toBeGreaterThan(100)
    expect(debeziumRows(out)).toEqual(expected.sort())
  })

  it('event-time timers emit each bucket once the watermark passes its end', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(`${ddl(out, 'card_id STRING, bucket_end TIMESTAMP(3), payments INT, total DOUBLE')}
      CREATE FUNCTION buckets AS '${MODULES}/timers.ts';
      INSERT INTO out SELECT * FROM buckets(input => TABLE payments PARTITION BY card_id);`, b.options(root))
    const buckets = new Map<string, { payments: number; total: number }>()
    for (const p of payments) {
      const key = `${p.card_id}|${Math.floor((p.ts - BASE) / 10_000) * 10_000 + 10_000}`
      const was = buckets.get(key) ?? { payments: 0, total: 0 }
      buckets.set(key, { payments: was.payments + 1, total: was.total + p.amount })
    }
    const expected = [...buckets].map(([k, v]) => `${k}|${v.payments}|${v.total.toFixed(4)}`).sort()
    const rows = debeziumRows(out).map(r => {
      const o = JSON.parse(r) as { card_id: string; bucket_end: string; payments: number; total: number }
      return `${o.card_id}|${Date.parse(o.bucket_end.replace(' ', 'T') + 'Z') - BASE}|${o.payments}|${o.total.toFixed(4)}`
    }).sort()
    expect(rows).toEqual(expected)
  })
})

describe('the counter checkpointed and restored', () => {
  it.each([
    { b: RESTORE_BACKENDS[0]!, a: 1, z: 3 },
    { b: RESTORE_BACKENDS[1]!, a: 2, z: 1 },
  ])("on $b.name from parallelism $a to $z gives the straight run's rows", async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: counterSql(out), options: b.options(root), a, z, sourceRows: ROWS })
    expect(counterRows(out)).toEqual(counterOracle())
  })
})

describe('SHOW FUNCTIONS and DROP FUNCTION', () => {
  it('lists a created function until it is dropped', async () => {
    const session = new Session({ println: () => undefined })
    await session.executeSql(`CREATE FUNCTION counter AS '${MODULES}/counter.ts'`)
    const names = async (): Promise<string[]> => {
      const [result] = await session.executeSql('SHOW FUNCTIONS')
      return (result as unknown as { rows: string[][] }).rows.map(r => r[0]!)
    }
    expect(await names()).toContain('counter')
    await session.executeSql('DROP FUNCTION counter')
    expect(await names()).not.toContain('counter')
    await session.executeSql('DROP FUNCTION IF EXISTS counter')
  })
})
