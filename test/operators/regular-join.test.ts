// The regular join operator alone: its exact changelog for inner and outer joins, NULL keys, updating
// inputs on either side, both state shapes (per row with counts, per unique key), TTL, and the
// three-way checkpoint test (straight, checkpointed midway, restored).
import { describe, expect, it } from 'vitest'
import { RegularJoinOperator } from '../../operators/join/regular-join.js'
import type { JoinSideSpec, JoinSpec } from '../../core/job-graph.js'
import type { Row } from '../../core/batch.js'
import { inputRef } from '../../core/rex.js'
import { T } from '../../common/types.js'
import { resolveCall } from '../../expr/index.js'
import { harness, type Harness } from './harness.js'

// Left rows: [id, name]; right rows: [oid, pid, amt]; joined on left.id = right.pid.
const LEFT_KEYS = [0]
const RIGHT_KEYS = [1]

function side(keys: number[], width: number, extra: Partial<JoinSideSpec> = {}): JoinSideSpec {
  return { keys, outer: false, updating: false, ttlMs: 0, width, ...extra }
}

function spec(joinType: JoinSpec['joinType'],
  extra: { left?: Partial<JoinSideSpec>; right?: Partial<JoinSideSpec>; residual?: JoinSpec['residual'] } = {}): JoinSpec
{
  return {
    kind: 'Join',
    joinType,
    left: side(LEFT_KEYS, 2, { outer: joinType === 'LEFT' || joinType === 'FULL', ...extra.left }),
    right: side(RIGHT_KEYS, 3, { outer: joinType === 'RIGHT' || joinType === 'FULL', ...extra.right }),
    ...(extra.residual ? { residual: extra.residual } : {}),
  }
}

async function join(s: JoinSpec, restore?: Awaited<ReturnType<Harness['checkpoint']>>): Promise<Harness> {
  return harness(new RegularJoinOperator(s), { keys: LEFT_KEYS, inputKeys: [LEFT_KEYS, RIGHT_KEYS], restore })
}

const L = (rows: Row[], kinds?: string[]) => ({ input: 0, rows, kinds })
const R = (rows: Row[], kinds?: string[]) => ({ input: 1, rows, kinds })

describe('regular join operator', () => {
  it('inner: pairs each row with the stored rows of the other side, duplicates counted', async () => {
    const h = await join(spec('INNER', { left: { updating: true }, right: { updating: true } }))
    h.process([[1, 'a'], [2, 'b']])
    expect(h.take()).toEqual([])
    h.process([[10, 1, 5], [11, 1, 5], [12, 3, 1]], undefined, 1)
    expect(h.take()).toEqual([['+I', 1, 'a', 10, 1, 5], ['+I', 1, 'a', 11, 1, 5]])
    // A second identical left row: one more pair per stored right row.
    h.process([[1, 'a']])
    expect(h.take()).toEqual([['+I', 1, 'a', 10, 1, 5], ['+I', 1, 'a', 11, 1, 5]])
    // A right row now pairs with both copies of the left row.
    h.process([[13, 1, 2]], undefined, 1)
    expect(h.take()).toEqual([['+I', 1, 'a', 13, 1, 2], ['+I', 1, 'a', 13, 1, 2]])
    // Retracting one copy retracts its pairs, with the retraction's kind.
    h.process([[1, 'a']], ['-D'])
    expect(h.take()).toEqual([['-D', 1, 'a', 10, 1, 5], ['-D', 1, 'a', 11, 1, 5], ['-D', 1, 'a', 13, 1, 2]])
    h.process([[1, 'a']], ['-U'])
    expect(h.take()).toEqual([['-U', 1, 'a', 10, 1, 5], ['-U', 1, 'a', 11, 1, 5], ['-U', 1, 'a', 13, 1, 2]])
    // Nothing of id 1 is left on the left.
    h.process([[14, 1, 0]], undefined, 1)
    expect(h.take()).toEqual([])
  })

  it('NULL keys never match, and an outer side emits them padded and retracts them', async () => {
    const h = await join(spec('FULL'), undefined)
    h.process([[null, 'n']])
    h.process([[10, null, 1]], undefined, 1)
    h.process([[null, 'n']], ['-D'])
    expect(h.take()).toEqual([['+I', null, 'n', null, null, null], ['+I', null, null, 10, null, 1], ['-D', null, 'n', null, null, null]])
    expect(h.state.stats().entries).toBe(0)
  })

  it('left: the padded row goes when the first match comes and comes back when the last match goes', async () => {
    const h = await join(spec('LEFT', { right: { updating: true } }))
    h.process([[1, 'a']])
    expect(h.take()).toEqual([['+I', 1, 'a', null, null, null]])
    h.process([[10, 1, 5]], undefined, 1)
    expect(h.take()).toEqual([['-D', 1, 'a', null, null, null], ['+I', 1, 'a', 10, 1, 5]])
    h.process([[11, 1, 6]], undefined, 1)
    expect(h.take()).toEqual([['+I', 1, 'a', 11, 1, 6]])
    h.process([[10, 1, 5]], ['-D'], 1)
    expect(h.take()).toEqual([['-D', 1, 'a', 10, 1, 5]])
    h.process([[11, 1, 6]], ['-U'], 1)
    expect(h.take()).toEqual([['-U', 1, 'a', 11, 1, 6], ['+I', 1, 'a', null, null, null]])
    // Right rows without a left match emit nothing in a LEFT join.
    h.process([[12, 2, 1]], undefined, 1)
    expect(h.take()).toEqual([])
    // A left row arriving to a match is never padded; retracting it retracts the pair only.
    h.process([[2, 'b']])
    h.process([[2, 'b']], ['-D'])
    expect(h.take()).toEqual([['+I', 2, 'b', 12, 2, 1], ['-D', 2, 'b', 12, 2, 1]])
  })

  it('right and full: the right side is padded too; a residual condition decides what matches', async () => {
    // Pairs only where amt > 2 (column 4 of the joined row).
    const residual = resolveCall('>', [inputRef(4, T.int()), inputRef(0, T.int())])
    const h = await join(spec('FULL', { residual }))
    h.process([[10, 1, 0]], undefined, 1)
    h.process([[1, 'a']])
    expect(h.take()).toEqual([['+I', null, null, 10, 1, 0], ['+I', 1, 'a', null, null, null]])
    h.process([[11, 1, 7]], undefined, 1)
    expect(h.take()).toEqual([['-D', 1, 'a', null, null, null], ['+I', 1, 'a', 11, 1, 7]])
    h.process([[1, 'a']], ['-D'])
    expect(h.take()).toEqual([['-D', 1, 'a', 11, 1, 7], ['+I', null, null, 11, 1, 7]])
    const r = await join(spec('RIGHT'))
    r.process([[10, 1, 0]], undefined, 1)
    r.process([[1, 'a'], [1, 'a']])
    expect(r.take()).toEqual([['+I', null, null, 10, 1, 0], ['-D', null, null, 10, 1, 0], ['+I', 1, 'a', 10, 1, 0], ['+I', 1, 'a', 10, 1, 0]])
  })

  it('a side with a unique key keeps one entry per unique key and takes its updates', async () => {
    // Right side unique on oid (column 0): -U/+U pairs from an aggregate replace its row.
    const h = await join(spec('LEFT', { right: { uniqueKey: [0], updating: true } }))
    h.process([[10, 1, 5], [11, 1, 6]], undefined, 1)
    h.process([[1, 'a']])
    expect(h.take()).toEqual([['+I', 1, 'a', 10, 1, 5], ['+I', 1, 'a', 11, 1, 6]])
    h.process([[10, 1, 5], [10, 1, 9]], ['-U', '+U'], 1)
    expect(h.take()).toEqual([['-U', 1, 'a', 10, 1, 5], ['+U', 1, 'a', 10, 1, 9]])
    // Entries: one left row, two right unique keys.
    expect(h.state.stats().entries).toBe(3)
  })

  it('state TTL: rows of a side idle longer than its TTL no longer match', async () => {
    const h = await join(spec('INNER', { left: { ttlMs: 1000 } }))
    h.process([[1, 'a']])
    h.processingTime(500)
    h.process([[10, 1, 5]], undefined, 1)
    expect(h.take()).toEqual([['+I', 1, 'a', 10, 1, 5]])
    h.processingTime(1500)
    h.process([[11, 1, 5]], undefined, 1)
    expect(h.take()).toEqual([])
  })

  it.each(['INNER', 'LEFT', 'RIGHT', 'FULL'] as const)('%s: straight, checkpointed midway and restored emit the same', async type => {
    const before = [L([[1, 'a'], [2, 'b'], [null, 'n']]), R([[10, 1, 5], [11, 3, 1]]), L([[3, 'c']])]
    const after = [R([[10, 1, 5]], ['-D']), R([[12, 2, 2], [13, 1, 1]]), L([[2, 'b'], [2, 'b']], ['-U', '+U']), L([[3, 'c']], ['-D']), R([[14, 3, 3]])]
    const run = (h: Harness, steps: typeof before) => steps.forEach(s => h.process(s.rows, s.kinds, s.input))
    const updating = { left: { updating: true }, right: { updating: true } }
    const straight = await join(spec(type, updating))
    run(straight, [...before, ...after])
    const paused = await join(spec(type, updating))
    run(paused, before)
    const checkpoint = paused.checkpoint()
    const emittedBefore = paused.take()
    const restored = await join(spec(type, updating), checkpoint)
    run(restored, after)
    expect(straight.out.length).toBeGreaterThan(emittedBefore.length)
    expect([...emittedBefore, ...restored.out]).toEqual(straight.out)
  })
})
