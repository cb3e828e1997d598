// Two-phase aggregation (Flink's TwoStageOptimizedAggregateRule): a GROUP BY whose calls all merge
// runs as a LocalGroupAggregate chained ahead of the hash exchange, folding each input batch per key,
// and a GlobalGroupAggregate after it that merges the partial accumulators. Fewer rows cross the
// exchange and reach keyed state when a batch repeats its keys; the global keeps the one-phase
// aggregate's state (accumulators per key), so checkpoints restore across the strategy.
//
// When ('table.optimizer.agg-phase-strategy'):
// - 'two_phase': whenever it is safe. 'one_phase' and 'auto': never. Flink's AUTO splits whenever it
//   is safe; Weir's does not, as measured: its one-phase aggregate already folds each batch per key
//   (one state access per key and batch, like Flink's mini-batch aggregate), and rows cross threads
//   through shared memory, so what the local phase spares (the crossing of the rows it folds) costs
//   about what it adds (a pass over every row, a partial row per key) — q17 at parallelism 2 used as
//   much CPU per event or more, and a GROUP BY over keys that rarely repeat in a batch (count-10M) more.
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
  if (config.aggPhaseStrategy !== 'two_phase') return spec
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
