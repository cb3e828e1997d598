// EXPLAIN of deduplication and Top-N: which operator the rank rules chose, its keys, range and
// changelog, its state (shape, key, TTL, bounded) and the unbounded-state warning.
import { describe, expect, it } from 'vitest'
import { refusal } from './refused.js'
import { explainAfter } from '../support/explain.js'

const DDL = `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING, pt AS PROCTIME(),
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.events.num' = '1000');
`

function explain(sql: string): Promise<string> {
  return explainAfter(DDL, sql)
}

const topN = (fn: string, over: string, cond: string, cols = '*') => `SELECT ${cols} FROM (SELECT *, ${fn} OVER (${over}) AS rn FROM bid) WHERE ${cond}`

describe('EXPLAIN of dedup and Top-N', () => {
  it('keep-last by event time: a Deduplicate keyed by the partition, updating, with an unbounded-state warning', async () => {
    const text = await explain(`EXPLAIN ${topN('ROW_NUMBER()', 'PARTITION BY bidder, auction ORDER BY dateTime DESC', 'rn <= 1', 'auction, bidder, price')}`)
    expect(text).toContain('Deduplicate(keep=[LastRow], key=[bidder, auction], order=[dateTime], changelog=[updating])')
    expect(text).toContain('state: ValueState<kept row> per key; key=[bidder, auction]; ttl=[none]; bounded=[NO: one entry per distinct key, kept forever]')
    expect(text).toContain('Exchange(distribution=[hash[bidder, auction]])')
    expect(text).toMatch(/Deduplicate on \[bidder, auction\]\) keeps a row for every key forever/)
  })

  it('keep-first by processing time is insert-only, and a TTL bounds it', async () => {
    const text = await explain(
      `SET 'table.exec.state.ttl' = '1 h'; EXPLAIN ${topN('ROW_NUMBER()', 'PARTITION BY bidder ORDER BY pt ASC', 'rn = 1', 'bidder, rn')}`,
    )
    expect(text).toContain('Deduplicate(keep=[FirstRow], key=[bidder], order=[pt (proctime)], changelog=[insert-only])')
    expect(text).toContain('ttl=[1 h]; bounded=[yes: keys idle for 1 h expire]')
    expect(text).toContain('1 AS rn')
    expect(text).not.toContain('== Warnings ==')
  })

  it('Top-N: range, order, rank in the output or not, state bounded by N over an insert-only input', async () => {
    const text = await explain(`EXPLAIN ${topN('ROW_NUMBER()', 'PARTITION BY auction ORDER BY price DESC, bidder', 'rn <= 10')}`)
    expect(text).toContain(
      'Rank(rankType=[ROW_NUMBER], rankRange=[1..10], partitionBy=[auction], orderBy=[price DESC, bidder ASC], outputRank=[true], changelog=[updating])',
    )
    expect(text).toContain('state: MapState<slot, (row, count)> per partition, at most 10 rows (plus ties); key=[auction]; ttl=[none]')
    const noRank = await explain(`EXPLAIN ${topN('DENSE_RANK()', 'PARTITION BY auction ORDER BY price DESC', 'rn BETWEEN 2 AND 3', 'auction, price')}`)
    expect(noRank).toContain('Rank(rankType=[DENSE_RANK], rankRange=[2..3], partitionBy=[auction], orderBy=[price DESC], outputRank=[false]')
  })

  it('Top-N over an updating input keeps every row and consumes retractions; a STATE_TTL hint bounds it', async () => {
    const text = await explain(`EXPLAIN SELECT * FROM (SELECT /*+ STATE_TTL('c' = '12 h') */ *, RANK() OVER (ORDER BY n DESC) AS r
      FROM (SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction) c) WHERE r <= 3`)
    expect(text).toContain(
      'Rank(rankType=[RANK], rankRange=[1..3], partitionBy=[(none: one global partition)], orderBy=[n DESC], outputRank=[true], consumesRetractions=[true]',
    )
    expect(text).toContain('every row of the partition (a retraction can promote the next one)')
    expect(text).toContain('ttl=[12 h]; bounded=[yes: partitions idle for 12 h expire]')
  })

  it('window Top-N: per window, insert-only, freed at the window end', async () => {
    const text = await explain(`EXPLAIN SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY n DESC) AS rn FROM (
      SELECT auction, window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
      GROUP BY auction, window_start, window_end)) WHERE rn <= 3`)
    expect(text).toContain(
      'WindowRank(rankType=[ROW_NUMBER], rankRange=[1..3], partitionBy=[window_start, window_end], orderBy=[n DESC], outputRank=[true], changelog=[insert-only])',
    )
    expect(text).toContain('ttl=[not needed]; bounded=[yes: cleared when the watermark passes the window end]')
  })

  it('refuses a Top-N without an upper bound on the rank, at the filter', async () => {
    const sql = DDL + topN('ROW_NUMBER()', 'PARTITION BY auction ORDER BY price DESC', 'rn > 3 AND auction > 0')
    expect(await refusal(sql)).toMatchObject({ kind: 'unsupported', message: 'a Top-N needs an upper bound on ROW_NUMBER()', at: 'rn > 3 AND auction > 0',
      help: expect.stringContaining('WHERE rn <= 10') })
  })
})
