// Where a plan's output carries the window_start and window_end of a window aggregate or window
// table function below it (through projections and filters): window Top-N and window joins need them.
import type { TimeDomain } from '../../core/windows.js'
import type { LogicalPlan } from '../logical/nodes.js'

export interface WindowColumns {
  readonly start: number
  readonly end: number
  readonly timeDomain: TimeDomain
}

export function windowColumnsOf(plan: LogicalPlan): WindowColumns | undefined {
  switch (plan.kind) {
    case 'WindowAggregate': {
      const n = plan.keys.length + plan.aggs.length
      return { start: n, end: n + 1, timeDomain: plan.timeDomain }
    }
    case 'WindowTvf': {
      const n = plan.input.fields.length
      return { start: n, end: n + 1, timeDomain: plan.timeDomain }
    }
    case 'Filter':
      return windowColumnsOf(plan.input)
    case 'Project': {
      const inner = windowColumnsOf(plan.input)
      if (inner === undefined) return undefined
      const at = (col: number): number => plan.exprs.findIndex(e => e.kind === 'Input' && e.index === col)
      const start = at(inner.start), end = at(inner.end)
      return start >= 0 && end >= 0 ? { start, end, timeDomain: inner.timeDomain } : undefined
    }
    default:
      return undefined
  }
}
