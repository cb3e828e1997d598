// Temporal joins in the planner: FOR SYSTEM_TIME AS OF parsed and bound into a TemporalJoin keyed by
// the versioned table's primary key, its EXPLAIN (state freed by time), its output append-only, and
// each mistake refused with the caret on it.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { refusal, type Refusal } from './refused.js'

const DDL = `CREATE TABLE orders (id INT, k STRING, cur STRING, amount INT, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'json');
CREATE TABLE rates (cur STRING, region STRING, rate INT, ts TIMESTAMP(3), PRIMARY KEY (cur, region) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'debezium-json');
CREATE TABLE no_key (cur STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'debezium-json');
CREATE TABLE no_wm (cur STRING, rate INT, PRIMARY KEY (cur) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'debezium-json');
CREATE TABLE out (id INT, rate INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-never-written', 'format' = 'json');
`

async function explain(statement: string): Promise<string> {
  const results = await new Session({ println: () => undefined, explainOnly: true }).executeSql(`${DDL}\nEXPLAIN ${statement}`)
  const r = results.at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

function refused(statement: string): Promise<Refusal> {
  return refusal(`${DDL}\n${statement}`)
}

const ON = 'ON o.cur = r.cur AND o.k = r.region'

describe('temporal join planning', () => {
  it('event time: keyed by the primary key on both sides, state freed by time, append-only into an insert-only sink', async () => {
    const text = await explain(
      `INSERT INTO out SELECT o.id, r.rate FROM orders AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ${ON} AND r.rate > o.amount`,
    )
    expect(text).toMatch(
      /TemporalJoin\(joinType=\[LeftOuterJoin\], asOf=\[ts\], versionTime=\[ts\], equi=\[cur = cur, k = region\], where=\[.*rate.*>.*amount.*\], .*changelog=\[insert-only\]\)/,
    )
    expect(text).toContain(
      'state probe: ListState<row> per (key, time) (rows waiting for the watermark); key=[cur, region]; ttl=[not needed]; bounded=[yes: freed by time',
    )
    expect(text).toContain(
      'state versions: MapState<time, version> per key; key=[cur, region]; ttl=[not needed]; bounded=[yes: freed by time, versions older than the one valid at the watermark are dropped',
    )
    expect(text.match(/Exchange\(distribution=\[hash\[(cur, k|cur, region)\]\]\)/g)).toHaveLength(2)
    expect(text).not.toMatch(/WARNING/i)
  })

  it('processing time: the latest version per key, no watermark needed on the versioned table', async () => {
    const text = await explain(`SELECT o.id, r.rate FROM orders o JOIN no_wm FOR SYSTEM_TIME AS OF o.pt AS r ON o.cur = r.cur`)
    expect(text).toMatch(/TemporalJoin\(joinType=\[InnerJoin\], asOf=\[pt \(proctime\)\], equi=\[cur = cur\]/)
    expect(text).toContain('state: ValueState<latest version> per key; key=[cur]')
  })

  it('a condition on the versioned table alone stays in the join (it is tested against the version found, not pushed below it)', async () => {
    const text = await explain(`SELECT o.id, r.rate FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ${ON} WHERE r.rate > 3`)
    expect(text).toMatch(/TemporalJoin\(.*where=\[.*rate.*> 3.*\]/)
    expect(text).not.toMatch(/Source\(table=\[rates\][^\n]*filter=/)
  })

  it('refuses a versioned table without a primary key, at its name', async () => {
    const e = await refused(`SELECT o.id FROM orders o JOIN no_key FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur`)
    expect(e).toMatchObject({ kind: 'plan', at: 'no_key' })
    expect(e.message).toBe(`'no_key' has no PRIMARY KEY, so it is not a versioned table: a temporal join looks up one version per key`)
    expect(e.help).toContain('declare PRIMARY KEY (…) NOT ENFORCED')
  })

  it('refuses an event-time join against a table without a watermark, at its name', async () => {
    const e = await refused(`SELECT o.id FROM orders o JOIN no_wm FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur`)
    expect(e).toMatchObject({ kind: 'plan', at: 'no_wm' })
    expect(e.message).toContain(`'no_wm' has no watermark`)
    expect(e.help).toContain('PROCTIME()')
  })

  it('refuses a condition that does not cover the primary key, at the ON condition', async () => {
    const e = await refused(`SELECT o.id FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur AND o.k > r.region`)
    expect(e).toMatchObject({ kind: 'plan', at: 'o.cur = r.cur AND o.k > r.region' })
    expect(e.message).toBe(`the join condition does not cover the primary key of 'rates' (cur, region): region is not equated with the probe side`)
  })

  it('refuses an AS OF that is not a time attribute of the probe side, at the expression', async () => {
    for (const [asOf, what] of [['o.id', 'a plain column'], ['r.ts', 'not a column of it'], ["o.ts + INTERVAL '1' SECOND", 'an expression']]) {
      const e = await refused(`SELECT o.id FROM orders o JOIN rates FOR SYSTEM_TIME AS OF ${asOf} AS r ${ON}`)
      expect(e).toMatchObject({ kind: 'plan', at: asOf })
      expect(e.message).toContain('FOR SYSTEM_TIME AS OF needs a time attribute of the probe side')
      expect(e.message).toContain(what)
    }
  })

  it('refuses RIGHT/FULL temporal joins and AS OF outside a join', async () => {
    const right = await refused(`SELECT o.id FROM orders o RIGHT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ${ON}`)
    expect(right).toMatchObject({ kind: 'unsupported', message: 'a temporal join is INNER or LEFT, not RIGHT' })
    const alone = await refused(`SELECT * FROM rates FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 00:00:00'`)
    expect(alone).toMatchObject({ kind: 'plan', at: "FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 00:00:00'" })
    const misspelled = await refused(`SELECT o.id FROM orders o JOIN rates FOR SYSTEM_TIMES AS OF o.ts AS r ${ON}`)
    expect(misspelled).toMatchObject({ kind: 'syntax', at: 'SYSTEM_TIMES', message: "expected SYSTEM_TIME in FOR SYSTEM_TIME AS OF, found 'SYSTEM_TIMES'" })
  })
})
