// JSON_OBJECTAGG, COLLECT, ARRAY_AGG(DISTINCT x) and APPROX_COUNT_DISTINCT against the values Flink
// documents, their failures and refusals, and the HyperLogLog's error at cardinalities where it
// estimates (beyond 2.5 × 2^14 distinct values) against the documented standard error of 0.81%.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import { formatType } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { refusal } from '../planner/refused.js'

type Rows = Extract<StatementResult, { kind: 'rows' }>

async function result(sql: string): Promise<Rows> {
  const rs = await new Session({ println: () => undefined }).executeSql(sql)
  return rs.at(-1) as Rows
}

/** The live rows of a changelog, sorted by their first column. */
function live(r: Rows): unknown[][] {
  const rows: unknown[][] = []
  for (const c of r.changes) {
    const row = c.row as unknown[]
    if (c.kind === 0 || c.kind === 2) rows.push(row)
    else rows.splice(rows.findIndex(x => JSON.stringify(x) === JSON.stringify(row)), 1)
  }
  return rows.sort((a, b) => Number(a[0]) - Number(b[0]))
}

async function failure(sql: string): Promise<WeirError> {
  try {
    await result(sql)
  } catch (e) {
    expect(e).toBeInstanceOf(WeirError)
    return e as WeirError
  }
  throw new Error('expected the job to fail')
}

/** Each row its own batch, so that an inner aggregate's every update reaches the outer one. */
const ONE_BY_ONE = `SET 'execution.batch-size' = '1'; SET 'table.exec.mini-batch.enabled' = 'false';`

const ORDERS = `(VALUES ('Apple', 2), ('Banana', 17), ('Orange', 0)) AS orders(product, cnt)`

describe('JSON_OBJECTAGG', () => {
  it('Flink\'s documented example: \'{"Apple":2,"Banana":17,"Orange":0}\' (a STRING NOT NULL)', async () => {
    const r = await result(`SELECT JSON_OBJECTAGG(KEY product VALUE cnt) FROM ${ORDERS}`)
    expect(live(r)).toEqual([['{"Apple":2,"Banana":17,"Orange":0}']])
    expect(formatType(r.schema[0]!.type)).toBe('STRING NOT NULL')
    // KEY is optional; a key may be any STRING expression.
    expect(live(await result(`SELECT JSON_OBJECTAGG(product VALUE cnt), JSON_OBJECTAGG(KEY CONCAT(product, '!') VALUE product) FROM ${ORDERS}`))).toEqual([
      ['{"Apple":2,"Banana":17,"Orange":0}', '{"Apple!":"Apple","Banana!":"Banana","Orange!":"Orange"}'],
    ])
  })

  it('NULL ON NULL (the default) writes null, ABSENT ON NULL leaves the member out; nested JSON is inserted as JSON; no member gives {}', async () => {
    const r = await result(`SELECT k, JSON_OBJECTAGG(s VALUE n), JSON_OBJECTAGG(s VALUE n NULL ON NULL), JSON_OBJECTAGG(s VALUE n ABSENT ON NULL),
        JSON_OBJECTAGG(KEY s VALUE JSON_ARRAY(n, n)), JSON_OBJECTAGG(s VALUE n) FILTER (WHERE n > 100)
      FROM (VALUES (1, 'b', 2), (1, 'a', CAST(NULL AS INT)), (2, 'c', CAST(NULL AS INT))) AS t(k, s, n) GROUP BY k`)
    expect(live(r)).toEqual([
      [1, '{"a":null,"b":2}', '{"a":null,"b":2}', '{"b":2}', '{"a":[],"b":[2,2]}', '{}'],
      [2, '{"c":null}', '{"c":null}', '{}', '{"c":[]}', '{}'],
    ])
  })

  it('over an updating input a retraction removes the member whose key and value match, so a key may come back', async () => {
    // Per key s the inner count moves 1 → 2: the member "a":1 is retracted before "a":2 is added.
    const inner = `SELECT s, COUNT(*) AS c FROM (VALUES ('a'), ('b'), ('a')) AS t(s) GROUP BY s`
    const r = await result(`${ONE_BY_ONE} SELECT JSON_OBJECTAGG(KEY s VALUE c) FROM (${inner})`)
    expect(live(r)).toEqual([['{"a":2,"b":1}']])
    expect(r.changes.map(c => c.kind)).toContain(1)
  })

  it('a duplicate key fails the job naming the key; a NULL key fails it too', async () => {
    const dup = await failure(`SELECT JSON_OBJECTAGG(KEY s VALUE n) FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) AS t(s, n)`)
    expect([dup.kind, dup.message]).toEqual(['execution', "JSON_OBJECTAGG received the key 'a' twice in one group; duplicate keys are not allowed"])
    const nul = await failure(`SELECT JSON_OBJECTAGG(KEY s VALUE n) FROM (VALUES ('a', 1), (CAST(NULL AS STRING), 2)) AS t(s, n)`)
    expect([nul.kind, nul.message]).toEqual(['execution', 'JSON_OBJECTAGG received a NULL key'])
  })

  it('is refused in OVER windows, with DISTINCT, with two pairs, with a non-string key', async () => {
    const over = await refusal(`SELECT JSON_OBJECTAGG(KEY product VALUE cnt) OVER (ORDER BY cnt) FROM ${ORDERS}`)
    expect(over.message).toBe('JSON_OBJECTAGG is not supported in OVER windows (as in Flink)')
    expect((await refusal(`SELECT JSON_OBJECTAGG(DISTINCT product VALUE cnt) FROM ${ORDERS}`)).message).toBe(
      'JSON_OBJECTAGG takes one key and value, without DISTINCT',
    )
    const pairs = await refusal(`SELECT JSON_OBJECTAGG(KEY product VALUE cnt, KEY 'x' VALUE 1) FROM ${ORDERS}`)
    expect(pairs.message).toBe('JSON_OBJECTAGG takes one key–value pair written key VALUE value, got 4 arguments')
    const key = await refusal(`SELECT JSON_OBJECTAGG(KEY cnt VALUE product) FROM ${ORDERS}`)
    expect([key.message, key.at]).toEqual(['JSON_OBJECTAGG does not accept INT', 'JSON_OBJECTAGG(KEY cnt VALUE product)'])
  })
})

describe('COLLECT', () => {
  it("is a MULTISET<T> printed as Flink prints it ('{a=2, b=1}'), NULLs left out; CARDINALITY counts every element", async () => {
    const r = await result(`SELECT k, COLLECT(s), CAST(COLLECT(s) AS STRING), CARDINALITY(COLLECT(s)), CARDINALITY(COLLECT(DISTINCT s)),
        CAST(COLLECT(DISTINCT s) AS STRING)
      FROM (VALUES (1, 'b'), (1, 'a'), (1, 'b'), (2, CAST(NULL AS STRING))) AS t(k, s) GROUP BY k`)
    expect(live(r)).toEqual([
      [1, [['a', 1], ['b', 2]], '{a=1, b=2}', 3, 2, '{a=1, b=1}'],
      // No value: an empty multiset, as Flink.
      [2, [], '{}', 0, 0, '{}'],
    ])
    expect(formatType(r.schema[1]!.type)).toBe('MULTISET<STRING NOT NULL> NOT NULL')
  })

  it('over an updating input a retraction takes one occurrence away', async () => {
    const inner = `SELECT s, COUNT(*) AS c FROM (VALUES ('a'), ('b'), ('a'), ('c')) AS t(s) GROUP BY s`
    const r = await result(`SELECT CAST(COLLECT(c) AS STRING) FROM (${inner})`)
    expect(live(r)).toEqual([['{1=2, 2=1}']])
  })
})

describe('ARRAY_AGG(DISTINCT x)', () => {
  it('each value once, in order of first appearance, NULL left out; retractions remove a value with its last occurrence', async () => {
    const r = await result(`SELECT k, ARRAY_AGG(DISTINCT s), ARRAY_AGG(s) FROM (VALUES (1, 'b'), (1, 'a'), (1, 'b'), (1, CAST(NULL AS STRING)), (2, 'c'))
      AS t(k, s) GROUP BY k`)
    expect(live(r)).toEqual([[1, ['b', 'a'], ['b', 'a', 'b', null]], [2, ['c'], ['c']]])
    expect(formatType(r.schema[1]!.type)).toBe('ARRAY<STRING NOT NULL>')
    const inner = `SELECT s, COUNT(*) AS c FROM (VALUES ('a'), ('b'), ('a'), ('c'), ('c'), ('c')) AS t(s) GROUP BY s`
    expect(live(await result(`${ONE_BY_ONE} SELECT ARRAY_AGG(DISTINCT c) FROM (${inner})`))).toEqual([[[1, 2, 3]]])
    const respect = await refusal(`SELECT ARRAY_AGG(DISTINCT product RESPECT NULLS) FROM ${ORDERS}`)
    expect([respect.kind, respect.message]).toEqual(['unsupported', 'ARRAY_AGG(DISTINCT x RESPECT NULLS) is not supported'])
  })
})

describe('APPROX_COUNT_DISTINCT', () => {
  it('counts distinct non-NULL values (exactly at small counts)', async () => {
    const r = await result(`SELECT APPROX_COUNT_DISTINCT(s), APPROX_COUNT_DISTINCT(n) FROM (VALUES ('a', 1), ('b', 1), ('a', CAST(NULL AS INT))) AS t(s, n)`)
    expect(live(r)).toEqual([[2, 1]])
    expect(formatType(r.schema[0]!.type)).toBe('BIGINT NOT NULL')
  })

  it('estimates within 3 standard errors (3 × 0.81%) at 60K and 200K distinct values', async () => {
    const r = await result(`CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
        'fields.id.end' = '200000', 'rows-per-second' = '10000000');
      SELECT APPROX_COUNT_DISTINCT(id), APPROX_COUNT_DISTINCT(MOD(id, 60000)), APPROX_COUNT_DISTINCT(CONCAT('user-', CAST(MOD(id, 60000) AS STRING))) FROM g`)
    const [all, mod, text] = live(r).at(-1)!.map(Number) as [number, number, number]
    for (const [got, want] of [[all, 200_000], [mod, 60_000], [text, 60_000]] as const) {
      expect(Math.abs(got - want) / want, `${got} for ${want}`).toBeLessThan(3 * 0.0081)
    }
  }, 120_000)

  it('is refused over an updating input and in OVER windows (a sketch cannot retract)', async () => {
    const inner = `SELECT s, COUNT(*) AS c FROM (VALUES ('a'), ('b')) AS t(s) GROUP BY s`
    const updating = await refusal(`SELECT APPROX_COUNT_DISTINCT(s) FROM (${inner})`)
    expect([updating.kind, updating.message]).toEqual(['unsupported',
      'APPROX_COUNT_DISTINCT cannot consume an updating input: its HyperLogLog sketch cannot retract a value (EXPR$0)'])
    const over = await refusal(`SELECT APPROX_COUNT_DISTINCT(product) OVER (ORDER BY cnt) FROM ${ORDERS}`)
    expect([over.kind, over.at]).toEqual(['unsupported', 'APPROX_COUNT_DISTINCT(product) OVER (ORDER BY cnt)'])
  })
})

describe('EXPLAIN', () => {
  it('names each MapState the aggregates keep', async () => {
    const rs = await new Session({ println: () => undefined, explainOnly: true }).executeSql(`CREATE TABLE e (k INT, s STRING) WITH ('connector' = 'datagen');
      EXPLAIN SELECT k, JSON_OBJECTAGG(s VALUE k), COLLECT(s), APPROX_COUNT_DISTINCT(s), ARRAY_AGG(DISTINCT s), COUNT(DISTINCT s) FROM e GROUP BY k`)
    const text = (rs.at(-1) as unknown as { text: string }).text
    expect(text).toContain(
      'JSON_OBJECTAGG(KEY s VALUE $f2) AS EXPR$1, COLLECT(s) AS EXPR$2, APPROX_COUNT_DISTINCT(s) AS EXPR$3, ARRAY_AGG(DISTINCT s) AS EXPR$4',
    )
    expect(text).toContain('state: ValueState<accumulators> per key; MapState<s, count> for COUNT(DISTINCT …); MapState<s, JSON text> for JSON_OBJECTAGG; '
      + 'MapState<s, count> for COLLECT(…); MapState<register, rank> (HyperLogLog, 2^14 registers) for APPROX_COUNT_DISTINCT(s); '
      + 'MapState<s, [count, order]> for ARRAY_AGG(DISTINCT …); key=[k]')
  })
})

describe('SHOW FUNCTIONS', () => {
  it('lists the new aggregates', async () => {
    const r = (await new Session({ println: () => undefined }).executeSql('SHOW FUNCTIONS')).at(-1) as unknown as { rows: string[][] }
    const names = r.rows.map(x => x[0])
    for (const f of ['JSON_OBJECTAGG', 'COLLECT', 'APPROX_COUNT_DISTINCT', 'ARRAY_AGG', 'JSON_ARRAYAGG']) expect(names).toContain(f)
  })
})
