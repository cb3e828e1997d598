// What the planner infers for semi/anti joins, INTERSECT / EXCEPT and scalar-subquery joins: their
// output changelog, unique keys and the phrase naming them in messages.
import type { ChangelogMode } from '../../core/job-graph.js'
import type { LogicalPlan, MarkerJoin, ScalarJoin, SemiJoin, SetOp } from '../logical/nodes.js'

type Changelog = { mode: ChangelogMode; origin?: LogicalPlan }
type SubqueryNode = SemiJoin | SetOp | ScalarJoin | MarkerJoin

export function subqueryChangelog(plan: SubqueryNode, changelogOf: (p: LogicalPlan) => Changelog): Changelog {
  // A row that stops qualifying is retracted: an anti join (a match arrives), EXCEPT (the row shows up
  // on the right), a scalar join (the subquery's row changes); a semi join or INTERSECT only does so
  // when an input retracts. A marker join updates a row whose marker changes.
  // A window semi/anti join decides a row once, when its window closes: insert-only (its inputs are append-only).
  if (plan.kind === 'SemiJoin' && plan.window !== undefined) return { mode: 'insert-only' }
  const retracts = plan.kind === 'ScalarJoin' || plan.kind === 'MarkerJoin' || (plan.kind === 'SemiJoin' ? plan.anti : plan.op === 'EXCEPT')
  if (retracts) return { mode: 'updating', origin: plan }
  const updating = [plan.left, plan.right].map(changelogOf).find(c => c.mode === 'updating')
  return updating ?? { mode: 'insert-only' }
}

/** INTERSECT and EXCEPT (distributed by every column) emit each row at most once; their ALL forms do not. */
export function setOpUniqueKey(plan: SetOp): readonly number[] | undefined {
  return plan.all ? undefined : plan.fields.map((_, i) => i)
}

export function describeSubqueryNode(plan: SubqueryNode): string {
  switch (plan.kind) {
    case 'SemiJoin':
      return plan.nullAware ? 'the NOT IN subquery' : `the ${plan.window ? 'window ' : ''}${plan.anti ? 'anti' : 'semi'} join of a subquery`
    case 'SetOp':
      return `the ${plan.op}${plan.all ? ' ALL' : ''}`
    case 'ScalarJoin':
    case 'MarkerJoin':
      return plan.label
  }
}
