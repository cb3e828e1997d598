// The Nexmark generator: the 1/3/46 event mix, ids from 1000, event time from the rate, determinism,
// hot-key skew as in the reference generator, value ranges, column subsets, aliases and option errors.
import { describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { parseTimestamp } from '../../common/values.js'
import { nexmarkConnector } from '../../connectors/nexmark/index.js'
import { DEFAULT_BASE_TIME } from '../../connectors/nexmark/config.js'
import { NexmarkModel } from '../../connectors/nexmark/generator.js'
import { resolveNexmarkConfig } from '../../connectors/nexmark/config.js'
import type { Row } from '../../core/batch.js'
import { AUCTION, BID, drain, errorOf, PERSON, readAllRows, sourceCtx } from './helpers.js'

const source = nexmarkConnector.source!

async function table(name: string, schema: Field[], options: Record<string, string> = {}, batchSize = 1000): Promise<Row[]> {
  const all = { connector: 'nexmark', 'nexmark.table': name, 'nexmark.events.num': '5000', ...options }
  source.validate(all, schema)
  return readAllRows(await source.create(sourceCtx(all, schema, batchSize)))
}

function topShare(values: unknown[]): [unknown, number] {
  const counts = new Map<unknown, number>()
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1)
  let best: unknown, bestCount = 0
  for (const [v, c] of counts) {
    if (c > bestCount) {
      best = v
      bestCount = c
    }
  }
  return [best, bestCount / values.length]
}

describe('nexmark event sequence', () => {
  it('mixes events by event number mod 50: 1 person, 3 auctions, 46 bids', async () => {
    const model = new NexmarkModel(resolveNexmarkConfig({}, BID))
    const kinds = Array.from({ length: 100 }, (_, n) => model.kindOf(n))
    expect(kinds.slice(0, 50)).toEqual([0, 1, 1, 1, ...Array<number>(46).fill(2)])
    expect(kinds.slice(50)).toEqual(kinds.slice(0, 50))
    expect(await table('bid', BID)).toHaveLength(4600)
    expect(await table('auction', AUCTION)).toHaveLength(300)
    expect(await table('person', PERSON)).toHaveLength(100)
  })

  it('numbers people and auctions from 1000', async () => {
    expect((await table('person', PERSON)).map(r => r[0])).toEqual(Array.from({ length: 100 }, (_, i) => 1000 + i))
    expect((await table('auction', AUCTION)).map(r => r[0])).toEqual(Array.from({ length: 300 }, (_, i) => 1000 + i))
  })

  it('advances event time by 1 / rate per event from the base time', async () => {
    const base = parseTimestamp('2024-01-01 00:00:00')!
    const options = { 'nexmark.event.rate': '1000', 'nexmark.base-time': '2024-01-01 00:00:00' }
    const people = await table('person', PERSON, options)
    expect(people.map(r => r[6])).toEqual(Array.from({ length: 100 }, (_, k) => base + 50 * k))
    const auctions = await table('auction', AUCTION, options)
    expect(auctions.slice(0, 4).map(r => (r[5] as number) - base)).toEqual([1, 2, 3, 51])
    const bids = await table('bid', BID, options)
    expect(bids.slice(0, 2).map(r => (r[5] as number) - base)).toEqual([4, 5])
    expect(bids[bids.length - 1]![5]).toBe(base + 4999)
    // 'first-event.rate' is the reference's name for the rate; base time may be epoch millis.
    const ref = await table('person', PERSON, { 'first-event.rate': '1000', 'nexmark.base-time': String(base) })
    expect(ref.map(r => r[6])).toEqual(people.map(r => r[6]))
    // Default: 10M events/s from 2015-07-15 00:00:00 UTC.
    const dflt = await table('person', PERSON, { 'nexmark.events.num': '200000' })
    expect(dflt[0]![6]).toBe(DEFAULT_BASE_TIME)
    expect(DEFAULT_BASE_TIME).toBe(parseTimestamp('2015-07-15 00:00:00'))
    expect(dflt[dflt.length - 1]![6]).toBe(DEFAULT_BASE_TIME + Math.floor((199_950 * 1000) / 10_000_000))
  })

  it('is deterministic, and the seed changes the random fields but not ids or times', async () => {
    const a = await table('bid', BID)
    expect(await table('bid', BID, {}, 333)).toEqual(a)
    const b = await table('bid', BID, { 'nexmark.seed': '7' })
    expect(b.map(r => r[5])).toEqual(a.map(r => r[5]))
    expect(b.map(r => r[2])).not.toEqual(a.map(r => r[2]))
    expect(await table('auction', AUCTION, { 'nexmark.seed': '7' })).toEqual(await table('auction', AUCTION, { 'nexmark.seed': '7' }))
  })

  it('skews bidders and auctions as the reference does', async () => {
    const bids = await table('bid', BID)
    // People 0..99 exist in the first 5000 events: the hot bidder is the group's second person, 3/4 of the time.
    const [bidder, bidderShare] = topShare(bids.map(r => r[1]))
    expect(bidder).toBe(1001)
    expect(bidderShare).toBeGreaterThan(0.72)
    expect(bidderShare).toBeLessThan(0.79)
    // The first 1,666 events hold auctions 0..99, so auction 1000 is the hot one for half the bids.
    const early = bids.slice(0, 1500)
    const [auction, auctionShare] = topShare(early.map(r => r[0]))
    expect(auction).toBe(1000)
    expect(auctionShare).toBeGreaterThan(0.5)
    expect(auctionShare).toBeLessThan(0.6)
    // Bids go to recent auctions (or up to 10 not yet created) and recent people.
    const model = new NexmarkModel(resolveNexmarkConfig({}, BID))
    let n = 0
    for (const r of bids) {
      while (model.kindOf(n) !== 2) n++
      expect(r[0] as number).toBeLessThanOrEqual(1000 + model.lastAuction(n) + 10)
      expect(r[1] as number).toBeLessThanOrEqual(1000 + model.lastPerson(n) + 10)
      n++
    }
  })

  it('draws log-uniform prices, channels, urls and padded extras', async () => {
    const bids = await table('bid', BID, { 'nexmark.events.num': '50000' })
    const prices = bids.map(r => r[2] as number).sort((x, y) => x - y)
    expect(prices[0]).toBeGreaterThanOrEqual(100)
    expect(prices[prices.length - 1]).toBeLessThanOrEqual(100_000_000)
    const median = prices[prices.length >> 1]!
    expect(median).toBeGreaterThan(60_000)
    expect(median).toBeLessThan(160_000)
    const hot = bids.filter(r => ['Google', 'Facebook', 'Baidu', 'Apple'].includes(r[3] as string)).length / bids.length
    expect(hot).toBeGreaterThan(0.47)
    expect(hot).toBeLessThan(0.53)
    expect(bids.every(r => /^(Google|Facebook|Baidu|Apple|channel-\d{1,4})$/.test(r[3] as string))).toBe(true)
    expect(bids.every(r => /^https:\/\/www\.nexmark\.com\/\w+\/\w+\/\w+\/item\.htm\?query=1(&channel_id=-?\d+)?$/.test(r[4] as string))).toBe(true)
    const byChannel = new Map<string, string>()
    for (const r of bids) {
      const url = byChannel.get(r[3] as string)
      if (url !== undefined) expect(r[4]).toBe(url)
      byChannel.set(r[3] as string, r[4] as string)
    }
    const extras = bids.map(r => (r[6] as string).length)
    expect(Math.min(...extras)).toBeGreaterThanOrEqual(54)
    expect(Math.max(...extras)).toBeLessThan(82)
    expect(bids.every(r => /^[a-z]+$/.test(r[6] as string))).toBe(true)
  })

  it('makes realistic auctions and people', async () => {
    const auctions = await table('auction', AUCTION, { 'nexmark.event.rate': '1000' })
    for (const a of auctions) {
      expect((a[1] as string).length).toBeLessThanOrEqual(19)
      expect((a[2] as string).length).toBeLessThanOrEqual(99)
      expect(a[4] as number).toBeGreaterThan(a[3] as number)
      expect(a[6] as number).toBeGreaterThan(a[5] as number)
      expect(a[7] as number).toBeGreaterThanOrEqual(1000)
      expect([10, 11, 12, 13, 14]).toContain(a[8])
    }
    // Auctions last on average about as long as it takes to create 100 more (1,666 events = 1.666 s at this rate).
    const meanLength = auctions.reduce((s, a) => s + (a[6] as number) - (a[5] as number), 0) / auctions.length
    expect(meanLength).toBeGreaterThan(1300)
    expect(meanLength).toBeLessThan(2000)
    const meanSize = auctions.reduce((s, a) => s + 40 + (a[1] as string).length + (a[2] as string).length + (a[9] as string).length, 0) / auctions.length
    expect(meanSize).toBeGreaterThan(450)
    expect(meanSize).toBeLessThan(550)
    const people = await table('person', PERSON)
    for (const p of people) {
      expect(p[1]).toMatch(/^[A-Z][a-z]+ [A-Z][a-z]+$/)
      expect(p[2]).toMatch(/^[a-z ]*[a-z][a-z ]*@[a-z ]*\.com$|^[a-z ]+@[a-z ]*\.com$/)
      expect(p[3]).toMatch(/^\d{4} \d{4} \d{4} \d{4}$/)
      expect(['AZ', 'CA', 'ID', 'OR', 'WA', 'WY']).toContain(p[5])
    }
  })

  it('generates only the declared columns, in the declared order, with the same values', async () => {
    const full = await table('bid', BID)
    const subset = await table('bid', [{ name: 'price', type: T.bigint() }, { name: 'auction', type: T.bigint() }, { name: 'date_time', type: T.timestamp(3) }])
    expect(subset).toEqual(full.map(r => [r[2], r[0], r[5]]))
    const people = await table('person', PERSON)
    const aliases = await table('person', [{ name: 'email_address', type: T.string() }, { name: 'credit_card', type: T.string() }, { name: 'EXTRA',
      type: T.string() }])
    expect(aliases).toEqual(people.map(r => [r[2], r[3], r[7]]))
    const auctions = await table('auction', AUCTION)
    const snake = await table('auction', [{ name: 'item_name', type: T.string() }, { name: 'initial_bid', type: T.bigint() }, { name: 'date_time',
      type: T.timestamp(3) }, { name: 'extra', type: T.string() }])
    expect(snake).toEqual(auctions.map(r => [r[1], r[3], r[5], r[9]]))
    const decimals = await table('bid', [{ name: 'price', type: T.decimal(12, 2) }])
    expect(decimals).toEqual(full.map(r => [BigInt(r[2] as number) * 100n]))
  })

  it('rejects unknown columns, wrong types and bad options', async () => {
    const unknown = await errorOf(() => source.validate({ 'nexmark.table': 'bid' }, [{ name: 'prize', type: T.bigint() }]))
    expect(unknown.message).toBe(`column 'prize' is not a field of nexmark table 'bid'`)
    expect(unknown.help).toContain(`did you mean 'price'?`)
    expect(unknown.help).toContain('auction, bidder, price, channel, url, dateTime, extra')
    const wrongType = await errorOf(() => source.validate({}, [{ name: 'price', type: T.string() }]))
    expect(wrongType.message).toContain(`column 'price' is declared STRING`)
    const badTable = await errorOf(() => source.validate({ 'nexmark.table': 'bids' }, BID))
    expect(badTable.help).toBe(`did you mean 'bid'?`)
    const badOption = await errorOf(() => source.validate({ 'nexmark.event-rate': '5' }, BID))
    expect(badOption.help).toBe(`did you mean 'nexmark.event.rate'?`)
    const badNumber = await errorOf(() => source.validate({ 'nexmark.events.num': 'lots' }, BID))
    expect(badNumber.message).toContain(`option 'nexmark.events.num'`)
    const badTime = await errorOf(() => source.validate({ 'nexmark.base-time': 'yesterday' }, BID))
    expect(badTime.message).toContain(`'nexmark.base-time'`)
  })

  it('is bounded only with a positive event count; unbounded streams keep giving full chunks', async () => {
    expect(source.bounded({ 'nexmark.events.num': '10' })).toBe(true)
    expect(source.bounded({ 'events.num': '10' })).toBe(true)
    expect(source.bounded({ 'nexmark.events.num': '0' })).toBe(false)
    expect(source.bounded({})).toBe(false)
    const abort = new AbortController()
    const reader = await source.create(sourceCtx({ 'nexmark.table': 'auction' }, AUCTION, 256, abort.signal))
    for (let i = 0; i < 5; i++) {
      const chunk = await reader.next()
      expect(chunk?.rows).toHaveLength(256)
      expect(chunk?.splitEnded).toBeUndefined()
    }
    abort.abort()
    expect(await reader.next()).toBeNull()
    const chunks = await drain(await source.create(sourceCtx({ 'nexmark.events.num': '100' }, BID, 50)))
    expect(chunks.map(c => [c.rows.length, c.splitEnded ?? false])).toEqual([[50, false], [42, true]])
  })
})

describe("nexmark 'max-emit-speed' = 'false'", () => {
  // 2,000 events at 2,000 per second: due over one second, a tenth of a second of events per chunk.
  const paced = { connector: 'nexmark', 'nexmark.table': 'bid', 'nexmark.events.num': '2000', 'nexmark.event.rate': '2000', 'max-emit-speed': 'false' }

  /** Each chunk's rows, its first event time, and when (ms after the read began) it arrived. */
  async function timedChunks(options: Record<string, string>, subtask?: { index: number; parallelism: number }) {
    source.validate(options, BID)
    const reader = await source.create({ ...sourceCtx(options, BID, 1024), ...(subtask !== undefined ? { subtask } : {}) })
    const start = Date.now()
    const chunks: { rows: Row[]; at: number }[] = []
    for (let c = await reader.next(); c !== null; c = await reader.next()) chunks.push({ rows: c.rows, at: Date.now() - start })
    return chunks
  }

  it('emits each event no earlier than its time at the event rate, the same rows as unpaced', async () => {
    const unpaced = await table('bid', BID, { 'nexmark.events.num': '2000', 'nexmark.event.rate': '2000' }, 1024)
    const chunks = await timedChunks(paced)
    expect(chunks.flatMap(c => c.rows)).toEqual(unpaced)
    // Unpaced, 1024 rows a chunk; paced, at most 200 events' worth (a tenth of a second).
    expect(chunks.length).toBeGreaterThanOrEqual(10)
    const base = unpaced[0]![5] as number
    for (const c of chunks) {
      if (c.rows.length === 0) continue
      expect(c.rows.length).toBeLessThanOrEqual(200)
      // A bid's event time is base + its number / rate: it may not arrive before that much wall-clock time has passed
      // (less a few ms of timer slack); the first chunk's first bid is event 4.
      const due = (c.rows[0]![5] as number) - base - 2
      expect(c.at).toBeGreaterThanOrEqual(due - 5)
    }
    expect(chunks.at(-1)!.at).toBeGreaterThanOrEqual(890)
  })

  it('paces the subtasks of a split source to the one clock, together the rows of one reader', async () => {
    const unpaced = await table('bid', BID, { 'nexmark.events.num': '2000', 'nexmark.event.rate': '2000' }, 1024)
    const parts = await Promise.all([0, 1].map(index => timedChunks(paced, { index, parallelism: 2 })))
    const rows = parts.flatMap(p => p.flatMap(c => c.rows))
    const key = (r: Row): string => JSON.stringify(r)
    expect(rows.map(key).sort()).toEqual(unpaced.map(key).sort())
    const base = unpaced[0]![5] as number
    for (const c of parts.flat()) if (c.rows.length > 0) expect(c.at).toBeGreaterThanOrEqual((c.rows[0]![5] as number) - base - 2 - 5)
    // Subtask 1's blocks of events 1000–1999 are due from 500 ms on.
    expect(parts[1]!.find(c => c.rows.length > 0)!.at).toBeGreaterThanOrEqual(490)
  })

  it("refuses a value that is not 'true' or 'false'", async () => {
    const e = await errorOf(() => source.validate({ ...paced, 'max-emit-speed': 'slow' }, BID))
    expect(e.message).toContain("'max-emit-speed'")
  })
})
