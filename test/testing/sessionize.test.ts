// weir/testing's harness on the sessionizer example (examples/sessionize/sessionize.ts): a gap closes
// a session when the watermark passes its deadline, a click past the deadline closes it before the
// timer fires, 'logout' closes it at once; the open session's clicks and its pending timer per key.
import { describe, expect, it } from 'vitest'
import { harness } from '../../testing/index.js'
import sessionize from '../../examples/sessionize/sessionize.js'

const T0 = Date.UTC(2024, 4, 1, 9)
const MIN = 60_000

describe('harness(sessionize)', () => {
  it('the watermark passing the last click + gap ends the session; the timer moves with each click', async () => {
    const h = await harness(sessionize, { partitionBy: ['user_id'], args: { gap_s: 600 } })
    h.processElement({ user_id: 'ann', page: 'home', ts: T0 })
    h.processElement({ user_id: 'ann', page: 'shoes', ts: T0 + 2 * MIN })
    expect(h.state(['ann'], 'clicks')).toEqual([{ ts: T0, page: 'home' }, { ts: T0 + 2 * MIN, page: 'shoes' }])
    expect(h.timers()).toEqual([{ key: ['ann'], timestamp: T0 + 12 * MIN, domain: 'event' }])
    h.watermark(T0 + 12 * MIN - 1)
    expect(h.take()).toEqual([])
    h.watermark(T0 + 12 * MIN)
    expect(h.take()).toEqual([{ user_id: 'ann', session_start: T0, session_end: T0 + 2 * MIN, pages: 2, path: 'home > shoes' }])
    expect(h.state(['ann'], 'clicks')).toBeUndefined()
    expect(h.timers()).toEqual([])
  })

  it('a click past the deadline ends the session before the timer fires; logout ends it at once', async () => {
    const h = await harness(sessionize, { partitionBy: ['user_id'], args: { gap_s: 600 } })
    h.processElement({ user_id: 'bob', page: 'home', ts: T0 })
    h.processElement({ user_id: 'bob', page: 'news', ts: T0 + 11 * MIN })
    expect(h.take()).toEqual([{ user_id: 'bob', session_start: T0, session_end: T0, pages: 1, path: 'home' }])
    expect(h.timers()).toEqual([{ key: ['bob'], timestamp: T0 + 21 * MIN, domain: 'event' }])
    h.processElement({ user_id: 'bob', page: 'logout', ts: T0 + 12 * MIN })
    expect(h.take()).toEqual([{ user_id: 'bob', session_start: T0 + 11 * MIN, session_end: T0 + 12 * MIN, pages: 2, path: 'news > logout' }])
    expect(h.timers()).toEqual([])
    expect(h.state(['bob'], 'deadline')).toBeUndefined()
  })
})
