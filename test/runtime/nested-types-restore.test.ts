// Nexmark's published ROW-typed source DDL (ddl_gen.sql with ddl_views.sql's views, the connector a
// JSON file of nested events) under stateful queries that keep nested values in state: a group
// aggregate keyed by a ROW and an ARRAY with LAST_VALUE of a ROW and an ARRAY-of-ROW-built value, a
// deduplication carrying ROW values, and a join of the views. Each runs three ways on heap and RocksDB:
// straight; checkpointed and cancelled midway; restored from the checkpoint at another parallelism.
// The committed changelog must materialize to the same rows, and the straight run to hand-computed ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JobMetrics } from '../../runtime/executor.js'
import { Session } from '../../engine/session.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from '../support/restore-runs.js'

const EVENTS = 8000
let root: string
let input: string

interface Bid {
  auction: number
  bidder: number
  price: number
  dateTime: string
  extra: string | null
}
const bids: Bid[] = []
const auctions: Record<string, unknown>[] = []

const ts = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '')

/** Persons, auctions and bids in Nexmark's proportions (1:3:46), in time order, nested as the DDL reads them. */
function writeEvents(path: string): void {
  const lines: string[] = []
  const t0 = Date.UTC(2024, 0, 1)
  for (let i = 0; i < EVENTS; i++) {
    const t = t0 + i * 37
    const slot = i % 50
    const e: Record<string, unknown> = { event_type: slot === 0 ? 0 : slot <= 3 ? 1 : 2, person: null, auction: null, bid: null }
    if (slot === 0) {
      e.person = { id: 1000 + i, name: `p${i}`, emailAddress: `p${i}@x.org`, creditCard: '1234', city: ['Phoenix', 'Kent'][i % 2], state: 'OR', dateTime: ts(t),
        extra: '' }
    } else if (slot <= 3) {
      e.auction = { id: 5000 + i, itemName: `item${i}`, description: 'd', initialBid: 10, reserve: 100, dateTime: ts(t), expires: ts(t + 60_000),
        seller: 1000 + (i - slot), category: 10 + (i % 5), extra: i % 2 ? null : 'x' }
      auctions.push(e.auction as Record<string, unknown>)
    } else {
      const bid: Bid = { auction: 5000 + (i % 211), bidder: 1000 + (i % 13), price: (i * 7919) % 1000, dateTime: ts(t), extra: i % 3 ? null : `e${i}` }
      bids.push(bid)
      e.bid = bid
    }
    lines.push(JSON.stringify(e))
  }
  writeFileSync(path, lines.join('\n') + '\n')
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-nested-restore-'))
  input = join(root, 'nexmark.jsonl')
  writeEvents(input)
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

// Nexmark's ddl_gen.sql (the connector and its options aside) and the views of ddl_views.sql, as published.
const DDL = (path: string): string => `
CREATE TABLE datagen (
    event_type int,
    person ROW<
        id  BIGINT,
        name  VARCHAR,
        emailAddress  VARCHAR,
        creditCard  VARCHAR,
        city  VARCHAR,
        state  VARCHAR,
        dateTime TIMESTAMP(3),
        extra  VARCHAR>,
    auction ROW<
        id  BIGINT,
        itemName  VARCHAR,
        description  VARCHAR,
        initialBid  BIGINT,
        reserve  BIGINT,
        dateTime  TIMESTAMP(3),
        expires  TIMESTAMP(3),
        seller  BIGINT,
        category  BIGINT,
        extra  VARCHAR>,
    bid ROW<
        auction  BIGINT,
        bidder  BIGINT,
        price  BIGINT,
        dateTime  TIMESTAMP(3),
        extra  VARCHAR>,
    dateTime AS
        CASE
            WHEN event_type = 0 THEN person.dateTime
            WHEN event_type = 1 THEN auction.dateTime
            ELSE bid.dateTime
        END,
    WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');

CREATE VIEW person AS
SELECT
    person.id,
    person.name,
    person.emailAddress,
    person.creditCard,
    person.city,
    person.state,
    dateTime,
    person.extra
FROM datagen WHERE event_type = 0;

CREATE VIEW auction AS
SELECT
    auction.id,
    auction.itemName,
    auction.description,
    auction.initialBid,
    auction.reserve,
    dateTime,
    auction.expires,
    auction.seller,
    auction.category,
    auction.extra
FROM datagen WHERE event_type = 1;

CREATE VIEW bid AS
SELECT
    bid.auction,
    bid.bidder,
    bid.price,
    dateTime,
    bid.extra
FROM datagen WHERE event_type = 2;
`

type Row = Record<string, unknown>

interface Case {
  readonly name: string
  readonly columns: string
  readonly query: string
  /** The rows a straight run must give, computed here from the events. */
  readonly expected: () => Row[]
  /** How many times the query reads the source (a join of two views reads it twice). */
  readonly scans?: number
}

const lastBy = <K>(key: (b: Bid) => K): Map<K, Bid> => {
  const m = new Map<K, Bid>()
  for (const b of bids) m.set(key(b), b)
  return m
}

const CASES: readonly Case[] = [
  {
    name: 'GROUP BY a ROW key, LAST_VALUE of a ROW and of an ARRAY',
    columns:
      'k ROW<bidder BIGINT, odd BOOLEAN>, n BIGINT, total BIGINT, last_bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3), extra STRING>, last_pair ARRAY<BIGINT>',
    query: `SELECT k, COUNT(*), SUM(price), LAST_VALUE(b), LAST_VALUE(pair) FROM (
        SELECT CAST(ROW(bid.bidder, MOD(bid.price, 2) = 1) AS ROW<bidder BIGINT, odd BOOLEAN>) AS k, bid.price AS price, bid AS b,
          ARRAY[bid.auction, bid.price] AS pair
        FROM datagen WHERE event_type = 2)
      GROUP BY k`,
    expected: () => {
      const groups = new Map<string, { k: Row; n: number; total: number; last: Bid }>()
      for (const b of bids) {
        const key = `${b.bidder}/${b.price % 2 === 1}`
        const g = groups.get(key) ?? { k: { bidder: b.bidder, odd: b.price % 2 === 1 }, n: 0, total: 0, last: b }
        g.n++
        g.total += b.price
        g.last = b
        groups.set(key, g)
      }
      return [...groups.values()].map(g => ({ k: g.k, n: g.n, total: g.total, last_bid: g.last, last_pair: [g.last.auction, g.last.price] }))
    },
  },
  {
    name: 'GROUP BY an ARRAY key over the bid view, with a MAP built per group',
    columns: 'a ARRAY<BIGINT>, n BIGINT, m MAP<STRING, BIGINT>',
    query: `SELECT a, COUNT(*), MAP['max', MAX(price), 'min', MIN(price)] FROM (SELECT ARRAY[bidder, MOD(auction, 3)] AS a, price FROM bid) GROUP BY a`,
    expected: () => {
      const groups = new Map<string, { a: number[]; n: number; max: number; min: number }>()
      for (const b of bids) {
        const a = [b.bidder, b.auction % 3]
        const g = groups.get(a.join()) ?? { a, n: 0, max: -Infinity, min: Infinity }
        g.n++
        g.max = Math.max(g.max, b.price)
        g.min = Math.min(g.min, b.price)
        groups.set(a.join(), g)
      }
      return [...groups.values()].map(g => ({ a: g.a, n: g.n, m: { max: g.max, min: g.min } }))
    },
  },
  {
    name: 'deduplication (last row per auction) carrying the ROW column',
    columns: 'auction BIGINT, b ROW<auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3), extra STRING>',
    query: `SELECT bid.auction, bid FROM (
        SELECT bid, ROW_NUMBER() OVER (PARTITION BY bid.auction ORDER BY dateTime DESC) AS rn FROM datagen WHERE event_type = 2)
      WHERE rn = 1`,
    expected: () => [...lastBy(b => b.auction).values()].map(b => ({ auction: b.auction, b })),
  },
  {
    name: "a regular join keeping both sides' ROW values in its state",
    columns: `id BIGINT, a ROW<id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, dateTime TIMESTAMP(3),
      expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra STRING>, b ROW<auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3), extra STRING>`,
    query: `SELECT x.auction.id, x.auction, y.bid FROM (SELECT auction FROM datagen WHERE event_type = 1) AS x
      JOIN (SELECT bid FROM datagen WHERE event_type = 2) AS y ON x.auction.id = y.bid.auction`,
    expected: () => auctions.flatMap(a => bids.filter(b => b.auction === a.id).map(b => ({ id: a.id, a, b }))),
    scans: 2,
  },
]

function sql(c: Case, out: string): string {
  return `${DDL(input)}
    CREATE TABLE out (${c.columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${c.query};`
}

const run = (c: Case, out: string, options: Record<string, string>): Promise<JobMetrics> =>
  runInsertJob(sql(c, out), { 'pipeline.name': 'nested-job', ...options })

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await run(c, out, { 'state.backend': 'heap', 'execution.batch-size': '1' })).cancelled).toBe(false)
    expected = debeziumRows(out)
    expect(expected.length).toBeGreaterThan(3)
    expect(expected).toEqual(c.expected().map(r => JSON.stringify(r)).sort())
  }, 120_000)

  it.each(RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { 'pipeline.name': 'nested-job', ...b.options(root) }, a, z,
      sourceRows: EVENTS * (c.scans ?? 1), scans: c.scans })
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)
})

describe('the views of the published DDL', () => {
  it('a join of auction and person and a window over bid, hand-checked', async () => {
    const out1 = mkdtempSync(join(root, 'join-')), out2 = mkdtempSync(join(root, 'win-'))
    const session = new Session({ println: () => undefined, options: { 'parallelism.default': '2' } })
    await session.executeSql(`${DDL(input)}
      CREATE TABLE j (id BIGINT, seller BIGINT, name STRING, city STRING) WITH ('connector' = 'filesystem', 'path' = '${out1}', 'format' = 'debezium-json');
      CREATE TABLE w (ws TIMESTAMP(3), bidder BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out2}', 'format' = 'debezium-json');
      INSERT INTO j SELECT a.id, a.seller, p.name, p.city FROM auction AS a JOIN person AS p ON a.seller = p.id;
      INSERT INTO w SELECT window_start, bidder, COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
        GROUP BY bidder, window_start, window_end;`)
    await session.awaitJobs()
    // Every auction's seller is the person of its block of 50 events.
    const auctions = EVENTS / 50 * 3
    const joined = debeziumRows(out1)
    expect(joined).toHaveLength(auctions)
    expect(joined[0]).toMatch(/^\{"id":\d+,"seller":\d+,"name":"p\d+","city":"(Phoenix|Kent)"\}$/)
    for (const r of joined.map(l => JSON.parse(l) as Row)) expect(r.name).toBe(`p${(r.seller as number) - 1000}`)
    const counts = new Map<string, number>()
    for (const b of bids) {
      const t = Date.parse(b.dateTime.replace(' ', 'T') + 'Z')
      const key = JSON.stringify([ts(t - (t % 10_000)), b.bidder])
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    const windows = [...counts].map(([key, n]) => {
      const [ws, bidder] = JSON.parse(key) as [string, number]
      return JSON.stringify({ ws, bidder, n })
    })
    expect(windows.length).toBeGreaterThan(100)
    expect(debeziumRows(out2)).toEqual(windows.sort())
  }, 120_000)
})
