// Subqueries in the planner: EXPLAIN of semi/anti joins (keys, NOT IN's NULL-aware form), of
// INTERSECT / EXCEPT and scalar-subquery joins, with their state and unbounded-state warnings; the
// refusals with a caret on what Weir cannot plan; and the run-time error of a scalar subquery that
// returns two rows, naming it.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
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

describe('EXPLAIN of subqueries', () => {
  it('a correlated IN is a semi join keyed by the value and the correlation, with its state and a warning', async () => {
    const text = await explain(`EXPLAIN SELECT auction, price FROM bid b WHERE b.bidder IN (SELECT seller FROM auction a WHERE a.id = b.auction)`)
    expect(text).toContain(
      'Join(joinType=[LeftSemiJoin], leftKey=[bidder, auction], select=[auction, bidder, price], changelog=[insert-only])',
    )
    expect(text).toContain('Exchange(distribution=[hash[bidder, auction]])')
    expect(text).toContain('Exchange(distribution=[hash[value, $corr1]])')
    expect(text).toContain('fields=[seller AS value, id AS $corr1]')
    expect(text).toMatch(/state left: MapState<row, count> per join key; key=\[bidder, auction\]; ttl=\[none\]; bounded=\[NO/)
    expect(text).toMatch(/state right: ValueState<right row count> per join key/)
    expect(text).toMatch(/warning: .*semi join\) keeps its state forever/)
  })

  it('NOT IN over nullable columns is NULL-aware and keyed by the correlation only; NOT NULL columns make it a plain anti join', async () => {
    const nullable = await explain(`EXPLAIN SELECT price FROM bid WHERE bidder NOT IN (SELECT seller FROM auction)`)
    expect(nullable).toContain('Join(joinType=[LeftAntiJoin], leftKey=[], nullAware=[bidder NOT IN $0]')
    expect(nullable).toContain('Exchange(distribution=[single])')
    expect(nullable).toContain('changelog=[updating]')
    const notNull = await explain(`SET 'table.exec.state.ttl' = '1 h'; EXPLAIN SELECT price FROM bid WHERE price NOT IN (SELECT reserve FROM auction)`)
    expect(notNull).toContain('Join(joinType=[LeftAntiJoin], leftKey=[price], select=[price]')
    expect(notNull).toContain('ttl=[1 h]; bounded=[yes')
    expect(notNull).not.toContain('Warnings')
  })

  it('INTERSECT / EXCEPT keyed by the whole row; a scalar subquery joins on one global key', async () => {
    const intersect = await explain(`EXPLAIN SELECT bidder FROM bid INTERSECT SELECT seller FROM auction`)
    expect(intersect).toContain('Intersect(all=[false], select=[bidder], changelog=[insert-only])')
    expect(intersect).toContain('state: ValueState<left count, right count> per row; key=[the whole row]')
    const except = await explain(`EXPLAIN SELECT bidder FROM bid EXCEPT ALL SELECT seller FROM auction`)
    expect(except).toContain('Minus(all=[true], select=[bidder], changelog=[updating])')
    const scalar = await explain(`EXPLAIN SELECT auction FROM bid WHERE price > (SELECT AVG(reserve) FROM auction)`)
    expect(scalar).toContain('Join(joinType=[LeftOuterJoin], scalarSubquery=[the scalar subquery at line 1, column 47]')
    expect(scalar).toContain('Exchange(distribution=[single])')
  })
})

describe('subqueries Weir refuses', () => {
  it('a correlation that is not an equality: caret on it, and what is supported', async () => {
    const sql = `${DDL} SELECT * FROM bid b WHERE EXISTS (SELECT 1 FROM auction a WHERE a.id = b.auction AND a.reserve < b.price)`
    const r = await refusal(sql)
    expect(r.message).toBe('this condition of a correlated subquery cannot be decorrelated')
    expect(r.at).toBe('a.reserve < b.price')
    expect(r.help).toContain("equalities 'inner expression = outer expression'")
  })

  it('a subquery in HAVING, and a correlated scalar subquery with HAVING', async () => {
    const having = await refusal(`${DDL} SELECT auction, COUNT(*) FROM bid GROUP BY auction HAVING auction IN (SELECT id FROM auction)`)
    expect(having.message).toBe('IN (subquery) is not supported in HAVING')
    expect(having.at).toBe('auction IN (SELECT id FROM auction)')
    expect(having.help).toContain('in the WHERE clause and in the SELECT list of a query without GROUP BY')
    const correlated = await refusal(`${DDL} SELECT * FROM bid b WHERE price > (SELECT MAX(reserve) FROM auction a WHERE a.id = b.auction HAVING COUNT(*) > 1)`)
    expect(correlated.message).toBe('a correlated scalar subquery with HAVING or DISTINCT is not supported')
    expect(correlated.at).toBe('COUNT(*) > 1')
  })

  it('an IN subquery with two columns, and an unknown column that is in neither query', async () => {
    const two = await refusal(`${DDL} SELECT * FROM bid WHERE auction IN (SELECT id, seller FROM auction)`)
    expect(two.message).toBe('this subquery returns 2 columns; IN needs exactly one')
    expect(two.at).toBe('SELECT id, seller FROM auction')
    const unknown = await refusal(`${DDL} SELECT * FROM bid WHERE auction IN (SELECT id FROM auction a WHERE a.id = nope)`)
    expect(unknown.message).toBe("column 'nope' not found")
    expect(unknown.at).toBe('nope')
  })
})

describe('a scalar subquery at run time', () => {
  it('fails the job when it returns a second row, naming the subquery', async () => {
    const session = new Session({ println: () => undefined })
    const err = await session.executeSql(`${DDL} SELECT auction FROM bid WHERE price > (SELECT reserve FROM auction)`).then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(WeirError)
    expect((err as WeirError).message).toContain('the scalar subquery at line 6, column 40 returned more than one row')
  })
})
