// The physical spec of a temporal join: its keys (the versioned table's primary key on the right),
// its time columns and domain, and the residual condition.
import type { TemporalJoinSpec } from '../../core/job-graph.js'
import type { TemporalJoin } from '../logical/nodes.js'

export function temporalJoinSpec(plan: TemporalJoin): TemporalJoinSpec {
  return {
    kind: 'TemporalJoin',
    joinType: plan.joinType,
    timeDomain: plan.timeDomain,
    leftKeys: plan.leftKeys,
    rightKeys: plan.rightKeys,
    leftTime: plan.leftTime,
    rightTime: plan.rightTime,
    leftWidth: plan.left.fields.length,
    rightWidth: plan.right.fields.length,
    ...(plan.residual === undefined ? {} : { residual: plan.residual }),
    ...(plan.versionedView === undefined ? {} : { versionedView: plan.versionedView }),
  }
}
