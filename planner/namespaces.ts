// CREATE CATALOG, CREATE DATABASE, DROP DATABASE / CATALOG, USE and SHOW CATALOGS / DATABASES /
// CURRENT …: the session's namespaces (catalog.ts keeps them). Catalogs live in the session's memory,
// as Flink's 'generic_in_memory' ones: another type (hive, jdbc) is refused, naming it.
import type * as ast from '../grammar/ast.js'
import { WeirError } from '../common/errors.js'
import type { Catalog } from './catalog.js'
import { DEFAULT_DATABASE } from './catalog.js'
import type { Listing } from './describe.js'

const CATALOG_OPTIONS = ['type', 'default-database']

/** Applies a namespace statement; the message says what it did. */
export function applyNamespaceStatement(stmt: ast.CreateCatalog | ast.CreateDatabase | ast.Use | ast.DropObject, catalog: Catalog): string {
  switch (stmt.kind) {
    case 'CreateCatalog': {
      const type = stmt.options.find(o => o.key === 'type')
      if (type === undefined) {
        throw WeirError.plan(`CREATE CATALOG needs its 'type'`, { span: stmt.name.span,
          help: `CREATE CATALOG ${stmt.name.value} WITH ('type' = 'generic_in_memory')` })
      }
      if (type.value !== 'generic_in_memory') {
        throw WeirError.unsupported(`catalog type '${type.value}' is not supported: Weir's catalogs live in the session's memory`, {
          span: type.valueSpan,
          help: `use 'type' = 'generic_in_memory'`,
        })
      }
      const unknown = stmt.options.find(o => !CATALOG_OPTIONS.includes(o.key))
      if (unknown !== undefined) {
        throw WeirError.plan(`unknown catalog option '${unknown.key}'`, { span: unknown.keySpan,
          help: `a generic_in_memory catalog takes ${CATALOG_OPTIONS.map(o => `'${o}'`).join(' and ')}` })
      }
      const database = stmt.options.find(o => o.key === 'default-database')?.value ?? DEFAULT_DATABASE
      const created = catalog.createCatalog(stmt.name.value, stmt.ifNotExists, stmt.name.span, database)
      return created ? `catalog '${stmt.name.value}' created` : `catalog '${stmt.name.value}' already exists`
    }
    case 'CreateDatabase': {
      const created = catalog.createDatabase(stmt.name, stmt.ifNotExists, stmt.name.span, stmt.comment)
      const name = stmt.name.parts.map(p => p.value).join('.')
      return created ? `database '${name}' created` : `database '${name}' already exists`
    }
    case 'Use':
      if (stmt.catalog) {
        if (stmt.name.parts.length > 1) throw WeirError.plan('USE CATALOG takes a catalog name of one part', { span: stmt.name.span })
        catalog.useCatalog(stmt.name.parts[0]!.value, stmt.name.span)
        return `using catalog '${catalog.currentCatalog}' (database '${catalog.currentDatabase}')`
      }
      catalog.useDatabase(stmt.name, stmt.name.span)
      return `using database '${catalog.currentCatalog}.${catalog.currentDatabase}'`
    case 'DropObject': {
      const name = stmt.name.parts.map(p => p.value).join('.')
      if (stmt.object === 'CATALOG') {
        if (stmt.name.parts.length > 1) throw WeirError.plan('DROP CATALOG takes a catalog name of one part', { span: stmt.name.span })
        return catalog.dropCatalog(name, stmt.ifExists, stmt.name.span) ? `catalog '${name}' dropped` : `catalog '${name}' does not exist`
      }
      return catalog.dropDatabase(stmt.name, stmt.ifExists, stmt.cascade, stmt.name.span) ? `database '${name}' dropped` : `database '${name}' does not exist`
    }
  }
}

/** SHOW CATALOGS, SHOW DATABASES (of the current catalog), SHOW CURRENT CATALOG / DATABASE. */
export function showNamespaces(what: 'CATALOGS' | 'DATABASES' | 'CURRENT CATALOG' | 'CURRENT DATABASE', catalog: Catalog): Listing {
  switch (what) {
    case 'CATALOGS':
      return { columns: ['catalog name'], rows: catalog.catalogNames().map(n => [n]) }
    case 'DATABASES':
      return { columns: ['database name'], rows: catalog.databaseNames().map(n => [n]) }
    case 'CURRENT CATALOG':
      return { columns: ['current catalog name'], rows: [[catalog.currentCatalog]] }
    case 'CURRENT DATABASE':
      return { columns: ['current database name'], rows: [[catalog.currentDatabase]] }
  }
}
