// The catalog: tables and views a session has created, looked up case-insensitively.
import { isAlignmentOption } from '../connectors/alignment.js'
import type * as ast from '../grammar/ast.js'
import type { Span } from '../common/span.js'
import type { DataType } from '../common/types.js'
import { WeirError } from '../common/errors.js'
import { closest } from '../common/names.js'
import { FunctionRegistry } from './functions.js'

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
  // Watermark alignment is the runtime's, for any source (connectors/alignment.ts): not the connector's.
  return Object.fromEntries(Object.entries(tableOptions).filter(([k]) => k !== 'connector' && !isAlignmentOption(k)))
}

export interface CatalogTable {
  readonly kind: 'table'
  readonly name: string
  readonly columns: readonly TableColumn[]
  readonly watermark?: { readonly column: string; readonly expr: ast.Expr; readonly exprText: string; readonly span: Span }
  readonly primaryKey: readonly string[]
  /** The primary key's constraint name: `CONSTRAINT name` as written, else Flink's `PK_` + its columns joined by `_`. */
  readonly primaryKeyName?: string
  readonly options: Readonly<Record<string, string>>
  readonly comment?: string
  /** `PARTITIONED BY (…)`: physical columns, in order, whose values name the folders of a filesystem table. */
  readonly partitionKeys?: readonly string[]
  /** Where each option's key is in the CREATE TABLE text. */
  readonly optionSpans: Readonly<Record<string, Span>>
  /** Where each option's value is. */
  readonly optionValueSpans: Readonly<Record<string, Span>>
  readonly span: Span
  /** The CREATE TABLE text, for error messages that point into it. */
}

/**
 * A primary key's constraint name: the one written, else the one Flink gives an unnamed key.
 *
 * @example primaryKeyName(undefined, ['id', 'day']) // 'PK_id_day'
 */
export function primaryKeyName(written: string | undefined, columns: readonly string[]): string {
  return written ?? `PK_${columns.join('_')}`
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

/** A name as written: `t`, `db.t` or `cat.db.t`, or a bare name, which is in the current database. */
export type ObjectName = string | { readonly parts: readonly { readonly value: string }[] }

/** One database of a catalog: its tables and views by lower-case name. */
interface Database {
  readonly name: string
  readonly catalog: string
  readonly comment?: string
  readonly objects: Map<string, CatalogObject>
}

/** The catalog Weir starts with, and its database, as Flink names them. */
export const DEFAULT_CATALOG = 'default_catalog'
export const DEFAULT_DATABASE = 'default_database'

/**
 * The session's catalogs (in memory, as Flink's generic_in_memory), their databases, and the tables
 * and views in each, looked up case-insensitively; a name of one part is in the current database
 * (USE), of two parts `database.object` in the current catalog, of three `catalog.database.object`.
 */
export class Catalog {
  private readonly catalogs = new Map<string, { readonly name: string; readonly databases: Map<string, Database> }>()
  private current: Database
  /** Where each object lives (a view's query is bound there). */
  private readonly homes = new WeakMap<CatalogObject, Database>()
  /** User functions (CREATE FUNCTION), one namespace for the session as Flink's temporary system functions. */
  readonly functions = new FunctionRegistry()

  constructor() {
    this.current = this.addDatabase(this.addCatalog(DEFAULT_CATALOG), DEFAULT_DATABASE)
  }

  get currentCatalog(): string {
    return this.current.catalog
  }

  get currentDatabase(): string {
    return this.current.name
  }

  get(name: ObjectName): CatalogObject | undefined {
    const at = this.locate(name)
    return at.db?.objects.get(at.name.toLowerCase())
  }

  /** The object, or an error at `span` naming the closest existing name. */
  resolve(name: ObjectName, span: Span): CatalogObject {
    const at = this.locate(name, span)
    const found = at.db!.objects.get(at.name.toLowerCase())
    if (found) return found
    const guess = closest(at.name, [...at.db!.objects.values()].map(o => o.name))
    const where = at.db === this.current ? '' : ` in database '${at.db!.catalog}.${at.db!.name}'`
    throw WeirError.plan(`table or view '${at.name}' not found${where}`, {
      span,
      help: guess ? `did you mean '${guess}'?` : "create it first with CREATE TABLE … WITH ('connector' = …)",
    })
  }

  /** Adds `obj` under `where` (its name in the current database by default). */
  add(obj: CatalogObject, ifNotExists: boolean, span: Span, where: ObjectName = obj.name): boolean {
    const db = this.locate(where, span).db!
    const key = obj.name.toLowerCase()
    const existing = db.objects.get(key)
    if (existing) {
      if (ifNotExists) return false
      throw WeirError.plan(`${existing.kind} '${obj.name}' already exists`, { span,
        help: `use CREATE ${obj.kind.toUpperCase()} IF NOT EXISTS, or DROP ${existing.kind.toUpperCase()} ${existing.name} first` })
    }
    db.objects.set(key, obj)
    this.homes.set(obj, db)
    return true
  }

  drop(kind: 'table' | 'view', name: ObjectName, ifExists: boolean, span: Span): boolean {
    const at = this.locate(name, ifExists ? undefined : span)
    const existing = at.db?.objects.get(at.name.toLowerCase())
    if (!existing) {
      if (ifExists) return false
      throw WeirError.plan(`${kind} '${at.name}' does not exist`, { span, help: `use DROP ${kind.toUpperCase()} IF EXISTS to ignore a missing ${kind}` })
    }
    if (existing.kind !== kind) {
      throw WeirError.plan(`'${at.name}' is a ${existing.kind}, not a ${kind}`, { span, help: `use DROP ${existing.kind.toUpperCase()} ${existing.name}` })
    }
    at.db!.objects.delete(at.name.toLowerCase())
    return true
  }

  /** Puts `obj` in place of `old`, in its database (ALTER TABLE … SET / RESET, RENAME TO). */
  replace(old: CatalogObject, obj: CatalogObject): void {
    const db = this.homes.get(old) ?? this.current
    db.objects.delete(old.name.toLowerCase())
    db.objects.set(obj.name.toLowerCase(), obj)
    this.homes.set(obj, db)
  }

  /** The objects of the current database, or of `from` (SHOW TABLES FROM [catalog.]db). */
  list(kind?: 'table' | 'view', from?: { readonly name: ObjectName; readonly span: Span }): CatalogObject[] {
    let db = this.current
    if (from !== undefined) {
      const [catalog, name] = this.databasePath(from.name, from.span)
      const c = this.catalogs.get(catalog.toLowerCase())
      if (c === undefined) throw this.noCatalog(catalog, from.span)
      db = c.databases.get(name.toLowerCase()) ?? (() => {
        throw this.noDatabase(c.name, name, from.span)
      })()
    }
    return [...db.objects.values()].filter(o => kind === undefined || o.kind === kind).sort((a, b) => a.name.localeCompare(b.name))
  }

  /** The objects of the database `obj` lives in (the views that may read it). */
  neighbours(obj: CatalogObject): CatalogObject[] {
    return [...(this.homes.get(obj) ?? this.current).objects.values()]
  }

  /** Runs `fn` with the database of `obj` current: a view's query names what it reads from where the view was created. */
  within<T>(obj: CatalogObject, fn: () => T): T {
    const home = this.homes.get(obj)
    if (home === undefined || home === this.current) return fn()
    const saved = this.current
    this.current = home
    try {
      return fn()
    } finally {
      this.current = saved
    }
  }

  // ------------------------------------------------------------------ catalogs and databases

  catalogNames(): string[] {
    return [...this.catalogs.values()].map(c => c.name).sort()
  }

  databaseNames(): string[] {
    return [...this.catalogs.get(this.current.catalog.toLowerCase())!.databases.values()].map(d => d.name).sort()
  }

  /** CREATE CATALOG: a new in-memory catalog with its default database. */
  createCatalog(name: string, ifNotExists: boolean, span: Span, defaultDatabase = DEFAULT_DATABASE): boolean {
    if (this.catalogs.has(name.toLowerCase())) {
      if (ifNotExists) return false
      throw WeirError.plan(`catalog '${name}' already exists`, { span, help: 'choose another name, or use CREATE CATALOG IF NOT EXISTS' })
    }
    this.addDatabase(this.addCatalog(name), defaultDatabase)
    return true
  }

  dropCatalog(name: string, ifExists: boolean, span: Span): boolean {
    const key = name.toLowerCase()
    if (!this.catalogs.has(key)) {
      if (ifExists) return false
      throw this.noCatalog(name, span)
    }
    if (key === this.current.catalog.toLowerCase()) {
      throw WeirError.plan(`cannot drop catalog '${name}': it is the current catalog`, { span, help: `USE CATALOG ${DEFAULT_CATALOG} first` })
    }
    this.catalogs.delete(key)
    return true
  }

  useCatalog(name: string, span: Span): void {
    const c = this.catalogs.get(name.toLowerCase())
    if (c === undefined) throw this.noCatalog(name, span)
    const first = [...c.databases.values()][0]
    if (first === undefined) throw WeirError.plan(`catalog '${c.name}' has no database`, { span, help: `CREATE DATABASE ${c.name}.${DEFAULT_DATABASE}` })
    this.current = first
  }

  /** CREATE DATABASE `db` or `catalog.db`. */
  createDatabase(name: ObjectName, ifNotExists: boolean, span: Span, comment?: string): boolean {
    const [catalog, db] = this.databasePath(name, span)
    const c = this.catalogs.get(catalog.toLowerCase())
    if (c === undefined) throw this.noCatalog(catalog, span)
    if (c.databases.has(db.toLowerCase())) {
      if (ifNotExists) return false
      throw WeirError.plan(`database '${db}' already exists in catalog '${c.name}'`, { span,
        help: 'choose another name, or use CREATE DATABASE IF NOT EXISTS' })
    }
    this.addDatabase(c, db, comment)
    return true
  }

  /** DROP DATABASE: refused while it holds tables or views, unless CASCADE. */
  dropDatabase(name: ObjectName, ifExists: boolean, cascade: boolean, span: Span): boolean {
    const [catalog, db] = this.databasePath(name, span)
    const c = this.catalogs.get(catalog.toLowerCase())
    const d = c?.databases.get(db.toLowerCase())
    if (d === undefined) {
      if (ifExists) return false
      throw c === undefined ? this.noCatalog(catalog, span) : this.noDatabase(c.name, db, span)
    }
    if (d === this.current) throw WeirError.plan(`cannot drop database '${db}': it is the current database`, { span, help: 'USE another database first' })
    if (d.objects.size > 0 && !cascade) {
      throw WeirError.plan(`database '${db}' is not empty: it holds ${[...d.objects.values()].map(o => `${o.kind} '${o.name}'`).join(', ')}`, { span,
        help: `drop them first, or DROP DATABASE ${db} CASCADE` })
    }
    c!.databases.delete(db.toLowerCase())
    return true
  }

  useDatabase(name: ObjectName, span: Span): void {
    const [catalog, db] = this.databasePath(name, span)
    const c = this.catalogs.get(catalog.toLowerCase())
    if (c === undefined) throw this.noCatalog(catalog, span)
    const d = c.databases.get(db.toLowerCase())
    if (d === undefined) throw this.noDatabase(c.name, db, span)
    this.current = d
  }

  private addCatalog(name: string): { readonly name: string; readonly databases: Map<string, Database> } {
    const c = { name, databases: new Map<string, Database>() }
    this.catalogs.set(name.toLowerCase(), c)
    return c
  }

  private addDatabase(c: { readonly name: string; readonly databases: Map<string, Database> }, name: string, comment?: string): Database {
    const d: Database = { name, catalog: c.name, ...(comment !== undefined ? { comment } : {}), objects: new Map() }
    c.databases.set(name.toLowerCase(), d)
    return d
  }

  private databasePath(name: ObjectName, span: Span): [string, string] {
    const parts = typeof name === 'string' ? [name] : name.parts.map(p => p.value)
    if (parts.length === 1) return [this.current.catalog, parts[0]!]
    if (parts.length === 2) return [parts[0]!, parts[1]!]
    throw WeirError.plan(`a database is named 'database' or 'catalog.database', not '${parts.join('.')}'`, { span })
  }

  /** The database a name is in (undefined when it does not exist and there is no `span` to report it at), and the object's own name. */
  private locate(name: ObjectName, span?: Span): { db: Database | undefined; name: string } {
    const parts = typeof name === 'string' ? [name] : name.parts.map(p => p.value)
    const own = parts.at(-1)!
    if (parts.length === 1) return { db: this.current, name: own }
    if (parts.length > 3) {
      if (span === undefined) return { db: undefined, name: own }
      throw WeirError.plan(`'${parts.join('.')}' has too many parts: a table is named 'table', 'database.table' or 'catalog.database.table'`, { span })
    }
    const catalog = parts.length === 3 ? parts[0]! : this.current.catalog
    const c = this.catalogs.get(catalog.toLowerCase())
    if (c === undefined) {
      if (span === undefined) return { db: undefined, name: own }
      throw this.noCatalog(catalog, span)
    }
    const dbName = parts.at(-2)!
    const db = c.databases.get(dbName.toLowerCase())
    if (db === undefined && span !== undefined) throw this.noDatabase(c.name, dbName, span)
    return { db, name: own }
  }

  private noCatalog(name: string, span: Span): WeirError {
    const guess = closest(name, this.catalogNames())
    return WeirError.plan(`catalog '${name}' does not exist`, { span,
      help: guess ? `did you mean '${guess}'?` : `create it with CREATE CATALOG ${name} WITH ('type' = 'generic_in_memory')` })
  }

  private noDatabase(catalog: string, name: string, span: Span): WeirError {
    const guess = closest(name, [...this.catalogs.get(catalog.toLowerCase())!.databases.values()].map(d => d.name))
    return WeirError.plan(`database '${name}' does not exist in catalog '${catalog}'`, { span,
      help: guess ? `did you mean '${guess}'?` : `create it with CREATE DATABASE ${name}` })
  }
}
