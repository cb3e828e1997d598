// Which thread runs each subtask. With 'execution.worker-threads' at 'parallelism.default' = N > 1,
// subtask i ≥ 1 of every keyed operator, of every source and sink that splits (and of the operators
// chained to them) runs on worker thread i, with its own state backend and timers; subtask 0 runs on
// the job's thread, beside the sources and sinks that do not split, VALUES, SELECT results and the operators that run as one subtask, and the checkpoint coordinator. So a
// job at parallelism N uses N threads (one more would compete with them for N cores), and rows cross
// threads only where the plan has an exchange or a change of parallelism. A source that splits, read at
// a lower parallelism P than the job's ('scan.parallelism' < N), reads on worker threads 1..P instead,
// ahead of the operators it feeds, which run (at P) on the job's thread and those workers but one: its
// every row crosses a thread to its consumer.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { JobGraph } from '../core/job-graph.js'
import { loadedConnector } from '../connectors/catalog.js'
import type { Task } from './subtasks.js'

/** The job's own thread. */
export const MAIN_THREAD = -1

/** The thread `task` runs on: MAIN_THREAD, or the worker of its subtask index; `parallelism` is the job's ('parallelism.default'). */
export function threadOf(task: Task, workers: boolean, parallelism: number): number {
  if (!workers) return MAIN_THREAD
  if (task.node.spec.kind === 'Source' && task.parallelism < parallelism && task.node.spec.options['scan.parallelism'] !== undefined) {
    return task.index + 1
  }
  if (task.parallelism === 1 || task.index === 0) return MAIN_THREAD
  switch (task.node.spec.kind) {
    // A source that splits runs as N subtasks (subtasks.ts): split k on worker k, with what is chained to
    // it; so does a sink that splits (sink-parallelism.ts), with what it is chained to.
    case 'Source':
    case 'Sink':
      return task.index
    case 'Values':
    case 'Collect':
      return MAIN_THREAD
    default:
      return task.index
  }
}

/**
 * The worker's script: beside this module once built; from the TypeScript sources (tests), the built
 * one in dist/ (a worker cannot load .ts files), which `npx tsc` must have made.
 */
export function subtaskWorkerScript(): URL | null {
  const here = import.meta.url
  const url = here.endsWith('.ts') ? new URL('../dist/runtime/subtask-worker.js', here) : new URL('./subtask-worker.js', here)
  return existsSync(fileURLToPath(url)) ? url : null
}

/**
 * Whether the job runs its parallel subtasks on worker threads ('execution.worker-threads'): when some
 * node other than a sink, VALUES or SELECT result runs as more than one subtask.
 */
export function usesWorkers(graph: JobGraph): boolean {
  if (graph.config.parallelism === 1 || !graph.config.workerThreads) return false
  return graph.nodes.some(n =>
    (!ENDPOINTS.has(n.spec.kind) && n.inputs.some(e => e.exchange.kind === 'hash')) ||
    (n.spec.kind === 'Source' && loadedConnector(n.spec.connector).source?.splittable === true)
  )
}

const ENDPOINTS: ReadonlySet<string> = new Set(['Source', 'Sink', 'Values', 'Collect'])
