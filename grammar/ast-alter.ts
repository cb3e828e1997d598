// The AST of ALTER TABLE / ALTER VIEW: options, names, and a table's schema.
import type { Span } from '../common/span.js'
import type { ColumnDef, Ident, OptionPair, PrimaryKeyDef, QualifiedName, WatermarkDef } from './ast.js'

/** `ALTER TABLE|VIEW [IF EXISTS] name action`. */
export interface AlterObject {
  readonly kind: 'AlterObject'
  readonly object: 'TABLE' | 'VIEW'
  readonly name: QualifiedName
  readonly ifExists: boolean
  readonly action: AlterAction
  readonly span: Span
}

export type AlterAction =
  | { readonly kind: 'SetOptions'; readonly options: readonly OptionPair[] }
  | { readonly kind: 'ResetOptions'; readonly keys: readonly { readonly key: string; readonly span: Span }[] }
  | { readonly kind: 'Rename'; readonly to: QualifiedName }
  | { readonly kind: 'RenameColumn'; readonly from: Ident; readonly to: Ident }
  | AlterSchema
  | { readonly kind: 'DropColumns'; readonly columns: readonly Ident[] }
  | { readonly kind: 'DropPrimaryKey' | 'DropWatermark'; readonly span: Span }
  /** `DROP CONSTRAINT name`: the primary key, named as CREATE TABLE named it (or as Flink names an unnamed one). */
  | { readonly kind: 'DropConstraint'; readonly name: Ident }

/** ALTER TABLE … ADD / MODIFY: columns (each placed `FIRST`, `AFTER c`, or where it was / last), a watermark, a primary key. */
export interface AlterSchema {
  readonly kind: 'AddSchema' | 'ModifySchema'
  readonly columns: readonly { readonly column: ColumnDef; readonly position?: ColumnPosition }[]
  readonly watermark?: WatermarkDef
  readonly primaryKey?: PrimaryKeyDef
}
export type ColumnPosition = { readonly kind: 'First'; readonly span: Span } | { readonly kind: 'After'; readonly column: Ident; readonly span: Span }
