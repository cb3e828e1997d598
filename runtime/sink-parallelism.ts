// How many subtasks a sink runs as, and how rows reach them. A sink whose connector splits
// (SinkFactory.parallel: blackhole) runs at its table's 'sink.parallelism', else at the parallelism
// of its input, chained to it (subtask i writes what input subtask i produced, on the same thread); a
// sink that cannot split runs as one subtask. As Flink: where the two parallelisms differ, an
// insert-only input is spread round-robin (REBALANCE); an updating input goes by the sink's PRIMARY KEY
// (HASH), so every change of a key reaches the one subtask that writes that key, and without a key a
// different 'sink.parallelism' is refused.
import { invariant } from '../common/assert.js'
import { WeirError } from '../common/errors.js'
import type { JobGraph, SinkSpec } from '../core/job-graph.js'
import { enforceNotNull } from '../connectors/not-null-enforcer.js'
import { loadedConnector } from '../connectors/catalog.js'
import { parallelismOption } from './parallelism-option.js'
import { sinkTableContext } from './sink-context.js'
import type { Task } from './subtasks.js'

/** How a sink's input reaches its subtasks. */
export type SinkShipping =
  | { readonly kind: 'forward' }
  | { readonly kind: 'rebalance' }
  | { readonly kind: 'hash'; readonly keys: readonly number[] }

/** Whether the sink's connector writes with several subtasks. */
export function sinkSplits(spec: SinkSpec): boolean {
  return loadedConnector(spec.connector).sink?.parallel === true
}

/** The number of subtasks of a sink fed by `input` subtasks, in a job at parallelism `p`. */
export function sinkParallelism(spec: SinkSpec, input: number, p: number): number {
  if (!sinkSplits(spec)) return 1
  const n = parallelismOption(spec.table, spec.options, 'sink.parallelism', p)
  if (n === undefined) return input
  if (n > 1 && n !== input && spec.inputChangelog === 'updating' && spec.primaryKey.length === 0) {
    throw WeirError.plan(
      `table '${spec.table}': 'sink.parallelism' = ${n} differs from the parallelism of its input (${input}), whose rows are updates, and the table has no PRIMARY KEY`,
      { help: `the changes of one row must reach one sink subtask: declare a PRIMARY KEY on '${spec.table}', or remove 'sink.parallelism'` },
    )
  }
  return n
}

/** How rows go from `input` subtasks to the sink's `sink` subtasks. */
export function sinkShipping(spec: SinkSpec, input: number, sink: number): SinkShipping {
  if (sink === 1) return { kind: 'forward' }
  // Even at the input's parallelism: the input may be partitioned by other keys. Where it is keyed by
  // the same values, their key groups are the same, and every row stays with its subtask.
  if (spec.inputChangelog === 'updating' && spec.primaryKey.length > 0) return { kind: 'hash', keys: spec.primaryKey }
  return input === sink ? { kind: 'forward' } : { kind: 'rebalance' }
}

/**
 * Opens subtask `task` of a sink that splits on the worker thread that runs it (threads.ts). Such a sink
 * has nothing to commit and prints nothing (SinkFactory.parallel), so it needs nothing of the job's thread.
 */
export async function openSplitSink(task: Task, graph: JobGraph): Promise<void> {
  const spec = task.node.spec
  invariant(spec.kind === 'Sink', `${task.node.id} is not a sink`)
  const factory = loadedConnector(spec.connector).sink
  invariant(factory?.parallel === true, `sink ${task.node.id} ('${spec.connector}') does not split, yet subtask ${task.index} runs on a worker`)
  const writer = await factory.create({
    ...sinkTableContext(spec),
    println: () => invariant(false, `sink ${task.node.id} printed on a worker thread`),
    jobName: graph.name,
    operatorId: task.node.id,
    exactlyOnce: false,
  })
  invariant(writer.prepareCommit === undefined, `sink ${task.node.id} ('${spec.connector}') splits but commits`)
  task.sink = enforceNotNull(writer, spec, graph.config.sinkNotNull)
}
