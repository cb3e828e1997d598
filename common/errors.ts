// The one error type for everything a user can cause, rendered rustc-style with a caret under the SQL.
import { hasSpan, type Span } from './span.js'

export type ErrorKind = 'syntax' | 'plan' | 'unsupported' | 'connector' | 'execution' | 'checkpoint' | 'internal'

/** Where in a source a bad record was found: a file and line, or a generator position. */
export interface RecordPosition {
  readonly source: string
  readonly line?: number
  readonly offset?: number
  readonly record?: string
}

export interface WeirErrorInit {
  readonly span?: Span
  readonly record?: RecordPosition
  readonly help?: string
  readonly notes?: readonly string[]
  readonly cause?: unknown
}

/**
 * A user-facing error: what is wrong, where, and what to do.
 *
 * @example throw WeirError.plan(`column 'user_idd' not found`, { span, help: `did you mean 'user_id'?` })
 */
export class WeirError extends Error {
  readonly kind: ErrorKind
  readonly span?: Span
  readonly record?: RecordPosition
  readonly help?: string
  readonly notes: readonly string[]

  constructor(kind: ErrorKind, message: string, init: WeirErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause })
    this.name = 'WeirError'
    this.kind = kind
    this.span = init.span
    this.record = init.record
    this.help = init.help
    this.notes = init.notes ?? []
  }

  static syntax(message: string, init?: WeirErrorInit): WeirError {
    return new WeirError('syntax', message, init)
  }
  static plan(message: string, init?: WeirErrorInit): WeirError {
    return new WeirError('plan', message, init)
  }
  static unsupported(message: string, init?: WeirErrorInit): WeirError {
    return new WeirError('unsupported', message, init)
  }
  static connector(message: string, init?: WeirErrorInit): WeirError {
    return new WeirError('connector', message, init)
  }
  static execution(message: string, init?: WeirErrorInit): WeirError {
    return new WeirError('execution', message, init)
  }
  /** Checkpoint storage, a missing or corrupt checkpoint, or one that does not fit the job. */
  static checkpoint(message: string, init?: WeirErrorInit): WeirError {
    return new WeirError('checkpoint', message, init)
  }
  static internal(message: string, init?: WeirErrorInit): WeirError {
    return new WeirError('internal', `internal error: ${message}`, { ...init,
      help: init?.help ?? 'this is a bug in Weir; please report it with the SQL that caused it' })
  }

  /** A copy of this error that points at `span` if it has no position yet. */
  withSpan(span: Span | undefined): WeirError {
    if (hasSpan(this.span) || !hasSpan(span)) return this
    return new WeirError(this.kind, this.message, { span, record: this.record, help: this.help, notes: this.notes, cause: this.cause })
  }
}

export function isWeirError(e: unknown): e is WeirError {
  return e instanceof WeirError
}

/**
 * Renders an error for a terminal:
 * ```
 * error: column 'user_idd' not found
 *   --> job.sql:3:14
 *    |
 *  3 |   SELECT user_idd, COUNT(*) FROM clicks
 *    |          ^^^^^^^^
 * help: did you mean 'user_id'?
 * ```
 */
export function renderError(error: unknown, sql?: string, file = '<sql>'): string {
  if (!(error instanceof WeirError)) {
    const e = error instanceof Error ? error : new Error(String(error))
    return `error: internal error: ${e.message}\n${e.stack ?? ''}\nhelp: this is a bug in Weir; please report it`
  }
  const lines: string[] = [`error: ${error.message}`]
  const span = error.span
  if (hasSpan(span) && sql !== undefined) {
    const srcLines = sql.split('\n')
    const lineNo = span.start.line
    const text = (srcLines[lineNo - 1] ?? '').replace(/\r$/, '')
    const gutter = String(lineNo).length
    const pad = ' '.repeat(gutter)
    const caretLen = span.end.line === span.start.line
      ? Math.max(1, span.end.column - span.start.column)
      : Math.max(1, text.length - span.start.column + 1)
    lines.push(`${pad}--> ${file}:${lineNo}:${span.start.column}`)
    lines.push(`${pad} |`)
    lines.push(`${lineNo} | ${text}`)
    lines.push(`${pad} | ${' '.repeat(Math.max(0, span.start.column - 1))}${'^'.repeat(caretLen)}`)
  } else if (hasSpan(span)) {
    lines.push(`  --> ${file}:${span.start.line}:${span.start.column}`)
  }
  if (error.record) {
    const r = error.record
    const where = r.line !== undefined ? `${r.source}:${r.line}` : r.offset !== undefined ? `${r.source} at offset ${r.offset}` : r.source
    lines.push(`  --> ${where}`)
    if (r.record !== undefined) lines.push(`   | ${r.record.length > 200 ? r.record.slice(0, 200) + '…' : r.record}`)
  }
  for (const note of error.notes) lines.push(`note: ${note}`)
  if (error.help) lines.push(`help: ${error.help}`)
  return lines.join('\n')
}
