// Plan tests of sub-plan reuse (planner/physical/reuse.ts): a subquery computed twice is one operator
// with a reuse_id, read again through Reused(reference_id); non-deterministic work is never merged;
// 'table.optimizer.reuse-sub-plan-enabled' = 'false' gives the plan without reuse.
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { Q5_PUBLISHED } from '../../bench/nexmark/join-queries.js'

const DDL = `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.events.num' = '1000');
`

/** Nexmark q5 as published: the same HOP count of bids per auction, joined and under the MAX per window. */
const Q5 = Q5_PUBLISHED

/** Reuse is on by default; set here so these plans do not depend on the default. */
const ON = { 'table.optimizer.reuse-sub-plan-enabled': 'true' }

async function explain(sql: string, options: Record<string, string> = {}): Promise<string> {
  const session = new Session({ println: () => undefined, options: { ...ON, ...options } })
  await session.executeSql(DDL)
  const r = (await session.executeSql(`EXPLAIN ${sql}`)).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

const count = (text: string, re: RegExp): number => text.match(new RegExp(re.source, 'g'))?.length ?? 0

/** q5's HOP count (a window assigned from a time column); the MAX per window above it is a window aggregate with the window attached. */
const HOP = /WindowAggregate\(window=\[HOP\(slide=2 s, size=10 s\)\], time=/
const ATTACHED = /WindowAggregate\(window=\[HOP\(slide=2 s, size=10 s\)\], attached=/

describe('sub-plan reuse in EXPLAIN', () => {
  it('q5 as published: one source and one HOP aggregate, read again by the MAX branch', async () => {
    const text = await explain(Q5)
    expect(count(text, HOP), text).toBe(1)
    expect(count(text, ATTACHED), text).toBe(1)
    expect(count(text, /Source\(table=\[bid\]/), text).toBe(1)
    const lines = text.split('\n')
    const hop = lines.find(l => HOP.test(l))!
    expect(hop).toMatch(/WindowAggregate\(window=\[HOP\(slide=2 s, size=10 s\)\].*\)\(reuse_id=\[1\]\)$/)
    // The reference sits under the MAX branch's projection, where its own copy of the aggregate was.
    const ref = lines.findIndex(l => l.trim() === '+- Reused(reference_id=[1])')
    expect(ref, text).toBeGreaterThan(0)
    expect(lines[ref - 1]).toContain('Calc(select=[window_start AS starttime, window_end AS endtime, num]')
    expect(count(text, /Reused\(reference_id=/)).toBe(1)
    // Two readers, each with its own projection: those are not the same, so they stay two.
    // (The third renames the MAX's own window columns, above the attached window aggregate.)
    expect(count(text, /Calc\(select=\[.*window_start AS starttime/)).toBe(3)
    expect(lines[lines.findIndex(l => HOP.test(l)) - 1]).toContain('Calc(select=[auction, num, window_start AS starttime, window_end AS endtime]')
  })

  it("'table.optimizer.reuse-sub-plan-enabled' = 'false' gives the plan without reuse: two sources, two aggregates", async () => {
    const off = await explain(Q5, { 'table.optimizer.reuse-sub-plan-enabled': 'false' })
    expect(count(off, HOP)).toBe(2)
    expect(count(off, /Source\(table=\[bid\]/)).toBe(2)
    expect(off).not.toContain('reuse_id')
    expect(off).not.toContain('Reused(')
    // The same plan as with reuse but for the copy: with the MAX branch's aggregate, its state, exchange and
    // source put back where the reference is, the texts (ids in the warnings too) are the same.
    const offLines = off.split('\n')
    const at = offLines.findLastIndex(l => HOP.test(l))
    const copy = offLines.slice(at, at + 4)
    expect(copy[3]).toContain('Source(table=[bid]')
    const on = await explain(Q5)
    const inlined = on.split('\n').flatMap(l => (l.includes('Reused(reference_id=[1])') ? copy : [l.replace('(reuse_id=[1])', '')]))
    expect(inlined.join('\n')).toBe(off)
  })

  it("'table.optimizer.reuse-source-enabled' = 'false' reads the table twice, so nothing above the sources is merged either", async () => {
    const text = await explain(Q5, { 'table.optimizer.reuse-source-enabled': 'false' })
    expect(count(text, /Source\(table=\[bid\]/)).toBe(2)
    expect(count(text, HOP)).toBe(2)
    expect(text).not.toContain('reuse_id')
  })

  it('a self-join of one GROUP BY and a UNION ALL of one filtered subquery compute each once', async () => {
    const join = await explain(`WITH c AS (SELECT auction, COUNT(*) AS n FROM bid WHERE price > 10 GROUP BY auction)
      SELECT a.auction, a.n, b.n FROM c a JOIN c b ON a.auction = b.auction`)
    expect(count(join, /GroupAggregate\(/), join).toBe(1)
    expect(count(join, /Source\(/)).toBe(1)
    expect(join).toContain('(reuse_id=[1])')
    expect(join).toContain('Reused(reference_id=[1])')
    const union = await explain(`SELECT auction, price FROM bid WHERE price > 10 UNION ALL SELECT auction, price FROM bid WHERE price > 10`)
    expect(count(union, /Source\(/), union).toBe(1)
    expect(union).toMatch(/Union\([\s\S]*\(reuse_id=\[1\]\)[\s\S]*Reused\(reference_id=\[1\]\)/)
  })

  it('RAND() in both branches is computed in each: its two calls are not the same rows', async () => {
    const text = await explain(`SELECT auction, r FROM (SELECT auction, RAND() AS r FROM bid)
      UNION ALL SELECT auction, r FROM (SELECT auction, RAND() AS r FROM bid)`)
    // The scan is the same and read once; the calls of RAND() above it stay two.
    expect(count(text, /RAND\(\)/), text).toBe(2)
    expect(count(text, /Source\(/)).toBe(1)
    const agg = await explain(`WITH c AS (SELECT auction, SUM(r) AS s FROM (SELECT auction, RAND() AS r FROM bid) GROUP BY auction)
      SELECT a.auction, a.s, b.s FROM c a JOIN c b ON a.auction = b.auction`)
    expect(count(agg, /GroupAggregate\(/), agg).toBe(2)
  })

  it('NOW() in a filter and a processing-time window are not merged; the same query without them is', async () => {
    const now = await explain(`SELECT auction FROM bid WHERE dateTime < NOW() UNION ALL SELECT auction FROM bid WHERE dateTime < NOW()`)
    expect(count(now, /NOW\(\)|CURRENT_TIMESTAMP/), now).toBe(2)
    const session = new Session({ println: () => undefined, options: ON })
    await session.executeSql(`${DDL} CREATE TABLE pbid (auction BIGINT, pt AS PROCTIME()) WITH ('connector' = 'nexmark', 'nexmark.events.num' = '10');`)
    const r = (await session.executeSql(`EXPLAIN SELECT a.auction, a.n, b.n FROM
      (SELECT auction, COUNT(*) AS n, window_start FROM TABLE(TUMBLE(TABLE pbid, DESCRIPTOR(pt), INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end) a
      JOIN (SELECT auction, COUNT(*) AS n, window_start FROM TABLE(TUMBLE(TABLE pbid, DESCRIPTOR(pt), INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end) b
      ON a.auction = b.auction AND a.window_start = b.window_start`)).at(-1)!
    const text = (r as { text: string }).text
    expect(count(text, /WindowAggregate\(/), text).toBe(2)
    // On event time the same pair of windows is one aggregate.
    const event = await explain(`SELECT a.auction, a.n, b.n FROM
      (SELECT auction, COUNT(*) AS n, window_start FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end) a
      JOIN (SELECT auction, COUNT(*) AS n, window_start FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '1' SECOND)) GROUP BY auction, window_start, window_end) b
      ON a.auction = b.auction AND a.window_start = b.window_start`)
    expect(count(event, /WindowAggregate\(/), event).toBe(1)
  })

  it('a user function or user aggregate is computed in each branch (Weir cannot know it is deterministic)', async () => {
    const M = resolve(import.meta.dirname, '../udf/modules')
    const session = new Session({ println: () => undefined, options: ON })
    await session.executeSql(`${DDL} CREATE FUNCTION count_char AS '${M}/strings.ts#countChar'; CREATE FUNCTION spread AS '${M}/aggregates.ts#spread';`)
    const text = async (sql: string): Promise<string> => ((await session.executeSql(`EXPLAIN ${sql}`)).at(-1) as { text: string }).text
    const scalar = await text(`SELECT count_char(url, 'a') FROM bid UNION ALL SELECT count_char(url, 'a') FROM bid`)
    expect(count(scalar, /count_char\(/), scalar).toBe(2)
    const agg = await text(`WITH c AS (SELECT auction, spread(CAST(price AS INT)) AS s FROM bid GROUP BY auction)
      SELECT a.auction, a.s, b.s FROM c a JOIN c b ON a.auction = b.auction`)
    expect(count(agg, /GroupAggregate\(/), agg).toBe(2)
    // The same queries with built-ins instead are merged.
    const builtin = await text(`WITH c AS (SELECT auction, MAX(price) - MIN(price) AS s FROM bid GROUP BY auction)
      SELECT a.auction, a.s, b.s FROM c a JOIN c b ON a.auction = b.auction`)
    expect(count(builtin, /GroupAggregate\(/), builtin).toBe(1)
  })
})
