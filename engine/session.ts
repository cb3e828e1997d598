// A SQL session: the catalog and options, and what each statement does — DDL changes the catalog,
// SET changes options, EXPLAIN plans, INSERT starts a job, SELECT runs and collects its changes.
// A script is planned whole before any of its jobs starts (script.ts); running jobs are in jobs.ts.
import type * as ast from '../grammar/ast.js'
import { parseSql } from '../grammar/index.js'
import { WeirError } from '../common/errors.js'
import { assertNever } from '../common/assert.js'
import type { JobGraph } from '../core/job-graph.js'
import { executeJob, RestoreFailed, type ExecutionEnv, type JobMetrics } from '../runtime/executor.js'
import type { FaultInjector } from '../runtime/faults.js'
import { findLatest, jobStorage, openCheckpointAt, type CheckpointConfig, type CheckpointRef, type SkippedCheckpoint } from '../runtime/checkpoint.js'
import { withJobLock } from '../checkpoint/job-lock.js'
import { checkRecoveryTarget, warnCommittedAfter } from './committed-output.js'
import { parseDuration } from '../common/durations.js'
import { alterObject, applyNamespaceStatement, Catalog, createTableAs, showNamespaces, describe, explain, showFunctions, showColumns, likeFilter,
  explainJobGraph, planQuery, showCreate, tableFromAst, viewFromAst, type PlanContext } from '../planner/index.js'
import { jobConfigOf, listOptions, resetOption, setOption, type JobConfig } from '../common/config/index.js'
import { renderWarning, type WarningSink } from '../common/warnings.js'
import { JobSet, type JobControl, type JobInfo, type JobKind, type JobOutcome } from './jobs.js'
import { createFunction } from './create-function.js'
import { runScript, type PlannedStep, type Script, type SelectConsumer, type SelectInfo, type StatementResult } from './script.js'

export type { StatementResult }

export interface SessionOptions {
  /** Where print sinks write; defaults to stdout. */
  readonly println?: (line: string) => void
  /** Stops every job of the session. */
  readonly signal?: AbortSignal
  /**
   * Called as a SELECT starts; a function it returns receives the SELECT's changes as they are
   * produced, and the SELECT then collects nothing (the CLI prints an unbounded SELECT live).
   */
  readonly onSelect?: (select: SelectInfo) => SelectConsumer | undefined
  /** Told at once when a job fails, with its error naming the operator (and row); the session then applies 'weir.on-job-failure'. */
  readonly onJobFailed?: (job: string, error: unknown) => void
  /** Plan only: INSERT and SELECT print their plan instead of running (weir explain). */
  readonly explainOnly?: boolean
  /** Initial options, as if SET (checked as SET checks them when the session is made). */
  readonly options?: Readonly<Record<string, string>>
  /**
   * INSERT jobs without 'pipeline.name' are named `<prefix>-<n>`, n counting INSERTs only (default
   * 'weir-job'; weir run uses the file's name); SELECTs `<pipeline.name or prefix>-select-<n>`.
   */
  readonly jobNamePrefix?: string
  /**
   * The prefix of unnamed INSERT jobs where it differs from `jobNamePrefix`: the REPL's is unique per
   * session, so a later session's unnamed job does not resume this one's checkpoints (a job named by
   * 'pipeline.name' still does).
   */
  readonly insertJobNamePrefix?: string
  /**
   * Where an INSERT job starts. Default: from the latest completed checkpoint or savepoint of the job
   * in 'state.checkpoints.dir', if there is one. `fresh`: from scratch. `from`: this checkpoint or
   * savepoint folder (a URI or path).
   */
  readonly recovery?: { readonly fresh?: boolean; readonly from?: string }
  /** Aborting stops every job with a savepoint (weir run on SIGTERM). */
  readonly stopWithSavepoint?: AbortSignal
  /** Progress messages: resuming, savepoints, skipped checkpoints. */
  readonly log?: (line: string) => void
  /** Warnings (an ignored hint or option), rendered with their position; default: `log`. */
  readonly warn?: (text: string) => void
  /** The SQL the statements come from and its file name, so warnings can show the line with a caret. */
  readonly source?: { readonly sql: string; readonly file: string }
  /** Called when a job completes a checkpoint or savepoint (after its sinks committed). */
  readonly onCheckpoint?: (job: string, id: number, location: string) => void
  /** Jobs count the entries RocksDB stores when they end (JobMetrics.stateStoredEntries; a scan of all state). */
  readonly countStoredState?: boolean
  /** A hook the jobs' checkpoints call at the points where a crash is worst (tests of fault tolerance); none by default. */
  readonly faults?: FaultInjector
}

/**
 * Runs SQL statements against one catalog.
 *
 * @example
 * const session = new Session()
 * await session.executeSql(`CREATE TABLE t (…) WITH (…); INSERT INTO out SELECT … FROM t`)
 * await session.awaitJobs()
 */
export class Session {
  readonly catalog = new Catalog()
  /** What SET stored (Weir's keys, the values as written); read into a JobConfig as each statement is planned. */
  private options: Record<string, string>
  /** What the session started with, which RESET goes back to. */
  private readonly initial: Readonly<Record<string, string>>
  private readonly jobs: JobSet
  private insertJobs = 0
  private selectJobs = 0
  /** The text of the last script prepared from text, for the carets of warnings. */
  private sqlText: string | undefined

  /** Renders a planner's or SET's warning to `warn` (or `log`). */
  private readonly warn: WarningSink = w => {
    const out = this.opts.warn ?? this.opts.log
    out?.(renderWarning(w, this.opts.source?.sql ?? this.sqlText, this.opts.source?.file))
  }

  constructor(private readonly opts: SessionOptions = {}) {
    this.initial = initialSettings(opts.options ?? {}, this.warn)
    this.options = { ...this.initial }
    this.jobs = new JobSet({ signal: opts.signal, stopWithSavepoint: opts.stopWithSavepoint, onFailure: opts.onJobFailed, log: opts.log })
  }

  get currentOptions(): Readonly<Record<string, string>> {
    return this.options
  }

  /**
   * Plans every statement of `sql`, then runs them in order (see prepare and run). Throws the first
   * plan error (then nothing ran) or the failure of a SELECT; INSERT jobs fail through awaitJobs.
   */
  async executeSql(sql: string): Promise<StatementResult[]> {
    return this.runAll(await this.prepare(sql))
  }

  async execute(stmt: ast.Statement): Promise<StatementResult> {
    return (await this.runAll(await this.prepare([stmt])))[0]!
  }

  private async runAll(script: Script): Promise<StatementResult[]> {
    const results = await this.run(script)
    const failed = results.find(r => r.kind === 'failed')
    if (failed) throw failed.error
    return results
  }

  /**
   * Plans a whole script and starts nothing: DDL and SET apply in order (later statements depend on
   * them), INSERT and SELECT are planned and lowered to job graphs with the options in force at
   * their place. A plan error anywhere throws before any job of the script has started.
   */
  async prepare(sql: string | readonly ast.Statement[]): Promise<Script> {
    const steps: PlannedStep[] = []
    if (typeof sql === 'string') this.sqlText = sql
    for (const stmt of typeof sql === 'string' ? parseSql(sql) : sql) steps.push(await this.plan(stmt))
    return { steps }
  }

  /**
   * Runs a planned script in order: INSERT jobs start and run on, a SELECT runs to its end (or until
   * stopped) before the next statement. `onResult` sees each result as it comes. Once a job failed
   * and 'weir.on-job-failure' stops the others, or the session's signals stopped it, nothing more
   * starts. A SELECT that fails gives a 'failed' result.
   */
  run(script: Script, onResult?: (result: StatementResult) => void): Promise<StatementResult[]> {
    return runScript(script, {
      jobs: this.jobs,
      startJob: (graph, control) => this.startJob(graph, control),
      println: this.println,
      onSelect: this.opts.onSelect,
      log: this.opts.log,
      faults: this.opts.faults,
      stopped: () => this.opts.signal?.aborted === true || this.opts.stopWithSavepoint?.aborted === true,
    }, onResult)
  }

  private async plan(stmt: ast.Statement): Promise<PlannedStep> {
    switch (stmt.kind) {
      case 'CreateFunction': {
        const fn = await createFunction(stmt, this.opts.source?.file)
        const created = this.catalog.functions.add(fn, stmt.ifNotExists, stmt.name.span)
        return { kind: 'ok', message: created ? `function '${fn.name}' created` : `function '${fn.name}' already exists` }
      }
      case 'DropFunction': {
        const name = stmt.name.parts.at(-1)!.value
        const dropped = this.catalog.functions.drop(stmt.name, stmt.ifExists)
        return { kind: 'ok', message: dropped ? `function '${name}' dropped` : `function '${name}' does not exist` }
      }
      case 'CreateTable': {
        if (stmt.asQuery !== undefined) return this.planCreateAs({ ...stmt, asQuery: stmt.asQuery })
        const table = tableFromAst(stmt, this.catalog)
        const created = this.catalog.add(table, stmt.ifNotExists, stmt.name.span, stmt.name)
        return { kind: 'ok', message: created ? `table '${table.name}' created` : `table '${table.name}' already exists` }
      }
      case 'CreateView': {
        const view = viewFromAst(stmt, this.catalog, this.config(), this.warn)
        const created = this.catalog.add(view, stmt.ifNotExists, stmt.name.span, stmt.name)
        return { kind: 'ok', message: created ? `view '${view.name}' created` : `view '${view.name}' already exists` }
      }
      case 'CreateCatalog':
      case 'CreateDatabase':
      case 'Use':
        return { kind: 'ok', message: applyNamespaceStatement(stmt, this.catalog) }
      case 'DropObject': {
        if (stmt.object === 'DATABASE' || stmt.object === 'CATALOG') return { kind: 'ok', message: applyNamespaceStatement(stmt, this.catalog) }
        if (stmt.cascade) {
          throw WeirError.plan(`DROP ${stmt.object} takes no CASCADE`, { span: stmt.span, help: `DROP ${stmt.object} ${
            stmt.name.parts.map(p => p.value).join('.')
          }` })
        }
        const name = stmt.name.parts.at(-1)!.value
        const dropped = this.catalog.drop(stmt.object === 'TABLE' ? 'table' : 'view', stmt.name, stmt.ifExists, stmt.name.span)
        return { kind: 'ok', message: dropped ? `${stmt.object.toLowerCase()} '${name}' dropped` : `${stmt.object.toLowerCase()} '${name}' does not exist` }
      }
      case 'SetOption': {
        if (stmt.key === undefined) return { kind: 'table', ...listOptions(this.options) }
        // A Flink spelling is stored under Weir's key; a Flink option Weir ignores only warns.
        const setting = setOption(stmt.key, stmt.value ?? '', stmt.span)
        if (setting.warning !== undefined) this.warn(setting.warning)
        if (setting.key !== undefined) this.options[setting.key] = setting.value ?? ''
        const stored = setting.key !== undefined && setting.key !== stmt.key ? ` (as '${setting.key}' = '${setting.value}')` : ''
        return { kind: 'ok', message: setting.key === undefined ? `ignored '${stmt.key}'` : `set '${stmt.key}' = '${stmt.value}'${stored}` }
      }
      case 'ResetOption': {
        // RESET goes back to what the session started with (weir run starts with RocksDB state).
        const initial = this.initial
        if (stmt.key === undefined) {
          this.options = { ...initial }
          return { kind: 'ok', message: 'all options reset' }
        }
        const key = resetOption(stmt.key, stmt.span)
        if (key === undefined) return { kind: 'ok', message: `ignored '${stmt.key}'` }
        if (initial[key] !== undefined) this.options[key] = initial[key]!
        else delete this.options[key]
        return { kind: 'ok', message: `reset '${stmt.key}'` }
      }
      case 'ShowTables': {
        if (stmt.what === 'FUNCTIONS') return { kind: 'table', ...showFunctions(this.catalog.functions.list()) }
        if (stmt.what !== 'TABLES' && stmt.what !== 'VIEWS') return { kind: 'table', ...showNamespaces(stmt.what, this.catalog) }
        const keep = likeFilter(stmt.like)
        const objs = this.catalog.list(stmt.what === 'TABLES' ? undefined : 'view', stmt.from && { name: stmt.from, span: stmt.from.span }).filter(o =>
          keep(o.name)
        )
        return { kind: 'table', columns: [stmt.what === 'TABLES' ? 'table name' : 'view name'], rows: objs.map(o => [o.name]) }
      }
      case 'ShowColumns':
        return { kind: 'table', ...showColumns(stmt, this.planContext) }
      case 'ShowJobs':
        return { kind: 'showJobs' }
      case 'StopJob':
        return { kind: 'stopJob', statement: stmt }
      case 'Describe':
        return { kind: 'table', ...describe(stmt, this.planContext) }
      case 'ShowCreate':
        return { kind: 'explain', text: showCreate(this.catalog.resolve(stmt.name, stmt.name.span), stmt.object, stmt.name.span) }
      case 'AlterObject':
        return { kind: 'ok', message: alterObject(stmt, this.catalog) }
      case 'Explain':
        // Plans only: no job is started, so none is named after it.
        return { kind: 'explain', text: explain(stmt, this.planContext) }
      case 'Insert':
      case 'StatementSet':
        return this.planInsert(stmt)
      case 'QueryStatement': {
        const planned = planQuery(stmt, this.planContext)
        const graph = planned.jobGraph(this.jobName('select', planned.config))
        if (this.opts.explainOnly) return { kind: 'explain', text: explainJobGraph(graph) }
        return { kind: 'select', graph, schema: planned.fields, line: stmt.span.start.line }
      }
      default:
        return assertNever(stmt)
    }
  }

  private planInsert(stmt: ast.Insert | ast.StatementSet): PlannedStep {
    const planned = planQuery(stmt, this.planContext)
    const graph = planned.jobGraph(this.jobName('insert', planned.config))
    if (this.opts.explainOnly) return { kind: 'explain', text: explainJobGraph(graph) }
    // Where its checkpoints go is part of the plan: a bad location fails here, before any job starts.
    this.checkpointConfig(graph)
    return { kind: 'insert', graph, line: stmt.span.start.line }
  }

  /**
   * CREATE TABLE … AS SELECT: the table is created and its INSERT planned as one job. A plan error in
   * the INSERT leaves no table behind. With IF NOT EXISTS and the table there, nothing is inserted.
   */
  private planCreateAs(stmt: ast.CreateTable & { readonly asQuery: ast.Query }): PlannedStep {
    const name = stmt.name.parts.at(-1)!.value
    if (stmt.ifNotExists && this.catalog.get(stmt.name) !== undefined) return { kind: 'ok', message: `'${name}' already exists; nothing inserted` }
    const { table, insert } = createTableAs(stmt, this.planContext)
    this.catalog.add(table, false, stmt.name.span, stmt.name)
    try {
      return this.planInsert(insert)
    } catch (e) {
      this.catalog.drop('table', stmt.name, true, stmt.name.span)
      throw e
    }
  }

  /**
   * Resolves checkpoint storage and where to start from, then runs the job, holding the job's lock
   * in its checkpoint folder meanwhile (a second run of it is refused). Resuming on its own, a
   * checkpoint that cannot be restored (a file missing or damaged) is skipped with a warning for the
   * one before it, unless output committed after that one is visible already (committed-output.ts);
   * one given explicitly (recovery.from) fails the job instead.
   */
  private async startJob(graph: JobGraph, control: JobControl): Promise<JobMetrics> {
    const checkpoint = this.checkpointConfig(graph)
    const say = this.opts.log ?? (() => undefined)
    const log = (m: string): void => say(`job '${graph.name}': ${m}`)
    const storages = checkpoint === undefined ? [] : [checkpoint.storage, checkpoint.savepointStorage]
    return withJobLock(storages, graph.name, log, control.signal, signal => this.runFromStorage(graph, checkpoint, { ...control, signal }, log))
  }

  private async runFromStorage(graph: JobGraph, checkpoint: CheckpointConfig | undefined, control: JobControl, log: (m: string) => void): Promise<JobMetrics> {
    const recovery = this.opts.recovery ?? {}
    const env = (restore: CheckpointRef | undefined): ExecutionEnv => ({
      println: this.println,
      signal: control.signal,
      stopWithSavepoint: control.stopWithSavepoint,
      checkpoint,
      restore,
      log,
      onCheckpoint: (id, location) => this.opts.onCheckpoint?.(graph.name, id, location),
      countStoredState: this.opts.countStoredState,
      faults: this.opts.faults,
      onStart: control.onStart,
    })
    if (recovery.from !== undefined) {
      const restore = await openCheckpointAt(recovery.from, graph.config.s3)
      log(`starting from ${restore.manifest.kind} ${restore.manifest.id} (${restore.location})`)
      await warnCommittedAfter(graph, restore, log)
      return executeJob(graph, env(restore)).catch(e => {
        throw e instanceof RestoreFailed ? e.error : e
      })
    }
    if (checkpoint === undefined) return executeJob(graph, env(undefined))
    if (recovery.fresh) {
      await warnCommittedAfter(graph, undefined, log)
      return executeJob(graph, env(undefined))
    }
    const skipped: SkippedCheckpoint[] = []
    for (let below = Infinity;;) {
      const restore = await findLatest(checkpoint.storage, (m, s) => {
        if (!skipped.some(x => x.id === s.id)) {
          log(m)
          skipped.push(s)
        }
      }, below, checkpoint.savepointStorage)
      await checkRecoveryTarget(graph, restore, skipped, log)
      if (restore === undefined) return executeJob(graph, env(undefined))
      log(`resuming from ${restore.manifest.kind} ${restore.manifest.id} (${restore.location})`)
      try {
        return await executeJob(graph, env(restore))
      } catch (e) {
        if (!(e instanceof RestoreFailed)) throw e
        log(`cannot restore ${restore.manifest.kind} ${restore.manifest.id}: ${e.error.message}; trying the one before`)
        skipped.push({ id: restore.manifest.id, kind: restore.manifest.kind, reason: e.error.message })
        below = restore.manifest.id
      }
    }
  }

  /** Checkpoint storage of a job per its 'state.checkpoints.dir' (none without it). */
  private checkpointConfig(graph: JobGraph): CheckpointConfig | undefined {
    const { dir: root, savepointDir: savepointRoot, intervalMs: interval, retained } = graph.config.checkpointing
    const s3 = graph.config.s3
    if (root === undefined) {
      if (interval > 0) {
        throw WeirError.plan(`'execution.checkpointing.interval' is set but 'state.checkpoints.dir' is not`, {
          help: `SET 'state.checkpoints.dir' = 'file:///path/to/checkpoints' (or 's3://bucket/prefix')`,
        })
      }
      return undefined
    }
    const storage = jobStorage(root, graph.name, s3)
    return {
      storage,
      savepointStorage: savepointRoot !== undefined ? jobStorage(savepointRoot, graph.name, s3) : storage,
      intervalMs: interval,
      retained,
    }
  }

  /**
   * Stops the running job `name` (an INSERT's job, or a SELECT: the REPL stops one on Esc), with a
   * savepoint when asked; what it produced until then is flushed. False when no job of that name runs.
   */
  stopJob(name: string, opts: { readonly savepoint?: boolean } = {}): boolean {
    return this.jobs.stop(name, opts.savepoint)
  }

  /** The jobs of the session (of `kind`, if given), oldest first, with their numbers now. */
  listJobs(kind?: JobKind): JobInfo[] {
    return this.jobs.list(kind)
  }

  /** Waits for every job started by INSERT; rejects with the first failure. */
  async awaitJobs(): Promise<JobMetrics[]> {
    const outcomes = await this.jobs.settle('insert')
    const failed = outcomes.find(o => o.metrics === undefined)
    if (failed) throw failed.error
    return outcomes.map(o => o.metrics!)
  }

  /** Waits for every job started by INSERT and says how each ended (failures were told to onJobFailed at once). */
  settleJobs(): Promise<JobOutcome[]> {
    return this.jobs.settle('insert')
  }

  /** The catalog, the options in force now and the warning sink, for the planner. */
  private get planContext(): PlanContext {
    return { catalog: this.catalog, config: this.config(), warn: this.warn }
  }

  /** The options in force now, read (a job keeps the configuration it was planned with: later SETs do not change it). */
  private config(): JobConfig {
    return jobConfigOf(this.options)
  }

  /**
   * INSERT jobs are numbered among INSERTs only, so adding a SELECT to a file does not rename them
   * (their checkpoint folders are named after them); a SELECT's job has names of its own.
   */
  private jobName(kind: 'insert' | 'select', { pipelineName }: JobConfig): string {
    const prefix = this.opts.jobNamePrefix ?? 'weir-job'
    // Counted whether or not 'pipeline.name' names the job, as before SELECTs were counted apart.
    const n = kind === 'insert' ? ++this.insertJobs : ++this.selectJobs
    if (kind === 'insert') return pipelineName ?? `${this.opts.insertJobNamePrefix ?? prefix}-${n}`
    return `${pipelineName ?? prefix}-select-${n}`
  }

  private readonly println = (line: string): void => {
    if (this.opts.println) this.opts.println(line)
    else process.stdout.write(line + '\n')
  }
}

/** `options` as SET would store them: Flink's spellings under Weir's keys, every value checked. */
function initialSettings(options: Readonly<Record<string, string>>, warn: WarningSink): Record<string, string> {
  const settings: Record<string, string> = {}
  for (const [key, value] of Object.entries(options)) {
    const setting = setOption(key, value)
    if (setting.warning !== undefined) warn(setting.warning)
    if (setting.key !== undefined) settings[setting.key] = setting.value ?? ''
  }
  return settings
}

export { WeirError }
