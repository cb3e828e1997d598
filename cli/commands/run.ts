// `weir run FILE.sql` and `weir explain FILE.sql`: plans every statement of a file, then runs them
// and waits for the jobs its INSERTs start, reporting a job's failure as soon as it happens.
import { readFileSync } from 'node:fs'
import { fsError } from '../../common/fs-errors.js'
import { renderError, runDefaults, Session, type JobMetrics, type StatementResult } from '../../index.js'
import { renderTable, changeCells, renderJobFailure, StreamingTable } from '../format.js'
import type { CliArgs, CommandHooks } from '../main.js'
import { StatsPrinter } from './run-stats.js'
import { takeRunLock, type RunLock, type StartedJob } from './run-lock.js'

export async function run(args: CliArgs, hooks: CommandHooks = {}): Promise<number> {
  const { command, file, jobNamePrefix, quiet, fresh, from, stats } = args
  let sql: string
  try {
    sql = readFileSync(file, 'utf8')
  } catch (e) {
    process.stderr.write(
      renderError(
        fsError(e, { kind: 'plan', op: 'read', path: file, what: 'the SQL file', help: { EISDIR: `'${file}' is a folder; give the SQL file to ${command}` } }),
      ) + '\n',
    )
    return 1
  }

  const abort = new AbortController()
  const stop = new AbortController()
  let interrupted = false
  const onSignal = (): void => {
    if (interrupted) process.exit(130)
    interrupted = true
    process.stderr.write('\nstopping… (Ctrl-C again to force)\n')
    abort.abort()
  }
  const onTerm = (): void => {
    if (stop.signal.aborted) return
    process.stderr.write('\ntaking a savepoint, then stopping…\n')
    stop.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onTerm)

  const log = (s: string): void => {
    if (!quiet) process.stderr.write(s + '\n')
  }
  let failures = 0
  // An unbounded SELECT prints its rows as they come; a bounded one as one table at its end.
  let streamed: StreamingTable | undefined
  // Jobs run from the command line keep their state in RocksDB and their checkpoints under
  // .weir/checkpoints unless the file says otherwise.
  const session = new Session({
    signal: abort.signal,
    stopWithSavepoint: stop.signal,
    explainOnly: command === 'explain',
    jobNamePrefix,
    log,
    // Warnings are not progress: --quiet keeps them.
    warn: s => {
      process.stderr.write(s + '\n')
    },
    source: { sql, file },
    options: runDefaults(),
    recovery: { fresh, from },
    faults: hooks.faults,
    onJobFailed: (job, error) => {
      failures++
      process.stderr.write(renderJobFailure(job, error, sql, file) + '\n')
    },
    onSelect: select => {
      if (select.bounded) return undefined
      const table = new StreamingTable(select.schema, text => process.stdout.write(text))
      streamed = table
      return (_, batch) => table.rows(batch.rows, batch.kinds)
    },
  })
  // --stats: tables on stderr while jobs run, and the last one of each when it ends.
  const printer = stats === undefined || command !== 'run' ? undefined : new StatsPrinter(session, stats, text => process.stderr.write(text))
  // Held while the file runs here: a second run of it is refused, and `weir savepoint` finds this one.
  let runLock: RunLock | undefined
  const started: StartedJob[] = []
  if (command === 'run') {
    try {
      runLock = await takeRunLock(jobNamePrefix, file)
    } catch (e) {
      process.stderr.write(renderError(e) + '\n')
      return 1
    }
  }
  try {
    // Every statement is planned before any job starts: a file with an error runs nothing.
    let script
    try {
      script = await session.prepare(sql)
    } catch (e) {
      process.stderr.write(renderError(e, sql, file) + '\n')
      if (command === 'run') process.stderr.write('nothing was run: every statement of a file is planned before any of its jobs starts\n')
      return 1
    }
    if (script.steps.length === 0) {
      // As Flink's SQL client with an empty -f file: nothing to do is not an error, but say so.
      process.stderr.write(`warning: '${file}' has no SQL statements; nothing to ${command}\n`)
      return 0
    }
    printer?.start()
    await session.run(script, result => {
      if (result.kind === 'job') started.push(result)
      report(result, log)
      if (result.kind === 'rows' || result.kind === 'failed') {
        streamed?.end()
        streamed = undefined
      }
    })
    for (const outcome of await session.settleJobs()) {
      // A failure was reported when it happened.
      if (outcome.metrics !== undefined) { for (const line of summary(outcome.name, outcome.metrics, from)) log(line) }
    }
    printer?.stop()
    if (printer !== undefined) {
      for (const job of session.listJobs()) {
        const outcome = await job.outcome
        if (outcome.metrics !== undefined) printer.ended(job, outcome.metrics)
      }
    }
    return failures > 0 ? 1 : interrupted ? 130 : 0
  } catch (e) {
    process.stderr.write(renderError(e, sql, file) + '\n')
    // Nothing may run on unseen: stop the jobs already started before going.
    abort.abort()
    await session.settleJobs()
    return 1
  } finally {
    printer?.stop()
    // Asked for a savepoint (SIGTERM): say for `weir savepoint` where each job's went.
    await runLock?.release(stop.signal.aborted ? started : undefined).catch(e => {
      process.stderr.write(renderError(e) + '\n')
    })
  }
}

function report(result: StatementResult, log: (s: string) => void): void {
  switch (result.kind) {
    case 'ok':
      log(result.message)
      break
    case 'table':
      process.stdout.write(renderTable(result.columns, result.rows) + '\n')
      break
    case 'explain':
      process.stdout.write(result.text + '\n\n')
      break
    case 'job':
      log(`job '${result.name}' started`)
      break
    case 'rows': {
      if (result.streamed) break
      const columns = ['op', ...result.schema.map(f => f.name)]
      process.stdout.write(renderTable(columns, result.changes.map(c => changeCells(result.schema, c.kind, c.row))) + '\n')
      break
    }
    case 'failed':
      break // reported by onJobFailed when it happened
  }
}

/** What a job did, from its own counts: rows committed by its sinks apart from rows only written. */
function summary(name: string, m: JobMetrics, from: string | undefined): string[] {
  const r = m.restoredFrom
  if (m.alreadyFinished && r !== undefined) {
    return [from !== undefined
      ? `job '${name}': ${r.kind} ${r.id} (${r.location}) was taken when the job had finished; nothing to run from it (run with --fresh to run the job again)`
      : `job '${name}' had already finished at its latest ${r.kind} (${r.kind} ${r.id}); nothing to do (run with --fresh to run it again)`]
  }
  const lines = m.savepoint ? [`savepoint: ${m.savepoint}`] : []
  const sum = (rows: Record<string, number>): number => Object.values(rows).reduce((a, b) => a + b, 0)
  const written = sum(m.sinkRows)
  const committed = sum(m.sinkCommittedRows)
  const rows = committed === written
    ? `${written} rows written`
    : `${written} rows written, ${committed} committed (the ${
      written - committed
    } after the last checkpoint were discarded; they are written again when the job resumes)`
  const late = m.lateRecordsDropped ? `, ${m.lateRecordsDropped} late rows dropped` : ''
  const skipped = m.skippedRecords ? `, ${m.skippedRecords} bad records skipped` : ''
  lines.push(`job '${name}' ${m.cancelled ? 'stopped' : 'finished'}: ${m.sourceRecordsRead} rows read, ${rows}${late}${skipped}`)
  return lines
}
