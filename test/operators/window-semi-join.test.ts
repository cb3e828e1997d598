// The window semi/anti join operator alone: a window's left rows are decided when the watermark
// passes its end (not before), NULL keys never match, NOT IN follows SQL's NULL rules per window,
// late rows are dropped and counted, state is gone once its window closed, and straight vs
// checkpointed-midway-and-restored runs emit the same.
import { describe, expect, it } from 'vitest'
import { WindowSemiJoinOperator } from '../../operators/join/window-semi-join.js'
import type { WindowSemiJoinSpec } from '../../core/job-graph.js'
import type { Row } from '../../core/batch.js'
import { harness, type Harness, type HarnessCheckpoint } from './harness.js'

// Rows of both inputs: [key, window_start, window_end, value].
const spec = (anti: boolean, notIn = false): WindowSemiJoinSpec => ({
  kind: 'WindowSemiJoin',
  anti,
  leftKeys: notIn ? [1, 2] : [0, 1, 2],
  rightKeys: notIn ? [1, 2] : [0, 1, 2],
  ...(notIn ? { nullAware: { left: 3, right: 3 } } : {}),
  window: { kind: 'TUMBLE', size: 10, offset: 0 },
  leftEnd: 2,
  rightEnd: 2,
})
const make = (s: WindowSemiJoinSpec, restore?: HarnessCheckpoint) => {
  const keys = s.nullAware === undefined ? [0, 1, 2] : [1, 2]
  return harness(new WindowSemiJoinOperator(s), { keys, inputKeys: [keys, keys], restore })
}
const sorted = (rows: unknown[][]) => rows.map(r => JSON.stringify(r)).sort()

describe('window semi join operator', () => {
  it('emits the left rows of a window that has a right row under their key when the watermark passes its end', async () => {
    const h = await make(spec(false))
    h.process([['a', 0, 10, 1], ['a', 0, 10, 2], ['b', 0, 10, 3], ['a', 10, 20, 4]])
    h.process([['a', 0, 10, 9], ['a', 0, 10, 8], ['c', 0, 10, 7], ['a', 10, 20, 6]], undefined, 1)
    h.watermark(8)
    expect(h.take()).toEqual([])
    h.watermark(9)
    // Each left row once, however many right rows match it.
    expect(sorted(h.take())).toEqual(sorted([['+I', 'a', 0, 10, 1], ['+I', 'a', 0, 10, 2]]))
    h.watermark(19)
    expect(h.take()).toEqual([['+I', 'a', 10, 20, 4]])
    expect(h.state.stats().entries).toBe(0)
  })

  it('a right row that arrives after the left rows still counts, until the window closes', async () => {
    const h = await make(spec(false))
    h.process([['a', 0, 10, 1]])
    h.watermark(5)
    h.process([['a', 0, 10, 1]], undefined, 1)
    h.watermark(9)
    expect(h.take()).toEqual([['+I', 'a', 0, 10, 1]])
  })

  it('NULL keys never match; late rows of both inputs are dropped and counted', async () => {
    const h = await make(spec(false))
    h.process([[null, 0, 10, 1]])
    h.process([[null, 0, 10, 1]], undefined, 1)
    h.watermark(9)
    h.process([['a', 0, 10, 1]])
    h.process([['a', 0, 10, 1]], undefined, 1)
    expect(h.metrics.lateRecordsDropped).toBe(2)
    h.end()
    expect(h.out).toEqual([])
    expect(h.state.stats().entries).toBe(0)
  })
})

describe('window anti join operator', () => {
  it('emits the left rows of a window without a right row under their key; a NULL key row at once', async () => {
    const h = await make(spec(true))
    h.process([['a', 0, 10, 1], ['b', 0, 10, 2], [null, 0, 10, 3]])
    expect(h.take()).toEqual([['+I', null, 0, 10, 3]])
    h.process([['a', 0, 10, 0], ['b', 10, 20, 0], [null, 0, 10, 0]], undefined, 1)
    h.watermark(9)
    expect(h.take()).toEqual([['+I', 'b', 0, 10, 2]])
    h.watermark(19)
    expect(h.take()).toEqual([])
    expect(h.state.stats().entries).toBe(0)
  })

  it('NOT IN: all rows of a window with no right row; none where the right has a NULL; else the non-NULL values not present', async () => {
    const h = await make(spec(true, true))
    // Window [0, 10): right values 1 and 2. Window [10, 20): none. Window [20, 30): 5 and NULL.
    h.process([['x', 0, 10, 1], ['x', 0, 10, 3], ['x', 0, 10, null], ['x', 10, 20, 1], ['x', 10, 20, null], ['x', 20, 30, 4]])
    h.process([['y', 0, 10, 1], ['y', 0, 10, 2], ['y', 20, 30, 5], ['y', 20, 30, null]], undefined, 1)
    h.watermark(29)
    expect(sorted(h.take())).toEqual(sorted([['+I', 'x', 0, 10, 3], ['+I', 'x', 10, 20, 1], ['+I', 'x', 10, 20, null]]))
    expect(h.state.stats().entries).toBe(0)
  })
})

describe.each([false, true])('window semi/anti join (anti: %s)', anti => {
  it.each([false, true])('straight and checkpointed midway then restored emit the same (NOT IN: %s)', async notIn => {
    if (notIn && !anti) return
    await sameAcrossCheckpoint(s => make(spec(anti, notIn), s))
  })
})

/** Rows of both inputs over several keys and windows, with watermarks between; the run is split after step 3. */
async function sameAcrossCheckpoint(make: (restore?: HarnessCheckpoint) => Promise<Harness>): Promise<void> {
  const row = (k: string | null, t: number, v: number | null): Row => [k, t - (t % 10), t - (t % 10) + 10, v]
  const steps: ((h: Harness) => void)[] = [
    h => h.process([row('a', 100, 1), row('b', 101, 2), row('a', 104, 3), row(null, 105, 4)]),
    h => h.process([row('a', 103, 1), row('c', 99, 5), row('b', 112, null)], undefined, 1),
    h => h.watermark(100),
    h => h.process([row('b', 108, 2), row('a', 112, 1), row('b', 115, 6)], undefined, 1),
    h => h.process([row('a', 115, 1), row('c', 120, 7), row('b', 113, 8), row('b', 114, null), row('d', 116, 11)]),
    h => h.watermark(119),
    h => h.process([row('c', 125, 9)], undefined, 1),
    h => h.process([row('c', 126, 9), row('c', 127, 10)]),
  ]
  const straight = await make()
  steps.forEach(s => s(straight))
  straight.end()
  const paused = await make()
  steps.slice(0, 3).forEach(s => s(paused))
  const checkpoint = paused.checkpoint()
  const before = paused.take()
  const restored = await make(checkpoint)
  steps.slice(3).forEach(s => s(restored))
  restored.end()
  expect(straight.out.length).toBeGreaterThan(before.length)
  expect([...before, ...restored.out]).toEqual(straight.out)
}
