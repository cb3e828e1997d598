// Binding window function calls: the Over node's partition keys, order keys and frames, and what
// is refused (with the SQL under the caret) before any operator exists.
import { describe, expect, it } from 'vitest'
import { Catalog } from '../../planner/catalog.js'
import { QueryBinder } from '../../planner/bind/query-binder.js'
import { parseSql } from '../../grammar/index.js'
import type { LogicalPlan, Over } from '../../planner/logical/nodes.js'
import { DEFAULT_JOB_CONFIG } from '../../common/config/index.js'
import { Session } from '../../engine/session.js'
import { refusal } from './refused.js'

const DDL = `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  pt AS PROCTIME(),
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.events.num' = '1000');
`

async function overOf(query: string): Promise<Over> {
  const session = new Session({ println: () => undefined, explainOnly: true })
  await session.executeSql(DDL)
  const catalog: Catalog = session.catalog
  const stmt = parseSql(query)[0]!
  if (stmt.kind !== 'QueryStatement') throw new Error('expected a query')
  const plan = new QueryBinder(catalog, DEFAULT_JOB_CONFIG).bindQuery(stmt.query).plan
  const find = (p: LogicalPlan): Over | undefined => p.kind === 'Over' ? p : 'input' in p ? find(p.input) : undefined
  return find(plan)!
}

describe('binding OVER', () => {
  it('builds one Over node with partition keys, order keys and each call', async () => {
    const over = await overOf('SELECT auction, RANK() OVER (PARTITION BY auction, channel ORDER BY price DESC, bidder) AS r FROM bid')
    expect(over.partitionKeys).toEqual([0, 3])
    expect(over.orderKeys).toEqual([{ index: 2, descending: true, nullsFirst: false }, { index: 1, descending: false, nullsFirst: true }])
    expect(over.calls.map(c => [c.fn, c.name, c.type])).toEqual([['RANK', 'r', { kind: 'BIGINT', nullable: false }]])
    expect(over.orderTime).toBeUndefined()
    expect(over.fields.at(-1)!.name).toBe('r')
  })

  it('computes non-column keys in a projection below the Over node', async () => {
    const over = await overOf('SELECT auction, ROW_NUMBER() OVER (PARTITION BY auction % 10 ORDER BY dateTime) AS rn FROM bid')
    expect(over.input.kind).toBe('Project')
    expect(over.partitionKeys).toEqual([8])
    expect(over.orderTime).toBe('event')
  })

  it('represents frames: ROWS n PRECEDING, RANGE INTERVAL, the default RANGE frame, named windows', async () => {
    const over = await overOf(`SELECT SUM(price) OVER w AS s, COUNT(*) OVER (PARTITION BY auction ORDER BY pt ROWS 5 PRECEDING) AS c
      FROM bid WINDOW w AS (PARTITION BY auction ORDER BY pt RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW)`)
    expect(over.orderTime).toBe('processing')
    expect(over.calls.map(c => c.frame)).toEqual([
      { unit: 'RANGE', lower: { kind: 'PRECEDING', offset: 60_000 }, upper: { kind: 'CURRENT_ROW' }, explicit: true },
      { unit: 'ROWS', lower: { kind: 'PRECEDING', offset: 5 }, upper: { kind: 'CURRENT_ROW' }, explicit: true },
    ])
    expect(over.calls[0]!.agg).toMatchObject({ fn: 'SUM', arg: 2 })
    expect(over.calls[1]!.agg).toMatchObject({ fn: 'COUNT', arg: null })
    const dflt = await overOf('SELECT MAX(price) OVER (PARTITION BY auction ORDER BY dateTime) FROM bid')
    expect(dflt.calls[0]!.frame).toEqual({ unit: 'RANGE', lower: { kind: 'UNBOUNDED_PRECEDING' }, upper: { kind: 'CURRENT_ROW' }, explicit: false })
  })

  it('refuses a bare rank with a caret', async () => {
    expect(await refusal(DDL + 'SELECT auction, ROW_NUMBER() OVER (ORDER BY price) FROM bid')).toMatchObject({
      message: expect.stringContaining('only supported under a filter on its result'),
      at: 'ROW_NUMBER() OVER (ORDER BY price)',
    })
  })

  it('refuses bad window calls and frames with a caret and a help line', async () => {
    const cases: [string, string, string][] = [
      ['SELECT ROW_NUMBER() FROM bid', 'ROW_NUMBER() needs an OVER clause', 'ROW_NUMBER()'],
      ['SELECT RANK() OVER (PARTITION BY auction) FROM bid', 'RANK() needs ORDER BY in its OVER clause', '(PARTITION BY auction)'],
      ['SELECT ROW_NUMBER() OVER (ORDER BY price ROWS 2 PRECEDING) FROM bid', 'ROW_NUMBER() takes no ROWS or RANGE frame', 'ROWS 2 PRECEDING'],
      ['SELECT ROW_NUMBER(price) OVER (ORDER BY price) FROM bid', 'ROW_NUMBER() takes no arguments', 'ROW_NUMBER(price) OVER (ORDER BY price)'],
      ['SELECT UPPER(url) OVER (ORDER BY dateTime) FROM bid', 'UPPER is not a window function', 'UPPER'],
      ['SELECT SUM(price) OVER (ORDER BY price) FROM bid', 'an OVER aggregate must be ordered by a time attribute, but this is BIGINT', 'price'],
      ['SELECT SUM(price) OVER (ORDER BY dateTime DESC) FROM bid', 'an OVER aggregate can only be ordered ascending (in time order)', 'dateTime DESC'],
      ['SELECT SUM(price) OVER (ORDER BY dateTime ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM bid', 'OVER frames must end at CURRENT ROW', '1 FOLLOWING'],
      ['SELECT SUM(price) OVER (ORDER BY dateTime RANGE BETWEEN 5 PRECEDING AND CURRENT ROW) FROM bid',
        'a RANGE frame offset must be an INTERVAL (the window is ordered by time)', '5'],
      ["SELECT SUM(price) OVER (ORDER BY dateTime ROWS INTERVAL '1' HOUR PRECEDING) FROM bid", 'a ROWS frame counts rows: its offset is a whole number',
        "INTERVAL '1' HOUR"],
      ['SELECT SUM(price) OVER w FROM bid WINDOW v AS (ORDER BY dateTime)', "window 'w' is not defined", 'w'],
      ['SELECT auction FROM bid WHERE ROW_NUMBER() OVER (ORDER BY price) = 1', 'window functions (OVER) are not allowed in WHERE',
        'ROW_NUMBER() OVER (ORDER BY price)'],
      ['SELECT auction, COUNT(*), RANK() OVER (ORDER BY auction) FROM bid GROUP BY auction', 'window functions (OVER) in a GROUP BY query are not supported',
        'RANK() OVER (ORDER BY auction)'],
      ['SELECT RANK() OVER (ORDER BY price), COUNT(*) OVER (ORDER BY dateTime) FROM bid',
        'all window functions of a SELECT must use the same PARTITION BY and ORDER BY', '(ORDER BY dateTime)'],
    ]
    for (const [sql, message, at] of cases) {
      const r = await refusal(DDL + sql)
      expect({ message: r.message, at: r.at }).toEqual({ message, at })
      expect(r.help).not.toBe('')
    }
  })
})
