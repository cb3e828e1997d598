// Plan tests: EXPLAIN text shows operators, keys, exchanges, changelog modes, state and warnings,
// and the effect of the rewrite rules (filter and projection push-down, merged projections).
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'

const DDL = `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.events.num' = '1000');
CREATE TABLE out_print (a BIGINT, b BIGINT) WITH ('connector' = 'print');
`

async function explain(sql: string, setup = DDL): Promise<string> {
  const session = new Session({ println: () => undefined })
  await session.executeSql(setup)
  const results = await session.executeSql(sql)
  const r = results.at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

describe('EXPLAIN', () => {
  it('pushes filters and projections into the source and fuses nothing else', async () => {
    const text = await explain(`EXPLAIN SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0`)
    expect(text).toBe([
      '== Physical Plan ==',
      'Collect(fields=[auction, price], changelog=[insert-only])',
      "+- Source(table=[bid], connector=[nexmark], fields=[auction, price], filter=[((auction % 123) = 0)], watermark=[dateTime - INTERVAL '4' SECOND], changelog=[insert-only])",
    ].join('\n'))
  })

  it('shows a hash exchange, state, TTL and an unbounded-state warning for a GROUP BY', async () => {
    const text = await explain(`EXPLAIN INSERT INTO out_print SELECT auction, COUNT(*) FROM bid GROUP BY auction`)
    expect(text).toContain('Sink(table=[out_print], connector=[print], fields=[a, b], changelog=[updating])')
    expect(text).toContain('GroupAggregate(groupBy=[auction], select=[auction, COUNT(*) AS EXPR$1], changelog=[updating])')
    expect(text).toContain('Exchange(distribution=[hash[auction]])')
    expect(text).toMatch(/state: ValueState<accumulators> per key; key=\[auction\]; ttl=\[none\]; bounded=\[NO/)
    expect(text).toContain('== Warnings ==')
    expect(text).toMatch(/grows without bound; set 'table\.exec\.state\.ttl'/)
  })

  it('has no warning once a TTL bounds the state, from SET or from a STATE_TTL hint', async () => {
    const withSet = await explain(`SET 'table.exec.state.ttl' = '1 h'; EXPLAIN SELECT auction, COUNT(*) FROM bid GROUP BY auction`)
    expect(withSet).toContain('ttl=[1 h]; bounded=[yes')
    expect(withSet).not.toContain('Warnings')
    const withHint = await explain(`EXPLAIN SELECT /*+ STATE_TTL('b' = '1d') */ auction, COUNT(*) FROM bid AS b GROUP BY auction`)
    expect(withHint).toContain('ttl=[1 d]')
    expect(withHint).not.toContain('Warnings')
  })

  it('the hint wins over the SET option', async () => {
    const text = await explain(
      `SET 'table.exec.state.ttl' = '1 h'; EXPLAIN SELECT /*+ STATE_TTL('bid' = '30 min') */ auction, COUNT(*) FROM bid GROUP BY auction`,
    )
    expect(text).toContain('ttl=[30 min]')
  })

  it('shows a window aggregate with its window, time column and bounded state', async () => {
    const text = await explain(`EXPLAIN SELECT auction, COUNT(*) AS n, window_start, window_end
      FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
      GROUP BY auction, window_start, window_end`)
    expect(text).toContain(
      'WindowAggregate(window=[HOP(slide=2 s, size=10 s)], time=[dateTime], groupBy=[auction], select=[auction, COUNT(*) AS n, window_start, window_end, window_time], changelog=[insert-only])',
    )
    expect(text).toContain('bounded=[yes: cleared when the watermark passes the window end]')
    expect(text).toContain('Exchange(distribution=[hash[auction]])')
    expect(text).toContain('fields=[dateTime, auction]')
    expect(text).not.toContain('Warnings')
  })

  it('EXPLAIN CHANGELOG_MODE prints row kinds: no deletions from a GROUP BY over insert-only rows, as Flink', async () => {
    const text = await explain(`EXPLAIN CHANGELOG_MODE SELECT bidder, COUNT(*) FROM bid GROUP BY bidder`)
    expect(text).toMatch(/Collect.*changelogMode=\[I,UB,UA\]\)$/m)
    expect(text).toMatch(/GroupAggregate.*changelogMode=\[I,UB,UA\]\)$/m)
    expect(text).toContain('changelogMode=[I]')
    expect(text).not.toContain('UA,D')
    // Over an updating input a group can go (its count back to 0): deletions, passed on by a filter.
    const twice = await explain(`EXPLAIN CHANGELOG_MODE SELECT n, COUNT(*) FROM (SELECT bidder, COUNT(*) AS n FROM bid GROUP BY bidder)
      GROUP BY n HAVING COUNT(*) > 1`)
    expect(twice).toMatch(/Collect.*changelogMode=\[I,UB,UA,D\]\)$/m)
    expect(twice.match(/GroupAggregate.*changelogMode=\[I,UB,UA\]\)$/gm)?.length).toBe(1)
    expect(twice.match(/GroupAggregate.*changelogMode=\[I,UB,UA,D\]\)$/gm)?.length).toBe(1)
    // A left join's padded rows are retracted.
    const joined = await explain(`EXPLAIN CHANGELOG_MODE SELECT b.bidder, c.n FROM bid b
      LEFT JOIN (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction) c ON b.auction = c.auction`)
    expect(joined).toMatch(/Join.*changelogMode=\[I,UB,UA,D\]/)
  })

  it('marks a GROUP BY over an updating input as consuming retractions', async () => {
    const text = await explain(`EXPLAIN SELECT n, COUNT(*) FROM (SELECT bidder, COUNT(*) AS n FROM bid GROUP BY bidder) GROUP BY n`)
    expect(text).toContain('consumesRetractions=[true]')
    expect(text.match(/GroupAggregate\(/g)?.length).toBe(2)
  })

  it('a global aggregate goes to a single subtask', async () => {
    const text = await explain(`EXPLAIN SELECT COUNT(*) FROM bid`)
    expect(text).toContain('Exchange(distribution=[single])')
    expect(text).toContain('bounded=[yes: a single group]')
  })

  it('merges stacked projections and runs them inside the source', async () => {
    const text = await explain(`EXPLAIN SELECT a + 1 AS b FROM (SELECT price * 2 AS a FROM bid WHERE price > 10)`)
    expect(text.match(/Calc|Source/g)).toEqual(['Source'])
    expect(text).toContain('filter=[(price > 10)]')
    expect(text).toContain('((price * 2) + 1) AS b')
  })

  it('prints BIGINT literals with every digit', async () => {
    const text = await explain(`EXPLAIN SELECT auction * 9007199254740993 FROM bid WHERE auction <> -9223372036854775808`)
    expect(text).toContain('(auction * 9007199254740993)')
    expect(text).toContain('(auction <> -9223372036854775808)')
  })
})
