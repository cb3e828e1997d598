// What each operator kind declares to the runtime (operators/registry.ts): the runtime schedules,
// snapshots and sweeps by these traits alone, so a wrong one loses state, timers or changes.
import { describe, expect, it } from 'vitest'
import { operatorTraits } from '../../operators/registry.js'
import { jobConfigOf } from '../../common/config/index.js'
import type { OperatorSpec } from '../../core/job-graph.js'

const config = jobConfigOf({})
const miniBatchOff = jobConfigOf({ 'table.exec.mini-batch.enabled': 'false' })
const group = (ttlMs: number): OperatorSpec => ({ kind: 'GroupAggregate', keys: [0], aggs: [], inputUpdating: false, ttlMs })
const window = (timeDomain: 'event' | 'processing'): OperatorSpec => ({ kind: 'WindowAggregate', window: { kind: 'TUMBLE', size: 1000, offset: 0 },
  timeIndex: 1, timeDomain, keys: [0], aggs: [] })

describe('operator traits', () => {
  it('a group aggregate keeps keyed state, takes rows one at a time with mini-batch off, and sweeps only with a TTL', () => {
    expect(operatorTraits(group(0), config)).toEqual({ keyedState: true, input: 'batch', ttlSweep: false, timers: [] })
    expect(operatorTraits(group(0), miniBatchOff).input).toBe('row')
    expect(operatorTraits(group(60_000), config).ttlSweep).toBe(true)
  })

  it('a window aggregate keeps keyed state and registers timers in its time domain', () => {
    expect(operatorTraits(window('event'), config)).toEqual({ keyedState: true, input: 'batch', ttlSweep: false, timers: ['event'] })
    expect(operatorTraits(window('processing'), config).timers).toEqual(['processing'])
  })

  it('stateless operators and the nodes the runtime runs itself keep nothing', () => {
    const stateless: OperatorSpec[] = [
      { kind: 'Calc', projection: [] },
      { kind: 'Union' },
      { kind: 'WindowAssign', window: { kind: 'TUMBLE', size: 1000, offset: 0 }, timeIndex: 0, timeDomain: 'processing' },
      { kind: 'Values', rows: [] },
      { kind: 'Collect', schema: [], inputChangelog: 'insert-only' },
    ]
    for (const spec of stateless) expect(operatorTraits(spec, config), spec.kind).toEqual({ keyedState: false, input: 'batch', ttlSweep: false, timers: [] })
  })
})
