// The jobs a session started. Each runs under its own stop signals as well as the session's; a job
// that fails is reported at once, naming the job and the operator, and then stops the other jobs
// as 'weir.on-job-failure' says.
import { randomBytes } from 'node:crypto'
import { WeirError } from '../common/errors.js'
import type { JobMetrics } from '../runtime/executor.js'
import type { JobProbe, JobSample } from '../runtime/job-probe.js'
import type { JobGraph } from '../core/job-graph.js'
import { OperatorFailure } from '../runtime/operator-failure.js'
import { explainOperator } from '../planner/index.js'

/** The signals one job runs under: the session's and its own. */
export interface JobControl {
  /** Cancels the job: no savepoint. */
  readonly signal: AbortSignal
  /** Stops the job with a savepoint. */
  readonly stopWithSavepoint: AbortSignal
  /** Give it ExecutionEnv.onStart: the job's live numbers (JobSet.list). */
  readonly onStart: (probe: JobProbe) => void
}

/** Flink's names for where a job is: CANCELLING from a stop until it has ended. */
export type JobStatus = 'RUNNING' | 'CANCELLING' | 'FINISHED' | 'CANCELED' | 'FAILED'

/** A job of the session as SHOW JOBS lists it. */
export interface JobInfo {
  /** Short and unique in the session (STOP JOB takes it). */
  readonly id: string
  readonly name: string
  readonly kind: JobKind
  readonly graph: JobGraph
  readonly status: JobStatus
  /** Epoch ms. */
  readonly startedAt: number
  readonly endedAt: number | undefined
  /** Its numbers now (while it runs) or when it ended; undefined before it opened. */
  readonly sample: JobSample | undefined
  /** Settles when it has ended. */
  readonly outcome: Promise<JobOutcome>
}

/** A job just started: its id, and its metrics once it ends. */
export interface StartedJob {
  readonly id: string
  readonly done: Promise<JobMetrics>
}

/** How a job ended. */
export type JobOutcome =
  | { readonly name: string; readonly kind: JobKind; readonly metrics: JobMetrics; readonly error?: undefined }
  | { readonly name: string; readonly kind: JobKind; readonly error: unknown; readonly metrics?: undefined }

export type JobKind = 'insert' | 'select'

/** A job failed: its error, with the job's name; the message is the error's own. */
export class JobFailure extends WeirError {
  constructor(readonly job: string, error: WeirError, notes: readonly string[]) {
    super(error.kind, error.message, { span: error.span, record: error.record, help: error.help, notes, cause: error })
    this.name = 'JobFailure'
  }
}

export interface JobSetOptions {
  /** Stops every job (Ctrl-C). */
  readonly signal?: AbortSignal
  /** Stops every job with a savepoint (SIGTERM). */
  readonly stopWithSavepoint?: AbortSignal
  /** Told of a failure as soon as the job fails, before the others are stopped. */
  readonly onFailure?: (job: string, error: unknown) => void
  readonly log?: (line: string) => void
}

interface Job {
  readonly id: string
  readonly name: string
  readonly kind: JobKind
  readonly graph: JobGraph
  readonly cancel: AbortController
  readonly savepoint: AbortController
  readonly startedAt: number
  outcome: Promise<JobOutcome>
  ended: boolean
  endedAt?: number
  status: JobStatus
  probe?: JobProbe
  /** The last sample, kept when the job ends (its probe is let go with the job). */
  last?: JobSample
}

export class JobSet {
  private readonly jobs: Job[] = []
  /**
   * How many failures stopped the other jobs ('weir.on-job-failure'). A script being run starts
   * nothing more once this grew since it began; a later one (the REPL's next statement) runs.
   */
  halts = 0

  constructor(private readonly opts: JobSetOptions) {}

  /** Starts a job; its promise rejects with a JobFailure (after onFailure and the stop of the others). */
  start(name: string, kind: JobKind, graph: JobGraph, run: (control: JobControl) => Promise<JobMetrics>): StartedJob {
    const cancel = new AbortController()
    const savepoint = new AbortController()
    const any = (outer: AbortSignal | undefined, own: AbortSignal): AbortSignal => (outer ? AbortSignal.any([outer, own]) : own)
    const job: Job = {
      id: this.newId(),
      name,
      kind,
      graph,
      cancel,
      savepoint,
      startedAt: Date.now(),
      outcome: undefined as unknown as Promise<JobOutcome>,
      ended: false,
      status: 'RUNNING',
    }
    this.jobs.push(job)
    const ended = (status: JobStatus): void => {
      job.last = job.probe?.()
      job.probe = undefined
      job.ended = true
      job.endedAt = Date.now()
      job.status = status
    }
    const control: JobControl = {
      signal: any(this.opts.signal, cancel.signal),
      stopWithSavepoint: any(this.opts.stopWithSavepoint, savepoint.signal),
      onStart: probe => {
        job.probe = probe
      },
    }
    const done = run(control).then(
      metrics => {
        // Stopped with a savepoint, a job ends as Flink's stop does: FINISHED.
        ended(metrics.cancelled && metrics.savepoint === undefined ? 'CANCELED' : 'FINISHED')
        return metrics
      },
      e => {
        ended('FAILED')
        throw this.failed(job, e)
      },
    )
    job.outcome = done.then(metrics => ({ name, kind, metrics }), error => ({ name, kind, error }))
    // A failure is reported by onFailure and whoever awaits the job; never an unhandled rejection.
    done.catch(() => undefined)
    return { id: job.id, done }
  }

  /** Stops the running job `name`, with a savepoint when asked; false when no job of that name runs. */
  stop(name: string, withSavepoint = false): boolean {
    const job = this.jobs.find(j => j.name === name && !j.ended)
    if (job === undefined) return false
    this.stopJob(job, withSavepoint)
    return true
  }

  /** Stops job `id` if it runs; its outcome (undefined: no job has that id). */
  stopById(id: string, withSavepoint: boolean): Promise<JobOutcome> | undefined {
    const job = this.jobs.find(j => j.id === id)
    if (job === undefined) return undefined
    if (!job.ended) this.stopJob(job, withSavepoint)
    return job.outcome
  }

  /** The jobs started so far (of `kind`, if given), oldest first, with their numbers now. */
  list(kind?: JobKind): JobInfo[] {
    return this.jobs.filter(j => kind === undefined || j.kind === kind).map(j => ({
      id: j.id,
      name: j.name,
      kind: j.kind,
      graph: j.graph,
      status: j.status,
      startedAt: j.startedAt,
      endedAt: j.endedAt,
      sample: j.probe?.() ?? j.last,
      outcome: j.outcome,
    }))
  }

  private stopJob(job: Job, withSavepoint: boolean): void {
    if (job.status === 'RUNNING') job.status = 'CANCELLING'
    if (withSavepoint) job.savepoint.abort()
    else job.cancel.abort()
  }

  /** Eight hex digits (Flink's job ids have 32: these are typed in STOP JOB), unique in the session. */
  private newId(): string {
    for (;;) {
      const id = randomBytes(4).toString('hex')
      if (!this.jobs.some(j => j.id === id)) return id
    }
  }

  /** Waits until every job started so far (of `kind`, if given) has ended. */
  async settle(kind?: JobKind): Promise<JobOutcome[]> {
    return Promise.all(this.jobs.filter(j => kind === undefined || j.kind === kind).map(j => j.outcome))
  }

  private failed(job: Job, e: unknown): unknown {
    const error = e instanceof WeirError ? new JobFailure(job.name, e, failureNotes(job.graph, e)) : e
    this.opts.onFailure?.(job.name, error)
    // What the other jobs of a session do when one fails ('weir.on-job-failure').
    const policy = job.graph.config.onJobFailure
    if (policy === 'continue') return error
    this.halts++
    const others = this.jobs.filter(j => !j.ended && j !== job)
    for (const other of others) {
      // A SELECT has no checkpoints to keep a savepoint in: it is cancelled.
      const savepoint = policy === 'stop-with-savepoint' && other.kind === 'insert'
      this.opts.log?.(`job '${job.name}' failed: stopping job '${other.name}'${savepoint ? ' with a savepoint' : ''} ('weir.on-job-failure' = '${policy}')`)
      if (savepoint) other.savepoint.abort()
      else other.cancel.abort()
    }
    return error
  }
}

/** Notes of a failed job's error: the operator as EXPLAIN prints it, the input row, then the error's own. */
function failureNotes(graph: JobGraph, e: WeirError): readonly string[] {
  if (!(e instanceof OperatorFailure)) return e.notes
  const op = e.operator
  const subtask = op.parallelism > 1 ? ` (subtask ${op.subtask + 1} of ${op.parallelism})` : ''
  return [
    `in operator ${op.id}${subtask}: ${explainOperator(graph, op.id) ?? op.kind}`,
    ...(e.row === undefined ? [] : [`input row: ${e.row}`]),
    ...e.originalNotes,
  ]
}
