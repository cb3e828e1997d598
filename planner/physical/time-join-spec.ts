// The physical spec of an interval or window join: the regular join's sides (append-only, no TTL:
// their state is freed by time) with the time bounds of the logical join.
import type { IntervalJoinSpec, WindowJoinSpec } from '../../core/job-graph.js'
import type { Join } from '../logical/nodes.js'
import { joinSpec } from './join-spec.js'

export function timeJoinSpec(plan: Join): IntervalJoinSpec | WindowJoinSpec {
  const time = plan.time!
  const base = joinSpec(plan)
  const noTtl = { ttlMs: 0 }
  const sides = { joinType: base.joinType, left: { ...base.left, ...noTtl }, right: { ...base.right, ...noTtl },
    ...(base.residual === undefined ? {} : { residual: base.residual }) }
  if (time.kind === 'window') return { kind: 'WindowJoin', ...sides, window: time.window, leftEnd: time.leftEnd, rightEnd: time.rightEnd }
  return { kind: 'IntervalJoin', ...sides, timeDomain: time.domain, leftTime: time.leftTime, rightTime: time.rightTime, lower: time.lower, upper: time.upper }
}
