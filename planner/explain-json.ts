// EXPLAIN JSON_EXECUTION_PLAN: the job's execution graph as JSON in the shape Flink prints it
// ({"nodes":[{"id","type","pact","contents","parallelism","predecessors":[{"id","ship_strategy","side"}]}]}):
// one node per operator, numbered in the job graph's order (producers first); its parallelism as the
// runtime makes its subtasks; how rows reach it from each input: FORWARD (subtask i to subtask i),
// HASH[keys] (by the key columns' key group), GLOBAL (every row to the one subtask), REBALANCE
// (round-robin, into a sink of another parallelism: runtime/sink-parallelism.ts).
import type { JobGraph, PhysicalNode } from '../core/job-graph.js'
import { sinkShipping, type SinkShipping } from '../runtime/sink-parallelism.js'

interface JsonNode {
  readonly id: number
  readonly type: string
  readonly pact: 'Data Source' | 'Operator' | 'Data Sink'
  readonly contents: string
  readonly parallelism: number
  readonly predecessors?: readonly { readonly id: number; readonly ship_strategy: string; readonly side: 'first' | 'second' }[]
}

/**
 * The execution plan of `graph` as indented JSON; `parallelism` gives each node's subtasks (runtime nodeParallelisms),
 * `describe` its one-line EXPLAIN text.
 */
export function jsonExecutionPlan(graph: JobGraph, parallelism: ReadonlyMap<string, number>, describe: (node: PhysicalNode) => string): string {
  const byId = new Map(graph.nodes.map(n => [n.id, n]))
  const number = new Map(graph.nodes.map((n, i) => [n.id, i + 1]))
  const nodes: JsonNode[] = graph.nodes.map(node => {
    const p = parallelism.get(node.id) ?? 1
    const predecessors = node.inputs.map((edge, i) => {
      const input = byId.get(edge.node)!
      const from = parallelism.get(edge.node) ?? 1
      // A sink's key is named as its table names it.
      const exchange = node.spec.kind === 'Sink' ? sinkShipping(node.spec, from, p) : edge.exchange
      return { id: number.get(edge.node)!, ship_strategy: shipStrategy(exchange, node.spec.kind === 'Sink' ? node.spec.schema : input.schema, from, p),
        side: i === 0 ? 'first' as const : 'second' as const }
    })
    return {
      id: number.get(node.id)!,
      type: typeOf(node),
      pact: node.spec.kind === 'Source' || node.spec.kind === 'Values'
        ? 'Data Source'
        : node.spec.kind === 'Sink' || node.spec.kind === 'Collect'
        ? 'Data Sink'
        : 'Operator',
      contents: describe(node),
      parallelism: p,
      ...(predecessors.length > 0 ? { predecessors } : {}),
    }
  })
  return JSON.stringify({ nodes }, null, 2)
}

/** As the runtime connects the subtasks (runtime/subtasks.ts connect). */
function shipStrategy(exchange: PhysicalNode['inputs'][number]['exchange'] | SinkShipping, columns: PhysicalNode['schema'], from: number, to: number): string {
  if (exchange.kind === 'rebalance') return 'REBALANCE'
  if (exchange.kind === 'hash') return `HASH[${exchange.keys.map(k => columns[k]?.name ?? `$${k}`).join(', ')}]`
  if (exchange.kind === 'single' || from !== to) return 'GLOBAL'
  return 'FORWARD'
}

function typeOf(node: PhysicalNode): string {
  const spec = node.spec
  switch (spec.kind) {
    case 'Source':
      return `Source: ${spec.table}`
    case 'Sink':
      return `Sink: ${spec.table}`
    case 'GroupAggregate':
      return spec.phase === 'global' ? 'GlobalGroupAggregate' : spec.kind
    default:
      return spec.kind
  }
}
