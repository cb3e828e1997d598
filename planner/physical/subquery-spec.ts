// Physical specs of semi/anti joins, INTERSECT / EXCEPT and scalar-subquery joins, with the keys
// each input is hashed by.
import type { MarkerJoinSpec, ScalarJoinSpec, SemiJoinSpec, SetOpSpec, WindowSemiJoinSpec } from '../../core/subquery-specs.js'
import type { MarkerJoin, ScalarJoin, SemiJoin, SetOp } from '../logical/nodes.js'
import { changelogOf } from '../changelog.js'

export interface SubquerySpec {
  readonly name: string
  readonly spec: SemiJoinSpec | WindowSemiJoinSpec | SetOpSpec | ScalarJoinSpec | MarkerJoinSpec
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
}

export function subquerySpec(plan: SemiJoin | SetOp | ScalarJoin | MarkerJoin): SubquerySpec {
  switch (plan.kind) {
    case 'SemiJoin': {
      if (plan.window !== undefined) {
        const spec: WindowSemiJoinSpec = {
          kind: 'WindowSemiJoin',
          anti: plan.anti,
          leftKeys: plan.leftKeys,
          rightKeys: plan.rightKeys,
          ...(plan.nullAware === undefined ? {} : { nullAware: plan.nullAware }),
          ...plan.window,
        }
        return { name: plan.anti ? 'window-anti-join' : 'window-semi-join', spec, leftKeys: plan.leftKeys, rightKeys: plan.rightKeys }
      }
      const spec: SemiJoinSpec = {
        kind: 'SemiJoin',
        anti: plan.anti,
        leftKeys: plan.leftKeys,
        rightKeys: plan.rightKeys,
        ...(plan.nullAware === undefined ? {} : { nullAware: plan.nullAware }),
        leftUpdating: changelogOf(plan.left).mode === 'updating',
        rightUpdating: changelogOf(plan.right).mode === 'updating',
        ttlMs: plan.ttl.ms,
      }
      return { name: plan.anti ? 'anti-join' : 'semi-join', spec, leftKeys: plan.leftKeys, rightKeys: plan.rightKeys }
    }
    case 'SetOp': {
      const all = plan.fields.map((_, i) => i)
      return { name: plan.op.toLowerCase(), spec: { kind: 'SetOp', op: plan.op, all: plan.all, ttlMs: plan.ttl.ms }, leftKeys: all, rightKeys: all }
    }
    case 'ScalarJoin':
      return {
        name: 'scalar-join',
        spec: {
          kind: 'ScalarJoin',
          label: plan.label,
          rightWidth: plan.right.fields.length,
          keyed: plan.leftKeys.length > 0,
          ...(plan.empty === undefined ? {} : { empty: plan.empty }),
          ttlMs: plan.ttl.ms,
        },
        leftKeys: plan.leftKeys,
        rightKeys: plan.rightKeys,
      }
    case 'MarkerJoin': {
      const { leftKeys, rightKeys, leftValues, rightValues } = plan
      const spec: MarkerJoinSpec = { kind: 'MarkerJoin', leftKeys, rightKeys, leftValues, rightValues, ttlMs: plan.ttl.ms }
      return { name: 'marker-join', spec, leftKeys, rightKeys }
    }
  }
}
