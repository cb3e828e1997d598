// Which columns of a plan are the window_start / window_end of a window TVF or a window aggregate,
// carried through projections, filters and joins. A window join needs both inputs windowed alike;
// an interval join may bound time by a window_end (Nexmark q7), which is never behind the watermark.
import { assertNever } from '../common/assert.js'
import type { TimeDomain, WindowSpec } from '../core/windows.js'
import type { LogicalPlan } from './logical/nodes.js'
import { type DataType, type Field, T } from '../common/types.js'

/** A window aggregate's output: its keys, its aggregates, then window_start, window_end and window_time (of type `time`). */
export function windowAggregateFields(keys: readonly Field[], aggs: readonly { readonly name: string; readonly type: DataType }[], time: DataType): Field[] {
  return [
    ...keys,
    ...aggs.map(a => ({ name: a.name, type: a.type })),
    { name: 'window_start', type: T.timestamp(3, false) },
    { name: 'window_end', type: T.timestamp(3, false) },
    { name: 'window_time', type: time },
  ]
}

export interface WindowColumn {
  /** window_start, window_end, or window_time (window_end - 1 ms, the time attribute a window aggregate's output carries). */
  readonly role: 'start' | 'end' | 'time'
  readonly window: WindowSpec
  readonly domain: TimeDomain
  /** The window TVF or window aggregate the column comes from. */
  readonly origin: LogicalPlan
}

const cache = new WeakMap<LogicalPlan, readonly (WindowColumn | undefined)[]>()

/** Per output column of `plan`: the window bound it holds, or undefined. */
export function windowColumnsOf(plan: LogicalPlan): readonly (WindowColumn | undefined)[] {
  let hit = cache.get(plan)
  if (hit === undefined) {
    hit = infer(plan)
    cache.set(plan, hit)
  }
  return hit
}

function infer(plan: LogicalPlan): (WindowColumn | undefined)[] {
  const none = (): (WindowColumn | undefined)[] => plan.fields.map(() => undefined)
  switch (plan.kind) {
    case 'WindowTvf':
    case 'WindowAggregate': {
      const cols = none()
      const n = plan.fields.length
      cols[n - 3] = { role: 'start', window: plan.window, domain: plan.timeDomain, origin: plan }
      cols[n - 2] = { role: 'end', window: plan.window, domain: plan.timeDomain, origin: plan }
      cols[n - 1] = { role: 'time', window: plan.window, domain: plan.timeDomain, origin: plan }
      return cols
    }
    case 'Project': {
      const inner = windowColumnsOf(plan.input)
      return plan.exprs.map(e => (e.kind === 'Input' ? inner[e.index] : undefined))
    }
    case 'Filter':
    case 'Sink':
      return [...windowColumnsOf(plan.input)]
    case 'Unnest':
      // Each input row's columns unchanged, in input order; the element's columns are no window's.
      return [...windowColumnsOf(plan.input), ...none().slice(plan.input.fields.length)]
    case 'Join':
      // A window join keeps both sides' window columns (they hold the same windows); other joins
      // do not keep time order, so their window columns are plain timestamps.
      return plan.time?.kind === 'window' ? [...windowColumnsOf(plan.left), ...windowColumnsOf(plan.right)] : none()
    case 'Scan':
    case 'Values':
    case 'Expand':
    case 'Aggregate':
    case 'Union':
    // Ranking and OVER keep no window's time order a window join could rely on (dedup and Top-N may update).
    case 'Over':
    case 'Deduplicate':
    case 'Rank':
    case 'Sort':
    case 'TemporalJoin':
    case 'ProcessTable':
      return none()
    // Semi and anti joins and set operations may retract rows when their other input changes; a
    // window semi/anti join emits its left rows, window columns intact, when their window closes.
    case 'SemiJoin':
      return plan.window === undefined ? none() : [...windowColumnsOf(plan.left)]
    case 'SetOp':
    case 'ScalarJoin':
    case 'MarkerJoin':
      return none()
    default:
      return assertNever(plan)
  }
}
