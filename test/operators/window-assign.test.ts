// Window boundaries (TUMBLE, HOP, CUMULATE; offsets; negative timestamps) and the WindowAssign operator.
import { describe, expect, it } from 'vitest'
import { assignWindowEnds, windowStartOf, type AlignedWindowSpec } from '../../operators/windows.js'
import { WindowAssignOperator } from '../../operators/window-assign.js'
import { WeirError } from '../../common/errors.js'
import { harness } from './harness.js'

function windows(spec: AlignedWindowSpec, ts: number): [number, number][] {
  const ends = new Float64Array(64)
  const n = assignWindowEnds(spec, ts, ends)
  return Array.from(ends.subarray(0, n), end => [windowStartOf(spec, end), end])
}

describe('window boundaries', () => {
  it('TUMBLE', () => {
    const t = { kind: 'TUMBLE', size: 10, offset: 0 } as const
    expect(windows(t, 0)).toEqual([[0, 10]])
    expect(windows(t, 9)).toEqual([[0, 10]])
    expect(windows(t, 10)).toEqual([[10, 20]])
    expect(windows(t, -1)).toEqual([[-10, 0]])
    expect(windows(t, -10)).toEqual([[-10, 0]])
    expect(windows(t, -11)).toEqual([[-20, -10]])
    const shifted = { kind: 'TUMBLE', size: 10, offset: 3 } as const
    expect(windows(shifted, 2)).toEqual([[-7, 3]])
    expect(windows(shifted, 3)).toEqual([[3, 13]])
    expect(windows(shifted, -8)).toEqual([[-17, -7]])
    const negOffset = { kind: 'TUMBLE', size: 10, offset: -3 } as const
    expect(windows(negOffset, 7)).toEqual([[7, 17]])
    expect(windows(negOffset, 6)).toEqual([[-3, 7]])
  })

  it('HOP', () => {
    const h = { kind: 'HOP', slide: 5, size: 15, offset: 0 } as const
    expect(windows(h, 7)).toEqual([[-5, 10], [0, 15], [5, 20]])
    expect(windows(h, 5)).toEqual([[-5, 10], [0, 15], [5, 20]])
    expect(windows(h, 4)).toEqual([[-10, 5], [-5, 10], [0, 15]])
    expect(windows(h, -1)).toEqual([[-15, 0], [-10, 5], [-5, 10]])
    const uneven = { kind: 'HOP', slide: 4, size: 10, offset: 1 } as const
    expect(windows(uneven, 9)).toEqual([[1, 11], [5, 15], [9, 19]])
    expect(windows(uneven, 10)).toEqual([[1, 11], [5, 15], [9, 19]])
    expect(windows(uneven, 11)).toEqual([[5, 15], [9, 19]])
    const gaps = { kind: 'HOP', slide: 10, size: 5, offset: 0 } as const
    expect(windows(gaps, 3)).toEqual([[0, 5]])
    expect(windows(gaps, 7)).toEqual([]) // between windows
  })

  it('CUMULATE', () => {
    const c = { kind: 'CUMULATE', step: 5, maxSize: 15, offset: 0 } as const
    expect(windows(c, 0)).toEqual([[0, 5], [0, 10], [0, 15]])
    expect(windows(c, 7)).toEqual([[0, 10], [0, 15]])
    expect(windows(c, 14)).toEqual([[0, 15]])
    expect(windows(c, 15)).toEqual([[15, 20], [15, 25], [15, 30]])
    expect(windows(c, -1)).toEqual([[-15, 0]])
    expect(windows(c, -15)).toEqual([[-15, -10], [-15, -5], [-15, 0]])
    const shifted = { kind: 'CUMULATE', step: 5, maxSize: 15, offset: 2 } as const
    expect(windows(shifted, 1)).toEqual([[-13, 2]])
    expect(windows(shifted, 2)).toEqual([[2, 7], [2, 12], [2, 17]])
  })
})

describe('WindowAssignOperator', () => {
  it('appends window_start, window_end and window_time, one row per window', async () => {
    const op = new WindowAssignOperator({ kind: 'WindowAssign', window: { kind: 'HOP', slide: 5, size: 10, offset: 0 }, timeIndex: 1, timeDomain: 'event' })
    const h = await harness(op, { keys: [] })
    h.process([['a', 7], ['b', null], ['c', -3]])
    expect(h.take()).toEqual([
      ['+I', 'a', 7, 0, 10, 9],
      ['+I', 'a', 7, 5, 15, 14],
      ['+I', 'c', -3, -10, 0, -1],
      ['+I', 'c', -3, -5, 5, 4],
    ])
    expect(h.metrics.lateRecordsDropped).toBe(1) // the NULL time
    expect(h.metrics.rowsOut).toBe(4)
  })

  it('keeps row kinds and uses processing time when asked', async () => {
    const op = new WindowAssignOperator({ kind: 'WindowAssign', window: { kind: 'TUMBLE', size: 1000, offset: 0 }, timeIndex: 1, timeDomain: 'processing' })
    const h = await harness(op, { keys: [], now: 12_345 })
    h.process([['a', null], ['b', null]], ['+I', '-D'])
    expect(h.take()).toEqual([['+I', 'a', null, 12_000, 13_000, 12_999], ['-D', 'b', null, 12_000, 13_000, 12_999]])
  })

  it('rejects SESSION windows', () => {
    const make = () => new WindowAssignOperator({ kind: 'WindowAssign', window: { kind: 'SESSION', gap: 10 }, timeIndex: 0, timeDomain: 'event' })
    expect(make).toThrow(WeirError)
    expect(make).toThrow(/SESSION window can only be used in a window aggregate/)
  })

  it('rejects a CUMULATE max size that is not a multiple of the step', () => {
    expect(() =>
      new WindowAssignOperator({ kind: 'WindowAssign', window: { kind: 'CUMULATE', step: 4, maxSize: 10, offset: 0 }, timeIndex: 0, timeDomain: 'event' })
    )
      .toThrow(/integral multiple/)
  })
})
