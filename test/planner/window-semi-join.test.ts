// Planning of window semi and anti joins: IN / EXISTS / NOT EXISTS / NOT IN subqueries correlated on
// window_start and window_end of two inputs windowed alike become a window join (EXPLAIN shows it,
// insert-only, its state freed when a window closes, no unbounded-state warning); a correlation on
// one bound only stays a regular semi join; mismatched windows are refused with their caret.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { refusal } from './refused.js'

const table = (name: string, time: string) =>
  `CREATE TABLE ${name} (channel STRING, price BIGINT, ${time})
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent/${name}.jsonl', 'format' = 'json');`
const SETUP = [
  table('a', "dateTime TIMESTAMP(3), WATERMARK FOR dateTime AS dateTime - INTERVAL '1' SECOND"),
  table('b', "dateTime TIMESTAMP(3), WATERMARK FOR dateTime AS dateTime - INTERVAL '1' SECOND"),
].join('\n')

async function explain(sql: string): Promise<string> {
  const session = new Session({ println: () => undefined })
  await session.executeSql(SETUP)
  const r = (await session.executeSql(`EXPLAIN ${sql}`)).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

const TUMBLE = (t: string, size = '10') => `(SELECT * FROM TABLE(TUMBLE(TABLE ${t}, DESCRIPTOR(dateTime), INTERVAL '${size}' SECOND)))`
const SAME_WINDOW = 'l.window_start = r.window_start AND l.window_end = r.window_end'

describe('window semi and anti joins', () => {
  it("IN correlated on both window bounds (Flink's form) is a window semi join, keyed by the value and the window", async () => {
    const text = await explain(`SELECT * FROM ${TUMBLE('a')} l WHERE l.channel IN (SELECT channel FROM ${TUMBLE('b')} r WHERE ${SAME_WINDOW})`)
    expect(text).toContain('WindowJoin(joinType=[LeftSemiJoin], leftKey=[channel, window_start, window_end], window=[TUMBLE(size=10 s)]')
    expect(text).toContain(
      "state left: ListState<row> per join key and window; key=[channel, window_start, window_end]; ttl=[none: freed by time]; bounded=[yes: a window's rows go when the watermark passes its end]",
    )
    expect(text).toContain('state right: ValueState<has a row> per join key and window')
    expect(text).toContain('Exchange(distribution=[hash[channel, window_start, window_end]])')
    expect(text).not.toMatch(/changelog=\[updating\]|grows without bound|LeftSemiJoin\], leftKey=\[[^\]]*\], select/)
  })

  it('EXISTS and NOT EXISTS correlated on the key and both bounds; the anti join is insert-only', async () => {
    const exists = await explain(
      `SELECT l.price FROM ${TUMBLE('a')} l WHERE EXISTS (SELECT * FROM ${TUMBLE('b')} r WHERE l.channel = r.channel AND ${SAME_WINDOW})`,
    )
    expect(exists).toContain('WindowJoin(joinType=[LeftSemiJoin], leftKey=[channel, window_start, window_end]')
    const notExists = await explain(
      `SELECT l.price FROM ${TUMBLE('a')} l WHERE NOT EXISTS (SELECT * FROM ${TUMBLE('b')} r WHERE r.channel = l.channel AND ${SAME_WINDOW})`,
    )
    expect(notExists).toContain('WindowJoin(joinType=[LeftAntiJoin], leftKey=[channel, window_start, window_end]')
    expect(notExists).not.toMatch(/changelog=\[updating\]|grows without bound/)
  })

  it("NOT IN keeps SQL's NULL rules per window: keyed by the window alone, the right values in a ListState", async () => {
    const text = await explain(`SELECT l.price FROM ${TUMBLE('a')} l WHERE l.price NOT IN (SELECT price FROM ${TUMBLE('b')} r WHERE ${SAME_WINDOW})`)
    expect(text).toContain('WindowJoin(joinType=[LeftAntiJoin], leftKey=[window_start, window_end], nullAware=[price NOT IN $0], window=[TUMBLE(size=10 s)]')
    expect(text).toContain('state right: ListState<right value> per join key and window')
    expect(text).not.toMatch(/changelog=\[updating\]|grows without bound/)
  })

  it('its output keeps the window columns: a window join may follow', async () => {
    const text = await explain(`SELECT x.price, y.price FROM (
        SELECT * FROM ${TUMBLE('a')} l WHERE l.channel IN (SELECT channel FROM ${TUMBLE('b')} r WHERE ${SAME_WINDOW})
      ) x JOIN ${TUMBLE('b')} y ON x.channel = y.channel AND x.window_start = y.window_start AND x.window_end = y.window_end`)
    expect(text).toContain('WindowJoin(joinType=[LeftSemiJoin]')
    expect(text).toContain('WindowJoin(joinType=[InnerJoin]')
    expect(text).not.toMatch(/changelog=\[updating\]|grows without bound/)
  })

  it('a correlation on window_start alone stays a regular semi join (with its unbounded-state warning)', async () => {
    const text = await explain(
      `SELECT l.price FROM ${TUMBLE('a')} l WHERE l.channel IN (SELECT channel FROM ${TUMBLE('b')} r WHERE l.window_start = r.window_start)`,
    )
    expect(text).toContain('Join(joinType=[LeftSemiJoin]')
    expect(text).not.toContain('WindowJoin')
    expect(text).toContain('grows without bound')
  })

  it('mismatched windows are refused, naming both, at the subquery', async () => {
    const sql = `${SETUP}
SELECT l.price FROM ${TUMBLE('a')} l WHERE NOT EXISTS (SELECT * FROM ${TUMBLE('b', '5')} r WHERE l.channel = r.channel AND ${SAME_WINDOW});`
    const r = await refusal(sql)
    expect(r.message).toBe(
      'a window anti join needs both inputs windowed alike, but they are TUMBLE(size 10000 ms, event time) and TUMBLE(size 5000 ms, event time)',
    )
    expect(r.at).toMatch(/^EXISTS \(SELECT \* FROM \(SELECT \* FROM TABLE\(TUMBLE\(TABLE b.*\)$/s)
    expect(r.help).toContain('same window function')
  })
})
