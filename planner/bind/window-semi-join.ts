// Window semi and anti joins: an IN / EXISTS / NOT IN / NOT EXISTS subquery whose inputs are both
// windowed by the same TUMBLE/HOP/CUMULATE and whose correlation equates window_start and window_end
// of the two (Flink's `L.window_start = R.window_start AND L.window_end = R.window_end` in the
// subquery's WHERE). Planned as the semi join of the same keys marked with its window: the operator
// then decides each window's left rows when the watermark passes its end and frees the window's
// state, instead of keeping every key forever. Any other semi join is left as it is.
import { WeirError } from '../../common/errors.js'
import type { LogicalPlan, SemiJoin } from '../logical/nodes.js'
import { changelogOf, describe } from '../changelog.js'
import { windowColumnsOf, type WindowColumn } from '../window-columns.js'
import { formatWindow, sameWindow } from './time-join.js'

/** `plan` marked as a window semi/anti join when its keys pair both window bounds, else `plan`. */
export function windowSemiJoin(plan: SemiJoin): SemiJoin {
  const lcols = windowColumnsOf(plan.left), rcols = windowColumnsOf(plan.right)
  let start: [WindowColumn, WindowColumn] | undefined
  let end: [WindowColumn, WindowColumn, number, number] | undefined
  plan.leftKeys.forEach((lk, i) => {
    const rk = plan.rightKeys[i]!
    const l = lcols[lk], r = rcols[rk]
    if (l === undefined || r === undefined || l.role !== r.role) return
    if (l.role === 'start') start = [l, r]
    else if (l.role === 'end') end = [l, r, lk, rk]
  })
  if (start === undefined || end === undefined) return plan
  const [l, r, leftEnd, rightEnd] = end
  if (!sameWindow(l, r) || !sameWindow(start[0], l) || !sameWindow(start[1], r)) {
    throw WeirError.plan(`a window ${what(plan)} needs both inputs windowed alike, but they are ${formatWindow(l)} and ${formatWindow(r)}`, {
      span: plan.span,
      help: 'window both inputs with the same window function, time domain, size, slide or step and offset',
    })
  }
  if (l.window.kind === 'SESSION') {
    throw WeirError.unsupported(`a window ${what(plan)} over SESSION windows is not supported`, {
      span: plan.span,
      help: 'window both inputs by TUMBLE, HOP or CUMULATE',
    })
  }
  if (l.domain === 'processing') {
    throw WeirError.unsupported(`a window ${what(plan)} over processing-time windows is not supported: its windows would close at a moment neither input knows`,
      {
        span: plan.span,
        help: 'window both inputs on an event-time attribute (a column with a WATERMARK)',
      })
  }
  refuseUpdating(plan)
  return { ...plan, window: { window: l.window, leftEnd, rightEnd } }
}

function what(plan: SemiJoin): string {
  return plan.anti ? 'anti join' : 'semi join'
}

/** Both inputs must be append-only: a window's rows are decided once, when it closes. */
function refuseUpdating(plan: SemiJoin): void {
  for (const [name, input] of [['outer query', plan.left], ['subquery', plan.right]] as const) {
    const c = changelogOf(input)
    if (c.mode !== 'updating') continue
    const origin: LogicalPlan = c.origin ?? input
    throw WeirError.plan(`this window ${what(plan)} needs append-only inputs, but its ${name} produces updates from ${describe(origin)}`, {
      span: origin.span,
      help: `a window ${what(plan)} decides a window's rows once, when the window closes, so it cannot take retractions: `
        + 'window the rows before they are aggregated, or use a window aggregate (insert-only) instead of a GROUP BY',
    })
  }
}
