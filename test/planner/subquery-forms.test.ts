// The subquery forms beyond a plain IN / EXISTS conjunct in the planner: EXPLAIN of marker joins (IN
// / EXISTS under OR, in CASE, a row-valued NOT IN with NULLs), of row-valued IN as semi / anti joins,
// and of correlated scalar subqueries (the subquery grouped by its correlation, joined per key); and
// the forms still refused, with a caret on what Weir cannot plan and what it supports instead.
import { describe, expect, it } from 'vitest'
import { refusal } from './refused.js'
import { explainAfter } from '../support/explain.js'

const DDL = `
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT NOT NULL, channel STRING, dateTime TIMESTAMP(3))
  WITH ('connector' = 'datagen', 'number-of-rows' = '50');
CREATE TABLE auction (id BIGINT NOT NULL, seller BIGINT, category BIGINT, reserve BIGINT NOT NULL)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10');
`

function explain(sql: string): Promise<string> {
  return explainAfter(DDL, sql)
}

describe('EXPLAIN of the subquery forms', () => {
  it('IN under OR is a marker join (NULL-aware on a nullable value) read by the filter; its state and warning', async () => {
    const text = await explain(`EXPLAIN SELECT * FROM bid WHERE price > 10 OR auction IN (SELECT id FROM auction)`)
    expect(text).toContain('Calc(select=[auction, bidder, price, channel, dateTime], where=[((price > 10) OR $marker0)], changelog=[updating])')
    expect(text).toContain(
      'Join(joinType=[LeftMarkJoin], leftKey=[], nullAware=[auction IN $0], select=[auction, bidder, price, channel, dateTime, $marker0], changelog=[updating])',
    )
    expect(text).toContain('state right: ValueState<right rows> + MapState<right values, count> (NULL-free and with NULLs apart) per key')
    expect(text).toMatch(/warning: .*marker join\) keeps its state forever/)
  })

  it('NOT NULL values are keys of the marker join; NOT EXISTS in the SELECT list reads NOT of its marker', async () => {
    const text = await explain(`SET 'table.exec.state.ttl' = '1 h'; EXPLAIN SELECT auction,
      CASE WHEN price IN (SELECT reserve FROM auction) THEN 'reserve' ELSE 'other' END AS what,
      NOT EXISTS (SELECT 1 FROM auction a WHERE a.id = b.auction) AS orphan FROM bid b`)
    expect(text).toContain("Calc(select=[auction, CASE WHEN $marker0 THEN 'reserve' ELSE 'other' END AS what, NOT $marker1 AS orphan]")
    expect(text).toContain('Join(joinType=[LeftMarkJoin], leftKey=[price], select=[auction, bidder, price, channel, dateTime, $marker0]')
    expect(text).toContain('Join(joinType=[LeftMarkJoin], leftKey=[auction], select=[auction, bidder, price, channel, dateTime, $marker0, $marker1]')
    expect(text).toContain('ttl=[1 h]; bounded=[yes')
  })

  it('row-valued IN is a semi join on every column; NOT IN with one nullable pair an anti join NULL-aware on it, with two a marker join', async () => {
    const semi = await explain(`EXPLAIN SELECT * FROM bid WHERE (auction, bidder) IN (SELECT id, seller FROM auction)`)
    expect(semi).toContain(
      'Join(joinType=[LeftSemiJoin], leftKey=[auction, bidder], select=[auction, bidder, price, channel, dateTime], changelog=[insert-only])',
    )
    const one = await explain(`EXPLAIN SELECT * FROM bid WHERE (auction, price) NOT IN (SELECT id, reserve FROM auction)`)
    expect(one).toContain('Join(joinType=[LeftAntiJoin], leftKey=[price], nullAware=[auction NOT IN $0]')
    const two = await explain(`EXPLAIN SELECT * FROM bid WHERE (auction, bidder) NOT IN (SELECT id, seller FROM auction)`)
    expect(two).toContain('where=[NOT $marker]')
    expect(two).toContain('Join(joinType=[LeftMarkJoin], leftKey=[], nullAware=[auction, bidder IN $0, $1]')
  })

  it('a correlated scalar subquery: the subquery grouped by the correlation, joined per key', async () => {
    const text = await explain(`EXPLAIN SELECT b.auction, (SELECT COUNT(*) FROM auction a WHERE a.seller = b.bidder AND a.reserve > 5) AS n FROM bid b`)
    expect(text).toContain('Calc(select=[auction, $scalar0 AS n], changelog=[updating])')
    expect(text).toContain(
      'Join(joinType=[LeftOuterJoin], scalarSubquery=[the scalar subquery at line 1, column 27], leftKey=[bidder], select=[auction, bidder, price, channel, dateTime, $scalar0, $corr0]',
    )
    expect(text).toContain('GroupAggregate(groupBy=[seller], select=[seller, COUNT(*) AS value]')
    expect(text).toContain('state right: MapState<row, count> (at most one row per key); key=[bidder]')
    expect(text).toContain('Exchange(distribution=[hash[bidder]])')
  })
})

describe('subquery forms Weir refuses', () => {
  it('a row IN whose subquery has another width', async () => {
    const width = await refusal(`${DDL} SELECT * FROM bid WHERE (auction, bidder) IN (SELECT id FROM auction)`)
    expect(width.message).toBe('this subquery returns 1 column; the IN compares 2')
    expect(width.at).toBe('SELECT id FROM auction')
  })

  it("an outer column outside a correlated subquery's WHERE", async () => {
    const r = await refusal(`${DDL} SELECT b.auction, (SELECT MAX(reserve) + b.price FROM auction a WHERE a.id = b.auction) FROM bid b`)
    expect(r.message).toBe("a correlated subquery may name the outer query's columns only in its WHERE")
    expect(r.at).toBe('b.price')
    expect(r.help).toContain('(SELECT MAX(p.price) FROM p WHERE p.k = o.k) + o.x')
  })

  it('IN in the SELECT list of a GROUP BY query and in ON; a correlation that is not an equality in a scalar subquery', async () => {
    const grouped = await refusal(`${DDL} SELECT auction, COUNT(*), auction IN (SELECT id FROM auction) FROM bid GROUP BY auction`)
    expect(grouped.message).toBe('IN (subquery) is not supported in SELECT')
    expect(grouped.at).toBe('auction IN (SELECT id FROM auction)')
    const on = await refusal(`${DDL} SELECT * FROM bid b JOIN auction a ON a.id = b.auction AND b.bidder IN (SELECT seller FROM auction)`)
    expect(on.message).toBe('IN (subquery) is not supported in ON')
    const range = await refusal(`${DDL} SELECT b.auction, (SELECT MAX(reserve) FROM auction a WHERE a.id = b.auction AND a.seller > b.bidder) FROM bid b`)
    expect(range.message).toBe('this condition of a correlated subquery cannot be decorrelated')
    expect(range.at).toBe('a.seller > b.bidder')
  })
})
