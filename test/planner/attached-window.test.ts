// Planning of a window aggregate with the window attached: a GROUP BY of the window_start and
// window_end of an already windowed input (renamed or not) keeps the window (EXPLAIN: attached=[…]),
// its state freed by the watermark and its output windowed, so Nexmark q5 as published is a HOP
// aggregate, an attached MAX and a WindowJoin with no unbounded state. What it does not cover keeps
// the GroupAggregate: one window column only, SESSION windows, processing-time windows.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { Q5_PUBLISHED } from '../../bench/nexmark/join-queries.js'

const SETUP = `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  pt AS PROCTIME(), WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.events.num' = '1000');`

async function explain(sql: string, options: Record<string, string> = {}): Promise<string> {
  const session = new Session({ println: () => undefined, options })
  await session.executeSql(SETUP)
  const r = (await session.executeSql(`EXPLAIN ${sql}`)).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

const count = (text: string, re: RegExp): number => text.match(new RegExp(re.source, 'g'))?.length ?? 0
const ATTACHED =
  /WindowAggregate\(window=\[HOP\(slide=2 s, size=10 s\)\], attached=\[window_start=starttime, window_end=endtime\], groupBy=\[\], select=\[MAX\(num\) AS maxn/
const REGULAR_JOIN = /[-\s]Join\(/

describe('Nexmark q5 as published', () => {
  it.each([['on'], ['off']])(
    'with sub-plan reuse %s: a HOP aggregate, the MAX with the window attached and a WindowJoin; no GroupAggregate, no regular join, no unbounded state',
    async reuse => {
      const text = await explain(Q5_PUBLISHED, { 'table.optimizer.reuse-sub-plan-enabled': reuse === 'on' ? 'true' : 'false' })
      expect(count(text, ATTACHED), text).toBe(1)
      expect(text).toContain(
        'WindowJoin(joinType=[InnerJoin], equi=[starttime = starttime, endtime = endtime], window=[HOP(slide=2 s, size=10 s)], where=[(num >= maxn)]',
      )
      expect(text).not.toContain('GroupAggregate(')
      expect(text).not.toMatch(REGULAR_JOIN)
      expect(text).not.toMatch(/warning|unbounded|grows without bound|changelog=\[updating\]/i)
      // The MAX's state: per window, cleared by the watermark.
      const lines = text.split('\n')
      expect(lines[lines.findIndex(l => ATTACHED.test(l)) + 1]).toContain(
        'state: ValueState<accumulators> per (key, window); key=[(none: one global group)]; ttl=[not needed]; bounded=[yes: cleared when the watermark passes the window end]',
      )
    },
  )
})

const HOP_COUNT = `SELECT auction, COUNT(*) AS num, window_start AS ws, window_end AS we, window_time AS wt
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end`

describe('a GROUP BY over a windowed input', () => {
  it('keyed, with the window columns renamed: attached, and what follows may be a window Top-N', async () => {
    const text = await explain(`SELECT * FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY ws, we ORDER BY total DESC) AS rn
        FROM (SELECT auction % 10 AS bucket, SUM(num) AS total, ws, we FROM (${HOP_COUNT}) GROUP BY auction % 10, ws, we)
      ) WHERE rn <= 3`)
    expect(text).toMatch(/WindowAggregate\(window=\[HOP\(slide=2 s, size=10 s\)\], attached=\[window_start=ws, window_end=we\], groupBy=\[\$?\w+\]/)
    expect(text).toContain('WindowRank(')
    expect(text).not.toContain('GroupAggregate(')
    expect(text).not.toMatch(/warning|unbounded/i)
  })

  it("grouped by the input's window_time too: no key (it is window_end - 1 ms), a global window aggregate", async () => {
    const text = await explain(`SELECT ws, we, wt, MAX(num) FROM (${HOP_COUNT}) GROUP BY ws, wt, we`)
    expect(text).toMatch(/WindowAggregate\(window=\[HOP\(slide=2 s, size=10 s\)\], attached=\[window_start=ws, window_end=we\], groupBy=\[\]/)
    expect(text).toContain('Exchange(distribution=[single])')
  })

  it('one window column only: a GroupAggregate (the window is not attached)', async () => {
    const text = await explain(`SELECT we, MAX(num) FROM (${HOP_COUNT}) GROUP BY we`)
    expect(text).toContain('GroupAggregate(')
    expect(text).not.toContain('attached=')
  })

  it("window_start with another window's window_end is no window: a GroupAggregate", async () => {
    const text = await explain(`SELECT a.ws, b.we, COUNT(*) FROM (${HOP_COUNT}) a JOIN (${HOP_COUNT}) b ON a.auction = b.auction AND a.ws = b.ws AND a.we = b.we
      GROUP BY a.ws, b.we`)
    // Through a window join both sides' columns hold the same windows, but they come from two window aggregates.
    expect(text).toContain('WindowJoin(')
    expect(text).toContain('GroupAggregate(')
    expect(text).not.toContain('attached=')
  })

  it('over SESSION or processing-time windows: a GroupAggregate (Weir attaches event-time TUMBLE, HOP and CUMULATE windows only)', async () => {
    const session = await explain(`SELECT ws, we, MAX(num) FROM (SELECT auction, COUNT(*) AS num, window_start AS ws, window_end AS we
      FROM TABLE(SESSION(TABLE bid PARTITION BY auction, DESCRIPTOR(dateTime), INTERVAL '5' SECOND)) GROUP BY auction, window_start, window_end) GROUP BY ws, we`)
    expect(session).toContain('GroupAggregate(')
    expect(session).not.toContain('attached=')
    const proc = await explain(`SELECT ws, we, MAX(num) FROM (SELECT auction, COUNT(*) AS num, window_start AS ws, window_end AS we
      FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(pt), INTERVAL '5' SECOND)) GROUP BY auction, window_start, window_end) GROUP BY ws, we`)
    expect(proc).toContain('GroupAggregate(')
    expect(proc).not.toContain('attached=')
  })
})
