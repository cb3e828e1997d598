// The operator kinds of ranking: deduplication, Top-N and window Top-N, as the runtime sees them.
import type { DeduplicateSpec, RankSpec } from '../../core/rank.js'
import type { OperatorDescriptor } from '../../core/operator.js'
import { DeduplicateOperator } from './deduplicate.js'
import { TopNOperator } from './top-n.js'
import { WindowTopNOperator } from './window-top-n.js'

/** With mini-batch off each row is its own batch, so each emits its own changes (as Flink without mini-batch). */
export const deduplicate: OperatorDescriptor<DeduplicateSpec> = {
  traits: (spec, config) => ({ keyedState: true, input: config.miniBatch ? 'batch' : 'row', ttlSweep: spec.ttlMs > 0, timers: [] }),
  create: spec => new DeduplicateOperator(spec),
}

/** Regular Top-N (updating output), or window Top-N (timers at each window's end, insert-only output). */
export const rank: OperatorDescriptor<RankSpec> = {
  traits: (spec, config) => ({
    keyedState: true,
    input: spec.window !== undefined || config.miniBatch ? 'batch' : 'row',
    ttlSweep: spec.window === undefined && spec.ttlMs > 0,
    timers: spec.window === undefined ? [] : [spec.window.timeDomain],
  }),
  create: spec => (spec.window === undefined ? new TopNOperator(spec) : new WindowTopNOperator(spec)),
}
