// The physical spec of a regular join: per side its keys, its unique key (what one state entry
// holds), whether it is the outer side, whether it carries retractions, and its state TTL.
import type { JoinSideSpec, JoinSpec } from '../../core/job-graph.js'
import type { Join, LogicalPlan, SideTtl } from '../logical/nodes.js'
import { changelogOf } from '../changelog.js'
import { uniqueKeyOf } from '../unique-keys.js'

export function joinSpec(plan: Join): JoinSpec {
  const t = plan.joinType
  return {
    kind: 'Join',
    joinType: t,
    left: side(plan.left, plan.leftKeys, t === 'LEFT' || t === 'FULL', plan.leftTtl),
    right: side(plan.right, plan.rightKeys, t === 'RIGHT' || t === 'FULL', plan.rightTtl),
    ...(plan.residual === undefined ? {} : { residual: plan.residual }),
  }
}

function side(input: LogicalPlan, keys: readonly number[], outer: boolean, ttl: SideTtl): JoinSideSpec {
  const uniqueKey = uniqueKeyOf(input)
  return {
    keys,
    ...(uniqueKey === undefined ? {} : { uniqueKey }),
    outer,
    updating: changelogOf(input).mode === 'updating',
    ttlMs: ttl.ms,
    width: input.fields.length,
  }
}
