// INTERSECT [ALL] and EXCEPT [ALL] → a SetOp node: both inputs keyed by the whole row, each row's
// count on either side kept, and the row emitted as many times as SQL says (once, for the set forms).
import type * as ast from '../../grammar/ast.js'
import type { Field } from '../../common/types.js'
import type { LogicalPlan } from '../logical/nodes.js'
import type { JobConfig } from '../../common/config/index.js'
import { formatDuration } from '../../common/durations.js'
import { Scope } from './scope.js'
import type { BoundRelation } from './join-binder.js'

/** `left` and `right` already have the columns (and types) of `fields`. */
export function setOperation(q: ast.SetOperation, left: LogicalPlan, right: LogicalPlan, fields: readonly Field[], config: JobConfig): BoundRelation {
  const ms = config.stateTtlMs
  const ttl = { ms, source: ms > 0 ? `table.exec.state.ttl = '${formatDuration(ms)}'` : 'none' }
  const plan: LogicalPlan = { kind: 'SetOp', op: q.op as 'INTERSECT' | 'EXCEPT', all: q.all, left, right, ttl, fields, span: q.span }
  return { plan, scope: Scope.of(fields) }
}
