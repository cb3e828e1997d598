// CURRENT_WATERMARK(rowtime): Flink's typing and refusals, the Calc operator reading its own
// watermark (NULL before the first, the latest one after), and a job that drops late rows with
// `WHERE ts > CURRENT_WATERMARK(ts) OR CURRENT_WATERMARK(ts) IS NULL`.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { T } from '../../common/types.js'
import { formatTimestamp } from '../../common/values.js'
import { isNonDeterministic } from '../../core/rex.js'
import { CalcOperator } from '../../operators/calc.js'
import { compilePredicate } from '../../expr/index.js'
import { Session } from '../../engine/session.js'
import { harness } from '../operators/harness.js'
import { refusal } from '../planner/refused.js'
import { call, col, errorOf } from './helpers.js'

const ROWTIME = T.timestamp(3, false, 'rowtime')

describe('CURRENT_WATERMARK', () => {
  it('is typed as its argument with precision 3, nullable, and is non-deterministic (never folded)', () => {
    expect(call('CURRENT_WATERMARK', col(0, ROWTIME)).type).toEqual(T.timestamp(3, true))
    expect(call('CURRENT_WATERMARK', col(0, T.timestampLtz(3, false, 'rowtime'))).type).toEqual(T.timestampLtz(3, true))
    expect(isNonDeterministic(call('CURRENT_WATERMARK', col(0, ROWTIME)))).toBe(true)
  })

  it('refuses an argument that is not a rowtime attribute', () => {
    for (const t of [T.timestamp(3), T.timestampLtz(3, false, 'proctime'), T.int(), T.date()]) {
      expect(errorOf(() => call('CURRENT_WATERMARK', col(0, t))).message).toMatch(/^the argument of CURRENT_WATERMARK must be a rowtime attribute/)
    }
    expect(errorOf(() => call('CURRENT_WATERMARK')).message).toBe("'CURRENT_WATERMARK' takes 1 argument but was given 0")
  })

  it('is refused outside a Calc (a join condition), at the call', () => {
    const e = errorOf(() => compilePredicate(call('IS_NULL', call('CURRENT_WATERMARK', col(0, ROWTIME)))))
    expect(e.message).toBe('CURRENT_WATERMARK is supported in a SELECT list and a WHERE clause only')
    expect(e.span?.start.column).toBe(8)
  })

  it("reads the Calc operator's watermark: NULL before the first, then the latest; drops rows at or behind it", async () => {
    const wm = call('CURRENT_WATERMARK', col(1, ROWTIME))
    const keep = call('OR', call('>', col(1, ROWTIME), wm), call('IS_NULL', wm))
    const h = await harness(new CalcOperator({ kind: 'Calc', projection: [col(0, T.int()), wm], condition: keep }), { keys: [] })
    h.process([[1, 5000], [2, 1000]])
    expect(h.take()).toEqual([['+I', 1, null], ['+I', 2, null]])
    h.watermark(3000)
    h.process([[3, 2999], [4, 3000], [5, 3001]])
    expect(h.take()).toEqual([['+I', 5, 3000]])
    h.watermark(10_000)
    h.process([[6, 9000], [7, 12_000]])
    expect(h.take()).toEqual([['+I', 7, 10_000]])
  })

  it('in SQL, a non-rowtime argument is refused with the caret on the call', async () => {
    const e = await refusal(`SELECT CURRENT_WATERMARK(ts) FROM (VALUES (TIMESTAMP '2024-01-01 00:00:00')) AS t(ts)`)
    expect(e).toMatchObject({ kind: 'plan', at: 'CURRENT_WATERMARK(ts)' })
    expect(e.message).toContain('must be a rowtime attribute')
  })

  it('a job drops the rows behind the watermark; the filter stays out of the source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-current-wm-'))
    const base = Date.UTC(2024, 0, 1)
    const lines: string[] = []
    const N = 60_000
    for (let i = 0; i < N; i++) lines.push(JSON.stringify({ id: i, ts: formatTimestamp(base + i * 1000) }))
    // Late rows at the end: an hour behind the start, long after the watermark passed them.
    for (let i = 0; i < 50; i++) lines.push(JSON.stringify({ id: N + i, ts: formatTimestamp(base - 3_600_000) }))
    writeFileSync(join(dir, 'in.jsonl'), lines.join('\n') + '\n')
    const ddl = `CREATE TABLE s (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
        WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'in.jsonl')}', 'format' = 'json');
      CREATE TABLE o (id INT, ts TIMESTAMP(3), wm TIMESTAMP(3))
        WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');`
    const query = `INSERT INTO o SELECT id, ts, CURRENT_WATERMARK(ts) FROM s WHERE ts > CURRENT_WATERMARK(ts) OR CURRENT_WATERMARK(ts) IS NULL`
    const explained = (await new Session({ println: () => undefined, explainOnly: true }).executeSql(`${ddl} EXPLAIN ${query}`)).at(-1)!
    if (explained.kind !== 'explain') throw new Error(`expected an explain result, got ${explained.kind}`)
    expect(explained.text).toMatch(/Calc[^\n]*CURRENT_WATERMARK/)
    const session = new Session({ println: () => undefined })
    await session.executeSql(`${ddl} ${query}`)
    await session.awaitJobs()
    const out = readdirSync(join(dir, 'out')).filter(f => f.startsWith('part-'))
      .flatMap(f => readFileSync(join(dir, 'out', f), 'utf8').split('\n').filter(l => l !== ''))
      .map(l => JSON.parse(l) as { id: number; ts: string; wm: string | null })
    expect(out.map(r => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i))
    // Every row kept is ahead of the watermark it saw, and some saw one.
    expect(out.every(r => r.wm === null || r.ts > r.wm)).toBe(true)
    expect(out.some(r => r.wm !== null)).toBe(true)
  })
})
