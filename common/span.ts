// Source positions: every AST node, plan node and user error carries one so errors can point at the SQL.

/** A position in SQL text. `line` and `column` are 1-based; `offset` is 0-based into the text. */
export interface Position {
  readonly offset: number
  readonly line: number
  readonly column: number
}

/** A half-open range [start, end) of SQL text. */
export interface Span {
  readonly start: Position
  readonly end: Position
}

export function spanOf(first: Span, last: Span): Span {
  return { start: first.start, end: last.end }
}

export function hasSpan(span: Span | undefined): span is Span {
  return span !== undefined && span.start.line > 0
}
