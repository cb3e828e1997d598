// The interval and window join operators alone: late rows dropped and counted, outer rows padded when
// they expire (and not before), state gone once time passes, the watermark held back by -lower, and
// straight vs checkpointed-midway-and-restored runs emitting the same.
import { describe, expect, it } from 'vitest'
import { IntervalJoinOperator } from '../../operators/join/interval-join.js'
import { WindowJoinOperator } from '../../operators/join/window-join.js'
import type { IntervalJoinSpec, JoinSideSpec, WindowJoinSpec } from '../../core/job-graph.js'
import type { Row } from '../../core/batch.js'
import { harness, type Harness, type HarnessCheckpoint } from './harness.js'

// Rows of both sides: [key, time].
const side = (outer: boolean): JoinSideSpec => ({ keys: [0], outer, updating: false, ttlMs: 0, width: 2 })
const interval = (joinType: IntervalJoinSpec['joinType']): IntervalJoinSpec => ({
  kind: 'IntervalJoin',
  joinType,
  left: side(joinType === 'LEFT' || joinType === 'FULL'),
  right: side(joinType === 'RIGHT' || joinType === 'FULL'),
  timeDomain: 'event',
  leftTime: 1,
  rightTime: 1,
  lower: -10,
  upper: 5, // -10 <= l - r <= 5
})
const ij = (s: IntervalJoinSpec, restore?: HarnessCheckpoint) => harness(new IntervalJoinOperator(s), { keys: [0], restore })

// Window rows: [key, window_start, window_end].
const wside = (outer: boolean): JoinSideSpec => ({ keys: [0, 1, 2], outer, updating: false, ttlMs: 0, width: 3 })
const windowSpec = (joinType: WindowJoinSpec['joinType']): WindowJoinSpec => ({
  kind: 'WindowJoin',
  joinType,
  left: wside(joinType === 'LEFT' || joinType === 'FULL'),
  right: wside(joinType === 'RIGHT' || joinType === 'FULL'),
  window: { kind: 'TUMBLE', size: 10, offset: 0 },
  leftEnd: 2,
  rightEnd: 2,
})
const wj = (s: WindowJoinSpec, restore?: HarnessCheckpoint) => harness(new WindowJoinOperator(s), { keys: [0, 1, 2], restore })

describe('interval join operator', () => {
  it('pairs rows within the bounds, inclusive at both ends', async () => {
    const h = await ij(interval('INNER'))
    h.process([['a', 100]], undefined, 1)
    h.process([['a', 90], ['a', 89], ['a', 105], ['a', 106], ['b', 100]])
    expect(h.take()).toEqual([['+I', 'a', 90, 'a', 100], ['+I', 'a', 105, 'a', 100]])
  })

  it('a LEFT row that never matched comes out padded once the watermark passes its time - lower, and its state goes', async () => {
    const h = await ij(interval('LEFT'))
    h.process([['a', 100], ['b', 100]])
    h.process([['a', 95]], undefined, 1)
    h.watermark(110)
    // 'b' at 100 can still meet a right row at 110 (100 - 110 = -10).
    expect(h.take()).toEqual([['+I', 'a', 100, 'a', 95]])
    h.watermark(111)
    expect(h.take()).toEqual([['+I', 'b', 100, null, null]])
    // The right row (95) went at 100: nothing is left.
    expect(h.state.stats().entries).toBe(0)
  })

  it('FULL: a right row waits until the watermark passes its time + upper', async () => {
    const h = await ij(interval('FULL'))
    h.process([['a', 100]], undefined, 1)
    h.watermark(105)
    expect(h.take()).toEqual([])
    h.process([['a', 105]])
    h.watermark(106)
    expect(h.take()).toEqual([['+I', 'a', 105, 'a', 100]])
    h.watermark(200)
    expect(h.take()).toEqual([])
    h.process([['c', 300]], undefined, 1)
    h.watermark(306)
    expect(h.take()).toEqual([['+I', null, null, 'c', 300]])
  })

  it('rows behind the watermark are dropped and counted', async () => {
    const h = await ij(interval('LEFT'))
    h.process([['a', 100]], undefined, 1)
    h.watermark(95)
    h.process([['a', 94], ['a', 95]])
    expect(h.metrics.lateRecordsDropped).toBe(1)
    expect(h.take()).toEqual([['+I', 'a', 95, 'a', 100]])
  })

  it('INNER: the final watermark drops every bucket of both sides at once, and a row after it is late, not stored', async () => {
    const op = new IntervalJoinOperator(interval('INNER'))
    const h = await harness(op, { keys: [0] })
    h.process([['a', 100], ['b', 200], ['c', 300]])
    h.process([['a', 95], ['c', 1000]], undefined, 1)
    h.watermark(150)
    expect(h.take()).toEqual([['+I', 'a', 100, 'a', 95]])
    expect(h.state.stats().entries).toBeGreaterThan(0)
    // One timer per stored bucket: 'b' and 'c' on the left, 'c' on the right ('a' went at 150).
    expect(h.timers.eventTimerCount).toBe(3)
    // The final watermark announced: state and timers go at once, and no timer is left to fire.
    let fired = 0
    const onTimer = op.onTimer.bind(op)
    op.onTimer = (...args) => {
      fired++
      onTimer(...args)
    }
    h.end()
    expect(h.state.stats().entries).toBe(0)
    expect(h.timers.eventTimerCount).toBe(0)
    expect(fired).toBe(0)
    h.process([['c', 2000]], undefined, 1)
    h.process([['c', 995]])
    expect(h.metrics.lateRecordsDropped).toBe(2)
    expect(h.state.stats().entries).toBe(0)
    expect(h.take()).toEqual([])
  })

  it.each(['LEFT', 'RIGHT', 'FULL'] as const)('%s: the final watermark still pads every unmatched row of an outer side', async type => {
    const h = await ij(interval(type))
    h.process([['a', 100], ['b', 200]])
    h.process([['a', 95], ['c', 300]], undefined, 1)
    h.end()
    const padded = h.take().filter(r => r.includes(null)).sort()
    const left = type === 'LEFT' || type === 'FULL' ? [['+I', 'b', 200, null, null]] : []
    const right = type === 'RIGHT' || type === 'FULL' ? [['+I', null, null, 'c', 300]] : []
    expect(padded).toEqual([...left, ...right].sort())
    expect(h.state.stats().entries).toBe(0)
  })

  it('holds the output watermark back by -lower', async () => {
    expect(new IntervalJoinOperator(interval('INNER')).outputWatermark(1000)).toBe(990)
    expect(new IntervalJoinOperator({ ...interval('INNER'), lower: 3 }).outputWatermark(1000)).toBe(1000)
  })

  it.each(['INNER', 'LEFT', 'RIGHT', 'FULL'] as const)('%s: straight and checkpointed midway then restored emit the same', async type => {
    await sameAcrossCheckpoint(s => ij(interval(type), s))
  })
})

describe('window join operator', () => {
  it('joins a window when the watermark passes its end; outer rows padded; late rows dropped and counted', async () => {
    const h = await wj(windowSpec('FULL'))
    h.process([['a', 0, 10], ['b', 0, 10], ['a', 10, 20]])
    h.process([['a', 0, 10], ['c', 0, 10]], undefined, 1)
    expect(h.take()).toEqual([])
    h.watermark(9)
    // One timer per key and window: their order is the timer service's.
    expect(sorted(h.take())).toEqual(sorted([['+I', 'a', 0, 10, 'a', 0, 10], ['+I', null, null, null, 'c', 0, 10], ['+I', 'b', 0, 10, null, null, null]]))
    h.process([['a', 0, 10]])
    expect(h.metrics.lateRecordsDropped).toBe(1)
    h.watermark(19)
    expect(h.take()).toEqual([['+I', 'a', 10, 20, null, null, null]])
    expect(h.state.stats().entries).toBe(0)
  })

  it.each(['INNER', 'LEFT', 'RIGHT', 'FULL'] as const)('%s: straight and checkpointed midway then restored emit the same', async type => {
    await sameAcrossCheckpoint(s => wj(windowSpec(type), s), true)
  })
})

/** Rows of both sides over several keys and times, with watermarks between; the run is split after step 3. */
async function sameAcrossCheckpoint(make: (restore?: HarnessCheckpoint) => Promise<Harness>, windows = false): Promise<void> {
  const row = (k: string, t: number): Row => (windows ? [k, t - (t % 10), t - (t % 10) + 10] : [k, t])
  const steps: ((h: Harness) => void)[] = [
    h => h.process([row('a', 100), row('b', 101), row('a', 104)]),
    h => h.process([row('a', 103), row('c', 99)], undefined, 1),
    h => h.watermark(100),
    h => h.process([row('b', 108), row('a', 112)], undefined, 1),
    h => h.process([row('a', 115), row('c', 120)]),
    h => h.watermark(119),
    h => h.process([row('c', 125)], undefined, 1),
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

const sorted = (rows: unknown[][]) => rows.map(r => JSON.stringify(r)).sort()
