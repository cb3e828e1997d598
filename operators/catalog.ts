// The operators by the kind of their spec, each module imported when first needed, and what the
// runtime asks of them (traits, a new operator). The job's thread loads them all (registry.ts); a
// worker thread loads only the kinds its job's graph holds, so it starts without the modules (and
// the expression and aggregate code behind them) of operators it never runs. A new kind of
// TransformSpec fails the build here until it has its module.
import type { JobConfig } from '../common/config/index.js'
import { isEndpoint, type OperatorSpec, type TransformSpec } from '../core/job-graph.js'
import { STATELESS, type Operator, type OperatorDescriptor, type OperatorTraits } from '../core/operator.js'
import { WeirError } from '../common/errors.js'

type Kind = TransformSpec['kind']
type DescriptorOf<K extends Kind> = OperatorDescriptor<Extract<TransformSpec, { kind: K }>>
/** A descriptor of every kind, as registry.ts imports them. */
export type OperatorDescriptors = { readonly [K in Kind]: DescriptorOf<K> }

const MODULES: { readonly [K in Kind]: () => Promise<DescriptorOf<K>> } = {
  Calc: async () => (await import('./calc.js')).calc,
  Expand: async () => (await import('./expand.js')).expand,
  Unnest: async () => (await import('./unnest.js')).unnest,
  Union: async () => (await import('./union.js')).union,
  WindowAssign: async () => (await import('./window-assign.js')).windowAssign,
  WindowAggregate: async () => (await import('./window-aggregate.js')).windowAggregate,
  GroupAggregate: async () => (await import('./group-aggregate.js')).groupAggregate,
  LocalGroupAggregate: async () => (await import('./local-aggregate.js')).localGroupAggregate,
  Join: async () => (await import('./join/regular-join.js')).regularJoin,
  Deduplicate: async () => (await import('./rank/descriptors.js')).deduplicate,
  Rank: async () => (await import('./rank/descriptors.js')).rank,
  Sort: async () => (await import('./rank/sort.js')).sort,
  TemporalJoin: async () => (await import('./join/temporal-join.js')).temporalJoin,
  SemiJoin: async () => (await import('./join/semi-join.js')).semiJoin,
  SetOp: async () => (await import('./join/set-op.js')).setOp,
  ScalarJoin: async () => (await import('./join/scalar-join.js')).scalarJoin,
  MarkerJoin: async () => (await import('./join/marker-join.js')).markerJoin,
  OverAggregate: async () => (await import('./over/over-aggregate.js')).overAggregate,
  IntervalJoin: async () => (await import('./join/interval-join.js')).intervalJoin,
  WindowJoin: async () => (await import('./join/window-join.js')).windowJoin,
  WindowSemiJoin: async () => (await import('./join/window-semi-join.js')).windowSemiJoin,
  UpsertMaterialize: async () => (await import('./upsert-materialize.js')).upsertMaterialize,
  ProcessFunction: async () => (await import('./process-function.js')).processFunction,
}

const loaded = new Map<string, OperatorDescriptor<TransformSpec>>()

/** Makes every descriptor (already imported, by registry.ts) available to `operatorTraits` and `createOperator`. */
export function addOperators(descriptors: OperatorDescriptors): void {
  for (const [kind, d] of Object.entries(descriptors)) loaded.set(kind, d as OperatorDescriptor<TransformSpec>)
}

/** Imports the operators of the kinds in `specs` not loaded yet (sources, sinks and other endpoints have none). */
export async function loadOperators(specs: Iterable<OperatorSpec>): Promise<void> {
  const kinds = new Set<Kind>()
  for (const spec of specs) if (!isEndpoint(spec) && !loaded.has(spec.kind)) kinds.add(spec.kind)
  await Promise.all([...kinds].map(async kind => {
    if (!Object.hasOwn(MODULES, kind)) throw WeirError.internal(`no operator module for a spec of kind ${kind}`)
    loaded.set(kind, await (MODULES[kind] as () => Promise<OperatorDescriptor<TransformSpec>>)())
  }))
}

function descriptorOf<S extends TransformSpec>(spec: S): OperatorDescriptor<S> {
  const d = loaded.get(spec.kind)
  if (d === undefined) {
    throw WeirError.internal(`operator ${spec.kind} is not loaded on this thread`, { help: 'this is a bug in Weir; please report it with the job' })
  }
  return d as unknown as OperatorDescriptor<S>
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
