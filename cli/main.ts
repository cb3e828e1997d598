#!/usr/bin/env node
// The `weir` command: run a SQL file as a job, or print its plan.
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { renderError, WeirError } from '../common/errors.js'
import { Session, type StatementResult } from '../engine/session.js'
import { parseSql } from '../grammar/index.js'
import { renderTable, changeCells } from './format.js'

const USAGE = `weir — streaming SQL

usage:
  weir run FILE.sql [--quiet]     run the statements of FILE; INSERT INTO starts a job; waits for every job
  weir explain FILE.sql           print the plan of each INSERT / SELECT in FILE (DDL and SET are applied)
  weir --version | --help

In FILE, statements end with ';'. Options are set with SET 'key' = 'value'.
Ctrl-C stops the running jobs cleanly.`

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
  if (command !== 'run' && command !== 'explain') {
    process.stderr.write(`error: unknown command '${command}'\n\n${USAGE}\n`)
    return 2
  }
  const quiet = rest.includes('--quiet') || rest.includes('-q')
  const files = rest.filter(a => !a.startsWith('-'))
  const unknown = rest.filter(a => a.startsWith('-') && a !== '--quiet' && a !== '-q')
  if (unknown.length) { process.stderr.write(`error: unknown option '${unknown[0]}'\n\n${USAGE}\n`); return 2 }
  if (files.length !== 1) { process.stderr.write(`error: ${command} takes one SQL file\n\n${USAGE}\n`); return 2 }
  const file = files[0]!
  let sql: string
  try {
    sql = readFileSync(file, 'utf8')
  } catch (e) {
    process.stderr.write(renderError(WeirError.plan(`cannot read '${file}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, { help: 'check the path' })) + '\n')
    return 1
  }

  const abort = new AbortController()
  let interrupted = false
  const onSignal = (): void => {
    if (interrupted) process.exit(130)
    interrupted = true
    process.stderr.write('\nstopping… (Ctrl-C again to force)\n')
    abort.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)

  // Jobs run from the command line keep their state in RocksDB unless the file says otherwise.
  // Jobs are named after the file (clicks.sql → clicks-1, clicks-2 …), so jobs of different files
  // run side by side in one directory without sharing state folders.
  const jobNamePrefix = basename(file).replace(/\.sql$/i, '') || 'weir-job'
  const session = new Session({ signal: abort.signal, explainOnly: command === 'explain', options: { 'state.backend': 'rocksdb' }, jobNamePrefix })
  const log = (s: string): void => { if (!quiet) process.stderr.write(s + '\n') }
  try {
    const statements = parseSql(sql)
    for (const stmt of statements) {
      const result = await session.execute(stmt)
      report(result, log)
    }
    const metrics = await session.awaitJobs()
    for (const m of metrics) {
      const late = m.lateRecordsDropped ? `, ${m.lateRecordsDropped} late rows dropped` : ''
      const skipped = m.skippedRecords ? `, ${m.skippedRecords} bad records skipped` : ''
      log(`job ${m.cancelled ? 'stopped' : 'finished'}: ${m.sourceRecordsRead} rows read, ${Object.values(m.sinkRows).reduce((a, b) => a + b, 0)} rows written${late}${skipped}`)
    }
    return interrupted ? 130 : 0
  } catch (e) {
    process.stderr.write(renderError(e, sql, file) + '\n')
    return 1
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

main(process.argv.slice(2)).then(
  code => { process.exitCode = code },
  e => { process.stderr.write(renderError(e) + '\n'); process.exitCode = 1 },
)
