// Planning of interval and window joins: which join a condition makes (EXPLAIN shows the operator,
// its time bound and state freed by time, with no unbounded-state warning), the time attribute the
// interval join keeps, and the refusals — updating inputs (naming the operator that produces the
// updates), mismatched windows, processing-time window joins — each with its caret.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { refusal } from './refused.js'

const table = (name: string, time: string) =>
  `CREATE TABLE ${name} (channel STRING, price BIGINT, ${time})
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent/${name}.jsonl', 'format' = 'json');`
const SETUP = [
  table('a', "dateTime TIMESTAMP(3), WATERMARK FOR dateTime AS dateTime - INTERVAL '1' SECOND"),
  table('b', "dateTime TIMESTAMP(3), WATERMARK FOR dateTime AS dateTime - INTERVAL '1' SECOND"),
  table('p', 'pt AS PROCTIME()'),
  table('c', "dateTime TIMESTAMP(3), WATERMARK FOR dateTime AS dateTime - INTERVAL '1' SECOND").replace("'json'", "'debezium-json'"),
].join('\n')

async function explain(sql: string): Promise<string> {
  const session = new Session({ println: () => undefined })
  await session.executeSql(SETUP)
  const r = (await session.executeSql(`EXPLAIN ${sql}`)).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

const TUMBLE = (t: string, size = '10') => `(SELECT * FROM TABLE(TUMBLE(TABLE ${t}, DESCRIPTOR(dateTime), INTERVAL '${size}' SECOND)))`

describe('interval joins', () => {
  it('BETWEEN on both time attributes makes an interval join, insert-only, its state freed by the watermark', async () => {
    const text = await explain(`SELECT a.channel, b.price FROM a LEFT JOIN b ON a.channel = b.channel
      AND a.dateTime BETWEEN b.dateTime - INTERVAL '5' SECOND AND b.dateTime + INTERVAL '2' SECOND`)
    expect(text).toContain('IntervalJoin(joinType=[LeftOuterJoin], equi=[channel = channel], interval=[dateTime - dateTime BETWEEN -5 s AND 2 s], time=[event]')
    expect(text).toContain('state left: ListState<row, time, matched> per (join key, time bucket); key=[channel]; ttl=[none: freed by time]; '
      + 'bounded=[yes: a row goes when the watermark passes its dateTime + 5 s]')
    expect(text).toContain(
      'state right: ListState<row> per (join key, time bucket); key=[channel]; ttl=[none: freed by time]; bounded=[yes: a row goes when the watermark passes its dateTime + 2 s]',
    )
    expect(text).not.toMatch(/changelog=\[updating\]|WARNING|grows without bound/i)
  })

  it('strict bounds are one millisecond inside; a bound on one side only stays a regular join', async () => {
    const strict = await explain(
      `SELECT a.price FROM a, b WHERE a.channel = b.channel AND a.dateTime > b.dateTime AND b.dateTime + INTERVAL '1' MINUTE > a.dateTime`,
    )
    expect(strict).toContain('interval=[dateTime - dateTime BETWEEN 1 ms AND 59999 ms]')
    const oneSided = await explain(`SELECT a.price FROM a JOIN b ON a.channel = b.channel AND a.dateTime > b.dateTime`)
    expect(oneSided).toContain('Join(joinType=[InnerJoin]')
    expect(oneSided).not.toContain('IntervalJoin')
  })

  it('processing time: PROCTIME() on both sides, timers on the processing clock', async () => {
    const text = await explain(`SELECT x.price FROM p x JOIN p y ON x.channel = y.channel AND x.pt BETWEEN y.pt - INTERVAL '1' SECOND AND y.pt`)
    expect(text).toContain('time=[processing]')
    expect(text).toContain('a row goes when processing time passes')
  })

  it('keeps the left rowtime: a window aggregate may follow the join', async () => {
    const text = await explain(`SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE (
        SELECT a.dateTime, b.price FROM a JOIN b ON a.channel = b.channel AND a.dateTime BETWEEN b.dateTime - INTERVAL '1' SECOND AND b.dateTime
      ), DESCRIPTOR(dateTime), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end`).catch(async () =>
      explain(`SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(dateTime), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end`)
    )
    expect(text).toContain('WindowAggregate')
  })

  it('an updating input is refused at the operator that produces the updates', async () => {
    const sql = `${SETUP}
SELECT a.price FROM a JOIN c AS g
  ON a.channel = g.channel AND a.dateTime BETWEEN g.dateTime AND g.dateTime + INTERVAL '1' SECOND;`
    const r = await refusal(sql)
    expect(r.message).toMatch(
      /^this interval join needs append-only inputs, but its right input produces updates from table 'c' \(format 'debezium-json', a changelog\) at line \d+, column \d+/,
    )
    expect(r.at).toMatch(/^c( AS g)?$/)
    expect(r.help).toContain('window aggregate')
  })
})

describe('window joins', () => {
  it('equal window_start and window_end of two TUMBLE TVFs make a window join keyed by the window too', async () => {
    const text = await explain(`SELECT l.price, r.price FROM ${TUMBLE('a')} l FULL JOIN ${TUMBLE('b')} r
      ON l.channel = r.channel AND l.window_start = r.window_start AND l.window_end = r.window_end`)
    expect(text).toContain(
      'WindowJoin(joinType=[FullOuterJoin], equi=[channel = channel, window_start = window_start, window_end = window_end], window=[TUMBLE(size=10 s)]',
    )
    expect(text).toContain(
      "state left: ValueState<rows> per join key and window; key=[channel, window_start, window_end]; ttl=[none: freed by time]; bounded=[yes: a window's rows go when the watermark passes its end]",
    )
    expect(text).toContain('Exchange(distribution=[hash[channel, window_start, window_end]])')
    expect(text).not.toMatch(/changelog=\[updating\]|grows without bound/)
  })

  it('window aggregates on both sides (Nexmark q8) join by their windows', async () => {
    const side = (t: string) =>
      `(SELECT channel, window_start AS s, window_end AS e FROM TABLE(TUMBLE(TABLE ${t}, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) GROUP BY channel, window_start, window_end)`
    const text = await explain(`SELECT x.channel FROM ${side('a')} x JOIN ${side('b')} y ON x.channel = y.channel AND x.s = y.s AND x.e = y.e`)
    expect(text).toContain('WindowJoin(joinType=[InnerJoin]')
  })

  it('mismatched windows are refused, naming both', async () => {
    const sql = `${SETUP}
SELECT l.price FROM ${TUMBLE('a')} l JOIN ${TUMBLE('b', '5')} r
  ON l.channel = r.channel AND l.window_start = r.window_start AND l.window_end = r.window_end;`
    const r = await refusal(sql)
    expect(r.message).toBe(
      'a window join needs both inputs windowed alike, but they are TUMBLE(size 10000 ms, event time) and TUMBLE(size 5000 ms, event time)',
    )
    expect(r.at).toMatch(/^l\.channel = r\.channel AND l\.window_start = r\.window_start AND l\.window_end = r\.window_end$/)
  })

  it('window columns that went through a GROUP BY are plain timestamps: a regular join', async () => {
    const text = await explain(
      `SELECT l.price FROM ${TUMBLE('a')} l JOIN (SELECT channel, MAX(window_start) AS window_start, MAX(window_end) AS window_end FROM ${
        TUMBLE('b')
      } w GROUP BY channel) r ON l.channel = r.channel AND l.window_start = r.window_start AND l.window_end = r.window_end`,
    )
    expect(text).toContain('Join(joinType=[InnerJoin]')
    expect(text).not.toContain('WindowJoin')
  })
})
