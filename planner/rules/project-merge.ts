// Merges stacked projections and removes projections that change nothing.
import { substituteInputs, isNonDeterministic } from '../../core/rex.js'
import type { LogicalPlan } from '../logical/nodes.js'

export function mergeProjects(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Project' || plan.input.kind !== 'Project') return undefined
  const inner = plan.input
  // A non-deterministic inner expression must be evaluated once, not once per reference.
  if (inner.exprs.some(isNonDeterministic)) return undefined
  return { ...plan, input: inner.input, exprs: plan.exprs.map(e => substituteInputs(e, inner.exprs)) }
}

export function removeIdentityProject(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Project') return undefined
  const inFields = plan.input.fields
  if (plan.exprs.length !== inFields.length) return undefined
  const identity = plan.exprs.every((e, i) => e.kind === 'Input' && e.index === i && plan.fields[i]!.name === inFields[i]!.name)
  return identity ? plan.input : undefined
}
