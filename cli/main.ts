// The `weir` command: reads its arguments and loads only the command it runs, so `weir --version`
// and `weir --help` start without loading the engine. bin/weir.js runs it with the process's arguments.
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { USAGE } from './usage.js'
import type { FaultInjector } from '../index.js'

/** What the command line asked for, once its arguments are checked. */
export interface CliArgs {
  readonly command: 'run' | 'explain' | 'savepoint'
  readonly file: string
  /** Jobs are named after the file (clicks.sql → clicks-1 …), so files run side by side in one directory. */
  readonly jobNamePrefix: string
  readonly quiet: boolean
  readonly fresh: boolean
  readonly from?: string
  /** `--stats`: print every subtask's numbers to stderr this often (ms) and at the end. */
  readonly stats?: number
}

/** What a program starting the command may add to what the command line says. */
export interface CommandHooks {
  /** Installed in the jobs' execution environment (the crash tests kill the process at a checkpoint's worst points). */
  readonly faults?: FaultInjector
}

/**
 * Runs `weir ARGS…` in this process and sets its exit code; an error nothing else reported is
 * rendered to stderr.
 *
 * @example
 * await weir(process.argv.slice(2))
 */
export async function weir(argv: string[], hooks: CommandHooks = {}): Promise<void> {
  try {
    process.exitCode = await main(argv, hooks)
  } catch (e) {
    const { renderError } = await import('../index.js')
    process.stderr.write(renderError(e) + '\n')
    process.exitCode = 1
  }
}

async function main(argv: string[], hooks: CommandHooks): Promise<number> {
  const [command, ...rest] = argv
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE + '\n')
    return 0
  }
  // `weir` alone opens the REPL, as `psql` and Flink's `sql-client.sh` do.
  if (command === undefined || command === 'repl') return repl(rest)
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
  let stats: number | undefined
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!
    if (a === '--quiet' || a === '-q') quiet = true
    else if ((a === '--stats' || a.startsWith('--stats=')) && command === 'run') {
      // The interval is the next argument unless that is an option or the SQL file.
      const next = rest[i + 1]
      const text = a !== '--stats' ? a.slice('--stats='.length) : next !== undefined && !next.startsWith('-') && !/\.sql$/i.test(next) ? rest[++i]! : '5s'
      // Loaded here: --help and --version load nothing but this file and the usage text.
      const { parseDuration } = await import('../common/durations.js')
      const ms = parseDuration(text)
      if (ms === null || ms <= 0) {
        process.stderr.write(`error: --stats takes an interval such as 2s, 500ms or 1min (default 5s), not '${text}'\n\n${USAGE}\n`)
        return 2
      }
      stats = ms
    } else if (a === '--fresh' && command === 'run') fresh = true
    else if ((a === '--from-checkpoint' || a === '--from-savepoint') && command === 'run') {
      const path = rest[++i]
      if (path === undefined || path.startsWith('-')) {
        process.stderr.write(`error: ${a} needs a PATH\n\n${USAGE}\n`)
        return 2
      }
      if (from !== undefined) {
        process.stderr.write(`error: give one of --from-checkpoint and --from-savepoint\n`)
        return 2
      }
      from = path
    } else if (a.startsWith('-')) {
      process.stderr.write(`error: unknown option '${a}'\n\n${USAGE}\n`)
      return 2
    } else files.push(a)
  }
  if (fresh && from !== undefined) {
    process.stderr.write(`error: --fresh and ${rest.find(a => a.startsWith('--from'))} exclude each other\n`)
    return 2
  }
  if (files.length !== 1) {
    process.stderr.write(`error: ${command} takes one SQL file\n\n${USAGE}\n`)
    return 2
  }
  const file = files[0]!
  const args: CliArgs = { command, file, jobNamePrefix: basename(file).replace(/\.sql$/i, '') || 'weir-job', quiet, fresh, from, stats }

  // The AWS SDK warns once per process that it will need Node 22 from 2027; `weir` runs on Node 20
  // on purpose, so the CLI (its own process) keeps that out of the job's output.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true'
  if (command === 'savepoint') return (await import('./commands/savepoint.js')).savepoint(args)
  return (await import('./commands/run.js')).run(args, hooks)
}

async function repl(rest: readonly string[]): Promise<number> {
  let init: string | undefined
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!
    if (a === '--init' || a === '-i') {
      init = rest[++i]
      if (init === undefined || init.startsWith('-')) {
        process.stderr.write(`error: ${a} needs a FILE.sql\n\n${USAGE}\n`)
        return 2
      }
    } else {
      process.stderr.write(`error: ${a.startsWith('-') ? `unknown option '${a}'` : `repl takes no file (run one with --init ${a})`}\n\n${USAGE}\n`)
      return 2
    }
  }
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true'
  return (await import('./commands/repl.js')).repl({ init })
}
