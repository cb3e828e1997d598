// Every operator, imported eagerly for the job's thread (the executor imports this module): the
// catalog (catalog.ts) holds them by kind; a worker thread imports only its job's kinds through
// `loadOperators` instead of this module.
import { addOperators } from './catalog.js'
import { sort } from './rank/sort.js'
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

export { createOperator, operatorTraits } from './catalog.js'

addOperators({
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
})
