// The REPL's history across sessions: one statement per line of ~/.weir_history (or $WEIR_HISTORY),
// written as a JSON string so a statement of several lines stays one entry. A file that cannot be
// read or written costs the history, never the session: the REPL warns once and goes on.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fsError } from '../../common/fs-errors.js'
import { renderError } from '../../index.js'
import { HISTORY_LIMIT } from './editor.js'

/** Where history is kept: $WEIR_HISTORY, else ~/.weir_history. */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string {
  return env['WEIR_HISTORY'] || join(homedir(), '.weir_history')
}

export class HistoryFile {
  private broken = false

  constructor(readonly path: string, private readonly warn: (text: string) => void) {}

  /** The entries, oldest first (the last HISTORY_LIMIT); none when there is no file yet. */
  load(): string[] {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.fail(e, 'read')
      return []
    }
    const entries = text.split('\n').filter(l => l !== '').map(parseLine)
    // The file only grows by appends: cut it back when it holds twice what is kept.
    if (entries.length > 2 * HISTORY_LIMIT) {
      const kept = entries.slice(-HISTORY_LIMIT)
      this.write(() => writeFileSync(this.path, kept.map(e => JSON.stringify(e) + '\n').join('')))
      return kept
    }
    return entries.slice(-HISTORY_LIMIT)
  }

  append(entry: string): void {
    this.write(() => appendFileSync(this.path, JSON.stringify(entry) + '\n'))
  }

  private write(op: () => void): void {
    if (this.broken) return
    try {
      op()
    } catch (e) {
      this.fail(e, 'write')
    }
  }

  private fail(e: unknown, op: 'read' | 'write'): void {
    this.broken = true
    const error = fsError(e, { kind: 'execution', op, path: this.path, what: 'the REPL history', setting: '$WEIR_HISTORY' })
    this.warn(renderError(error).replace(/^error: /, 'warning: ') + '\nthe history of this session is not kept')
  }
}

/** A line of the file: a JSON string, or (written by hand or another tool) the statement as it is. */
function parseLine(line: string): string {
  if (line.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(line)
      if (typeof v === 'string') return v
    } catch {
      // not JSON: the line as written
    }
  }
  return line
}
