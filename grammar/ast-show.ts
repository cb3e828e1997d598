// The AST of the statements that show or stop things: SHOW TABLES / COLUMNS / JOBS / CREATE, DESCRIBE, STOP JOB.
import type { Span } from '../common/span.js'
import type { QualifiedName } from './ast.js'

export interface ShowTables {
  readonly kind: 'ShowTables'
  /** SHOW TABLES, VIEWS, FUNCTIONS, CATALOGS, DATABASES, CURRENT CATALOG or CURRENT DATABASE */
  readonly what: 'TABLES' | 'VIEWS' | 'FUNCTIONS' | 'CATALOGS' | 'DATABASES' | 'CURRENT CATALOG' | 'CURRENT DATABASE'
  /** SHOW TABLES FROM|IN [catalog.]db */
  readonly from?: QualifiedName
  readonly like?: ShowLike
  readonly span: Span
}

/** `SHOW COLUMNS FROM|IN t [[NOT] LIKE 'p']`: DESCRIBE's rows of the columns whose names match. */
export interface ShowColumns {
  readonly kind: 'ShowColumns'
  readonly table: QualifiedName
  readonly like?: ShowLike
  readonly span: Span
}

/** `[NOT] LIKE 'pattern'` (SQL LIKE: `%` any run, `_` one character; case-sensitive, as in Flink). */
export interface ShowLike {
  readonly pattern: string
  readonly not: boolean
  readonly span: Span
}

/** `SHOW JOBS`: the session's jobs. */
export interface ShowJobs {
  readonly kind: 'ShowJobs'
  readonly span: Span
}

/** `STOP JOB 'id' [WITH SAVEPOINT]`. */
export interface StopJob {
  readonly kind: 'StopJob'
  readonly id: string
  /** The id's string literal, for errors. */
  readonly idSpan: Span
  readonly withSavepoint: boolean
  readonly span: Span
}

export interface Describe {
  readonly kind: 'Describe'
  readonly name: QualifiedName
  readonly span: Span
}

/** `SHOW CREATE TABLE t` / `SHOW CREATE VIEW v`: the DDL that recreates it. */
export interface ShowCreate {
  readonly kind: 'ShowCreate'
  readonly object: 'TABLE' | 'VIEW'
  readonly name: QualifiedName
  readonly span: Span
}
