// The ordered list of rewrite rules. Each rule rewrites one node whose inputs are already rewritten;
// the list runs bottom-up until nothing changes.
import type { LogicalPlan } from '../logical/nodes.js'
import { inputsOf, withInputs } from '../logical/nodes.js'
import { pushFilterDown } from './filter-push-down.js'
import { mergeProjects, removeIdentityProject } from './project-merge.js'
import { pruneScanColumns } from './projection-push-down.js'
import { pruneJoinColumns } from './join-projection-push-down.js'
import { pruneSemiJoinLeft, pruneSemiJoinRight } from './semi-join-projection-push-down.js'
import { pruneOverColumns } from './over-projection-push-down.js'
import { pruneUnnestColumns } from './unnest-projection-push-down.js'
import { pruneRankColumn, rankFromFilter } from './rank.js'

type Rule = (plan: LogicalPlan) => LogicalPlan | undefined

// Order matters: filters move below projections first, so that merged projections and pruned scans
// see the final shape; column pruning runs last because it needs to know every column still used
// (through joins, semi joins and OVER first, so that the projections it puts on their inputs reach
// the scans). Rank rules run before OVER pruning: a ranked Over becomes a Rank or Deduplicate first.
const RULES: readonly Rule[] = [
  pushFilterDown,
  rankFromFilter,
  pruneRankColumn,
  mergeProjects,
  removeIdentityProject,
  pruneJoinColumns,
  pruneSemiJoinLeft,
  pruneSemiJoinRight,
  pruneOverColumns,
  pruneUnnestColumns,
  pruneScanColumns,
]

export function optimize(plan: LogicalPlan): LogicalPlan {
  for (let pass = 0; pass < 20; pass++) {
    const next = rewrite(plan)
    if (next === plan) return plan
    plan = next
  }
  return plan
}

function rewrite(plan: LogicalPlan): LogicalPlan {
  const inputs = inputsOf(plan)
  const newInputs = inputs.map(rewrite)
  let node = newInputs.some((n, i) => n !== inputs[i]) ? withInputs(plan, newInputs) : plan
  for (const rule of RULES) {
    const r = rule(node)
    if (r !== undefined) node = r
  }
  return node
}
