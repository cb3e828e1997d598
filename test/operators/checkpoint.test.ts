// Every stateful operator three ways on the same input: straight through, with a checkpoint
// midway, and restored from that checkpoint; all three must emit the same rows.
import { describe, expect, it } from 'vitest'
import { GroupAggregateOperator } from '../../operators/group-aggregate.js'
import { WindowAggregateOperator } from '../../operators/window-aggregate.js'
import { OverAggregateOperator } from '../../operators/over/over-aggregate.js'
import type { Operator } from '../../core/operator.js'
import type { Row } from '../../core/batch.js'
import { T } from '../../common/types.js'
import { aggCall, harness, type Harness } from './harness.js'

type Step = { rows: Row[]; kinds?: string[] } | { watermark: number } | { end: true }

function apply(h: Harness, step: Step): void {
  if ('rows' in step) h.process(step.rows, step.kinds)
  else if ('watermark' in step) h.watermark(step.watermark)
  else h.end()
}

async function threeWays(make: () => Operator, keys: number[], before: Step[], after: Step[]) {
  const straight = await harness(make(), { keys })
  for (const s of [...before, ...after]) apply(straight, s)

  const paused = await harness(make(), { keys })
  for (const s of before) apply(paused, s)
  const checkpoint = paused.checkpoint()
  const emittedBefore = paused.take()
  for (const s of after) apply(paused, s)

  const restored = await harness(make(), { keys, restore: checkpoint })
  for (const s of after) apply(restored, s)

  expect(straight.out.length).toBeGreaterThan(0)
  expect(paused.out).toEqual(straight.out)
  expect([...emittedBefore, ...restored.out]).toEqual(straight.out)
}

describe('checkpoint and restore', () => {
  it('group aggregate with DISTINCT and retractable MAX', async () => {
    const aggs = [aggCall('COUNT', null), aggCall('COUNT', 1, T.int(), { distinct: true }), aggCall('MAX', 1, T.int()), aggCall('SUM', 2, T.decimal(10, 2))]
    await threeWays(
      () => new GroupAggregateOperator({ kind: 'GroupAggregate', keys: [0], aggs, inputUpdating: true, ttlMs: 0 }),
      [0],
      [{ rows: [['a', 1, 100n], ['a', 5, 250n], ['b', 5, 1n], ['a', 5, 1n]] }],
      [
        { rows: [['a', 5, 250n], ['b', 5, 1n]], kinds: ['-D', '-D'] },
        { rows: [['a', 5, 1n]], kinds: ['-D'] },
        { rows: [['b', 2, 3n]] },
      ],
    )
  })

  it('HOP window aggregate with open windows and timers across the checkpoint', async () => {
    const aggs = [aggCall('COUNT', null), aggCall('AVG', 1, T.double())]
    await threeWays(
      () =>
        new WindowAggregateOperator({ kind: 'WindowAggregate', window: { kind: 'HOP', slide: 5, size: 10, offset: 0 }, timeIndex: 2, timeDomain: 'event',
          keys: [0], aggs }),
      [0],
      [{ rows: [['a', 1, 1], ['b', 2, 6], ['a', 3, 12]] }, { watermark: 5 }],
      [{ watermark: 5 }, { rows: [['a', 4, 7], ['b', 1, 3]] }, { watermark: 14 }, { end: true }],
    )
  })

  it('SESSION window aggregate merging after the checkpoint', async () => {
    const aggs = [aggCall('COUNT', 1, T.string(), { distinct: true }), aggCall('MIN', 1, T.string())]
    await threeWays(
      () => new WindowAggregateOperator({ kind: 'WindowAggregate', window: { kind: 'SESSION', gap: 10 }, timeIndex: 2, timeDomain: 'event', keys: [0], aggs }),
      [0],
      [{ rows: [['a', 'x', 0], ['a', 'y', 15], ['b', 'z', 40]] }, { watermark: 3 }],
      [{ watermark: 3 }, { rows: [['a', 'x', 8]] }, { watermark: 30 }, { end: true }],
    )
  })

  it('OVER aggregate with rows waiting for the watermark and rows retained by its frames across the checkpoint', async () => {
    const calls = [
      { fn: 'MAX' as const, agg: aggCall('MAX', 1, T.int()), frame: { unit: 'ROWS' as const, preceding: 2 } },
      { fn: 'COUNT' as const, agg: aggCall('COUNT', null), frame: { unit: 'RANGE' as const, preceding: 10 } },
      { fn: 'ROW_NUMBER' as const, name: 'rn' },
    ]
    await threeWays(
      () => new OverAggregateOperator({ kind: 'OverAggregate', partitionKeys: [0], timeIndex: 2, timeDomain: 'event', calls }),
      [0],
      [{ rows: [['a', 9, 1], ['b', 2, 6], ['a', 3, 12], ['a', 1, 14]] }, { watermark: 12 }],
      [{ watermark: 12 }, { rows: [['a', 4, 13], ['b', 1, 3], ['a', 2, 20]] }, { watermark: 21 }, { rows: [['a', 5, 30]] }, { end: true }],
    )
  })
})
