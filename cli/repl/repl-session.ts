// The REPL's link to the engine: runs the statements of a submitted text one by one through a
// Session with `weir run`'s options, and tells a ReplOutput what to show — results as text, errors
// rendered as `weir run` renders them, and a SELECT's changes as they come. The terminal UI and the
// plain-text mode for pipes are two ReplOutputs.
import { randomInt } from 'node:crypto'
import { clientSettings, padTo, renderError, runDefaults, Session, splitStatements, type ClientSettings, type Field, type JobInfo, type JobMetrics,
  type JobSample, type SelectConsumer, type StatementResult } from '../../index.js'
import { count, renderJobFailure, renderTable } from '../format.js'

/** How a text block is shown: results, progress and warnings, or errors. */
export type Tone = 'result' | 'info' | 'warning' | 'error'

/** A SELECT the REPL is running. */
export interface RunningSelect {
  readonly name: string
  readonly schema: readonly Field[]
  readonly bounded: boolean
  /** The client options in force when it started (result mode, max rows). */
  readonly settings: ClientSettings
  readonly startedAt: number
  /** Its job's numbers now (rows in and out, watermark); undefined until the job has opened. */
  sample(): JobSample | undefined
}

/** How quitting treats the INSERT jobs still running. */
export type QuitJobs = 'wait' | 'savepoint' | 'cancel'

/** How a SELECT ended: its job's metrics, or it failed (the failure was printed). */
export type SelectEnd = { readonly metrics: JobMetrics } | { readonly failed: true }

export interface ReplOutput {
  print(text: string, tone: Tone): void
  /** A SELECT starts; the consumer returned gets its changes. */
  selectStarted(select: RunningSelect): SelectConsumer
  selectEnded(select: RunningSelect, end: SelectEnd): void
}

export interface ReplSessionOptions {
  /** Options set before any statement (as SET; tests use heap state). */
  readonly options?: Readonly<Record<string, string>>
  /** The name errors give the text typed (`--> <repl>:1:8`). */
  readonly sourceName?: string
}

/**
 * A Session driven a statement at a time.
 *
 * @example
 * const repl = new ReplSession(output)
 * const ok = await repl.submit("SELECT * FROM t;")   // false: an error was printed
 */
export class ReplSession {
  readonly session: Session
  private running: RunningSelect | undefined
  /** The text being run, for the carets of errors. */
  private text = ''
  private textName = ''
  /** The text each job's statement came from, for the carets of its failure (the prompt has moved on since). */
  private readonly jobTexts = new Map<string, { readonly text: string; readonly name: string }>()
  private readonly sourceName: string
  private readonly quit = new AbortController()
  private readonly cancel = new AbortController()

  constructor(private readonly out: ReplOutput, opts: ReplSessionOptions = {}) {
    this.sourceName = opts.sourceName ?? '<repl>'
    this.session = new Session({
      // Jobs quit with the REPL take a savepoint, as `weir run` on SIGTERM: they resume from it.
      stopWithSavepoint: this.quit.signal,
      // Jobs quit with the REPL without a savepoint (the user said so) are cancelled.
      signal: this.cancel.signal,
      jobNamePrefix: 'repl',
      insertJobNamePrefix: `repl-${sessionTag()}`,
      log: line => out.print(line, 'info'),
      warn: text => out.print(text, 'warning'),
      // `weir run`'s defaults (RocksDB state, checkpoints under .weir/checkpoints); one failing query
      // does not stop the session's other jobs, and the prompt stays usable.
      options: { ...runDefaults(), 'weir.on-job-failure': 'continue', ...opts.options },
      onJobFailed: (job, error) => {
        const source = this.jobTexts.get(job) ?? { text: this.text, name: this.textName }
        out.print(renderJobFailure(job, error, source.text, source.name), 'error')
      },
      onSelect: info => {
        this.jobTexts.set(info.name, { text: this.text, name: this.textName })
        const select: RunningSelect = {
          ...info,
          settings: this.settings,
          startedAt: Date.now(),
          sample: () => this.session.listJobs('select').find(j => j.name === info.name)?.sample,
        }
        this.running = select
        return out.selectStarted(select)
      },
      // A print sink's rows are results.
      println: line => out.print(line, 'result'),
    })
  }

  get settings(): ClientSettings {
    return clientSettings(this.session.currentOptions)
  }

  /** The SELECT running now, if any. */
  get select(): RunningSelect | undefined {
    return this.running
  }

  /**
   * Runs the complete statements of `text` in order (a last one without ';' too), stopping at the
   * first that fails; true when every one ran. Errors point into `text` (named `sourceName`).
   */
  async submit(text: string, sourceName = this.sourceName): Promise<boolean> {
    const split = splitStatements(text)
    const statements = [...split.statements]
    if (!split.restIsBlank) statements.push({ text: split.rest, offset: text.length - split.rest.length })
    for (const statement of statements) {
      if (!(await this.runOne(padTo(text, statement), text, sourceName))) return false
    }
    return true
  }

  /** Stops the running SELECT (Esc, Ctrl-C); false when none runs. */
  stopSelect(): boolean {
    return this.running !== undefined && this.session.stopJob(this.running.name)
  }

  /** Stops every INSERT job with a savepoint (their checkpoints go on from it), as quitting does. */
  stopJobs(): void {
    this.quit.abort()
  }

  /** The INSERT jobs not ended yet. */
  runningJobs(): JobInfo[] {
    return this.session.listJobs('insert').filter(j => j.status === 'RUNNING' || j.status === 'CANCELLING')
  }

  /**
   * Waits for the INSERT jobs (`wait`: until they end; `savepoint`: stopped with a savepoint;
   * `cancel`: stopped without) and says how each ended, with its savepoint; how many failed (each
   * failure was printed when it happened).
   */
  async close(opts: { readonly jobs: QuitJobs }): Promise<number> {
    // Savepoints are said for the jobs this stops (STOP JOB said those it took already).
    const running = new Set(this.runningJobs().map(j => j.id))
    if (opts.jobs === 'savepoint') this.stopJobs()
    if (opts.jobs === 'cancel') this.cancel.abort()
    let failed = 0
    for (const job of this.session.listJobs('insert')) {
      const m = (await job.outcome).metrics
      if (m === undefined) failed++
      else if (m.savepoint !== undefined && running.has(job.id)) this.out.print(`job '${job.name}': savepoint ${m.savepoint}`, 'info')
    }
    return failed
  }

  private async runOne(sql: string, whole: string, sourceName: string): Promise<boolean> {
    this.text = whole
    this.textName = sourceName
    let ok = true
    try {
      const script = await this.session.prepare(sql)
      await this.session.run(script, result => {
        if (!this.report(result)) ok = false
      })
    } catch (e) {
      this.out.print(renderError(e, whole, sourceName), 'error')
      return false
    }
    return ok
  }

  /** Shows one statement's result; false when it failed. */
  private report(result: StatementResult): boolean {
    switch (result.kind) {
      case 'ok':
        this.out.print(result.message, 'info')
        return true
      case 'table':
        this.out.print(renderTable(result.columns, result.rows), 'result')
        return true
      case 'explain':
        this.out.print(result.text, 'result')
        return true
      case 'job':
        this.jobTexts.set(result.name, { text: this.text, name: this.textName })
        this.out.print(`job '${result.name}' started in the background, id '${result.id}'`, 'info')
        // Said when it ends, whatever the prompt is doing then (a failure was said by onJobFailed).
        result.done.then(m => this.out.print(jobEnd(result.name, m), 'info'), () => undefined)
        return true
      case 'rows':
      case 'failed': {
        const select = this.running
        this.running = undefined
        const end: SelectEnd = result.kind === 'rows' ? { metrics: result.metrics } : { failed: true }
        if (select !== undefined) this.out.selectEnded(select, end)
        return result.kind === 'rows'
      }
    }
  }
}

/**
 * A tag of this session's own for its unnamed INSERT jobs (`repl-<tag>-<n>`). A job's checkpoint
 * folder is named after it and a job resumes from its folder's latest checkpoint: with plain
 * `repl-<n>`, a later session's first INSERT would silently go on from an earlier session's. As in
 * Flink, each INSERT is a new job; one meant to resume is named with 'pipeline.name'.
 */
function sessionTag(): string {
  return randomInt(36 ** 6).toString(36).padStart(6, '0')
}

function jobEnd(name: string, m: JobMetrics): string {
  const written = Object.values(m.sinkRows).reduce((a, b) => a + b, 0)
  return `job '${name}' ${m.cancelled ? 'stopped' : 'finished'}: ${count(m.sourceRecordsRead, 'row')} read, ${count(written, 'row')} written`
}
