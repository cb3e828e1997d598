// Two-phase aggregation (Flink's TwoStageOptimizedAggregateRule): a GROUP BY whose calls all merge
// runs as a LocalGroupAggregate chained ahead of the hash exchange, folding each input batch per key,
// and a GlobalGroupAggregate after it that merges the partial accumulators. Fewer rows cross the
// exchange and reach keyed state when a batch repeats its keys; the global keeps the one-phase
// aggregate's state (accumulators per key), so checkpoints restore across the strategy.
//
// When ('table.optimizer.agg-phase-strategy'):
// - 'one_phase': never. 'two_phase': whenever it is safe. 'auto': when it is safe and the job runs at
//   parallelism > 1 (at 1 there is no exchange to spare: the local phase would be extra work).
// - Safe, as Flink: mini-batch on ('table.exec.mini-batch.enabled': Weir's mini-batch is the batch a
//   source read, so the local phase needs no buffer or timer), every call mergeable (COUNT, SUM, MIN,
//   MAX, AVG, with FILTER; no DISTINCT, no user aggregate), and — unlike Flink, which counts
//   retractions in the local phase — an insert-only input.
import type { Field } from '../../common/types.js'
import type { JobConfig } from '../../common/config/index.js'
import type { GroupAggregateSpec, LocalGroupAggregateSpec } from '../../core/job-graph.js'
import { partialColumns, unmergeable } from '../../core/partial-aggregate.js'

/** A GROUP BY split in two: the local phase (with its output schema) and the global one. */
export interface TwoPhase {
  readonly local: LocalGroupAggregateSpec
  readonly localSchema: readonly Field[]
  readonly global: GroupAggregateSpec
}

/**
 * The two phases of the one-phase aggregate `spec` (its input's columns are `input`), or `spec` as it
 * is — with, when the strategy asked for two phases, why it stays one (EXPLAIN shows it).
 *
 * @example splitAggregate(spec, fields, config) // { local, localSchema, global } at parallelism 2
 */
export function splitAggregate(spec: GroupAggregateSpec, input: readonly Field[], config: JobConfig): TwoPhase | GroupAggregateSpec {
  const strategy = config.aggPhaseStrategy
  if (strategy === 'one_phase' || (strategy === 'auto' && config.parallelism === 1)) return spec
  const why = onePhaseReason(spec, config)
  if (why !== undefined) return { ...spec, onePhase: why }
  const local: LocalGroupAggregateSpec = { kind: 'LocalGroupAggregate', keys: spec.keys, aggs: spec.aggs }
  const localSchema = [...spec.keys.map(k => input[k]!), ...partialColumns(spec.aggs).fields]
  const global: GroupAggregateSpec = { ...spec, keys: spec.keys.map((_, i) => i), phase: 'global' }
  return { local, localSchema, global }
}

function onePhaseReason(spec: GroupAggregateSpec, config: JobConfig): string | undefined {
  if (!config.miniBatch) return "'table.exec.mini-batch.enabled' is false: the local phase folds a mini-batch"
  if (spec.inputUpdating) return 'the input is updating: the local phase takes insert-only rows'
  for (const a of spec.aggs) {
    const why = unmergeable(a)
    if (why !== undefined) return why
  }
  return undefined
}
