// The sort operators driven directly: the time-ordered sort of a stream (ORDER BY rowtime, …) emits
// each timestamp's rows when the watermark passes it, sorted by the other keys, drops rows behind the
// watermark, and carries what waits through a checkpoint; the end-of-input sort emits nothing until
// the final watermark and then everything in order.
import { describe, expect, it } from 'vitest'
import type { SortSpec } from '../../core/sort.js'
import { TemporalSortOperator } from '../../operators/rank/temporal-sort.js'
import { SortOperator } from '../../operators/rank/sort.js'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
import { harness } from './harness.js'

// Rows (ts, k, v): ORDER BY ts, k DESC.
const TIME_SPEC: SortSpec = {
  kind: 'Sort',
  orderKeys: [{ index: 0, descending: false, nullsFirst: true }, { index: 1, descending: true, nullsFirst: false }],
  limit: null,
  emit: 'time',
  width: 3,
  inputUpdating: false,
}

describe('the time-ordered sort', () => {
  it('emits each timestamp when the watermark passes it, by the other keys, and drops late rows', async () => {
    const h = await harness(new TemporalSortOperator(TIME_SPEC), { keys: [] })
    h.process([[20, 'a', 1], [10, 'a', 2], [20, 'c', 3], [10, 'b', 4], [30, 'a', 5]])
    expect(h.take()).toEqual([])
    h.watermark(19)
    expect(h.take()).toEqual([['+I', 10, 'b', 4], ['+I', 10, 'a', 2]])
    h.process([[15, 'z', 6], [19, 'z', 7], [20, 'b', 8], [25, null, 9], [null, 'n', 10]])
    expect(h.metrics.lateRecordsDropped, 'at or behind the watermark, or without a time').toBe(3)
    h.watermark(30)
    expect(h.take()).toEqual([['+I', 20, 'c', 3], ['+I', 20, 'b', 8], ['+I', 20, 'a', 1], ['+I', 25, null, 9], ['+I', 30, 'a', 5]])
    expect(h.state.stats().entries, 'nothing waits').toBe(0)
  })

  it('keeps what waits through a checkpoint', async () => {
    const h = await harness(new TemporalSortOperator(TIME_SPEC), { keys: [] })
    h.process([[5, 'a', 1], [7, 'b', 2], [5, 'c', 3]])
    h.watermark(5)
    expect(h.take()).toEqual([['+I', 5, 'c', 3], ['+I', 5, 'a', 1]])
    const restored = await harness(new TemporalSortOperator(TIME_SPEC), { keys: [], restore: h.checkpoint() })
    restored.process([[7, 'c', 4]])
    restored.end()
    expect(restored.take()).toEqual([['+I', 7, 'c', 4], ['+I', 7, 'b', 2]])
  })
})

describe('the end-of-input sort', () => {
  it('emits nothing before the final watermark, then every row in order, cut to the limit', async () => {
    const spec: SortSpec = { ...TIME_SPEC, orderKeys: [{ index: 2, descending: true, nullsFirst: false }], emit: 'end', limit: 3 }
    const h = await harness(new SortOperator(spec), { keys: [] })
    h.process([[1, 'a', 5], [2, 'b', null], [3, 'c', 9]])
    h.watermark(1_000_000)
    h.process([[4, 'd', 7], [5, 'e', 9]])
    expect(h.take()).toEqual([])
    const restored = await harness(new SortOperator(spec), { keys: [], restore: h.checkpoint() })
    restored.end()
    expect(restored.take()).toEqual([['+I', 3, 'c', 9], ['+I', 5, 'e', 9], ['+I', 4, 'd', 7]])
  })
})

describe('planning a sort of a stream', () => {
  const ddl = `CREATE TABLE g (k INT, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'datagen');\n`

  it('ORDER BY the rowtime is a TemporalSort', async () => {
    const results = await new Session({ println: () => undefined }).executeSql(`${ddl}EXPLAIN SELECT k, ts FROM g ORDER BY ts, k DESC;`)
    const text = (results.at(-1) as { text: string }).text
    expect(text).toContain('TemporalSort(orderBy=[ts ASC, k DESC], emit=[as the watermark passes ts], changelog=[insert-only])')
    expect(text).toContain('Exchange(distribution=[single])')
  })

  it.each([
    { sql: 'SELECT k, ts FROM g ORDER BY ts DESC', message: 'ORDER BY ts DESC over a stream is not supported' },
    { sql: 'SELECT k, pt FROM g ORDER BY pt', message: 'ORDER BY a processing-time attribute is not supported yet' },
  ])('refuses $message', async ({ sql, message }) => {
    const error = await new Session({ println: () => undefined }).executeSql(`${ddl}${sql};`).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(WeirError)
    expect((error as WeirError).message).toContain(message)
    expect((error as WeirError).span?.start.line).toBe(3)
  })
})
