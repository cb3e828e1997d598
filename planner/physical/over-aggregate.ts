// Lowering of an Over node that no rank rule consumed into an OverAggregate operator: aggregates,
// LAG and running ranks over one ascending time attribute, on an insert-only input.
import { WeirError } from '../../common/errors.js'
import type { OverAggCallSpec, OverAggregateSpec, OverFrameSpec } from '../../core/over-aggregate.js'
import type { FrameBoundSpec, Over, OverFrame } from '../logical/over.js'
import { changelogOf, describe } from '../changelog.js'
import { unsupportedOver } from './lower-over.js'

export function overAggregateSpec(plan: Over): OverAggregateSpec {
  const input = changelogOf(plan.input)
  if (input.mode === 'updating') {
    const origin = input.origin!
    throw WeirError.unsupported(`an OVER aggregate cannot consume the updates produced by ${describe(origin)}`, {
      span: plan.calls[0]!.span,
      help: origin.kind === 'Scan'
        ? `OVER aggregates take an insert-only stream: read '${origin.table.name}' as plain rows ('format' = 'json'), or aggregate its changelog with GROUP BY`
        : 'OVER aggregates take an insert-only stream: apply the OVER before the GROUP BY, or aggregate with a window (TUMBLE, HOP) instead',
    })
  }
  const order = plan.orderKeys
  const timeOrdered = plan.orderTime !== undefined && order.length === 1 && !order[0]!.descending
  const calls: OverAggCallSpec[] = plan.calls.map(c => {
    // In time order a rank is a running count (peers: rows at one time); in any other order only a
    // rank filter (a Top-N) makes it streamable.
    if ((c.fn === 'ROW_NUMBER' || c.fn === 'RANK' || c.fn === 'DENSE_RANK') && timeOrdered) return { fn: c.fn, name: c.name }
    if (c.lag !== undefined) return { fn: 'LAG', ...c.lag, name: c.name }
    if (c.agg === undefined) throw unsupportedOver({ ...plan, calls: [c] })
    return { fn: c.agg.fn, agg: c.agg, frame: frameOf(c.frame) }
  })
  return { kind: 'OverAggregate', partitionKeys: plan.partitionKeys, timeIndex: order[0]!.index, timeDomain: plan.orderTime!, calls }
}

/** The binder allows only frames that end at the current row and start before it. */
function frameOf(f: OverFrame): OverFrameSpec {
  return { unit: f.unit, preceding: preceding(f.lower) }
}

function preceding(b: FrameBoundSpec): number | null {
  switch (b.kind) {
    case 'UNBOUNDED_PRECEDING':
      return null
    case 'PRECEDING':
      return b.offset
    case 'CURRENT_ROW':
      return 0
    default:
      throw WeirError.internal(`an OVER frame starting at ${b.kind} passed the binder`)
  }
}
