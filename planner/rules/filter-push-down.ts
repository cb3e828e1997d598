// Moves filters toward the source: through projections, window TVFs and unions, and into the scan.
import type { Rex } from '../../core/rex.js'
import { substituteInputs, isNonDeterministic, inputsUsed, readsWatermark } from '../../core/rex.js'
import { resolveCall } from '../../expr/index.js'
import type { LogicalPlan } from '../logical/nodes.js'

function and(a: Rex, b: Rex): Rex {
  return resolveCall('AND', [a, b])
}

export function pushFilterDown(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Filter') return undefined
  const input = plan.input
  const cond = plan.condition
  switch (input.kind) {
    case 'Filter':
      return { ...input, condition: and(input.condition, cond) }
    case 'Scan':
      // The source's filter runs before its watermark is taken from the rows: CURRENT_WATERMARK stays in a Calc after it.
      if (readsWatermark(cond)) return undefined
      return { ...input, filter: input.filter ? and(input.filter, cond) : cond }
    case 'Project': {
      if (input.exprs.some(isNonDeterministic)) return undefined
      const pushed = substituteInputs(cond, input.exprs)
      if (isNonDeterministic(pushed)) return undefined
      return { ...input, input: { kind: 'Filter', input: input.input, condition: pushed, fields: input.input.fields, span: plan.span } }
    }
    case 'WindowTvf': {
      // The TVF's first columns are its input's; a condition on those alone can run before it.
      const n = input.input.fields.length
      if ([...inputsUsed(cond)].some(i => i >= n || i === input.timeIndex)) return undefined
      return { ...input, input: { kind: 'Filter', input: input.input, condition: cond, fields: input.input.fields, span: plan.span } }
    }
    case 'Unnest': {
      // A condition on the input's columns alone keeps or drops an input row with all its elements' rows.
      const n = input.input.fields.length
      if (isNonDeterministic(cond) || [...inputsUsed(cond)].some(i => i >= n)) return undefined
      return { ...input, input: { kind: 'Filter', input: input.input, condition: cond, fields: input.input.fields, span: plan.span } }
    }
    case 'Union':
      return { ...input, inputs: input.inputs.map(i => ({ kind: 'Filter', input: i, condition: cond, fields: i.fields, span: plan.span }) as LogicalPlan) }
    default:
      return undefined
  }
}
