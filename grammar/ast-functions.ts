// The AST of user functions: CREATE / DROP FUNCTION and a table function call in FROM.
import type { Span } from '../common/span.js'
import type { Expr, Ident, QualifiedName, SubqueryRef, TableRef } from './ast.js'

/** `CREATE [TEMPORARY] FUNCTION [IF NOT EXISTS] f AS 'path' [LANGUAGE TYPESCRIPT | JAVASCRIPT]`: a process table function in a module. */
export interface CreateFunction {
  readonly kind: 'CreateFunction'
  readonly name: QualifiedName
  /** The module's path as written (relative to the SQL file or the working directory). */
  readonly path: string
  readonly pathSpan: Span
  /** Absent: from the path's extension. */
  readonly language?: { readonly value: 'TYPESCRIPT' | 'JAVASCRIPT'; readonly span: Span }
  readonly ifNotExists: boolean
  readonly temporary: boolean
  readonly span: Span
}

/** `DROP [TEMPORARY] FUNCTION [IF EXISTS] f`. */
export interface DropFunction {
  readonly kind: 'DropFunction'
  readonly name: QualifiedName
  readonly ifExists: boolean
  readonly span: Span
}

/** An argument of a table function call: a table (`input => TABLE t PARTITION BY k`) or a scalar (`threshold => 500`). */
export type TableFunctionArg =
  | {
    readonly kind: 'TableArg'
    readonly name?: Ident
    readonly input: TableRef | SubqueryRef
    readonly partitionBy: readonly QualifiedName[]
    readonly span: Span
  }
  | { readonly kind: 'ScalarArg'; readonly name?: Ident; readonly value: Expr; readonly span: Span }

/** `f(input => TABLE t PARTITION BY k, arg => v) [[AS] alias]` in FROM: a user's process table function. */
export interface TableFunctionCall {
  readonly kind: 'TableFunctionCall'
  readonly name: Ident
  readonly args: readonly TableFunctionArg[]
  readonly alias?: Ident
  readonly span: Span
}
