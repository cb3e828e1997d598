// Plan tests of two-phase aggregation: a LocalGroupAggregate ahead of the exchange, computing each
// call into its accumulator columns, and a GlobalGroupAggregate after it merging them (Flink's names
// and layout); a global aggregate's partial rows go to a single subtask.
import { describe, expect, it } from 'vitest'
import { explainAfter } from '../support/explain.js'

const DDL = `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.events.num' = '1000');
`

function explain(sql: string): Promise<string> {
  return explainAfter(DDL, sql)
}

describe('EXPLAIN of a two-phase GROUP BY', () => {
  it('at parallelism 2: the local phase computes accumulator columns, the global merges them', async () => {
    const text = await explain(`SET 'parallelism.default' = '2'; SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
      EXPLAIN SELECT auction, COUNT(*) AS n, COUNT(*) FILTER (WHERE price > 100) AS big, AVG(price) AS a, MAX(channel) AS c FROM bid GROUP BY auction`)
    expect(text).toBe([
      '== Physical Plan ==',
      'Collect(fields=[auction, n, big, a, c], changelog=[updating])',
      '+- GlobalGroupAggregate(groupBy=[auction], select=[auction, COUNT(count$1) AS n, COUNT(count$2) AS big, AVG((sum$3, count$4)) AS a, MAX(max$5) AS c], changelog=[updating])',
      '   |  state: ValueState<accumulators> per key; key=[auction]; ttl=[none]; bounded=[NO: one entry per distinct key, kept forever]',
      '   +- Exchange(distribution=[hash[auction]])',
      '      +- LocalGroupAggregate(groupBy=[auction], select=[auction, COUNT(*) AS count1$0, COUNT(*) AS count$1, COUNT(*) FILTER (WHERE $f1) AS count$2, AVG(price) AS (sum$3, count$4), MAX(channel) AS max$5], changelog=[insert-only])',
      "         +- Source(table=[bid], connector=[nexmark], fields=[auction, (price > 100) AS $f1, price, channel], watermark=[dateTime - INTERVAL '4' SECOND], changelog=[insert-only])",
      '',
      '== Warnings ==',
      "warning: 2-group-aggregate (GlobalGroupAggregate on [auction]) keeps state for every key forever, so its state grows without bound; set 'table.exec.state.ttl' (e.g. SET 'table.exec.state.ttl' = '1 h') or add a /*+ STATE_TTL('<alias>' = '1 h') */ hint",
    ].join('\n'))
  })

  it('TWO_PHASE at parallelism 1, no GROUP BY: partial rows of every subtask go to a single one', async () => {
    const text = await explain(`SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'; EXPLAIN SELECT COUNT(*), SUM(price) FROM bid`)
    expect(text).toContain('GlobalGroupAggregate(groupBy=[], select=[COUNT(count$1) AS EXPR$0, SUM((sum$2, count$3)) AS EXPR$1], changelog=[updating])')
    expect(text).toContain('Exchange(distribution=[single])')
    expect(text).toContain('LocalGroupAggregate(groupBy=[], select=[COUNT(*) AS count1$0, COUNT(*) AS count$1, SUM(price) AS (sum$2, count$3)]')
  })

  it('SELECT DISTINCT splits too, and the local phase is insert-only', async () => {
    const text = await explain(`SET 'parallelism.default' = '2'; SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
      EXPLAIN CHANGELOG_MODE SELECT DISTINCT bidder FROM bid`)
    expect(text).toContain('+- GlobalGroupAggregate(groupBy=[bidder], select=[bidder], changelogMode=[I,UB,UA])')
    expect(text).toContain('+- LocalGroupAggregate(groupBy=[bidder], select=[bidder, COUNT(*) AS count1$0], changelogMode=[I])')
  })

  it("JSON_EXECUTION_PLAN: the local phase runs at its input's parallelism, forward; the global after a hash", async () => {
    const text = await explain(`SET 'parallelism.default' = '2'; SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
      EXPLAIN JSON_EXECUTION_PLAN SELECT bidder, MIN(price) FROM bid GROUP BY bidder`)
    const plan = JSON.parse(text.slice(text.indexOf('{'))) as {
      nodes: { id: number; type: string; parallelism: number; predecessors?: { ship_strategy: string }[] }[]
    }
    expect(plan.nodes.map(n => [n.type, n.parallelism, n.predecessors?.[0]?.ship_strategy])).toEqual([
      ['Source: bid', 2, undefined],
      ['LocalGroupAggregate', 2, 'FORWARD'],
      ['GlobalGroupAggregate', 2, 'HASH[bidder]'],
      ['Collect', 1, 'GLOBAL'],
    ])
  })
})
