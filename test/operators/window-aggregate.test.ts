// WindowAggregateOperator: every window kind, event and processing time, late rows, sessions merging.
import { describe, expect, it } from 'vitest'
import { WindowAggregateOperator } from '../../operators/window-aggregate.js'
import type { WindowAggregateSpec } from '../../core/job-graph.js'
import type { AggCall } from '../../core/aggregates.js'
import type { WindowSpec } from '../../core/windows.js'
import { T } from '../../common/types.js'
import { aggCall, harness } from './harness.js'
import type { Row } from '../../core/batch.js'

// Input rows: [key, value, ts]
const countSum = [aggCall('COUNT', null), aggCall('SUM', 1, T.int())]

function spec(window: WindowSpec, aggs: AggCall[] = countSum, extra: Partial<WindowAggregateSpec> = {}): WindowAggregateSpec {
  return { kind: 'WindowAggregate', window, timeIndex: 2, timeDomain: 'event', keys: [0], aggs, ...extra }
}

/** Output rows by window end, then key: windows of one end go out in no set order across keys (a sliced HOP key's timer is registered as its previous window fires). */
const byWindow = (rows: unknown[][]) => rows.sort((x, y) => (x[5] as number) - (y[5] as number) || String(x[1]).localeCompare(String(y[1])))

async function run(s: WindowAggregateSpec) {
  return harness(new WindowAggregateOperator(s), { keys: s.keys })
}

describe('WindowAggregateOperator', () => {
  it('TUMBLE: fires each window when the watermark reaches end − 1', async () => {
    const h = await run(spec({ kind: 'TUMBLE', size: 10, offset: 0 }))
    h.process([['a', 1, 1], ['b', 2, 3], ['a', 3, 9], ['a', 4, 10], ['b', 5, -1]])
    h.watermark(-2)
    expect(h.take()).toEqual([])
    h.watermark(8)
    expect(h.take()).toEqual([['+I', 'b', 1, 5, -10, 0, -1]])
    h.watermark(9)
    expect(h.take()).toEqual([['+I', 'a', 2, 4, 0, 10, 9], ['+I', 'b', 1, 2, 0, 10, 9]])
    h.end()
    expect(h.take()).toEqual([['+I', 'a', 1, 4, 10, 20, 19]])
    expect(h.state.stats().entries).toBe(0)
  })

  it('TUMBLE: fires windows in time order across keys, with offsets and negative timestamps', async () => {
    const h = await run(spec({ kind: 'TUMBLE', size: 10, offset: 3 }))
    h.process([['a', 1, 2], ['b', 1, -8], ['b', 1, -7], ['a', 1, 3]])
    h.end()
    expect(h.take()).toEqual([
      ['+I', 'b', 1, 1, -17, -7, -8],
      ['+I', 'a', 1, 1, -7, 3, 2],
      ['+I', 'b', 1, 1, -7, 3, 2],
      ['+I', 'a', 1, 1, 3, 13, 12],
    ])
  })

  it('drops late rows and rows without a time, and counts them', async () => {
    const h = await run(spec({ kind: 'TUMBLE', size: 10, offset: 0 }))
    h.process([['a', 1, 5]])
    h.watermark(9)
    expect(h.take()).toEqual([['+I', 'a', 1, 1, 0, 10, 9]])
    h.process([['a', 10, 5], ['a', 20, null], ['a', 30, 12], ['b', 40, 9]])
    expect(h.metrics.lateRecordsDropped).toBe(3)
    h.watermark(19)
    expect(h.take()).toEqual([['+I', 'a', 1, 30, 10, 20, 19]])
    expect(h.metrics.rowsIn).toBe(5)
    expect(h.metrics.rowsOut).toBe(2)
  })

  it('HOP: a row counts in every window it falls in; a row is late only when all of them fired', async () => {
    const h = await run(spec({ kind: 'HOP', slide: 5, size: 10, offset: 0 }))
    h.process([['a', 1, 3], ['a', 2, 7]])
    h.watermark(9)
    expect(h.take()).toEqual([['+I', 'a', 1, 1, -5, 5, 4], ['+I', 'a', 2, 3, 0, 10, 9]])
    h.process([['a', 4, 8], ['a', 8, 2]]) // 8 still joins [5, 15); 2 belongs only to fired windows
    expect(h.metrics.lateRecordsDropped).toBe(1)
    h.end()
    expect(h.take()).toEqual([['+I', 'a', 2, 6, 5, 15, 14]])
  })

  it('HOP kept as slices: every window once, the same straight and restored from a checkpoint, no slice left at the end', async () => {
    const hop = spec({ kind: 'HOP', slide: 2, size: 6, offset: 0 }, [aggCall('COUNT', null), aggCall('MAX', 1, T.int())])
    const first: Row[] = [['a', 5, 0], ['a', 1, 3], ['b', 7, 4], ['a', 9, 5]]
    const second: Row[] = [['a', 2, 6], ['b', 3, 11], ['a', 4, 3]] // (a, 4, 3): only windows ending at 8 are still open
    const straight = await run(hop)
    straight.process(first)
    straight.watermark(5)
    straight.process(second)
    straight.end()
    const expected = byWindow(straight.take())
    // b's row at 4 is in the slice ending at 6: windows [0, 6), [2, 8), [4, 10).
    expect(expected).toEqual([
      ['+I', 'a', 1, 5, -4, 2, 1],
      ['+I', 'a', 2, 5, -2, 4, 3],
      ['+I', 'a', 3, 9, 0, 6, 5],
      ['+I', 'b', 1, 7, 0, 6, 5],
      ['+I', 'a', 4, 9, 2, 8, 7],
      ['+I', 'b', 1, 7, 2, 8, 7],
      ['+I', 'a', 2, 9, 4, 10, 9],
      ['+I', 'b', 1, 7, 4, 10, 9],
      ['+I', 'a', 1, 2, 6, 12, 11],
      ['+I', 'b', 1, 3, 6, 12, 11],
      ['+I', 'b', 1, 3, 8, 14, 13],
      ['+I', 'b', 1, 3, 10, 16, 15],
    ])
    expect(straight.state.stats().entries).toBe(0)
    const before = await run(hop)
    before.process(first)
    before.watermark(5)
    const emitted = before.take()
    const after = await harness(new WindowAggregateOperator(hop), { keys: hop.keys, restore: before.checkpoint() })
    after.process(second)
    after.end()
    expect(byWindow([...emitted, ...after.take()])).toEqual(expected)
    expect(after.state.stats().entries).toBe(0)
  })

  it("HOP kept as slices: an older slice after a newer one moves the key's one timer earlier; no window twice, none lost", async () => {
    const hop = spec({ kind: 'HOP', slide: 2, size: 6, offset: 0 })
    const h = await run(hop)
    h.process([['a', 1, 13]]) // slice 14: windows ending 14, 16, 18; the key's timer at 14
    h.watermark(9) // window 10 fires (empty for a)
    expect(h.take()).toEqual([])
    h.process([['a', 2, 9]]) // slice 10: window 10 has fired, 12 and 14 have not; the timer moves to 12
    h.watermark(11)
    expect(h.take()).toEqual([['+I', 'a', 1, 2, 6, 12, 11]])
    h.process([['a', 4, 7]]) // slice 8: every window holding it fired (late)
    expect(h.metrics.lateRecordsDropped).toBe(1)
    h.end()
    expect(h.take()).toEqual([
      ['+I', 'a', 2, 3, 8, 14, 13],
      ['+I', 'a', 1, 1, 10, 16, 15],
      ['+I', 'a', 1, 1, 12, 18, 17],
    ])
    expect(h.state.stats().entries).toBe(0)
  })

  it('HOP kept as slices: a watermark past several windows fires each of them, in order, skipping the empty ones', async () => {
    const h = await run(spec({ kind: 'HOP', slide: 2, size: 4, offset: 0 }))
    h.process([['a', 1, 1], ['a', 2, 3], ['b', 4, 2], ['a', 8, 11]])
    h.watermark(100)
    expect(byWindow(h.take())).toEqual([
      ['+I', 'a', 1, 1, -2, 2, 1],
      ['+I', 'a', 2, 3, 0, 4, 3],
      ['+I', 'b', 1, 4, 0, 4, 3],
      ['+I', 'a', 1, 2, 2, 6, 5],
      ['+I', 'b', 1, 4, 2, 6, 5],
      ['+I', 'a', 1, 8, 8, 12, 11],
      ['+I', 'a', 1, 8, 10, 14, 13],
    ])
    expect(h.state.stats().entries).toBe(0)
  })

  it('CUMULATE: emits the growing windows of each period', async () => {
    const h = await run(spec({ kind: 'CUMULATE', step: 5, maxSize: 15, offset: 0 }, [aggCall('COUNT', null), aggCall('MAX', 1, T.int())]))
    h.process([['a', 3, 1], ['a', 9, 6], ['a', 4, 14], ['a', 100, 15]])
    h.watermark(14)
    expect(h.take()).toEqual([
      ['+I', 'a', 1, 3, 0, 5, 4],
      ['+I', 'a', 2, 9, 0, 10, 9],
      ['+I', 'a', 3, 9, 0, 15, 14],
    ])
    h.end()
    expect(h.take()).toEqual([
      ['+I', 'a', 1, 100, 15, 20, 19],
      ['+I', 'a', 1, 100, 15, 25, 24],
      ['+I', 'a', 1, 100, 15, 30, 29],
    ])
  })

  it('aggregates DISTINCT and FILTER per window, and globally without keys', async () => {
    const aggs = [aggCall('COUNT', 1, T.int(), { distinct: true }), aggCall('SUM', 1, T.int(), { filter: 0 })]
    const h = await run(spec({ kind: 'TUMBLE', size: 10, offset: 0 }, aggs, { keys: [] }))
    h.process([[true, 5, 1], [false, 5, 2], [true, 6, 3], [null, 7, 11]])
    h.end()
    expect(h.take()).toEqual([['+I', 2, 11, 0, 10, 9], ['+I', 1, null, 10, 20, 19]])
  })

  it('SESSION: a row between two sessions merges them into one', async () => {
    const aggs = [aggCall('COUNT', null), aggCall('COUNT', 1, T.int(), { distinct: true }), aggCall('MAX', 1, T.int())]
    const h = await run(spec({ kind: 'SESSION', gap: 10 }, aggs))
    h.process([['a', 1, 0], ['a', 2, 15], ['b', 1, 3]])
    h.watermark(5)
    h.process([['a', 1, 8]]) // arrives after 15 but is not late: [8, 18) joins [0, 10) and [15, 25)
    expect(h.metrics.lateRecordsDropped).toBe(0)
    h.watermark(12)
    expect(h.take()).toEqual([['+I', 'b', 1, 1, 1, 3, 13, 12]])
    h.watermark(24)
    expect(h.take()).toEqual([['+I', 'a', 3, 2, 2, 0, 25, 24]])
    expect(h.timers.eventTimerCount).toBe(0)
    expect(h.state.stats().entries).toBe(0)
  })

  it('SESSION: touching sessions merge, separate ones fire separately, late rows are dropped', async () => {
    const h = await run(spec({ kind: 'SESSION', gap: 10 }))
    h.process([['a', 1, 0], ['a', 2, 10], ['a', 4, 30]]) // [0,10) and [10,20) touch
    h.process([['a', 8, 25]]) // [25, 35) overlaps [30, 40)
    h.watermark(19)
    expect(h.take()).toEqual([['+I', 'a', 2, 3, 0, 20, 19]])
    h.process([['a', 16, 5]]) // [5, 15) ended at the watermark: late
    expect(h.metrics.lateRecordsDropped).toBe(1)
    h.end()
    expect(h.take()).toEqual([['+I', 'a', 2, 12, 25, 40, 39]])
  })

  it('SESSION: a grown session still fires in end order when the watermark jumps past it', async () => {
    const h = await run(spec({ kind: 'SESSION', gap: 10 }))
    h.process([['a', 1, 0], ['b', 2, 15]])
    h.process([['a', 3, 8], ['a', 4, 16]]) // a: [0, 10) → [0, 18) → [0, 26); its timer stays at 9
    h.watermark(100)
    expect(h.take()).toEqual([['+I', 'b', 1, 2, 15, 25, 24], ['+I', 'a', 3, 8, 0, 26, 25]])
    expect(h.timers.eventTimerCount).toBe(0)
  })

  it('processing time: windows fire from processing-time timers, the open ones at end of input', async () => {
    const h = await harness(new WindowAggregateOperator(spec({ kind: 'TUMBLE', size: 1000, offset: 0 }, countSum, { timeDomain: 'processing' })), { keys: [0],
      now: 1500 })
    h.process([['a', 1, null], ['b', 2, null]])
    h.processingTime(1998)
    h.process([['a', 3, null]])
    expect(h.take()).toEqual([])
    h.processingTime(1999)
    expect(h.take()).toEqual([['+I', 'a', 2, 4, 1000, 2000, 1999], ['+I', 'b', 1, 2, 1000, 2000, 1999]])
    h.processingTime(2500)
    h.process([['b', 5, 123]]) // the row's time column is not used
    h.processingTime(3200)
    h.process([['a', 6, null]])
    expect(h.take()).toEqual([['+I', 'b', 1, 5, 2000, 3000, 2999]])
    h.end()
    expect(h.take()).toEqual([['+I', 'a', 1, 6, 3000, 4000, 3999]])
    expect(h.timers.processingTimerCount).toBe(0)
    expect(h.state.stats().entries).toBe(0)
  })

  it('processing-time sessions extend with activity and fire at end of input', async () => {
    const h = await harness(new WindowAggregateOperator(spec({ kind: 'SESSION', gap: 100 }, countSum, { timeDomain: 'processing' })), { keys: [0], now: 0 })
    h.process([['a', 1, null]])
    h.processingTime(50)
    h.process([['a', 2, null]])
    h.processingTime(120) // a's session is [0, 150) now
    h.process([['b', 7, null]])
    expect(h.take()).toEqual([])
    h.processingTime(149)
    expect(h.take()).toEqual([['+I', 'a', 2, 3, 0, 150, 149]])
    h.end()
    expect(h.take()).toEqual([['+I', 'b', 1, 7, 120, 220, 219]])
    expect(h.state.stats().entries).toBe(0)
  })
})
