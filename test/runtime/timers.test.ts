// TimerServiceImpl: firing order, dedupe, deletion, processing time, snapshot/restore.
import { describe, expect, it } from 'vitest'
import { TimerServiceImpl } from '../../runtime/timers.js'
import type { KeyRef, Namespace } from '../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../state/key-encoding.js'

function setup() {
  let current: KeyRef = makeKey(['a'])
  let now = 0
  const timers = new TimerServiceImpl(() => current, { clock: () => now })
  const fired: [number, unknown, Namespace][] = []
  const fire = (ts: number, key: KeyRef, ns: Namespace) => {
    fired.push([ts, key.values[0], ns])
  }
  return {
    timers,
    fired,
    fire,
    key(k: string) {
      current = makeKey([k])
    },
    clock(t: number) {
      now = t
    },
  }
}

describe('TimerServiceImpl', () => {
  it('a timestamp fired and emptied takes timers again, in a new bucket that fires (the queue remembers the bucket it added to last)', () => {
    const t = setup()
    t.key('a')
    t.timers.registerEventTimeTimer(10, 7)
    t.timers.advanceWatermark(10, t.fire)
    t.key('b')
    t.timers.registerEventTimeTimer(10, 7)
    t.timers.registerEventTimeTimer(12, 7)
    expect(t.timers.hasEventTimeTimer(10, 7, makeKey(['b']))).toBe(true)
    t.timers.advanceWatermark(12, t.fire)
    expect(t.fired).toEqual([[10, 'a', 7], [10, 'b', 7], [12, 'b', 7]])
    t.key('c')
    t.timers.registerEventTimeTimer(12, 7)
    t.timers.advanceWatermark(13, t.fire)
    expect(t.fired.at(-1)).toEqual([12, 'c', 7])
  })

  it('fires event timers up to the watermark in timestamp order', () => {
    const t = setup()
    t.key('a')
    t.timers.registerEventTimeTimer(30, 'w1')
    t.timers.registerEventTimeTimer(10)
    t.key('b')
    t.timers.registerEventTimeTimer(20, 5)
    t.timers.registerEventTimeTimer(10)
    expect(t.timers.currentWatermark()).toBe(Number.NEGATIVE_INFINITY)
    t.timers.advanceWatermark(20, t.fire)
    expect(t.fired).toEqual([[10, 'a', ''], [10, 'b', ''], [20, 'b', 5]])
    expect(t.timers.currentWatermark()).toBe(20)
    t.timers.advanceWatermark(29, t.fire)
    expect(t.fired.length).toBe(3)
    t.timers.advanceWatermark(15, t.fire) // never goes back
    expect(t.timers.currentWatermark()).toBe(29)
    t.timers.advanceWatermark(Number.POSITIVE_INFINITY, t.fire)
    expect(t.fired.slice(3)).toEqual([[30, 'a', 'w1']])
    expect(t.timers.eventTimerCount).toBe(0)
  })

  it('deletes every event timer unfired at once, keeps processing timers, and takes new ones after', () => {
    const t = setup()
    t.key('a')
    t.timers.registerEventTimeTimer(10, 1)
    t.timers.registerEventTimeTimer(20, 2)
    t.timers.registerProcessingTimeTimer(5)
    t.key('b')
    t.timers.registerEventTimeTimer(10, 1)
    t.timers.deleteAllEventTimers()
    expect(t.timers.eventTimerCount).toBe(0)
    expect(t.timers.nextEventTimer()).toBeUndefined()
    expect(t.timers.hasEventTimeTimer(10, 1, makeKey(['b']))).toBe(false)
    expect(t.timers.dueEventTimers(Number.POSITIVE_INFINITY)).toEqual([])
    expect(t.timers.snapshot().event).toEqual([])
    // The queue's memory of the bucket it added to last is gone too: a timer at 10 again lands and fires.
    t.timers.registerEventTimeTimer(10, 1)
    t.timers.advanceWatermark(Number.POSITIVE_INFINITY, t.fire)
    expect(t.fired).toEqual([[10, 'b', 1]])
    expect(t.timers.processingTimerCount).toBe(1)
    t.clock(5)
    t.timers.advanceProcessingTime(5, t.fire)
    expect(t.fired.at(-1)).toEqual([5, 'a', ''])
  })

  it('keeps one timer per (timestamp, key, namespace)', () => {
    const t = setup()
    t.key('a')
    t.timers.registerEventTimeTimer(10, 1)
    t.timers.registerEventTimeTimer(10, 1)
    t.timers.registerEventTimeTimer(10, '1') // another namespace
    t.key('b')
    t.timers.registerEventTimeTimer(10, 1)
    expect(t.timers.eventTimerCount).toBe(3)
    t.timers.advanceWatermark(10, t.fire)
    // One timestamp fires grouped by namespace, each in registration order.
    expect(t.fired).toEqual([[10, 'a', 1], [10, 'b', 1], [10, 'a', '1']])
  })

  it('deletes timers of the current key, and lets them be registered again', () => {
    const t = setup()
    t.key('a')
    t.timers.registerEventTimeTimer(10)
    t.timers.registerEventTimeTimer(20)
    t.key('b')
    t.timers.registerEventTimeTimer(10)
    t.timers.deleteEventTimeTimer(20) // b has no timer at 20: no effect
    t.key('a')
    t.timers.deleteEventTimeTimer(10)
    expect(t.timers.eventTimerCount).toBe(2)
    expect(t.timers.nextEventTimer()).toBe(10)
    t.timers.advanceWatermark(15, t.fire)
    expect(t.fired).toEqual([[10, 'b', '']])
    t.timers.registerEventTimeTimer(20) // already there
    t.timers.deleteEventTimeTimer(20)
    t.timers.registerEventTimeTimer(20)
    t.timers.advanceWatermark(100, t.fire)
    expect(t.fired).toEqual([[10, 'b', ''], [20, 'a', '']])
  })

  it('stays correct through many deletes (tombstone rebuilds)', () => {
    const t = setup()
    for (let i = 0; i < 1000; i++) {
      t.key(`k${i}`)
      t.timers.registerEventTimeTimer(1000 - i)
    }
    for (let i = 0; i < 1000; i++) {
      if (i % 10 !== 0) {
        t.key(`k${i}`)
        t.timers.deleteEventTimeTimer(1000 - i)
      }
    }
    expect(t.timers.eventTimerCount).toBe(100)
    t.timers.advanceWatermark(Number.POSITIVE_INFINITY, t.fire)
    expect(t.fired.map(f => f[0])).toEqual(Array.from({ length: 100 }, (_, j) => 10 + 10 * j))
  })

  it('fires timers that a firing timer registers when they are already due', () => {
    const t = setup()
    t.key('a')
    t.timers.registerEventTimeTimer(10)
    t.timers.advanceWatermark(50, (ts, key, ns) => {
      t.fire(ts, key, ns)
      if (ts === 10) {
        t.timers.registerEventTimeTimer(40)
        t.timers.registerEventTimeTimer(60)
      }
    })
    expect(t.fired).toEqual([[10, 'a', ''], [40, 'a', '']])
    expect(t.timers.nextEventTimer()).toBe(60)
  })

  it('runs processing-time timers separately, off the clock', () => {
    const t = setup()
    t.clock(1000)
    expect(t.timers.currentProcessingTime()).toBe(1000)
    t.key('a')
    t.timers.registerProcessingTimeTimer(1500, 'x')
    t.timers.registerProcessingTimeTimer(1200)
    t.timers.registerEventTimeTimer(1100)
    expect(t.timers.nextProcessingTimer()).toBe(1200)
    t.timers.deleteProcessingTimeTimer(1200)
    expect(t.timers.nextProcessingTimer()).toBe(1500)
    t.timers.advanceProcessingTime(1499, t.fire)
    expect(t.fired).toEqual([])
    t.timers.advanceProcessingTime(2000, t.fire)
    expect(t.fired).toEqual([[1500, 'a', 'x']])
    expect(t.timers.nextProcessingTimer()).toBeUndefined()
    expect(t.timers.eventTimerCount).toBe(1)
  })

  it('snapshots and restores timers by key group', () => {
    const t = setup()
    for (let i = 0; i < 50; i++) {
      t.key(`k${i}`)
      t.timers.registerEventTimeTimer(i, i)
      t.timers.registerProcessingTimeTimer(100 + i)
    }
    const snap = structuredClone(t.timers.snapshot())
    expect(snap.event.length).toBe(50)
    const range = keyGroupRange(0, 2)
    const restored = new TimerServiceImpl(() => makeKey(['x']))
    restored.restore(snap, range)
    const fired: [number, unknown][] = []
    restored.advanceWatermark(1000, (ts, key) => {
      fired.push([ts, key.values[0]])
      expect(key.group).toBeLessThanOrEqual(range.end)
    })
    const expected = Array.from({ length: 50 }, (_, i) => [i, `k${i}`] as [number, unknown])
      .filter(([, k]) => makeKey([k]).group <= range.end)
    expect(fired).toEqual(expected)
    expect(restored.processingTimerCount).toBe(expected.length)
  })

  it('refuses a timer in a domain the operator did not declare (the runtime would never fire it)', () => {
    const timers = new TimerServiceImpl(() => makeKey(['a']), { domains: ['event'], operatorId: '3-window-aggregate' })
    timers.registerEventTimeTimer(10)
    expect(() => timers.registerProcessingTimeTimer(10)).toThrow(
      /operator 3-window-aggregate registered a processing-time timer but declared no timers of that domain/,
    )
    const none = new TimerServiceImpl(() => makeKey(['a']), { domains: [] })
    expect(() => none.registerEventTimeTimer(10)).toThrow(/an event-time timer/)
  })
})
