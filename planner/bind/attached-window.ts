// GROUP BY the window_start and window_end of an input that is already windowed (a window aggregate's
// or window TVF's output, through projections that may rename them): a window aggregate with the
// window attached, as Flink plans it (WindowAttachedWindowingStrategy). No window is assigned: each
// row belongs to the window its window_start / window_end name; the window fires when the watermark
// passes its end and its state goes then. The output is insert-only and windowed (window_start,
// window_end, window_time), so a window join or window Top-N may follow (Nexmark q5's MAX per window).
import type * as ast from '../../grammar/ast.js'
import { T, withoutTimeAttr } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { inputRef } from '../../core/rex.js'
import type { AggCall } from '../../core/aggregates.js'
import type { LogicalPlan } from '../logical/nodes.js'
import { windowAggregateFields, windowColumnsOf } from '../window-columns.js'
import { rexKey, type AggregateMapping } from './expr-binder.js'
import { PreProjection } from './pre-projection.js'
import type { Scope } from './scope.js'

/** The GROUP BY keys that are the input's window_start and window_end (input column indexes), when both are there, and its window_time if grouped. */
export function attachedWindowKeys(input: LogicalPlan, groupRex: readonly Rex[]): { start: number; end: number; time: readonly number[] } | undefined {
  const cols = windowColumnsOf(input)
  for (const s of groupRex) {
    const start = s.kind === 'Input' ? cols[s.index] : undefined
    if (start?.role !== 'start') continue
    for (const e of groupRex) {
      const end = e.kind === 'Input' ? cols[e.index] : undefined
      // Both bounds of one windowing; Weir attaches event-time TUMBLE, HOP and CUMULATE windows only
      // (a session's end does not name its start; a processing-time window has fired when its row arrives).
      if (end?.role !== 'end' || end.origin !== start.origin || end.domain !== 'event' || end.window.kind === 'SESSION') continue
      // Grouping by the same windowing's window_time adds no key (it is window_end - 1 ms): it becomes the output's (Flink's timeColumns).
      const time = groupRex.flatMap(t => (t.kind === 'Input' && cols[t.index]?.role === 'time' && cols[t.index]!.origin === start.origin ? [t.index] : []))
      return { start: (s as { index: number }).index, end: (e as { index: number }).index, time }
    }
  }
  return undefined
}

export interface AttachedWindowInput {
  readonly sel: ast.Select
  readonly rel: { readonly plan: LogicalPlan; readonly scope: Scope }
  readonly groupRex: readonly Rex[]
  readonly aggCalls: readonly ast.FunctionCall[]
  readonly bindAggCall: (call: ast.FunctionCall, scope: Scope, pre: PreProjection, position: number, sel: ast.Select) => AggCall
}

/**
 * Project → WindowAggregate (attached) with output [...keys, ...aggs, window_start, window_end,
 * window_time], and how the SELECT's expressions map onto it; undefined when the GROUP BY does not
 * hold both window columns of its input.
 */
export function bindAttachedWindowAggregate(a: AttachedWindowInput): { aggregate: LogicalPlan; mapping: AggregateMapping } | undefined {
  const { groupRex, sel } = a
  const input = a.rel.plan
  const window = attachedWindowKeys(input, groupRex)
  if (window === undefined) return undefined
  const col = windowColumnsOf(input)[window.end]!
  const pre = new PreProjection()
  const start = pre.add(inputRef(window.start, input.fields[window.start]!.type))
  const end = pre.add(inputRef(window.end, input.fields[window.end]!.type))
  const isWindow = (r: Rex): boolean => r.kind === 'Input' && (r.index === window.start || r.index === window.end || window.time.includes(r.index))
  const keyRex = groupRex.filter(r => !isWindow(r))
  const keys = keyRex.map(r => pre.add(r))
  const aggs = a.aggCalls.map((call, i) => a.bindAggCall(call, a.rel.scope, pre, keys.length + i, sel))
  const preFields = pre.fields(input.fields)
  const project: LogicalPlan = { kind: 'Project', input, exprs: pre.exprs, fields: preFields, span: sel.span }
  const outFields = windowAggregateFields(keys.map((k, i) => ({ name: preFields[k]!.name, type: withoutTimeAttr(keyRex[i]!.type) })), aggs,
    T.timestamp(3, false, 'rowtime'))
  const k = keys.length, n = aggs.length
  const aggregate: LogicalPlan = {
    kind: 'WindowAggregate',
    input: project,
    window: col.window,
    timeIndex: end,
    timeDomain: col.domain,
    keys,
    aggs,
    attached: { start, end },
    fields: outFields,
    span: sel.span,
  }
  const groupOutput = new Map<string, number>(keyRex.map((r, i) => [rexKey(r), i]))
  groupOutput.set(rexKey(inputRef(window.start, input.fields[window.start]!.type)), k + n)
  groupOutput.set(rexKey(inputRef(window.end, input.fields[window.end]!.type)), k + n + 1)
  for (const t of window.time) groupOutput.set(rexKey(inputRef(t, input.fields[t]!.type)), k + n + 2)
  const mapping: AggregateMapping = {
    inputScope: a.rel.scope,
    groupOutput,
    aggOutput: new Map(a.aggCalls.map((c, i) => [c, k + i])),
    outputTypes: outFields.map(f => f.type),
  }
  return { aggregate, mapping }
}
