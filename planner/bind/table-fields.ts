// The columns of a table as a query sees them (physical, metadata and computed, the rowtime marked),
// bound once per catalog table; and whether a query may read it.
import { WeirError } from '../../common/errors.js'
import type { Span } from '../../common/span.js'
import type { Field } from '../../common/types.js'
import { getConnector } from '../../connectors/registry.js'
import type { Rex } from '../../core/rex.js'
import type { CatalogTable, TableColumn } from '../catalog.js'
import { connectorOptions } from '../catalog.js'
import { Scope } from './scope.js'
import { bindExpr } from './expr-binder.js'

const tableFieldCache = new WeakMap<CatalogTable, { fields: Field[]; computed: (Rex | undefined)[] }>()

/**
 * The columns of a table as a query sees them: physical and computed, with the rowtime column
 * marked as a time attribute, and computed expressions bound over the physical columns.
 */
export function tableFields(table: CatalogTable): { fields: Field[]; computed: (Rex | undefined)[] } {
  const cached = tableFieldCache.get(table)
  if (cached) return cached
  const physical = table.columns.filter(c => c.kind !== 'computed')
  const physicalScope = Scope.of(physical.map(c => ({ name: c.name, type: c.type })))
  const fields: Field[] = []
  const computed: (Rex | undefined)[] = []
  for (const c of table.columns) {
    if (c.kind === 'computed') {
      const rex = bindExpr(c.expr!, { scope: physicalScope, clause: 'a computed column' })
      computed.push(rex)
      fields.push({ name: c.name, type: rex.type })
    } else {
      computed.push(undefined)
      fields.push({ name: c.name, type: c.type })
    }
  }
  if (table.watermark) {
    const i = fields.findIndex(f => f.name.toLowerCase() === table.watermark!.column.toLowerCase())
    const t = fields[i]!.type
    if (t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ') fields[i] = { name: fields[i]!.name, type: { ...t, timeAttr: 'rowtime' } }
  }
  const result = { fields, computed }
  tableFieldCache.set(table, result)
  return result
}

/** The columns a connector reads: the physical and metadata ones, in the table's order. */
export function connectorColumns(table: CatalogTable): { physical: Field[]; metadata: (string | null)[] } {
  const read = table.columns.filter(c => c.kind !== 'computed')
  return { physical: read.map(c => ({ name: c.name, type: c.type })), metadata: read.map(c => c.metadataKey ?? null) }
}

/** The columns an INSERT into `table` fills (Flink's persisted columns), in the table's order (computed and VIRTUAL columns are read only). */
export function writtenColumns(table: CatalogTable): TableColumn[] {
  return table.columns.filter(c => c.kind === 'physical' || (c.kind === 'metadata' && !c.virtual))
}

/** What the sink is given for the written columns: their fields, and per column its metadata key (null: a column of the record). */
export function sinkColumns(table: CatalogTable): { schema: Field[]; metadata: (string | null)[] } {
  const written = writtenColumns(table)
  return { schema: written.map(c => ({ name: c.name, type: c.type })), metadata: written.map(c => c.metadataKey ?? null) }
}

/**
 * Refuses, where a query reads `table` (at `span`), a table its connector cannot read: a sink-only
 * connector, or a source missing what reading needs (SourceFactory.checkRead). `hint`: the span of an
 * OPTIONS hint that changed the table's options for this read, which are checked as CREATE TABLE's are.
 */
export function checkReadable(table: CatalogTable, span: Span, hint?: Span): void {
  const factory = getConnector(table.options['connector']!)
  if (!factory.source) {
    throw WeirError.plan(`table '${table.name}' uses connector '${factory.name}', which cannot be read`, { span,
      help: `read from a table whose connector has a source (filesystem, kafka, datagen, nexmark); '${factory.name}' is written only` })
  }
  const options = connectorOptions(table.options)
  const { physical, metadata } = connectorColumns(table)
  if (hint !== undefined) {
    try {
      factory.source.validate(options, physical, metadata, table.primaryKey)
    } catch (e) {
      if (!(e instanceof WeirError)) throw e
      throw new WeirError(e.kind, `in the OPTIONS hint on table '${table.name}': ${e.message}`, { span: hint, help: e.help })
    }
  }
  if (!factory.source.checkRead) return
  try {
    factory.source.checkRead(options, physical, metadata)
  } catch (e) {
    if (!(e instanceof WeirError)) throw e
    throw new WeirError(e.kind, `table '${table.name}' cannot be read: ${e.message}`, { span, help: e.help })
  }
}
