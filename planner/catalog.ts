// The catalog: tables and views a session has created, looked up case-insensitively.
import type * as ast from '../grammar/ast.js'
import type { Span } from '../common/span.js'
import type { DataType } from '../common/types.js'
import { WeirError } from '../common/errors.js'
import { closest } from '../common/names.js'

export interface TableColumn {
  readonly name: string
  readonly type: DataType
  /**
   * 'physical' columns are read by the connector from the record, 'metadata' ones from what it knows
   * about the record (`metadataKey`: a Kafka message's offset…); 'computed' ones are evaluated from `expr`.
   */
  readonly kind: 'physical' | 'computed' | 'metadata'
  readonly expr?: ast.Expr
  /** A computed column's expression as written (SHOW CREATE TABLE prints it). */
  readonly exprText?: string
  /** The connector's metadata key of a 'metadata' column (FROM 'key', else the column's name). */
  readonly metadataKey?: string
  /** A VIRTUAL metadata column is read only, never written by a sink. */
  readonly virtual?: boolean
  readonly comment?: string
  readonly span: Span
}

/** A table's options as its connector takes them: every one but 'connector' itself. */
export function connectorOptions(tableOptions: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(tableOptions).filter(([k]) => k !== 'connector'))
}

export interface CatalogTable {
  readonly kind: 'table'
  readonly name: string
  readonly columns: readonly TableColumn[]
  readonly watermark?: { readonly column: string; readonly expr: ast.Expr; readonly exprText: string; readonly span: Span }
  readonly primaryKey: readonly string[]
  readonly options: Readonly<Record<string, string>>
  readonly comment?: string
  /** Where each option's key is in the CREATE TABLE text. */
  readonly optionSpans: Readonly<Record<string, Span>>
  /** Where each option's value is. */
  readonly optionValueSpans: Readonly<Record<string, Span>>
  readonly span: Span
  /** The CREATE TABLE text, for error messages that point into it. */
}

export interface CatalogView {
  readonly kind: 'view'
  readonly name: string
  readonly query: ast.Query
  /** The query as written (SHOW CREATE VIEW prints it). */
  readonly queryText: string
  readonly comment?: string
  readonly columns?: readonly string[]
  readonly span: Span
}

export type CatalogObject = CatalogTable | CatalogView

export class Catalog {
  private readonly objects = new Map<string, CatalogObject>()

  get(name: string): CatalogObject | undefined {
    return this.objects.get(name.toLowerCase())
  }

  /** The object, or an error at `span` naming the closest existing name. */
  resolve(name: string, span: Span): CatalogObject {
    const found = this.get(name)
    if (found) return found
    const guess = closest(name, [...this.objects.values()].map(o => o.name))
    throw WeirError.plan(`table or view '${name}' not found`, {
      span,
      help: guess ? `did you mean '${guess}'?` : "create it first with CREATE TABLE … WITH ('connector' = …)",
    })
  }

  add(obj: CatalogObject, ifNotExists: boolean, span: Span): boolean {
    const key = obj.name.toLowerCase()
    if (this.objects.has(key)) {
      if (ifNotExists) return false
      const existing = this.objects.get(key)!
      throw WeirError.plan(`${existing.kind} '${obj.name}' already exists`, { span,
        help: `use CREATE ${obj.kind.toUpperCase()} IF NOT EXISTS, or DROP ${existing.kind.toUpperCase()} ${existing.name} first` })
    }
    this.objects.set(key, obj)
    return true
  }

  drop(kind: 'table' | 'view', name: string, ifExists: boolean, span: Span): boolean {
    const existing = this.get(name)
    if (!existing) {
      if (ifExists) return false
      throw WeirError.plan(`${kind} '${name}' does not exist`, { span, help: `use DROP ${kind.toUpperCase()} IF EXISTS to ignore a missing ${kind}` })
    }
    if (existing.kind !== kind) {
      throw WeirError.plan(`'${name}' is a ${existing.kind}, not a ${kind}`, { span, help: `use DROP ${existing.kind.toUpperCase()} ${existing.name}` })
    }
    this.objects.delete(name.toLowerCase())
    return true
  }

  /** Puts `obj` in place of the object of the same name (ALTER TABLE … SET / RESET). */
  replace(obj: CatalogObject): void {
    this.objects.set(obj.name.toLowerCase(), obj)
  }

  /** Files `obj` under its (new) name in place of `oldName`; the caller checked the new name is free. */
  rename(oldName: string, obj: CatalogObject): void {
    this.objects.delete(oldName.toLowerCase())
    this.objects.set(obj.name.toLowerCase(), obj)
  }

  list(kind?: 'table' | 'view'): CatalogObject[] {
    return [...this.objects.values()].filter(o => kind === undefined || o.kind === kind).sort((a, b) => a.name.localeCompare(b.name))
  }
}
