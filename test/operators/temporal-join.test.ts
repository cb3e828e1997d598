// The temporal join operators alone. Probe rows [id, k, ts] (input 0) join versions [k, r, ts]
// (input 1) keyed by k: event time waits for the watermark and picks the version valid at the probe's
// time (deletes, ties, late versions and late probes included) and frees superseded versions;
// processing time joins the latest version at arrival. Checkpointed midway and restored runs emit
// what a straight run does.
import { describe, expect, it } from 'vitest'
import { EventTimeTemporalJoin, ProcessingTimeTemporalJoin } from '../../operators/join/temporal-join.js'
import type { TemporalJoinSpec } from '../../core/job-graph.js'
import type { Row } from '../../core/batch.js'
import { inputRef } from '../../core/rex.js'
import { T } from '../../common/types.js'
import { resolveCall } from '../../expr/index.js'
import { harness, type Harness } from './harness.js'

function spec(joinType: 'INNER' | 'LEFT', extra: Partial<TemporalJoinSpec> = {}): TemporalJoinSpec {
  return { kind: 'TemporalJoin', joinType, timeDomain: 'event', leftKeys: [1], rightKeys: [0], leftTime: 2, rightTime: 2, leftWidth: 3, rightWidth: 3,
    ...extra }
}

async function join(s: TemporalJoinSpec, restore?: Awaited<ReturnType<Harness['checkpoint']>>): Promise<Harness> {
  const op = s.timeDomain === 'event' ? new EventTimeTemporalJoin(s) : new ProcessingTimeTemporalJoin(s)
  return harness(op, { keys: [1], inputKeys: [[1], [0]], restore })
}

const probe = (h: Harness, rows: Row[], kinds?: string[]) => h.process(rows, kinds, 0)
const version = (h: Harness, rows: Row[], kinds?: string[]) => h.process(rows, kinds, 1)

describe('event-time temporal join operator', () => {
  it('waits for the watermark, then joins the version valid at each probe time (a version at the same time is valid)', async () => {
    const h = await join(spec('LEFT'))
    version(h, [['a', 10, 100], ['a', 11, 200]])
    probe(h, [[1, 'a', 150], [2, 'a', 200], [3, 'a', 50], [4, 'b', 150]])
    expect(h.take()).toEqual([])
    // The version at 300 arrives before the watermark passes 300: the probe at 300 sees it, the one at 299 does not.
    version(h, [['a', 12, 300]])
    probe(h, [[5, 'a', 300], [6, 'a', 299]])
    h.watermark(1000)
    expect(h.take().sort((x, y) => (x[1] as number) - (y[1] as number))).toEqual([
      ['+I', 1, 'a', 150, 'a', 10, 100],
      ['+I', 2, 'a', 200, 'a', 11, 200],
      ['+I', 3, 'a', 50, null, null, null],
      ['+I', 4, 'b', 150, null, null, null],
      ['+I', 5, 'a', 300, 'a', 12, 300],
      ['+I', 6, 'a', 299, 'a', 11, 200],
    ])
  })

  it('a delete ends a version: later probes match nothing; -U rows are skipped, +U is the new version', async () => {
    const h = await join(spec('INNER'))
    version(h, [['a', 10, 100], ['a', 10, 100], ['a', 20, 200], ['a', 20, 300], ['a', 30, 400]], ['+I', '-U', '+U', '-D', '+I'])
    probe(h, [[1, 'a', 150], [2, 'a', 250], [3, 'a', 350], [4, 'a', 450]])
    h.watermark(500)
    expect(h.take()).toEqual([['+I', 1, 'a', 150, 'a', 10, 100], ['+I', 2, 'a', 250, 'a', 20, 200], ['+I', 4, 'a', 450, 'a', 30, 400]])
  })

  it('frees state by time: superseded versions go, the latest stays, a deleted key keeps nothing', async () => {
    const h = await join(spec('INNER'))
    version(h, [['a', 1, 100], ['a', 2, 200], ['a', 3, 300], ['b', 1, 100]])
    version(h, [['b', 1, 250]], ['-D'])
    probe(h, [[1, 'a', 210]])
    expect(h.state.stats().entries).toBe(6)
    h.watermark(260)
    // a: the version at 200 is valid at the watermark (100 went); the one at 300 waits. b: deleted at 250.
    expect(h.state.stats().entries).toBe(2)
    expect(h.take()).toEqual([['+I', 1, 'a', 210, 'a', 2, 200]])
    h.watermark(10_000)
    expect(h.state.stats().entries).toBe(1)
    // The latest version still joins probes of any later time.
    probe(h, [[2, 'a', 20_000]])
    h.watermark(20_000)
    expect(h.take()).toEqual([['+I', 2, 'a', 20_000, 'a', 3, 300]])
  })

  it('late versions: kept when they are the version valid at the watermark, dropped when superseded', async () => {
    const h = await join(spec('LEFT'))
    version(h, [['a', 1, 100]])
    h.watermark(500)
    // Behind the watermark but newer than the version valid there: it replaces it.
    version(h, [['a', 2, 300]])
    // Older than the one valid at the watermark: it could never be valid again.
    version(h, [['a', 9, 200]])
    expect(h.state.stats().entries).toBe(1)
    probe(h, [[1, 'a', 600]])
    h.watermark(700)
    expect(h.take()).toEqual([['+I', 1, 'a', 600, 'a', 2, 300]])
    // A late delete removes the key's version.
    version(h, [['a', 2, 650]], ['-D'])
    probe(h, [[2, 'a', 800]])
    h.watermark(900)
    expect(h.take()).toEqual([['+I', 2, 'a', 800, null, null, null]])
    expect(h.state.stats().entries).toBe(0)
  })

  it('a probe row behind the watermark joins at once with the version state holds for its time', async () => {
    const h = await join(spec('LEFT'))
    version(h, [['a', 1, 100], ['a', 2, 300]])
    h.watermark(400)
    probe(h, [[1, 'a', 350], [2, 'a', 50], [3, null, 500]])
    expect(h.take()).toEqual([['+I', 1, 'a', 350, 'a', 2, 300], ['+I', 2, 'a', 50, null, null, null], ['+I', 3, null, 500, null, null, null]])
  })

  it('keeps the probe row kind, and a residual failing on the valid version pads (LEFT) or drops (INNER)', async () => {
    // r (column 4) > id (column 0)
    const residual = resolveCall('>', [inputRef(4, T.int()), inputRef(0, T.int())])
    const left = await join(spec('LEFT', { residual }))
    const inner = await join(spec('INNER', { residual }))
    for (const h of [left, inner]) {
      version(h, [['a', 5, 100], ['a', 50, 200]])
      probe(h, [[10, 'a', 150], [10, 'a', 150], [10, 'a', 250]], ['+I', '-D', '+I'])
      h.watermark(300)
    }
    expect(left.take()).toEqual([['+I', 10, 'a', 150, null, null, null], ['-D', 10, 'a', 150, null, null, null], ['+I', 10, 'a', 250, 'a', 50, 200]])
    expect(inner.take()).toEqual([['+I', 10, 'a', 250, 'a', 50, 200]])
  })

  it.each(['INNER', 'LEFT'] as const)('%s: straight, checkpointed midway and restored emit the same', async type => {
    type Step = { input: number; rows: Row[]; kinds?: string[] } | { wm: number }
    const before: Step[] = [
      { input: 1, rows: [['a', 1, 100], ['b', 1, 100]] },
      { input: 0, rows: [[1, 'a', 150], [2, 'b', 400], [3, 'a', 450]] },
      { wm: 200 },
      { input: 1, rows: [['a', 2, 300], ['b', 1, 350]], kinds: ['+I', '-D'] },
    ]
    const after: Step[] = [{ input: 0, rows: [[4, 'a', 320], [5, 'c', 330]] }, { wm: 500 }, { input: 1, rows: [['c', 7, 600]] }, {
      input: 0,
      rows: [[6, 'c', 700], [7, 'b', 700]],
    }, { wm: 1000 }]
    const run = (h: Harness, steps: Step[]) => steps.forEach(s => ('wm' in s ? h.watermark(s.wm) : h.process(s.rows, s.kinds, s.input)))
    const straight = await join(spec(type))
    run(straight, [...before, ...after])
    const paused = await join(spec(type))
    run(paused, before)
    const checkpoint = paused.checkpoint()
    const emittedBefore = paused.take()
    const restored = await join(spec(type), checkpoint)
    run(restored, after)
    expect(restored.out.length).toBeGreaterThan(2)
    expect([...emittedBefore, ...restored.out]).toEqual(straight.out)
  })
})

describe('processing-time temporal join operator', () => {
  it('joins each probe row with the latest version at its arrival; a delete removes it', async () => {
    const h = await join(spec('LEFT', { timeDomain: 'processing', rightTime: -1 }))
    probe(h, [[1, 'a', 0]])
    version(h, [['a', 1, 0], ['a', 1, 0], ['a', 2, 0]], ['+I', '-U', '+U'])
    probe(h, [[2, 'a', 0]])
    version(h, [['a', 2, 0]], ['-D'])
    probe(h, [[3, 'a', 0]])
    expect(h.take()).toEqual([['+I', 1, 'a', 0, null, null, null], ['+I', 2, 'a', 0, 'a', 2, 0], ['+I', 3, 'a', 0, null, null, null]])
    expect(h.state.stats().entries).toBe(0)
  })
})
