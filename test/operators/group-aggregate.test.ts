// GroupAggregateOperator: the exact changelog it emits (+I, -U/+U, -D), mini-batching, global aggregates, DISTINCT, TTL.
import { describe, expect, it } from 'vitest'
import { GroupAggregateOperator } from '../../operators/group-aggregate.js'
import type { GroupAggregateSpec } from '../../core/job-graph.js'
import type { AggCall } from '../../core/aggregates.js'
import { T } from '../../common/types.js'
import { aggCall, harness } from './harness.js'

function spec(keys: number[], aggs: AggCall[], extra: Partial<GroupAggregateSpec> = {}): GroupAggregateSpec {
  return { kind: 'GroupAggregate', keys, aggs, inputUpdating: false, ttlMs: 0, ...extra }
}

describe('GroupAggregateOperator', () => {
  it('emits +I for a new group and -U/+U when it changes, once per key per batch', async () => {
    const h = await harness(new GroupAggregateOperator(spec([0], [aggCall('COUNT', null), aggCall('SUM', 1, T.int())])), { keys: [0] })
    h.process([['a', 1], ['b', 2], ['a', 3]])
    expect(h.take()).toEqual([['+I', 'a', 2, 4], ['+I', 'b', 1, 2]])
    h.process([['b', 5], ['a', 5], ['b', null]])
    expect(h.take()).toEqual([['-U', 'b', 1, 2], ['+U', 'b', 3, 7], ['-U', 'a', 2, 4], ['+U', 'a', 3, 9]])
    expect(h.metrics.rowsIn).toBe(6)
    expect(h.metrics.rowsOut).toBe(6)
  })

  it('emits nothing when the result is unchanged', async () => {
    const h = await harness(new GroupAggregateOperator(spec([0], [aggCall('MAX', 1, T.int())])), { keys: [0] })
    h.process([['a', 5]])
    h.process([['a', 3], ['a', 5]])
    h.process([['a', 6]])
    expect(h.take()).toEqual([['+I', 'a', 5], ['-U', 'a', 5], ['+U', 'a', 6]])
  })

  it('retracts, deletes a group whose last row is retracted, and starts it over', async () => {
    const op = new GroupAggregateOperator(spec([0], [aggCall('COUNT', null), aggCall('MAX', 1, T.int()), aggCall('SUM', 1, T.int())], { inputUpdating: true }))
    const h = await harness(op, { keys: [0] })
    h.process([['a', 1], ['a', 7], ['b', 2]])
    expect(h.take()).toEqual([['+I', 'a', 2, 7, 8], ['+I', 'b', 1, 2, 2]])
    h.process([['a', 7], ['a', 4]], ['-U', '+U'])
    expect(h.take()).toEqual([['-U', 'a', 2, 7, 8], ['+U', 'a', 2, 4, 5]])
    h.process([['b', 2]], ['-D'])
    expect(h.take()).toEqual([['-D', 'b', 1, 2, 2]])
    expect([...h.state.keys('acc')].map(k => k.values)).toEqual([['a']])
    h.process([['b', 9]])
    expect(h.take()).toEqual([['+I', 'b', 1, 9, 9]])
    h.process([['a', 1], ['a', 4]], ['-D', '-D'])
    expect(h.take()).toEqual([['-D', 'a', 2, 4, 5]])
    expect(h.state.stats().entries).toBe(2) // b's accumulator and its one MAX value
  })

  it('ignores retractions for groups that do not exist, and groups born and gone in one batch', async () => {
    const op = new GroupAggregateOperator(spec([0], [aggCall('COUNT', null)], { inputUpdating: true }))
    const h = await harness(op, { keys: [0] })
    h.process([['x', 1], ['y', 1], ['y', 2], ['z', 1], ['z', 1]], ['-D', '+I', '-D', '-U', '+I'])
    expect(h.take()).toEqual([['+I', 'z', 1]]) // y: +I then -D; z: leading -U skipped
  })

  it('emits groups in order of first appearance in the batch, with retractions and re-adds folded', async () => {
    const op = new GroupAggregateOperator(spec([0], [aggCall('SUM', 1, T.int())], { inputUpdating: true }))
    const h = await harness(op, { keys: [0] })
    h.process([['a', 1], ['b', 1]])
    h.take()
    h.process([['b', 1], ['a', 1], ['b', 5], ['a', 2]], ['-D', '-U', '+I', '+U'])
    // b hits zero rows mid-batch but ends with one: an update, not -D/+I
    expect(h.take()).toEqual([['-U', 'b', 1], ['+U', 'b', 5], ['-U', 'a', 1], ['+U', 'a', 2]])
  })

  it('keeps COUNT DISTINCT and MIN right through retractions', async () => {
    const op = new GroupAggregateOperator(
      spec([0], [aggCall('COUNT', 1, T.string(), { distinct: true }), aggCall('MIN', 1, T.string())], { inputUpdating: true }),
    )
    const h = await harness(op, { keys: [0] })
    h.process([['k', 'b'], ['k', 'a'], ['k', 'a']])
    h.process([['k', 'a']], ['-D'])
    h.process([['k', 'a']], ['-D'])
    expect(h.take()).toEqual([['+I', 'k', 2, 'a'], ['-U', 'k', 2, 'a'], ['+U', 'k', 1, 'b']])
  })

  it('computes a global aggregate (no key columns)', async () => {
    const op = new GroupAggregateOperator(spec([], [aggCall('COUNT', null), aggCall('AVG', 0, T.double())], { inputUpdating: true }))
    const h = await harness(op, { keys: [] })
    h.process([[1], [2]])
    h.process([[3]])
    h.process([[1], [2], [3]], ['-D', '-D', '-D'])
    expect(h.take()).toEqual([['+I', 2, 1.5], ['-U', 2, 1.5], ['+U', 3, 2], ['-D', 3, 2]])
  })

  it('runs SELECT DISTINCT as a group aggregate without aggregates', async () => {
    const op = new GroupAggregateOperator(spec([0, 1], [], { inputUpdating: true }))
    const h = await harness(op, { keys: [0, 1] })
    h.process([['a', 1, 'x'], ['a', 1, 'y'], ['a', 2, 'z']])
    h.process([['a', 1, 'x']], ['-D'])
    h.process([['a', 1, 'y']], ['-D'])
    h.process([['a', 1, 'w']])
    expect(h.take()).toEqual([['+I', 'a', 1], ['+I', 'a', 2], ['-D', 'a', 1], ['+I', 'a', 1]])
  })

  it('expires idle groups after the state TTL and starts them over', async () => {
    const op = new GroupAggregateOperator(
      spec([0], [aggCall('COUNT', null), aggCall('COUNT', 1, T.int(), { distinct: true })], { ttlMs: 1000, inputUpdating: true }),
    )
    const h = await harness(op, { keys: [0] })
    h.processingTime(0)
    h.process([['a', 1], ['b', 1]])
    h.processingTime(900)
    h.process([['a', 2]])
    h.processingTime(1500) // b last written at 0: expired; a at 900: live
    h.process([['a', 2], ['b', 1]])
    expect(h.take()).toEqual([
      ['+I', 'a', 1, 1],
      ['+I', 'b', 1, 1],
      ['-U', 'a', 1, 1],
      ['+U', 'a', 2, 2],
      ['-U', 'a', 2, 2],
      ['+U', 'a', 3, 2],
      ['+I', 'b', 1, 1],
    ])
    h.processingTime(1600)
    h.process([['b', 5], ['b', 5]], ['+I', '-D']) // with TTL, an unchanged result is still emitted (as Flink does)
    expect(h.take()).toEqual([['-U', 'b', 1, 1], ['+U', 'b', 1, 1]])
    h.processingTime(10_000)
    expect(h.state.stats().entries).toBe(0)
    h.process([['a', 7]], ['-D']) // a retraction of an expired group does nothing
    expect(h.take()).toEqual([])
  })
})
