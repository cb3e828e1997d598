// GROUPING SETS, ROLLUP and CUBE in a window aggregate (GROUP BY window_start, window_end, GROUPING
// SETS (…)), planned as a group aggregate's sets are (grouping-sets.ts): an Expand emits each row once
// per set, its keys outside the set NULL, plus the set's id; ONE window aggregate keys on the keys and
// the id, so each set's windows fire together and the output stays append-only. window_start and
// window_end are in every set (Flink's rule): the window aggregate makes them, the Expand never NULLs
// them, and their bits in the id are always 0.
import type * as ast from '../../grammar/ast.js'
import { T } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputRef, inputsUsed } from '../../core/rex.js'
import type { AggCall } from '../../core/aggregates.js'
import type { LogicalPlan, WindowTvf } from '../logical/nodes.js'
import type { Scope } from './scope.js'
import { rexKey, type AggregateMapping } from './expr-binder.js'
import { PreProjection } from './pre-projection.js'
import { expandSets, groupingKeys, groupingValue } from './grouping-sets.js'
import { windowAggregateFields } from '../window-columns.js'

export interface WindowGroupingSetsInput {
  readonly sel: ast.Select
  readonly tvf: WindowTvf
  /** WHERE conditions between the window TVF and the aggregate, innermost last. */
  readonly filtersAbove: readonly Rex[]
  readonly scope: Scope
  /** The GROUP BY expressions bound over `scope`, in the order of sel.groupBy. */
  readonly groupRex: readonly Rex[]
  readonly aggCalls: readonly ast.FunctionCall[]
  readonly groupingCalls: readonly ast.FunctionCall[]
  readonly bindAggCall: (call: ast.FunctionCall, pre: PreProjection, position: number) => AggCall
}

/** Project → Expand → WindowAggregate, and how the SELECT's expressions map onto its output. */
export function bindWindowGroupingSets(g: WindowGroupingSetsInput): { aggregate: LogicalPlan; mapping: AggregateMapping } {
  const { sel, tvf } = g
  const n = tvf.input.fields.length
  const refsWindow = (r: Rex): boolean => [...inputsUsed(r)].some(i => i >= n)
  if (g.filtersAbove.some(refsWindow)) {
    throw WeirError.unsupported('a WHERE condition on window_start, window_end or window_time before a window aggregate is not supported', {
      span: sel.where?.span ?? sel.span,
      help: 'filter on the window columns in HAVING or in an outer query',
    })
  }
  const { keyRex, keyOf, sets, span } = groupingKeys(sel, g.groupRex)
  const isCol = (r: Rex, i: number): boolean => r.kind === 'Input' && r.index === i
  const startKey = keyRex.findIndex(r => isCol(r, n)), endKey = keyRex.findIndex(r => isCol(r, n + 1))
  if (!sets.every(s => s.has(startKey) && s.has(endKey))) {
    throw WeirError.plan('a window aggregate needs window_start and window_end in every grouping set', {
      span,
      help: 'group by them outside the sets: GROUP BY window_start, window_end, GROUPING SETS (…)',
    })
  }
  const pre = new PreProjection()
  const timeCol = pre.add(inputRef(tvf.timeIndex, tvf.input.fields[tvf.timeIndex]!.type))
  const keyCols = keyRex.map((r, i) => {
    if (i === startKey || i === endKey) return undefined
    if (refsWindow(r)) throw WeirError.unsupported('GROUP BY expressions over window_time are not supported in a window aggregate', { span })
    return pre.add(r)
  })
  // Session windows are per PARTITION BY key: every set must keep those columns.
  for (const p of tvf.partitionKeys) {
    const key = keyRex.findIndex(r => isCol(r, p))
    if (key < 0 || !sets.every(s => s.has(key))) {
      const name = tvf.input.fields[p]!.name
      throw WeirError.plan(`SESSION is partitioned by '${name}', so every grouping set of the window aggregate must group by it`, {
        span,
        help: `group by ${name} outside the sets: GROUP BY window_start, window_end, ${name}, GROUPING SETS (…)`,
      })
    }
  }
  const aggs = g.aggCalls.map((call, i) => g.bindAggCall(call, pre, keyRex.length + i))
  if (tvf.window.kind === 'SESSION') refuseOrderedInSession(aggs, g.aggCalls)
  for (const e of pre.exprs) {
    if (refsWindow(e)) throw WeirError.unsupported('aggregates over window_start, window_end or window_time are not supported', { span: sel.span })
  }
  let input: LogicalPlan = tvf.input
  for (const f of [...g.filtersAbove].reverse()) input = { kind: 'Filter', input, condition: f, fields: input.fields, span: sel.span }
  const preFields = pre.fields(tvf.input.fields)
  const project: LogicalPlan = { kind: 'Project', input, exprs: pre.exprs,
    fields: preFields.map((f, i) => i === timeCol ? { name: f.name, type: tvf.input.fields[tvf.timeIndex]!.type } : f), span: sel.span }
  const { expand, keyFields, aggs: shifted, carriedAt, idColumn } = expandSets({ project, keyCols, keyTypes: keyRex.map(r => r.type), sets, aggs,
    alsoCarry: [timeCol], span })
  const idType = T.bigint(false)
  const m = keyFields.length, a = shifted.length
  const outFields = windowAggregateFields([...keyFields, { name: '$e', type: idType }], shifted, tvf.fields[n + 2]!.type)
  const aggregate: LogicalPlan = {
    kind: 'WindowAggregate',
    input: expand,
    window: tvf.window,
    timeIndex: carriedAt.get(timeCol)!,
    timeDomain: tvf.timeDomain,
    keys: [...keyFields.map((_, i) => i), idColumn],
    aggs: shifted,
    fields: outFields,
    span: sel.span,
  }
  // Output positions: the emitted keys in order, then $e, the aggregates and the window's columns.
  const groupOutput = new Map<string, number>()
  let next = 0
  keyRex.forEach((r, i) => {
    if (i === startKey) groupOutput.set(rexKey(r), m + 1 + a)
    else if (i === endKey) groupOutput.set(rexKey(r), m + 2 + a)
    else groupOutput.set(rexKey(r), next++)
  })
  const id = inputRef(m, idType)
  const grouping = new Map<ast.FunctionCall, Rex>()
  for (const call of g.groupingCalls) grouping.set(call, groupingValue(call, id, keyRex.length, g.scope, keyOf))
  const mapping: AggregateMapping = {
    inputScope: g.scope,
    groupOutput,
    aggOutput: new Map(g.aggCalls.map((c, i) => [c, m + 1 + i])),
    outputTypes: outFields.map(f => f.type),
    extraColumns: new Map([['window_time', m + 3 + a]]),
    grouping,
  }
  return { aggregate, mapping }
}

/**
 * Sessions merge when a row bridges them, and which session's values came first is then unknown:
 * Flink's FIRST_VALUE, LAST_VALUE and LISTAGG cannot merge either.
 */
export function refuseOrderedInSession(aggs: readonly AggCall[], calls: readonly ast.FunctionCall[]): void {
  aggs.forEach((a, i) => {
    if (a.fn === 'FIRST_VALUE' || a.fn === 'LAST_VALUE' || a.fn === 'LISTAGG' || a.fn === 'ARRAY_AGG') {
      throw WeirError.unsupported(`${a.fn} is not supported in a SESSION window aggregate (merging sessions loses the order of values)`, {
        span: calls[i]!.span,
        help: 'use a TUMBLE, HOP or CUMULATE window, or MIN/MAX of the value',
      })
    }
  })
}
