// `weir run FILE.sql` and `weir explain FILE.sql`: runs (or plans) the statements of a file and
// waits for the jobs its INSERTs start.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderError, WeirError } from '../../common/errors.js'
import { Session, type StatementResult } from '../../engine/session.js'
import { parseSql } from '../../grammar/index.js'
import { renderTable, changeCells } from '../format.js'
import type { CliArgs } from '../main.js'
import { DEFAULT_CHECKPOINTS, RUN_DIR } from './paths.js'

export async function run(args: CliArgs): Promise<number> {
  const { command, file, jobNamePrefix, quiet, fresh, from } = args
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
