// Which window aggregates keep their state per slice (operators/window-aggregate.ts): an event-time
// HOP whose size is a multiple of its slide (and assigned, not attached), over aggregates whose whole state is the accumulator.
// The operator slices only where this says so, EXPLAIN describes the state by it, and a checkpoint's
// signature records it, so state kept per window (before slicing existed) is refused, not misread.
import type { AggFunctionName } from './aggregates.js'
import type { WindowAggregateSpec } from './job-graph.js'

/** Aggregates that merge from their accumulators alone (no value maps, no user state). */
const PLAIN: ReadonlySet<AggFunctionName> = new Set(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG'])

/** Whether the window aggregate keeps accumulators per slice (the operator checks its handler agrees). */
export function slicesHop(spec: WindowAggregateSpec): boolean {
  const w = spec.window
  return spec.attached === undefined && spec.timeDomain === 'event' && w.kind === 'HOP' && w.size > w.slide && w.size % w.slide === 0
    && spec.aggs.every(a => PLAIN.has(a.fn) && !a.distinct && a.user === undefined)
}
