// EXPLAIN lines of a two-phase GROUP BY (planner/physical/two-phase.ts), named as Flink names them:
// LocalGroupAggregate computes each call into its accumulator columns; GlobalGroupAggregate merges them.
import type { Field } from '../common/types.js'
import type { AggCall } from '../core/aggregates.js'
import type { GroupAggregateSpec, LocalGroupAggregateSpec, PhysicalNode } from '../core/job-graph.js'
import { partialColumns } from '../core/partial-aggregate.js'

type FormatAgg = (a: AggCall, input: readonly Field[], outName: string) => string

/**
 * @example describeLocalAggregate(spec, node, input, 'changelog=[insert-only]', formatAgg)
 * // 'LocalGroupAggregate(groupBy=[k], select=[k, COUNT(*) AS count1$0, AVG(v) AS (sum$1, count$2)], changelog=[insert-only])'
 */
export function describeLocalAggregate(s: LocalGroupAggregateSpec, node: PhysicalNode, input: readonly Field[], mode: string, formatAgg: FormatAgg): string {
  const nk = s.keys.length
  const keys = s.keys.map(i => input[i]!.name)
  const columns = (slots: readonly number[]): string => {
    const names = slots.map(c => node.schema[nk + c]!.name)
    return names.length === 1 ? names[0]! : `(${names.join(', ')})`
  }
  const { slots } = partialColumns(s.aggs)
  const calls = s.aggs.map((a, i) => formatAgg(a, input, columns(slots[i]!)))
  return `LocalGroupAggregate(groupBy=[${keys.join(', ')}], select=[${[...keys, `COUNT(*) AS ${node.schema[nk]!.name}`, ...calls].join(', ')}], ${mode})`
}

/**
 * `input` is the local aggregate's output: the keys, then the accumulator columns each call merges.
 * @example describeGlobalAggregate(spec, node, input, 'changelog=[updating]') // 'GlobalGroupAggregate(groupBy=[k], select=[k, AVG((sum$1, count$2)) AS a], …)'
 */
export function describeGlobalAggregate(s: GroupAggregateSpec, node: PhysicalNode, input: readonly Field[], mode: string): string {
  const nk = s.keys.length
  const keys = s.keys.map(i => input[i]!.name)
  const { slots } = partialColumns(s.aggs)
  const calls = s.aggs.map((a, i) => {
    const names = slots[i]!.map(c => input[nk + c]!.name)
    return `${a.fn}(${names.length === 1 ? names[0] : `(${names.join(', ')})`}) AS ${node.schema[nk + i]!.name}`
  })
  return `GlobalGroupAggregate(groupBy=[${keys.join(', ')}], select=[${[...keys, ...calls].join(', ')}], ${mode})`
}
