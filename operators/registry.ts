// The one place that maps an operator spec from the plan to its implementation and to what it
// declares to the runtime (its traits). A new kind of TransformSpec fails the build here until it
// has its descriptor; the runtime needs no change for it.
import { sort } from './rank/sort.js'
import type { JobConfig } from '../common/config/index.js'
import { isEndpoint, type OperatorSpec, type TransformSpec } from '../core/job-graph.js'
import { STATELESS, type Operator, type OperatorDescriptor, type OperatorTraits } from '../core/operator.js'
import { WeirError } from '../common/errors.js'
import { calc } from './calc.js'
import { expand } from './expand.js'
import { unnest } from './unnest.js'
import { union } from './union.js'
import { windowAssign } from './window-assign.js'
import { windowAggregate } from './window-aggregate.js'
import { groupAggregate } from './group-aggregate.js'
import { localGroupAggregate } from './local-aggregate.js'
import { regularJoin } from './join/regular-join.js'
import { deduplicate, rank } from './rank/descriptors.js'
import { temporalJoin } from './join/temporal-join.js'
import { semiJoin } from './join/semi-join.js'
import { setOp } from './join/set-op.js'
import { scalarJoin } from './join/scalar-join.js'
import { markerJoin } from './join/marker-join.js'
import { overAggregate } from './over/over-aggregate.js'
import { intervalJoin } from './join/interval-join.js'
import { windowJoin } from './join/window-join.js'
import { windowSemiJoin } from './join/window-semi-join.js'
import { upsertMaterialize } from './upsert-materialize.js'
import { processFunction } from './process-function.js'

const OPERATORS: { readonly [K in TransformSpec['kind']]: OperatorDescriptor<Extract<TransformSpec, { kind: K }>> } = {
  Calc: calc,
  Expand: expand,
  Unnest: unnest,
  Union: union,
  WindowAssign: windowAssign,
  WindowAggregate: windowAggregate,
  GroupAggregate: groupAggregate,
  LocalGroupAggregate: localGroupAggregate,
  Join: regularJoin,
  Deduplicate: deduplicate,
  Rank: rank,
  Sort: sort,
  TemporalJoin: temporalJoin,
  SemiJoin: semiJoin,
  SetOp: setOp,
  ScalarJoin: scalarJoin,
  MarkerJoin: markerJoin,
  OverAggregate: overAggregate,
  IntervalJoin: intervalJoin,
  WindowJoin: windowJoin,
  WindowSemiJoin: windowSemiJoin,
  UpsertMaterialize: upsertMaterialize,
  ProcessFunction: processFunction,
}

function descriptorOf<S extends TransformSpec>(spec: S): OperatorDescriptor<S> {
  return OPERATORS[spec.kind] as unknown as OperatorDescriptor<S>
}

/**
 * What the runtime needs to know of a node: its operator's declaration, or for the nodes the runtime
 * runs itself (sources, sinks, VALUES, a SELECT's collector) none of it: no keyed state, no timers.
 */
export function operatorTraits(spec: OperatorSpec, config: JobConfig): OperatorTraits {
  if (isEndpoint(spec)) return STATELESS
  const traits = descriptorOf(spec).traits(spec, config)
  if (traits.timers.length > 0 && !traits.keyedState) {
    throw WeirError.internal(`operator ${spec.kind} declares timers but no keyed state: timers are keyed and checkpointed with the state`)
  }
  return traits
}

export function createOperator(spec: OperatorSpec): Operator {
  if (isEndpoint(spec)) throw WeirError.internal(`${spec.kind} is driven by the runtime, not created as an operator`)
  return descriptorOf(spec).create(spec)
}
