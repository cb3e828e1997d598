// Plan tests of regular joins: EXPLAIN (keys, exchanges, state per side with its shape, key and TTL,
// warnings), changelog modes, and the errors a user gets for joins Weir cannot run.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { refusal } from './refused.js'

const DDL = `
CREATE TABLE orders (oid BIGINT, cid BIGINT, amount INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE customers (cid BIGINT, name STRING, city STRING, PRIMARY KEY (cid) NOT ENFORCED) WITH ('connector' = 'datagen');
CREATE TABLE out_json (a BIGINT, b STRING) WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-never-written', 'format' = 'json');
`

async function explain(sql: string): Promise<string> {
  const session = new Session({ println: () => undefined, explainOnly: true })
  const r = (await session.executeSql(DDL + sql)).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

describe('EXPLAIN of a regular join', () => {
  it('hashes both inputs by their join key, prunes columns, pushes filters and shows each side’s state and TTL', async () => {
    const text = await explain(`EXPLAIN SELECT /*+ STATE_TTL('o' = '1 d', 'c' = '12 h') */ o.oid, c.name
      FROM orders o JOIN customers c ON o.cid = c.cid WHERE c.city = 'x' AND o.amount > 10`)
    expect(text).toBe([
      '== Physical Plan ==',
      'Collect(fields=[oid, name], changelog=[insert-only])',
      '+- Calc(select=[oid, name], changelog=[insert-only])',
      '   +- Join(joinType=[InnerJoin], equi=[cid = cid], select=[oid, cid, cid, name], changelog=[insert-only])',
      '      |  state left: ListState<rows> per join key (insert-only input: rows appended); key=[cid]; ttl=[1 d]; bounded=[yes: rows idle for 1 d expire]',
      '      |  state right: MapState<unique key [cid], row> per join key; key=[cid]; ttl=[12 h]; bounded=[yes: rows idle for 12 h expire]',
      '      +- Exchange(distribution=[hash[cid]])',
      "      |  +- Source(table=[orders], connector=[datagen], fields=[oid, cid], filter=[(amount > 10)], watermark=[ts - INTERVAL '1' SECOND], changelog=[insert-only])",
      '      +- Exchange(distribution=[hash[cid]])',
      "         +- Source(table=[customers], connector=[datagen], fields=[cid, name], filter=[(city = 'x')], changelog=[insert-only])",
    ].join('\n'))
  })

  it('an outer join updates; its outer side counts matches; a GROUP BY input is stored per unique key; unbounded sides are warned of', async () => {
    const text = await explain(`EXPLAIN SELECT c.name, t.n FROM customers c LEFT JOIN (SELECT cid, COUNT(*) AS n FROM orders GROUP BY cid) t ON c.cid = t.cid`)
    expect(text).toContain('Join(joinType=[LeftOuterJoin], equi=[cid = cid], select=[cid, name, cid, n], changelog=[updating])')
    expect(text).toContain('state left: MapState<unique key [cid], row, match count> per join key; key=[cid]; ttl=[none]; bounded=[NO')
    expect(text).toContain('state right: MapState<unique key [cid], row> per join key; key=[cid]; ttl=[none]')
    expect(text).toMatch(/warning: \d+-join \(Join\) keeps every row of its left input forever/)
    const withTtl = await explain(`SET 'table.exec.state.ttl' = '2 h'; EXPLAIN SELECT o.oid, c.name FROM orders o FULL JOIN customers c ON o.cid = c.cid`)
    expect(withTtl).toContain('state left: MapState<row, count, match count> per join key; key=[cid]; ttl=[2 h]')
    expect(withTtl).not.toContain('Warnings')
  })

  it('a join on a GROUP BY’s count passes no unique key on: a row’s changes leave different subtasks (one per count)', async () => {
    const text = await explain(`EXPLAIN SELECT j.cid, j.bcid, c.name FROM (
        SELECT a.cid, a.n, b.cid AS bcid FROM (SELECT cid, COUNT(*) AS n FROM orders GROUP BY cid) a
        JOIN (SELECT cid, COUNT(*) AS n FROM orders WHERE amount > 0 GROUP BY cid) b ON a.n = b.n) j
      JOIN customers c ON j.cid = c.cid`)
    // The first join's sides: each GROUP BY row's changes come from its one subtask, so per count they are in order.
    expect(text).toContain('state left: MapState<unique key [cid], row> per join key; key=[n]')
    // The second join's left input: a pair's -D (old count's subtask) may come after its +I (new count's).
    expect(text).toContain('state left: MapState<row, count> per join key; key=[cid]')
    expect(text).not.toContain('unique key [cid, bcid]')
  })

  it('computes expression keys into a column of the input and keeps the rest of the condition as a residual', async () => {
    const text = await explain(`EXPLAIN SELECT o.oid FROM orders o, customers c WHERE o.cid + 1 = c.cid AND o.amount > CHAR_LENGTH(c.name)`)
    expect(text).toContain('Join(joinType=[InnerJoin], equi=[$join_key0 = cid], where=[(amount > CHAR_LENGTH(name))]')
    expect(text).toContain('fields=[oid, amount, (cid + 1) AS $join_key0]')
  })

  it('a three-way join is two joins, each keyed by its own condition', async () => {
    const text = await explain(`EXPLAIN SELECT a.oid, b.oid, c.name FROM orders a JOIN orders b ON a.amount = b.amount JOIN customers c ON b.cid = c.cid`)
    expect(text.match(/Join\(joinType=\[InnerJoin\]/g)).toHaveLength(2)
    expect(text).toContain('Exchange(distribution=[hash[amount]])')
  })
})

describe('joins Weir refuses', () => {
  it('a join without an equality between its sides, naming why (its state would have no key)', async () => {
    const on = await refusal(`${DDL} SELECT * FROM orders o JOIN customers c ON o.amount > 10 OR o.cid = c.cid`)
    expect(on).toMatchObject({ kind: 'unsupported', at: 'o.amount > 10 OR o.cid = c.cid' })
    expect(on.message).toContain('no equality condition between its two sides, so its state would have no key')
    const comma = await refusal(`${DDL} SELECT * FROM orders o, customers c WHERE o.amount > 3`)
    expect(comma).toMatchObject({ kind: 'unsupported', at: 'orders o, customers c' })
    expect(comma.help).toContain('WHERE a.id = b.a_id')
  })

  it('an ambiguous column, with a caret on it and both qualified names', async () => {
    const e = await refusal(`${DDL} SELECT cid FROM orders o JOIN customers c ON o.cid = c.cid`)
    expect(e).toMatchObject({ kind: 'plan', message: "column 'cid' is ambiguous", at: 'cid', help: 'qualify it: o.cid or c.cid' })
  })

  it('a STATE_TTL hint naming no input of the join', async () => {
    const e = await refusal(`${DDL} SELECT /*+ STATE_TTL('x' = '1 d') */ o.oid FROM orders o JOIN customers c ON o.cid = c.cid`)
    expect(e).toMatchObject({ kind: 'plan', at: "STATE_TTL('x' = '1 d')", help: 'use one of: o, c' })
  })

  it('an outer join into an insert-only sink names the join', async () => {
    const e = await refusal(`${DDL} INSERT INTO out_json SELECT o.oid, c.name FROM orders o LEFT JOIN customers c ON o.cid = c.cid`)
    expect(e.message).toContain('the query produces updates from the LEFT JOIN at line')
    expect(e.at).toBe('orders o LEFT JOIN customers c ON o.cid = c.cid')
  })
})
