#!/usr/bin/env node
// The `weir` command: run a SQL file as a job, or print its plan.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { renderError, WeirError } from '../common/errors.js'
import { Session, type StatementResult } from '../engine/session.js'
import { parseSql } from '../grammar/index.js'
import { renderTable, changeCells } from './format.js'

const USAGE = `weir — streaming SQL

usage:
  weir run FILE.sql [options]     run the statements of FILE; INSERT INTO starts a job; waits for every job
      --fresh                     start from scratch, not from the job's latest checkpoint or savepoint
      --from-checkpoint PATH      start from this checkpoint folder (…/<job>/chk-<n>)
      --from-savepoint PATH       start from this savepoint folder (…/<job>/savepoint-<n>)
      --quiet, -q                 no progress messages
  weir savepoint FILE.sql         take a savepoint of the jobs \`weir run FILE.sql\` runs here, and stop them
  weir explain FILE.sql           print the plan of each INSERT / SELECT in FILE (DDL and SET are applied)
  weir --version | --help

In FILE, statements end with ';'. Options are set with SET 'key' = 'value'.
A job resumes from its latest checkpoint or savepoint in 'state.checkpoints.dir' (default .weir/checkpoints).
Ctrl-C stops the running jobs without a savepoint; SIGTERM (or weir savepoint) stops them with one.`

// The AWS SDK warns once per process that it will need Node 22 from 2027; `weir` runs on Node 20
// on purpose, so the CLI (its own process) keeps that out of the job's output.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true'

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE + '\n')
    return command === undefined ? 2 : 0
  }
  if (command === '--version' || command === '-v') {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    process.stdout.write(`weir ${pkg.version}\n`)
    return 0
  }
  if (command !== 'run' && command !== 'explain' && command !== 'savepoint') {
    process.stderr.write(`error: unknown command '${command}'\n\n${USAGE}\n`)
    return 2
  }
  const files: string[] = []
  let quiet = false, fresh = false
  let from: string | undefined
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!
    if (a === '--quiet' || a === '-q') quiet = true
    else if (a === '--fresh' && command === 'run') fresh = true
    else if ((a === '--from-checkpoint' || a === '--from-savepoint') && command === 'run') {
      const path = rest[++i]
      if (path === undefined || path.startsWith('-')) { process.stderr.write(`error: ${a} needs a PATH\n\n${USAGE}\n`); return 2 }
      if (from !== undefined) { process.stderr.write(`error: give one of --from-checkpoint and --from-savepoint\n`); return 2 }
      from = path
    } else if (a.startsWith('-')) { process.stderr.write(`error: unknown option '${a}'\n\n${USAGE}\n`); return 2 }
    else files.push(a)
  }
  if (fresh && from !== undefined) { process.stderr.write(`error: --fresh and ${rest.find(a => a.startsWith('--from'))} exclude each other\n`); return 2 }
  if (files.length !== 1) { process.stderr.write(`error: ${command} takes one SQL file\n\n${USAGE}\n`); return 2 }
  const file = files[0]!
  // Jobs are named after the file (clicks.sql → clicks-1, clicks-2 …), so jobs of different files
  // run side by side in one directory without sharing state folders or checkpoints.
  const jobNamePrefix = basename(file).replace(/\.sql$/i, '') || 'weir-job'
  if (command === 'savepoint') return savepoint(jobNamePrefix)
  let sql: string
  try {
    sql = readFileSync(file, 'utf8')
  } catch (e) {
    process.stderr.write(renderError(WeirError.plan(`cannot read '${file}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, { help: 'check the path' })) + '\n')
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

  const log = (s: string): void => { if (!quiet) process.stderr.write(s + '\n') }
  // Jobs run from the command line keep their state in RocksDB and their checkpoints under
  // .weir/checkpoints unless the file says otherwise.
  const session = new Session({
    signal: abort.signal, stopWithSavepoint: stop.signal, explainOnly: command === 'explain', jobNamePrefix, log,
    options: { 'state.backend': 'rocksdb', 'state.checkpoints.dir': DEFAULT_CHECKPOINTS },
    recovery: { fresh, from },
  })
  const runFile = command === 'run' ? join(RUN_DIR, `${jobNamePrefix}.pid`) : undefined
  if (runFile) {
    mkdirSync(RUN_DIR, { recursive: true })
    writeFileSync(runFile, String(process.pid))
  }
  try {
    const statements = parseSql(sql)
    for (const stmt of statements) {
      const result = await session.execute(stmt)
      report(result, log)
    }
    const metrics = await session.awaitJobs()
    for (const m of metrics) {
      if (m.alreadyFinished) { log('job had already finished at its latest checkpoint; nothing to do (run with --fresh to run it again)'); continue }
      if (m.savepoint) log(`savepoint: ${m.savepoint}`)
      const late = m.lateRecordsDropped ? `, ${m.lateRecordsDropped} late rows dropped` : ''
      const skipped = m.skippedRecords ? `, ${m.skippedRecords} bad records skipped` : ''
      log(`job ${m.cancelled ? 'stopped' : 'finished'}: ${m.sourceRecordsRead} rows read, ${Object.values(m.sinkRows).reduce((a, b) => a + b, 0)} rows written${late}${skipped}`)
    }
    return interrupted ? 130 : 0
  } catch (e) {
    process.stderr.write(renderError(e, sql, file) + '\n')
    return 1
  } finally {
    if (runFile) rmSync(runFile, { force: true })
  }
}

/** Whether a process runs (an exited one its parent has not reaped yet does not). */
function isAlive(pid: number): boolean {
  try { process.kill(pid, 0) } catch { return false }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true
  }
}

const DEFAULT_CHECKPOINTS = '.weir/checkpoints'
/** `weir run FILE.sql` leaves its pid here while it runs, for `weir savepoint FILE.sql`. */
const RUN_DIR = resolve('.weir/run')

/** Sends SIGTERM to the `weir run` of these jobs and waits until it has taken its savepoint and stopped. */
async function savepoint(jobNamePrefix: string): Promise<number> {
  const runFile = join(RUN_DIR, `${jobNamePrefix}.pid`)
  let pid: number
  try {
    pid = Number(readFileSync(runFile, 'utf8'))
  } catch {
    process.stderr.write(renderError(WeirError.execution(`no running job of '${jobNamePrefix}.sql' in this directory`, {
      help: `start it with 'weir run ${jobNamePrefix}.sql' from this directory first`,
    })) + '\n')
    return 1
  }
  try {
    process.kill(pid, 'SIGTERM')
  } catch {
    rmSync(runFile, { force: true })
    process.stderr.write(renderError(WeirError.execution(`the job of '${jobNamePrefix}.sql' (pid ${pid}) is not running any more`)) + '\n')
    return 1
  }
  process.stderr.write(`asked pid ${pid} for a savepoint; waiting for it to stop…\n`)
  while (isAlive(pid)) await new Promise(r => setTimeout(r, 100))
  process.stderr.write(`stopped; 'weir run ${jobNamePrefix}.sql' resumes from the savepoint\n`)
  return 0
}

function report(result: StatementResult, log: (s: string) => void): void {
  switch (result.kind) {
    case 'ok': log(result.message); break
    case 'table': process.stdout.write(renderTable(result.columns, result.rows) + '\n'); break
    case 'explain': process.stdout.write(result.text + '\n\n'); break
    case 'job': log(`job '${result.name}' started`); break
    case 'rows': {
      const columns = ['op', ...result.schema.map(f => f.name)]
      process.stdout.write(renderTable(columns, result.changes.map(c => changeCells(result.schema, c.kind, c.row))) + '\n')
      break
    }
  }
}

main(process.argv.slice(2)).then(
  code => { process.exitCode = code },
  e => { process.stderr.write(renderError(e) + '\n'); process.exitCode = 1 },
)
