// What Weir accepts but wants the user to know about — an unknown hint it ignores, a Flink option
// it has no use for — rendered like an error (position, caret, help) but as a warning.
import { renderError, WeirError } from './errors.js'
import type { Span } from './span.js'

/** A warning: what Weir did instead of what was written, where, and what to do. */
export interface Warning {
  readonly message: string
  readonly span?: Span
  readonly help?: string
}

/** Receives the warnings of planning a statement. */
export type WarningSink = (warning: Warning) => void

/**
 * A warning for a terminal, as an error would be rendered but headed 'warning:'.
 * ```
 * warning: unknown hint 'BOGUS' is ignored
 *  --> job.sql:2:10
 *   |
 * 2 | SELECT /*+ BOGUS * / a FROM t
 *   |            ^^^^^
 * help: Weir acts on STATE_TTL after SELECT and OPTIONS after a table name
 * ```
 */
export function renderWarning(warning: Warning, sql?: string, file?: string): string {
  const asError = new WeirError('plan', warning.message, { span: warning.span, help: warning.help })
  return renderError(asError, sql, file).replace(/^error: /, 'warning: ')
}
