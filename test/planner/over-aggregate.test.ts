// OVER aggregates in the plan: EXPLAIN shows the operator, its time order, each call's frame and
// its state (what is bounded by time, by the frame, or not at all); what cannot run is refused.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { refusal } from './refused.js'

const DDL = `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  pt AS PROCTIME(),
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.events.num' = '1000');
CREATE TABLE cdc (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-no-such-dir', 'format' = 'debezium-json');
`

async function explain(sql: string): Promise<string> {
  const session = new Session({ println: () => undefined })
  await session.executeSql(DDL)
  const r = (await session.executeSql(`EXPLAIN ${sql}`)).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

/** The OverAggregate line and its state line. */
function overLines(text: string): string[] {
  const lines = text.split('\n')
  const at = lines.findIndex(l => l.includes('OverAggregate('))
  return [lines[at]!.replace(/^[ +|-]*/, ''), lines[at + 1]!.replace(/^[ |]*/, '')]
}

describe('EXPLAIN of OVER aggregates', () => {
  it('a RANGE frame in event time: rows wait for the watermark, state freed by time, no warning', async () => {
    const text = await explain(`SELECT auction, price, AVG(price) OVER w AS a, COUNT(*) OVER w AS c FROM bid
      WINDOW w AS (PARTITION BY auction ORDER BY dateTime RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW)`)
    expect(overLines(text)).toEqual([
      'OverAggregate(partitionBy=[auction], orderBy=[dateTime], select=[auction, price, dateTime, '
      + 'AVG(price) OVER (RANGE BETWEEN 10 s PRECEDING AND CURRENT ROW) AS a, COUNT(*) OVER (RANGE BETWEEN 10 s PRECEDING AND CURRENT ROW) AS c], '
      + 'changelog=[insert-only])',
      'state: ValueState<rows> per (key, timestamp) of the rows waiting for the watermark (freed as it passes them); MapState<row number, row> of the rows the '
      + 'frames still need (RANGE: the rows of the last 10 s per key); ValueState<accumulators> per key and frame; ValueState<row count and frame heads> '
      + "per key; key=[auction]; ttl=[not needed]; bounded=[yes: rows leave the frame by event time, and a key's state goes with its last row]",
    ])
    expect(text).toContain('Exchange(distribution=[hash[auction]])')
    expect(text).not.toContain('Warnings')
  })

  it('an UNBOUNDED frame: one accumulator per partition key, kept forever, with a warning', async () => {
    const text = await explain(`SELECT auction, SUM(price) OVER (PARTITION BY auction ORDER BY dateTime) FROM bid`)
    expect(overLines(text)[1]).toMatch(
      /ValueState<accumulators> per key and frame; .*key=\[auction\]; ttl=\[not needed\]; bounded=\[NO: the UNBOUNDED PRECEDING accumulators are one entry per partition key, kept forever\]$/,
    )
    expect(text).toContain('== Warnings ==')
    expect(text).toMatch(/OverAggregate on \[auction\]\) keeps state for every partition key forever \(an UNBOUNDED PRECEDING accumulator\)/)
  })

  it('a ROWS frame in processing time: no waiting rows, the last n + 1 rows per key, ROW_NUMBER', async () => {
    const text = await explain(`SELECT auction, MIN(price) OVER (PARTITION BY auction ORDER BY pt ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) AS m,
      ROW_NUMBER() OVER (PARTITION BY auction ORDER BY pt) AS rn FROM bid`)
    const [line, state] = overLines(text)
    expect(line).toContain('orderBy=[pt (proctime)]')
    expect(line).toContain('MIN(price) OVER (ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) AS m, ROW_NUMBER() AS rn]')
    expect(state).not.toContain('waiting for the watermark')
    expect(state).toContain('(ROWS: the last 10 rows per key)')
    expect(state).toContain('bounded=[NO: the frames are bounded per key, but every partition key keeps its entries forever]')
  })

  it('no PARTITION BY: one global partition on a single exchange', async () => {
    const text = await explain(`SELECT price, MAX(price) OVER (ORDER BY dateTime ROWS 3 PRECEDING) FROM bid`)
    expect(text).toContain('Exchange(distribution=[single])')
    expect(overLines(text)[1]).toContain('key=[(none: one global partition)]; ttl=[not needed]; bounded=[yes: one global partition]')
  })
})

describe('OVER aggregates refused', () => {
  it('an updating input, naming the operator that produces the updates', async () => {
    const r = await refusal(DDL + 'SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts) FROM cdc')
    expect(r).toMatchObject({
      kind: 'unsupported',
      message: "an OVER aggregate cannot consume the updates produced by table 'cdc' (format 'debezium-json', a changelog) at line 9, column 57",
      at: 'SUM(v) OVER (PARTITION BY k ORDER BY ts)',
    })
    expect(r.help).toContain("read 'cdc' as plain rows")
  })

  it('ranks and a ROW_NUMBER that does not follow time need a filter on their result', async () => {
    for (
      const [sql, at] of [
        ['SELECT auction, RANK() OVER (PARTITION BY auction ORDER BY price) FROM bid', 'RANK() OVER (PARTITION BY auction ORDER BY price)'],
        ['SELECT auction, DENSE_RANK() OVER (PARTITION BY auction ORDER BY dateTime DESC) FROM bid',
          'DENSE_RANK() OVER (PARTITION BY auction ORDER BY dateTime DESC)'],
        ['SELECT auction, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY dateTime DESC) FROM bid',
          'ROW_NUMBER() OVER (PARTITION BY auction ORDER BY dateTime DESC)'],
        ['SELECT auction, ROW_NUMBER() OVER (ORDER BY dateTime, price) FROM bid', 'ROW_NUMBER() OVER (ORDER BY dateTime, price)'],
      ] as const
    ) {
      const r = await refusal(DDL + sql)
      expect({ message: r.message, at: r.at }).toEqual({ message: expect.stringContaining('only supported under a filter on its result'), at })
      expect(r.help).not.toBe('')
    }
  })

  it('LAG, RANK and DENSE_RANK in time order: one OverAggregate keeping the last LAG values per key', async () => {
    const text = await explain(`SELECT auction, LAG(price) OVER w AS p1, LAG(price, 3, 0) OVER w AS p3, RANK() OVER w AS r, DENSE_RANK() OVER w AS dr
      FROM bid WINDOW w AS (PARTITION BY auction ORDER BY dateTime)`)
    const [line, state] = overLines(text)
    expect(line).toMatch(/LAG\(price, 1\) AS p1, LAG\(price, 3, \$f\d+\) AS p3, RANK\(\) AS r, DENSE_RANK\(\) AS dr\]/)
    expect(state).toContain("ValueState<the last 1, 3 values of LAG's arguments> per key")
    expect(text).toMatch(/OverAggregate on \[auction\]\) keeps state for every partition key forever/)
  })

  it('LEAD, CUME_DIST, PERCENT_RANK and NTILE are refused on a stream, saying why, with a caret on the call', async () => {
    for (
      const [call, why] of [
        ['LEAD(price)', 'a row that comes after it'],
        ['LEAD(price, 2, 0)', 'a row that comes after it'],
        ['CUME_DIST()', 'number of rows of the whole partition'],
        ['PERCENT_RANK()', 'number of rows of the whole partition'],
        ['NTILE(4)', 'number of rows of the whole partition'],
      ] as const
    ) {
      const over = `${call} OVER (PARTITION BY auction ORDER BY dateTime)`
      const r = await refusal(`${DDL}SELECT auction,\n  ${over} FROM bid`)
      const fn = call.slice(0, call.indexOf('('))
      expect(r).toMatchObject({ kind: 'unsupported', message: expect.stringContaining(`${fn} is not supported on a stream`), at: over })
      expect(r.message).toContain(why)
      expect(r.help).toMatch(/LAG|RANK|ROW_NUMBER/)
    }
  })

  it('LAG: refused with a frame, a column as offset, a negative offset, a default of another type, or without OVER', async () => {
    const cases = [
      ['LAG(price) OVER (PARTITION BY auction ORDER BY dateTime ROWS 2 PRECEDING)', 'LAG takes no ROWS or RANGE frame', 'ROWS 2 PRECEDING'],
      ['LAG(price, bidder) OVER (PARTITION BY auction ORDER BY dateTime)', "LAG's offset must be a constant", 'bidder'],
      ['LAG(price, -1) OVER (PARTITION BY auction ORDER BY dateTime)', "LAG's offset must be a whole number ≥ 0, but it is -1", '-1'],
      ["LAG(price, 1, 'none') OVER (PARTITION BY auction ORDER BY dateTime)",
        "LAG's default must have the type of its value, BIGINT, but it is CHAR(4) NOT NULL", "'none'"],
      ['LAG(price) OVER (PARTITION BY auction ORDER BY price)', 'an OVER aggregate must be ordered by a time attribute, but this is BIGINT', 'price'],
      ['LAG(price)', 'LAG() needs an OVER clause', 'LAG(price)'],
      ['LAG() OVER (PARTITION BY auction ORDER BY dateTime)', 'LAG takes one to three arguments, got 0', 'LAG() OVER (PARTITION BY auction ORDER BY dateTime)'],
    ] as const
    for (const [call, message, at] of cases) {
      const r = await refusal(`${DDL}SELECT auction, ${call} FROM bid`)
      expect({ message: r.message, at: r.at }).toEqual({ message, at })
      expect(r.help).not.toBe('')
    }
  })

  it('a frame that ends after the current row, with a caret on it', async () => {
    const r = await refusal(DDL + 'SELECT SUM(price) OVER (PARTITION BY auction ORDER BY dateTime ROWS BETWEEN 2 PRECEDING AND UNBOUNDED FOLLOWING) FROM bid')
    expect(r).toMatchObject({ message: 'OVER frames must end at CURRENT ROW', at: 'UNBOUNDED FOLLOWING' })
  })
})
