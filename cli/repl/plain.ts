// `weir repl` when standard input is not a terminal (a file, a pipe): statements are read as they
// come and run in order, results go to stdout and messages to stderr as plain text — no Ink, no
// escape codes — so scripts and CI can use it. The first statement that fails ends the script (exit
// code 1); at the end it waits for the INSERT jobs, as `weir run` does. Ctrl-C stops a running
// SELECT; while waiting for jobs, it stops them with a savepoint.
import { splitStatements } from '../../index.js'
import { ReplSession, type ReplOutput, type ReplSessionOptions, type RunningSelect, type Tone } from './repl-session.js'
import { selectOutput, type SelectOutput } from './select-output.js'

export interface PlainStreams {
  readonly input: AsyncIterable<string | Buffer>
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
}

/** Runs the statements of `streams.input`; the exit code. `before` runs first (an --init file). */
export async function runPlain(streams: PlainStreams, opts: ReplSessionOptions, before?: (repl: ReplSession) => Promise<boolean>): Promise<number> {
  const selects = new Map<string, SelectOutput>()
  const print = (text: string, tone: Tone): void => (tone === 'result' ? streams.stdout : streams.stderr)(text + '\n')
  const output: ReplOutput = {
    print,
    selectStarted: (select: RunningSelect) => {
      const out = selectOutput(select, print, false)
      selects.set(select.name, out)
      return out.consume
    },
    selectEnded: (select, end) => {
      selects.get(select.name)?.finish(end)
      selects.delete(select.name)
    },
  }
  const repl = new ReplSession(output, { sourceName: '<stdin>', ...opts })
  let waiting = false
  const onSigint = (): void => {
    if (repl.stopSelect()) return
    // Waiting for INSERT jobs at the end: they stop with a savepoint, as `weir run` on SIGTERM.
    if (waiting) repl.stopJobs()
    else process.exit(130)
  }
  process.on('SIGINT', onSigint)
  try {
    if (before !== undefined && !(await before(repl))) return 1
    // Text not yet run; statements run as soon as their ';' has come, so a pipe is answered as it is fed.
    let pending = ''
    let consumed = 0
    let ok = true
    for await (const chunk of streams.input) {
      pending += chunk.toString()
      const split = splitStatements(pending)
      if (split.statements.length === 0) continue
      const done = pending.slice(0, pending.length - split.rest.length)
      // Errors give the line numbers of the whole input.
      ok = await repl.submit(blankBefore(consumed, done))
      consumed += lineCount(done)
      pending = split.rest
      if (!ok) break
    }
    if (ok && !splitStatements(pending).restIsBlank) ok = await repl.submit(blankBefore(consumed, pending))
    // As Flink's SQL client with -f: a script stops at its first error.
    if (!ok) streams.stderr('stopped at the first error: the statements after it were not run\n')
    waiting = true
    const jobsFailed = await repl.close({ jobs: ok ? 'wait' : 'savepoint' })
    return !ok || jobsFailed > 0 ? 1 : 0
  } finally {
    process.off('SIGINT', onSigint)
  }
}

/** `text` after `lines` empty lines, so its errors give the line numbers of the whole input. */
function blankBefore(lines: number, text: string): string {
  return '\n'.repeat(lines) + text
}

function lineCount(text: string): number {
  let n = 0
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++
  return n
}
