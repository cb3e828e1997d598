// The one place that maps an operator spec from the plan to its implementation.
import { WeirError } from '../common/errors.js'
import { assertNever } from '../common/assert.js'
import type { OperatorSpec } from '../core/job-graph.js'
import type { Operator } from '../core/operator.js'
import { CalcOperator } from './calc.js'
import { UnionOperator } from './union.js'
import { WindowAssignOperator } from './window-assign.js'
import { WindowAggregateOperator } from './window-aggregate.js'
import { GroupAggregateOperator } from './group-aggregate.js'

export function createOperator(spec: OperatorSpec): Operator {
  switch (spec.kind) {
    case 'Calc': return new CalcOperator(spec)
    case 'Union': return new UnionOperator()
    case 'WindowAssign': return new WindowAssignOperator(spec)
    case 'WindowAggregate': return new WindowAggregateOperator(spec)
    case 'GroupAggregate': return new GroupAggregateOperator(spec)
    case 'Source': case 'Values': case 'Sink': case 'Collect':
      throw WeirError.internal(`${spec.kind} is driven by the runtime, not created as an operator`)
    default: return assertNever(spec)
  }
}
