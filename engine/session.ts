// A SQL session: the catalog and options, and what each statement does — DDL changes the catalog,
// SET changes options, EXPLAIN plans, INSERT starts a job, SELECT runs and collects its changes.
import type * as ast from '../grammar/ast.js'
import { parseSql } from '../grammar/index.js'
import { WeirError } from '../common/errors.js'
import { assertNever } from '../common/assert.js'
import { formatType, type Field } from '../common/types.js'
import type { Batch, Row } from '../runtime/batch.js'
import type { JobGraph } from '../runtime/job-graph.js'
import { executeJob, RestoreFailed, type ExecutionEnv, type JobMetrics } from '../runtime/executor.js'
import { findLatest, jobStorage, openCheckpointAt, type CheckpointConfig, type CheckpointRef } from '../runtime/checkpoint.js'
import { parseDuration } from '../common/durations.js'
import { Catalog } from '../planner/catalog.js'
import { tableFromAst, viewFromAst } from '../planner/ddl.js'
import { planInsert, planSelect } from '../planner/planner.js'
import { lowerToJobGraph } from '../planner/physical/lower.js'
import { explainJobGraph } from '../planner/explain.js'
import { checkOption, OPTIONS } from '../planner/options.js'
import { tableFields } from '../planner/bind/query-binder.js'
import type { LogicalPlan } from '../planner/logical/nodes.js'

export type StatementResult =
  | { readonly kind: 'ok'; readonly message: string }
  | { readonly kind: 'table'; readonly columns: readonly string[]; readonly rows: readonly (readonly string[])[] }
  | { readonly kind: 'explain'; readonly text: string }
  /** An INSERT started a job; `done` settles when it finishes. */
  | { readonly kind: 'job'; readonly name: string; readonly graph: JobGraph; readonly done: Promise<JobMetrics> }
  /** A SELECT ran to completion (or was stopped); its changes in order. */
  | { readonly kind: 'rows'; readonly schema: readonly Field[]; readonly changes: readonly { kind: number; row: Row }[]; readonly metrics: JobMetrics }

export interface SessionOptions {
  /** Where print sinks write; defaults to stdout. */
  readonly println?: (line: string) => void
  /** Stops every job of the session. */
  readonly signal?: AbortSignal
  /** Receives SELECT results as they are produced (the CLI prints them live). */
  readonly onSelectBatch?: (schema: readonly Field[], batch: Batch) => void
  /** Plan only: INSERT and SELECT print their plan instead of running (weir explain). */
  readonly explainOnly?: boolean
  /** Initial options, as if SET. */
  readonly options?: Readonly<Record<string, string>>
  /** Jobs without 'pipeline.name' are named `<prefix>-<n>` (default 'weir-job'; weir run uses the file's name). */
  readonly jobNamePrefix?: string
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
  /** Called when a job completes a checkpoint or savepoint (after its sinks committed). */
  readonly onCheckpoint?: (job: string, id: number, location: string) => void
  /** Jobs count the entries RocksDB stores when they end (JobMetrics.stateStoredEntries; a scan of all state). */
  readonly countStoredState?: boolean
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
  private options: Record<string, string>
  private readonly jobs: { name: string; done: Promise<JobMetrics> }[] = []
  private jobCounter = 0

  constructor(private readonly opts: SessionOptions = {}) {
    this.options = { ...(opts.options ?? {}) }
  }

  get currentOptions(): Readonly<Record<string, string>> {
    return this.options
  }

  /** Parses and executes every statement of `sql` in order; stops at the first error. */
  async executeSql(sql: string): Promise<StatementResult[]> {
    const results: StatementResult[] = []
    for (const stmt of parseSql(sql)) results.push(await this.execute(stmt))
    return results
  }

  async execute(stmt: ast.Statement): Promise<StatementResult> {
    switch (stmt.kind) {
      case 'CreateTable': {
        const table = tableFromAst(stmt)
        const created = this.catalog.add(table, stmt.ifNotExists, stmt.name.span)
        return { kind: 'ok', message: created ? `table '${table.name}' created` : `table '${table.name}' already exists` }
      }
      case 'CreateView': {
        const view = viewFromAst(stmt, this.catalog, this.options)
        const created = this.catalog.add(view, stmt.ifNotExists, stmt.name.span)
        return { kind: 'ok', message: created ? `view '${view.name}' created` : `view '${view.name}' already exists` }
      }
      case 'DropObject': {
        const name = stmt.name.parts.at(-1)!.value
        const dropped = this.catalog.drop(stmt.object === 'TABLE' ? 'table' : 'view', name, stmt.ifExists, stmt.name.span)
        return { kind: 'ok', message: dropped ? `${stmt.object.toLowerCase()} '${name}' dropped` : `${stmt.object.toLowerCase()} '${name}' does not exist` }
      }
      case 'SetOption': {
        if (stmt.key === undefined) {
          const keys = Object.keys(OPTIONS).sort()
          return { kind: 'table', columns: ['key', 'value'], rows: keys.map(k => [k, this.options[k] ?? OPTIONS[k]!.default ?? '']) }
        }
        checkOption(stmt.key, stmt.value ?? '', stmt.span)
        this.options[stmt.key] = stmt.value ?? ''
        return { kind: 'ok', message: `set '${stmt.key}' = '${stmt.value}'` }
      }
      case 'ResetOption': {
        // RESET goes back to what the session started with (weir run starts with RocksDB state).
        const initial = this.opts.options ?? {}
        if (stmt.key === undefined) { this.options = { ...initial }; return { kind: 'ok', message: 'all options reset' } }
        checkOption(stmt.key, OPTIONS[stmt.key]?.default ?? '', stmt.span)
        if (initial[stmt.key] !== undefined) this.options[stmt.key] = initial[stmt.key]!
        else delete this.options[stmt.key]
        return { kind: 'ok', message: `reset '${stmt.key}'` }
      }
      case 'ShowTables': {
        const objs = this.catalog.list(stmt.what === 'TABLES' ? undefined : 'view')
        return { kind: 'table', columns: [stmt.what === 'TABLES' ? 'table name' : 'view name'], rows: objs.map(o => [o.name]) }
      }
      case 'Describe': {
        const name = stmt.name.parts.at(-1)!.value
        const obj = this.catalog.resolve(name, stmt.name.span)
        if (obj.kind === 'table') {
          const { fields } = tableFields(obj)
          return {
            kind: 'table', columns: ['name', 'type', 'null', 'key', 'extras', 'watermark'],
            rows: obj.columns.map((c, i) => [
              c.name, formatType({ ...fields[i]!.type, nullable: true } as typeof c.type).replace(/ \*\w+\*$/, ''),
              fields[i]!.type.nullable ? 'TRUE' : 'FALSE',
              obj.primaryKey.includes(c.name) ? `PRI(${obj.primaryKey.join(', ')})` : '',
              c.kind === 'computed' ? 'AS …' : '',
              obj.watermark && obj.watermark.column.toLowerCase() === c.name.toLowerCase() ? 'yes' : '',
            ]),
          }
        }
        const { QueryBinder } = await import('../planner/bind/query-binder.js')
        const bound = new QueryBinder(this.catalog, this.options).bindQuery(obj.query)
        return { kind: 'table', columns: ['name', 'type'], rows: bound.plan.fields.map((f, i) => [obj.columns?.[i] ?? f.name, formatType(f.type)]) }
      }
      case 'Explain': {
        const plan = this.plan(stmt.statement)
        return { kind: 'explain', text: explainJobGraph(this.lower([plan]), { changelogMode: stmt.changelogMode }) }
      }
      case 'Insert': {
        const plan = planInsert(stmt, this.catalog, this.options)
        const graph = this.lower([plan])
        if (this.opts.explainOnly) return { kind: 'explain', text: explainJobGraph(graph) }
        const done = this.startJob(graph)
        // A failure is reported by whoever awaits the job; never an unhandled rejection.
        done.catch(() => undefined)
        this.jobs.push({ name: graph.name, done })
        return { kind: 'job', name: graph.name, graph, done }
      }
      case 'QueryStatement': {
        const plan = planSelect(stmt, this.catalog, this.options)
        const graph = this.lower([plan])
        if (this.opts.explainOnly) return { kind: 'explain', text: explainJobGraph(graph) }
        const changes: { kind: number; row: Row }[] = []
        const metrics = await executeJob(graph, {
          println: this.println,
          signal: this.opts.signal,
          onCollect: (schema, batch) => {
            for (let i = 0; i < batch.rows.length; i++) changes.push({ kind: batch.kinds ? batch.kinds[i]! : 0, row: batch.rows[i]! })
            this.opts.onSelectBatch?.(schema, batch)
          },
        })
        return { kind: 'rows', schema: plan.fields, changes, metrics }
      }
      default: return assertNever(stmt)
    }
  }

  /**
   * Resolves checkpoint storage and where to start from, then runs the job. Resuming on its own,
   * a checkpoint that cannot be restored (a file missing or damaged) is skipped with a warning for
   * the one before it; one given explicitly (recovery.from) fails the job instead.
   */
  private async startJob(graph: JobGraph): Promise<JobMetrics> {
    const checkpoint = this.checkpointConfig(graph)
    const say = this.opts.log ?? (() => undefined)
    const log = (m: string): void => say(`job '${graph.name}': ${m}`)
    const recovery = this.opts.recovery ?? {}
    const env = (restore: CheckpointRef | undefined): ExecutionEnv => ({
      println: this.println, signal: this.opts.signal, stopWithSavepoint: this.opts.stopWithSavepoint, checkpoint, restore, log,
      onCheckpoint: (id, location) => this.opts.onCheckpoint?.(graph.name, id, location), countStoredState: this.opts.countStoredState,
    })
    if (recovery.from !== undefined) {
      const restore = await openCheckpointAt(recovery.from, this.options)
      log(`starting from ${restore.manifest.kind} ${restore.manifest.id} (${restore.location})`)
      return executeJob(graph, env(restore)).catch(e => { throw e instanceof RestoreFailed ? e.error : e })
    }
    if (checkpoint === undefined || recovery.fresh) return executeJob(graph, env(undefined))
    for (let below = Infinity; ;) {
      const restore = await findLatest(checkpoint.storage, log, below)
      if (restore === undefined) return executeJob(graph, env(undefined))
      log(`resuming from ${restore.manifest.kind} ${restore.manifest.id} (${restore.location})`)
      try {
        return await executeJob(graph, env(restore))
      } catch (e) {
        if (!(e instanceof RestoreFailed)) throw e
        log(`cannot restore ${restore.manifest.kind} ${restore.manifest.id}: ${e.error.message}; trying the one before`)
        below = restore.manifest.id
      }
    }
  }

  /** Checkpoint storage of a job per 'state.checkpoints.dir' (none without it). */
  private checkpointConfig(graph: JobGraph): CheckpointConfig | undefined {
    const root = this.options['state.checkpoints.dir']
    const interval = parseDuration(this.options['execution.checkpointing.interval'] ?? '0') ?? 0
    if (root === undefined || root === '') {
      if (interval > 0) {
        throw WeirError.plan(`'execution.checkpointing.interval' is set but 'state.checkpoints.dir' is not`, {
          help: `SET 'state.checkpoints.dir' = 'file:///path/to/checkpoints' (or 's3://bucket/prefix')`,
        })
      }
      return undefined
    }
    const storage = jobStorage(root, graph.name, this.options)
    const savepointRoot = this.options['state.savepoints.dir']
    return {
      storage,
      savepointStorage: savepointRoot ? jobStorage(savepointRoot, graph.name, this.options) : storage,
      intervalMs: interval,
      retained: Number(this.options['state.checkpoints.num-retained'] ?? 1) || 1,
    }
  }

  /** Waits for every job started by INSERT; rejects with the first failure. */
  async awaitJobs(): Promise<JobMetrics[]> {
    const results = await Promise.allSettled(this.jobs.map(j => j.done))
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failed) throw failed.reason
    return results.map(r => (r as PromiseFulfilledResult<JobMetrics>).value)
  }

  private plan(stmt: ast.Insert | ast.QueryStatement): LogicalPlan {
    return stmt.kind === 'Insert' ? planInsert(stmt, this.catalog, this.options) : planSelect(stmt, this.catalog, this.options)
  }

  private lower(plans: LogicalPlan[]): JobGraph {
    this.jobCounter++
    const name = this.options['pipeline.name'] ?? `${this.opts.jobNamePrefix ?? 'weir-job'}-${this.jobCounter}`
    return lowerToJobGraph(plans, name, this.options)
  }

  private readonly println = (line: string): void => {
    if (this.opts.println) this.opts.println(line)
    else process.stdout.write(line + '\n')
  }
}

export { WeirError }
