// `weir` and `weir repl [--init FILE.sql]`: the interactive SQL REPL in a terminal (Ink), or, when
// standard input or output is not a terminal, statements read from stdin and results printed as
// plain text. The init file's DDL and SET run first.
import { readFileSync } from 'node:fs'
import { fsError } from '../../common/fs-errors.js'
import { parseSql, renderError, WeirError } from '../../index.js'
import { withInkEnvironment } from '../repl/ink-environment.js'
import type { ReplSession } from '../repl/repl-session.js'

export interface ReplArgs {
  readonly init?: string
}

export async function repl(args: ReplArgs): Promise<number> {
  let init: ((r: ReplSession) => Promise<boolean>) | undefined
  if (args.init !== undefined) {
    const file = args.init
    let sql: string
    try {
      sql = readFileSync(file, 'utf8')
      checkInit(sql)
    } catch (e) {
      const error = e instanceof WeirError ? e : fsError(e, { kind: 'plan', op: 'read', path: file, what: 'the --init file' })
      process.stderr.write(renderError(error, sql!, file) + '\n')
      return 1
    }
    init = r => r.submit(sql, file)
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    const { runPlain } = await import('../repl/plain.js')
    return runPlain({ input: process.stdin, stdout: t => process.stdout.write(t), stderr: t => process.stderr.write(t) }, {}, init)
  }
  const [{ render }, { createElement }, { App }, { HistoryFile, historyPath }, { ScreenRegion }] = await withInkEnvironment(() =>
    Promise.all([import('ink'), import('react'), import('../repl/app.js'), import('../repl/history.js'), import('../repl/screen-region.js')])
  )
  const history = new HistoryFile(historyPath(), text => process.stderr.write(text + '\n'))
  // The live view is drawn outside Ink (a frame of Ink's costs too much at large terminals), but
  // for a screen reader, which Ink serves with text of its own.
  const region = process.env['INK_SCREEN_READER'] === 'true' ? undefined : new ScreenRegion(process.stdout, process.stdout.hasColors())
  // Ctrl-C stops a query or clears the line; it never quits (Ctrl-D does).
  const app = render(createElement(App, { history, init, region }), { exitOnCtrlC: false, stdout: region?.inkStdout ?? process.stdout })
  await app.waitUntilExit()
  return 0
}

/** An init file sets the session up: DDL and SET, no queries (Flink's SQL client -i says the same). */
function checkInit(sql: string): void {
  let statements
  try {
    statements = parseSql(sql)
  } catch {
    return // the syntax error is reported when the file runs, with its caret
  }
  for (const s of statements) {
    if (s.kind === 'QueryStatement' || s.kind === 'Insert' || s.kind === 'StatementSet') {
      const what = s.kind === 'Insert' ? 'an INSERT' : s.kind === 'StatementSet' ? 'a statement set' : 'a SELECT'
      throw WeirError.plan(`an --init file sets the session up; it cannot run ${what}`, {
        span: s.span,
        help: 'keep DDL and SET in the init file, and run queries at the prompt (or pipe them: weir repl --init FILE.sql < queries.sql)',
      })
    }
  }
}
