// A script planned whole before any of its jobs starts: what each statement will do, in order.
import type { Field } from '../common/types.js'
import type { Batch, Row } from '../core/batch.js'
import type { JobGraph } from '../core/job-graph.js'
import { executeJob, type JobMetrics } from '../runtime/executor.js'
import type { FaultInjector } from '../runtime/faults.js'
import { getConnector } from '../connectors/registry.js'
import type { StopJob } from '../grammar/ast.js'
import type { JobControl, JobSet } from './jobs.js'
import { showJobs, stopJob } from './job-statements.js'

/** What a statement did (Session.run gives one per statement run). */
export type StatementResult =
  | { readonly kind: 'ok'; readonly message: string }
  | { readonly kind: 'table'; readonly columns: readonly string[]; readonly rows: readonly (readonly string[])[] }
  | { readonly kind: 'explain'; readonly text: string }
  /** An INSERT started a job (`id`: what SHOW JOBS and STOP JOB call it); `done` settles when it finishes. */
  | { readonly kind: 'job'; readonly id: string; readonly name: string; readonly graph: JobGraph; readonly done: Promise<JobMetrics> }
  /**
   * A SELECT ran to completion (or was stopped); its changes in order, or none when they went to
   * SessionOptions.onSelect as they came (`streamed`; metrics.sinkRows['(select)'] counts them).
   */
  | { readonly kind: 'rows'; readonly name: string; readonly schema: readonly Field[]; readonly changes: readonly { kind: number; row: Row }[];
    readonly metrics: JobMetrics; readonly streamed: boolean }
  /** A SELECT's job failed (SessionOptions.onJobFailed was told at once). */
  | { readonly kind: 'failed'; readonly name: string; readonly error: unknown }

/** One statement of a planned script: its result already (DDL, SET, SHOW, EXPLAIN), or a job to run. */
export type PlannedStep =
  | StatementResult
  | { readonly kind: 'insert'; readonly graph: JobGraph; readonly line: number }
  | { readonly kind: 'select'; readonly graph: JobGraph; readonly schema: readonly Field[]; readonly line: number }
  /** SHOW JOBS and STOP JOB see the jobs as they are when they run. */
  | { readonly kind: 'showJobs' }
  | { readonly kind: 'stopJob'; readonly statement: StopJob }

/**
 * Every statement of a script, planned (Session.prepare) and not yet run (Session.run).
 *
 * @example
 * const script = await session.prepare(sql)   // throws a plan error before anything runs
 * await session.run(script, result => print(result))
 */
export interface Script {
  readonly steps: readonly PlannedStep[]
}

/** A SELECT about to run, for SessionOptions.onSelect. */
export interface SelectInfo {
  readonly name: string
  readonly schema: readonly Field[]
  /** Every source ends by itself (files, generators with a row count): the SELECT ends too. */
  readonly bounded: boolean
}

/** Takes each batch of a SELECT's changes as it is produced. */
export type SelectConsumer = (schema: readonly Field[], batch: Batch) => void

/** Whether every source of the job ends by itself. */
export function isBounded(graph: JobGraph): boolean {
  return graph.nodes.every(n => n.spec.kind !== 'Source' || getConnector(n.spec.connector).source?.bounded(n.spec.options) !== false)
}

/** What runScript needs of a session. */
export interface ScriptRunner {
  readonly jobs: JobSet
  /** Runs an INSERT's job (checkpoints, recovery). */
  startJob(graph: JobGraph, control: JobControl): Promise<JobMetrics>
  readonly println: (line: string) => void
  readonly onSelect?: (select: SelectInfo) => SelectConsumer | undefined
  readonly log?: (line: string) => void
  /** The fault hook a SELECT's job is run with too (an INSERT's gets it from startJob). */
  readonly faults?: FaultInjector
  /** The session's jobs were told to stop (Ctrl-C, SIGTERM). */
  stopped(): boolean
}

/** Session.run: the steps in order; see there. */
export async function runScript(script: Script, runner: ScriptRunner, onResult?: (result: StatementResult) => void): Promise<StatementResult[]> {
  const results: StatementResult[] = []
  // Failures before this script (an earlier statement of the REPL) do not stop it.
  const halts = runner.jobs.halts
  for (const [i, step] of script.steps.entries()) {
    if (step.kind === 'insert' || step.kind === 'select') {
      const why = runner.jobs.halts > halts ? 'a job failed' : runner.stopped() ? 'the jobs were stopped' : undefined
      if (why !== undefined) {
        runner.log?.(`${why}: not running the ${script.steps.length - i} statement(s) from line ${step.line} on`)
        break
      }
    }
    const result = step.kind === 'insert'
      ? startInsert(step.graph, runner)
      : step.kind === 'select'
      ? await runSelect(step.graph, step.schema, runner)
      : step.kind === 'showJobs'
      ? showJobs(runner.jobs)
      : step.kind === 'stopJob'
      ? await stopJob(step.statement, runner.jobs)
      : step
    results.push(result)
    onResult?.(result)
  }
  return results
}

function startInsert(graph: JobGraph, runner: ScriptRunner): StatementResult {
  const { id, done } = runner.jobs.start(graph.name, 'insert', graph, control => runner.startJob(graph, control))
  return { kind: 'job', id, name: graph.name, graph, done }
}

/** Runs a SELECT to its end: its changes collected, or handed to onSelect's consumer as they come. */
async function runSelect(graph: JobGraph, schema: readonly Field[], runner: ScriptRunner): Promise<StatementResult> {
  const changes: { kind: number; row: Row }[] = []
  const consume = runner.onSelect?.({ name: graph.name, schema, bounded: isBounded(graph) })
  try {
    const { done } = runner.jobs.start(graph.name, 'select', graph, control =>
      executeJob(graph, {
        println: runner.println,
        onStart: control.onStart,
        faults: runner.faults,
        // A SELECT keeps no checkpoints: a stop with a savepoint (SIGTERM) just stops it.
        signal: AbortSignal.any([control.signal, control.stopWithSavepoint]),
        onCollect: consume ?? ((_, batch) => {
          for (let i = 0; i < batch.rows.length; i++) changes.push({ kind: batch.kinds ? batch.kinds[i]! : 0, row: batch.rows[i]! })
        }),
      }))
    const metrics = await done
    return { kind: 'rows', name: graph.name, schema, changes, metrics, streamed: consume !== undefined }
  } catch (error) {
    return { kind: 'failed', name: graph.name, error }
  }
}
