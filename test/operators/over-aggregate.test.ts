// The OVER aggregate operator on its own: rows wait for the watermark, late rows are dropped and
// counted, processing-time rows run on arrival, and state is freed by time or bounded by the frame.
import { describe, expect, it } from 'vitest'
import { OverAggregateOperator } from '../../operators/over/over-aggregate.js'
import type { OverAggCallSpec, OverFrameSpec } from '../../core/over-aggregate.js'
import type { TimeDomain } from '../../core/windows.js'
import { T } from '../../common/types.js'
import { aggCall, harness } from './harness.js'

// Input rows: [k, v, ts].
const sum = (frame: OverFrameSpec): OverAggCallSpec => ({ fn: 'SUM', agg: aggCall('SUM', 1, T.int()), frame })
const max = (frame: OverFrameSpec): OverAggCallSpec => ({ fn: 'MAX', agg: aggCall('MAX', 1, T.int()), frame })
const op = (calls: OverAggCallSpec[], timeDomain: TimeDomain = 'event') =>
  new OverAggregateOperator({ kind: 'OverAggregate', partitionKeys: [0], timeIndex: 2, timeDomain, calls })

describe('OVER aggregate operator', () => {
  it('holds rows until the watermark passes them, then computes them in time order', async () => {
    const h = await harness(op([sum({ unit: 'ROWS', preceding: 1 }), { fn: 'ROW_NUMBER', name: 'rn' }]), { keys: [0] })
    h.process([['a', 1, 30], ['a', 2, 10], ['b', 5, 20], ['a', 4, 20]])
    expect(h.take()).toEqual([])
    h.watermark(20)
    expect(h.take()).toEqual([['+I', 'a', 2, 10, 2, 1], ['+I', 'a', 4, 20, 6, 2], ['+I', 'b', 5, 20, 5, 1]])
    h.watermark(30)
    expect(h.take()).toEqual([['+I', 'a', 1, 30, 5, 3]])
  })

  it('drops rows at or behind the watermark and counts them as late', async () => {
    const h = await harness(op([sum({ unit: 'RANGE', preceding: null })]), { keys: [0] })
    h.process([['a', 1, 10], ['a', 2, 20]])
    h.watermark(20)
    expect(h.take()).toEqual([['+I', 'a', 1, 10, 1], ['+I', 'a', 2, 20, 3]])
    // 20 is the watermark: its peers were computed already, so a row at 20 is late too.
    h.process([['a', 100, 15], ['a', 200, 20], ['a', 4, 21], ['b', 8, null]])
    expect(h.metrics.lateRecordsDropped).toBe(3)
    h.watermark(25)
    expect(h.take()).toEqual([['+I', 'a', 4, 21, 7]])
  })

  it('RANGE: peers see each other, rows leave the frame by time, and state goes once the last row has left', async () => {
    const h = await harness(op([sum({ unit: 'RANGE', preceding: 10 }), max({ unit: 'RANGE', preceding: 5 })]), { keys: [0] })
    h.process([['a', 1, 0], ['a', 2, 10], ['a', 3, 10], ['a', 4, 15], ['a', 9, 21]])
    h.watermark(21)
    expect(h.take()).toEqual([
      ['+I', 'a', 1, 0, 1, 1],
      ['+I', 'a', 2, 10, 6, 3],
      ['+I', 'a', 3, 10, 6, 3],
      ['+I', 'a', 4, 15, 9, 4],
      ['+I', 'a', 9, 21, 13, 9],
    ])
    expect(h.state.stats().entries).toBeGreaterThan(0)
    // 21 + 10 + 1: no later row can reach back to 21.
    h.watermark(32)
    expect(h.state.stats().entries).toBe(0)
    expect(h.timers.eventTimerCount).toBe(0)
    h.process([['a', 7, 40]])
    h.watermark(40)
    expect(h.take()).toEqual([['+I', 'a', 7, 40, 7, 7]])
  })

  it('ROWS: keeps only the rows the frame still needs', async () => {
    const h = await harness(op([sum({ unit: 'ROWS', preceding: 2 })]), { keys: [0] })
    const entries: number[] = []
    for (let i = 0; i < 40; i++) {
      h.process([['a', i, i * 10]])
      h.watermark(i * 10)
      entries.push(h.state.stats().entries)
    }
    // meta, accumulator and the last 3 rows.
    expect(Math.max(...entries.slice(5))).toBe(5)
    expect(h.take().at(-1)).toEqual(['+I', 'a', 39, 390, 38 + 37 + 39])
  })

  it('LAG, RANK and DENSE_RANK: peers share a rank, LAG reads back through them in arrival order, the LAG state keeps offset values', async () => {
    const lag = (offset: number, dflt: number | null): OverAggCallSpec => ({ fn: 'LAG', arg: 1, offset, default: dflt, name: `lag${offset}` })
    const calls: OverAggCallSpec[] = [lag(1, null), lag(2, 2), { fn: 'RANK', name: 'r' }, { fn: 'DENSE_RANK', name: 'dr' }, { fn: 'ROW_NUMBER', name: 'rn' }]
    const h = await harness(op(calls), { keys: [0] })
    h.process([['a', 1, 10], ['a', 2, 20], ['a', 3, 20], ['b', 9, 20], ['a', 4, 30]])
    h.watermark(30)
    expect(h.take()).toEqual([
      ['+I', 'a', 1, 10, null, 10, 1, 1, 1],
      ['+I', 'a', 2, 20, 1, 20, 2, 2, 2],
      ['+I', 'a', 3, 20, 2, 1, 2, 2, 3],
      ['+I', 'b', 9, 20, null, 20, 1, 1, 1],
      ['+I', 'a', 4, 30, 3, 2, 4, 3, 4],
    ])
    for (let i = 5; i < 30; i++) {
      h.process([['a', i, i * 10]])
      h.watermark(i * 10)
    }
    // Per key: meta and one LAG entry (the last 1 and 2 values) — nothing grows with the rows.
    expect(h.state.stats().entries).toBe(4)
    expect(h.take().at(-1)).toEqual(['+I', 'a', 29, 290, 28, 27, 29, 28, 29])
  })

  it('processing time: computes rows on arrival, the rows of a key in one batch are RANGE peers', async () => {
    const h = await harness(op([sum({ unit: 'RANGE', preceding: 100 }), sum({ unit: 'ROWS', preceding: null })], 'processing'), { keys: [0], now: 1000 })
    h.process([['a', 1, null], ['b', 2, null], ['a', 3, null]])
    expect(h.take()).toEqual([['+I', 'a', 1, null, 4, 1], ['+I', 'a', 3, null, 4, 4], ['+I', 'b', 2, null, 2, 2]])
    h.processingTime(1050)
    h.process([['a', 5, null]])
    h.processingTime(1120)
    h.process([['a', 7, null]])
    // At 1120 the rows of 1000 have left the 100 ms frame; the ROWS UNBOUNDED sum keeps them.
    expect(h.take()).toEqual([['+I', 'a', 5, null, 9, 9], ['+I', 'a', 7, null, 12, 16]])
  })
})
