// Cascading window aggregates: a window aggregate grouped by window_time (no extra key) whose
// window_time stays a rowtime attribute (DESCRIBE), so a second window aggregate, window join,
// window Top-N or interval join takes it as its time; and the carets where window_time (or a window
// bound) is used in a way that is no time attribute.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { StatementResult } from '../../engine/script.js'
import { formatValue } from '../../common/values.js'
import { refusal } from './refused.js'

/** The supplier bids of Flink's window aggregation page. */
const BIDS = [
  ['08:05', '4.00', 'supplier1'],
  ['08:06', '4.00', 'supplier2'],
  ['08:07', '2.00', 'supplier1'],
  ['08:08', '2.00', 'supplier3'],
  ['08:09', '5.00', 'supplier4'],
  ['08:11', '2.00', 'supplier3'],
  ['08:13', '1.00', 'supplier1'],
  ['08:15', '3.00', 'supplier2'],
  ['08:17', '6.00', 'supplier5'],
]

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'weir-cascade-plan-'))
  writeFileSync(join(dir, 'bids.jsonl'),
    BIDS.map(([t, price, s]) => JSON.stringify({ bidtime: `2020-04-15 ${t}:00`, price, supplier_id: s })).join('\n') + '\n')
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const setup = () =>
  `CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), supplier_id STRING, WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'bids.jsonl')}', 'format' = 'json');
  CREATE VIEW window1 AS SELECT supplier_id, window_start AS ws5, window_end AS we5, window_time AS rowtime, SUM(price) AS partial_price
    FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
    GROUP BY supplier_id, window_start, window_end, window_time;
  CREATE VIEW counts1 AS SELECT supplier_id, window_time AS rt, COUNT(*) AS c
    FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
    GROUP BY supplier_id, window_start, window_end, window_time;`

async function last(sql: string): Promise<StatementResult> {
  const session = new Session({ println: () => undefined })
  const results = await session.executeSql(`${setup()}\n${sql}`)
  await session.awaitJobs()
  return results.at(-1)!
}

async function explain(sql: string): Promise<string> {
  const r = await last(`EXPLAIN ${sql}`)
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

async function rows(sql: string): Promise<string[]> {
  const r = await last(sql)
  if (r.kind !== 'rows') throw new Error(`expected rows, got ${r.kind}`)
  expect(r.metrics.lateRecordsDropped).toBe(0)
  return r.changes.map(c => r.schema.map((f, i) => formatValue(c.row[i], f.type)).join(' | ')).sort()
}

const LEVEL2 = "TABLE(TUMBLE(TABLE window1, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES))"

describe('cascading window aggregates', () => {
  it('GROUP BY window_time adds no key; DESCRIBE shows the selected window_time as a ROWTIME attribute', async () => {
    const text = await explain('SELECT * FROM window1')
    expect(text).toContain(
      'WindowAggregate(window=[TUMBLE(size=5 min)], time=[bidtime], groupBy=[supplier_id], select=[supplier_id, SUM(price) AS partial_price',
    )
    const described = await last('DESCRIBE window1')
    if (described.kind !== 'table') throw new Error(`expected a table, got ${described.kind}`)
    expect(described.rows.map(r => r.join(' '))).toEqual([
      'supplier_id STRING',
      'ws5 TIMESTAMP(3) NOT NULL',
      'we5 TIMESTAMP(3) NOT NULL',
      'rowtime TIMESTAMP(3) NOT NULL *ROWTIME*',
      'partial_price DECIMAL(38, 2)',
    ])
  })

  it('a second window aggregate over window_time: two window aggregates, the second timed by it', async () => {
    const sql = `SELECT window_start, window_end, SUM(partial_price) AS total_price FROM ${LEVEL2} GROUP BY window_start, window_end`
    const text = await explain(sql)
    expect(text).toContain('WindowAggregate(window=[TUMBLE(size=10 min)], time=[rowtime], groupBy=[], select=[SUM(partial_price) AS total_price')
    expect(text).toContain('Calc(select=[window_time AS rowtime, partial_price]')
    expect(await rows(sql)).toEqual([
      '2020-04-15 08:00:00.000 | 2020-04-15 08:10:00.000 | 17.00',
      '2020-04-15 08:10:00.000 | 2020-04-15 08:20:00.000 | 12.00',
    ])
  })

  it('expressions over window_time in SELECT, grouped by it or not', async () => {
    const sql = `SELECT window_end, window_time + INTERVAL '1' MINUTE AS later, COUNT(*) AS n
      FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end`
    expect(await rows(sql)).toEqual([
      '2020-04-15 08:10:00.000 | 2020-04-15 08:10:59.999 | 5',
      '2020-04-15 08:20:00.000 | 2020-04-15 08:20:59.999 | 4',
    ])
  })

  it('a window join of two cascades', async () => {
    const sql = `SELECT L.supplier_id, L.window_start, L.partial_price, R.c
      FROM (SELECT * FROM ${LEVEL2}) L
      JOIN (SELECT * FROM TABLE(TUMBLE(TABLE counts1, DESCRIPTOR(rt), INTERVAL '10' MINUTES))) R
      ON L.supplier_id = R.supplier_id AND L.window_start = R.window_start AND L.window_end = R.window_end`
    expect(await explain(sql)).toContain(
      'WindowJoin(joinType=[InnerJoin], equi=[supplier_id = supplier_id, window_start = window_start, window_end = window_end]',
    )
    expect(await rows(sql)).toEqual([
      'supplier1 | 2020-04-15 08:00:00.000 | 6.00 | 2',
      'supplier1 | 2020-04-15 08:10:00.000 | 1.00 | 1',
      'supplier2 | 2020-04-15 08:00:00.000 | 4.00 | 1',
      'supplier2 | 2020-04-15 08:10:00.000 | 3.00 | 1',
      'supplier3 | 2020-04-15 08:00:00.000 | 2.00 | 1',
      'supplier3 | 2020-04-15 08:10:00.000 | 2.00 | 1',
      'supplier4 | 2020-04-15 08:00:00.000 | 5.00 | 1',
      'supplier5 | 2020-04-15 08:10:00.000 | 6.00 | 1',
    ])
  })

  it('a window Top-N over the second level', async () => {
    const sql = `SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY p DESC) AS rn FROM (
        SELECT window_start, window_end, supplier_id, SUM(partial_price) AS p FROM ${LEVEL2} GROUP BY window_start, window_end, supplier_id))
      WHERE rn <= 1`
    expect(await explain(sql)).toContain('WindowRank(rankType=[ROW_NUMBER], rank=1, partitionBy=[window_start, window_end]')
    expect(await rows(sql)).toEqual([
      '2020-04-15 08:00:00.000 | 2020-04-15 08:10:00.000 | supplier1 | 6.00 | 1',
      '2020-04-15 08:10:00.000 | 2020-04-15 08:20:00.000 | supplier5 | 6.00 | 1',
    ])
  })

  it('an interval join of the first level with the bids, on window_time', async () => {
    const sql = `SELECT a.supplier_id, a.partial_price, b.price FROM window1 a JOIN Bid b
      ON a.supplier_id = b.supplier_id AND b.bidtime BETWEEN a.rowtime - INTERVAL '5' MINUTE AND a.rowtime`
    expect(await explain(sql)).toContain(
      'IntervalJoin(joinType=[InnerJoin], equi=[supplier_id = supplier_id], interval=[rowtime - bidtime BETWEEN 0 d AND 5 min]',
    )
    expect((await rows(sql)).length).toBe(BIDS.length)
  })
})

describe('window_time used where it is no time attribute', () => {
  const level2 = (select: string, col: string) =>
    `CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), supplier_id STRING, WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '/nonexistent/bids.jsonl', 'format' = 'json');
    CREATE VIEW w1 AS SELECT ${select}, SUM(price) AS p FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
      GROUP BY window_start, window_end, window_time;
    SELECT window_start, SUM(p) FROM TABLE(TUMBLE(TABLE w1, DESCRIPTOR(${col}), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end`

  it('an expression over window_time as the DESCRIPTOR', async () => {
    expect(await refusal(level2("window_time + INTERVAL '1' SECOND AS rowtime", 'rowtime'))).toEqual({
      kind: 'plan',
      message:
        "the DESCRIPTOR column 'rowtime' of TUMBLE is not a time attribute: 'rowtime' is computed as (window_time + INTERVAL '1 s'), and an expression over the time attribute 'window_time' is a plain TIMESTAMP(3) NOT NULL",
      at: 'rowtime',
      help:
        "select 'window_time' unchanged (e.g. `window_time AS rowtime`) and use that as the DESCRIPTOR; shift the windows with TUMBLE's OFFSET instead of the time",
    })
  })

  it('a CAST of window_time as the DESCRIPTOR', async () => {
    const r = await refusal(level2('CAST(window_time AS TIMESTAMP(3)) AS rt', 'rt'))
    expect(r.message).toContain("'rt' is computed as CAST(window_time AS TIMESTAMP(3) NOT NULL)")
    expect(r.at).toBe('rt')
  })

  it('window_end as the DESCRIPTOR', async () => {
    expect(await refusal(level2('window_end AS we', 'we'))).toEqual({
      kind: 'plan',
      message: "the DESCRIPTOR column 'we' of TUMBLE is not a time attribute: 'we' is made from the window_end of a window, a plain TIMESTAMP(3)",
      at: 'we',
      help: "select the window aggregate's window_time (window_end - 1 ms), a time attribute, and use that as the DESCRIPTOR",
    })
  })

  it('GROUP BY an expression over window_time or window_start', async () => {
    const grouped = (expr: string) =>
      `CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), supplier_id STRING, WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND)
        WITH ('connector' = 'filesystem', 'path' = '/nonexistent/bids.jsonl', 'format' = 'json');
      SELECT window_start, SUM(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
        GROUP BY supplier_id, window_start, window_end, ${expr}`
    expect(await refusal(grouped("window_time - INTERVAL '1' MINUTE"))).toEqual({
      kind: 'unsupported',
      message: 'GROUP BY an expression over window_time is not supported in a window aggregate',
      at: "window_time - INTERVAL '1' MINUTE",
      help: 'group by window_time itself (window_time is window_end - 1 ms, so it adds no key) and compute the expression in the SELECT list',
    })
    const r = await refusal(grouped('EXTRACT(HOUR FROM window_start)'))
    expect(r.message).toBe('GROUP BY an expression over window_start is not supported in a window aggregate')
    expect(r.at).toBe('EXTRACT(HOUR FROM window_start)')
  })
})
