// What the interval join asks a disk backend to prefetch: a row's own bucket, and of the other side's
// buckets in its interval only those stored (an inner side in event time has one timer per stored
// bucket, so the timers tell) — unless a batch of the other input that was requested before it is not
// processed yet (the runtime reads one batch ahead): that batch's keys may get buckets no timer shows.
import { describe, expect, it } from 'vitest'
import { IntervalJoinOperator } from '../../operators/join/interval-join.js'
import type { IntervalJoinSpec, JoinSideSpec } from '../../core/job-graph.js'
import type { Batch, Row } from '../../core/batch.js'
import { harness } from './harness.js'

// Rows of both sides: [key, time]; -10 <= l - r <= 5, so buckets are 15 ms wide and a bucket b of side s is namespace 2b + s.
const side = (outer: boolean): JoinSideSpec => ({ keys: [0], outer, updating: false, ttlMs: 0, width: 2 })
const spec = (joinType: IntervalJoinSpec['joinType']): IntervalJoinSpec => ({
  kind: 'IntervalJoin',
  joinType,
  left: side(joinType === 'LEFT' || joinType === 'FULL'),
  right: side(joinType === 'RIGHT' || joinType === 'FULL'),
  timeDomain: 'event',
  leftTime: 1,
  rightTime: 1,
  lower: -10,
  upper: 5,
})

const batch = (rows: Row[]): Batch => ({ rows, kinds: null })

/** The (key, namespace) pairs `op` requests for `b` of `input`, as 'key:namespace'. */
function requests(op: IntervalJoinOperator, b: Batch, input: number): string[] {
  const out: string[] = []
  op.stateRequests(b, input, (key, ns) => out.push(`${String(key.values[0])}:${String(ns)}`))
  return out
}

describe('interval join state requests', () => {
  it("asks only for the other side's buckets that hold rows", async () => {
    const op = new IntervalJoinOperator(spec('INNER'))
    const h = await harness(op, { keys: [0] })
    h.process([['a', 100]], undefined, 1) // right bucket 6: namespace 13
    const left = batch([['a', 100], ['b', 100]]) // left bucket 6 (12); its interval [95, 110] spans right buckets 6 and 7
    expect(requests(op, left, 0)).toEqual(['a:12', 'a:13', 'b:12'])
    op.processBatch(left, 0)
    expect(h.take()).toEqual([['+I', 'a', 100, 'a', 100]])
    // Once the right bucket's timer fired (cleared), nothing of it is asked for.
    h.watermark(110)
    expect(requests(op, batch([['a', 110]]), 0)).toEqual(['a:14'])
  })

  it("reading ahead: a batch requested before the other input's batch in front of it is processed asks for that batch's keys", async () => {
    const op = new IntervalJoinOperator(spec('INNER'))
    const h = await harness(op, { keys: [0] })
    const right = batch([['c', 100]])
    const left = batch([['c', 98], ['d', 98]])
    // The runtime's order when it reads ahead: both requested, then both processed.
    expect(requests(op, right, 1)).toEqual(['c:13'])
    expect(requests(op, left, 0)).toEqual(['c:12', 'c:13', 'c:15', 'd:12'])
    op.processBatch(right, 1)
    op.processBatch(left, 0)
    expect(h.take()).toEqual([['+I', 'c', 98, 'c', 100]])
    // Both processed: the next left batch goes by the timers again.
    expect(requests(op, batch([['c', 99], ['d', 99]]), 0)).toEqual(['c:12', 'c:13', 'd:12'])
  })

  it('a row already expired when requested asks for no bucket of its own (one the expiry may have dropped)', async () => {
    // 2 <= l - r <= 5: a left row at l expires at l - 1, so one at the watermark is never stored.
    const op = new IntervalJoinOperator({ ...spec('INNER'), lower: 2, upper: 5 })
    const h = await harness(op, { keys: [0] })
    h.process([['a', 30]], undefined, 1) // right bucket 10 (width 3): namespace 21, expiring at 36
    h.process([['a', 32]], undefined, 0) // left bucket 10 (20): pairs with it (32 - 30 = 2)
    expect(h.take()).toEqual([['+I', 'a', 32, 'a', 30]])
    h.watermark(40) // both buckets' timers fired: dropped
    // A left row at 40 is not late but expires at 39: it pairs with right rows in [35, 38] only and is not stored.
    expect(requests(op, batch([['a', 40], ['b', 42]]), 0)).toEqual(['b:28'])
    op.processBatch(batch([['a', 40], ['b', 42]]), 0)
    expect(h.take()).toEqual([])
  })

  it("an outer side's buckets are all asked for (its timers are per row expiry, not per bucket)", async () => {
    const op = new IntervalJoinOperator(spec('RIGHT'))
    await harness(op, { keys: [0] })
    const left = batch([['a', 100]])
    expect(requests(op, left, 0)).toEqual(['a:12', 'a:13', 'a:15'])
    op.processBatch(left, 0)
    // The left side is inner: a right row asks only for the stored left buckets (6, not 7).
    expect(requests(op, batch([['a', 100], ['b', 100]]), 1)).toEqual(['a:13', 'a:12', 'b:13'])
  })

  it("asks for an inner side's own bucket append-only (its timer tells whether it is new), an outer side's to read", async () => {
    for (const joinType of ['INNER', 'RIGHT'] as const) {
      const op = new IntervalJoinOperator(spec(joinType))
      const h = await harness(op, { keys: [0] })
      const appendOnly = (b: Batch, input: number): string[] => {
        const out: string[] = []
        op.stateRequests(b, input, (key, ns, append) => {
          if (append === true) out.push(`${String(key.values[0])}:${String(ns)}`)
        })
        return out
      }
      expect(appendOnly(batch([['a', 100]]), 0)).toEqual(['a:12'])
      expect(appendOnly(batch([['a', 100]]), 1)).toEqual(joinType === 'INNER' ? ['a:13'] : [])
      // Two rows into one new bucket, then one into it again: one timer (the bucket's), matches as before.
      h.process([['a', 100], ['a', 101]], undefined, 0)
      h.process([['a', 102]], undefined, 0)
      h.process([['a', 103]], undefined, 1)
      expect(h.take().length).toBe(3)
      h.watermark(1000)
      expect(h.take().length).toBe(0)
      expect(requests(op, batch([['a', 1100]]), 1)).toEqual(['a:147'])
    }
  })
})
