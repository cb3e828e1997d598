// Column pruning under OVER aggregates and semi/anti joins: columns nothing above reads are projected
// away below the operator (EXPLAIN shows what it holds in `select=[…]` and what its input carries),
// while the columns the operator itself reads — partition and order keys, call arguments and
// FILTERs, join keys, NOT IN's value, a window join's window_end — stay.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { parseSql } from '../../grammar/index.js'
import type { QueryStatement } from '../../grammar/ast.js'
import { planSelect } from '../../planner/planner.js'
import { optimize } from '../../planner/rules/index.js'
import { DEFAULT_JOB_CONFIG } from '../../common/config/index.js'

const SETUP = ['a', 'b'].map(name =>
  `CREATE TABLE ${name} (channel STRING, price BIGINT, url STRING, extra STRING, dateTime TIMESTAMP(3),
    WATERMARK FOR dateTime AS dateTime - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent/${name}.jsonl', 'format' = 'json');`
).join('\n')

async function explain(sql: string): Promise<string> {
  const session = new Session({ println: () => undefined })
  await session.executeSql(SETUP)
  const r = (await session.executeSql(`EXPLAIN ${sql}`)).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

/** The line of `text` that starts (after the tree drawing) with `operator`. */
function line(text: string, operator: string): string {
  const found = text.split('\n').find(l => l.replace(/^[\s|+-]*/, '').startsWith(operator))
  if (found === undefined) throw new Error(`no ${operator} in\n${text}`)
  return found
}

describe('column pruning under OVER aggregates', () => {
  it('keeps only what is read above and the partition key, order key and argument', async () => {
    const text = await explain(`SELECT channel, SUM(price) OVER (PARTITION BY channel ORDER BY dateTime ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM a`)
    expect(line(text, 'OverAggregate')).toContain('select=[channel, price, dateTime, SUM(price) OVER')
    expect(line(text, 'Source(table=[a]')).toContain('fields=[channel, price, dateTime]')
  })

  it('a FILTER column and a column read by a WHERE above the OVER stay; computed columns nobody reads go', async () => {
    const text = await explain(`SELECT s FROM (
        SELECT url, extra, UPPER(extra) AS up,
          COUNT(*) FILTER (WHERE price > 10) OVER (PARTITION BY channel ORDER BY dateTime ROWS BETWEEN 5 PRECEDING AND CURRENT ROW) AS s
        FROM a
      ) WHERE url <> 'x'`)
    const over = line(text, 'OverAggregate')
    expect(over).toMatch(/select=\[channel, url, dateTime, \$f\d+, COUNT\(\*\) FILTER/)
    expect(over).not.toMatch(/extra|up,/)
    expect(line(text, 'Source(table=[a]')).not.toContain('extra')
  })
})

describe('column pruning under semi and anti joins', () => {
  it('IN: the left keeps the key and what is read above; the right only the key', async () => {
    const text = await explain(`SELECT price FROM a WHERE channel IN (SELECT channel FROM b WHERE url <> 'x')`)
    expect(line(text, 'Join(joinType=[LeftSemiJoin]')).toContain('select=[channel, price]')
    expect(line(text, 'Source(table=[a]')).toContain('fields=[channel, price]')
  })

  it('correlated NOT EXISTS: the anti join holds the key and what is read above, the subquery only its key', async () => {
    const text = await explain(`SELECT price FROM a x WHERE url LIKE 'h%' AND NOT EXISTS (SELECT * FROM b y WHERE y.channel = x.channel AND y.price > 3)`)
    // The condition on url runs in the scan, below the join: the join need not hold url.
    expect(line(text, 'Join(joinType=[LeftAntiJoin]')).toContain('select=[channel, price]')
    expect(line(text, 'Source(table=[b]')).toContain('fields=[channel AS $corr0], filter=[(price > 3)]')
  })

  it('uncorrelated EXISTS: the subquery carries one constant column, not its rows', async () => {
    const text = await explain(`SELECT price FROM a WHERE EXISTS (SELECT * FROM b WHERE price > 3)`)
    expect(line(text, 'Source(table=[b]')).toContain('fields=[TRUE AS $exists]')
    expect(line(text, 'Join(joinType=[LeftSemiJoin]')).toContain('select=[price]')
  })

  it("NOT IN keeps the probe value; a window anti join keeps each side's window_end", async () => {
    const tumble = (t: string) => `(SELECT * FROM TABLE(TUMBLE(TABLE ${t}, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)))`
    const text = await explain(`SELECT l.url FROM ${tumble('a')} l
      WHERE l.price NOT IN (SELECT price FROM ${tumble('b')} r WHERE l.window_start = r.window_start AND l.window_end = r.window_end)`)
    const join = line(text, 'WindowJoin(joinType=[LeftAntiJoin]')
    expect(join).toContain('nullAware=[price NOT IN $0]')
    expect(join).toContain('select=[price, url, window_start, window_end]')
  })
})

describe('the pruning rules', () => {
  it('reach a fixed point: optimizing an optimized plan changes nothing (a rule that re-fired would loop until the pass limit)', async () => {
    const session = new Session({ println: () => undefined })
    await session.executeSql(SETUP)
    for (const sql of [
      'SELECT price FROM a WHERE EXISTS (SELECT * FROM b WHERE price > 3)',
      'SELECT price FROM a x WHERE NOT EXISTS (SELECT url FROM b y WHERE y.channel = x.channel)',
      'SELECT channel, SUM(price) OVER (PARTITION BY channel ORDER BY dateTime ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM (SELECT *, UPPER(url) AS u FROM a)',
    ]) {
      const plan = planSelect(parseSql(sql)[0] as QueryStatement, session.catalog, DEFAULT_JOB_CONFIG)
      expect(optimize(plan)).toBe(plan)
    }
  })
})
