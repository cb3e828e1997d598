// Whether an INSERT's target can be written: its connector must write each of the columns an INSERT
// fills (writtenColumns) and accept the table's options as a sink.
import { WeirError } from '../common/errors.js'
import { getConnector } from '../connectors/registry.js'
import { sinkColumns, writtenColumns } from './bind/table-fields.js'
import type { CatalogTable } from './catalog.js'
import { connectorOptions } from './catalog.js'
import { spanOfSubject } from './ddl.js'

/**
 * Refuses, at plan time, an INSERT into a table its sink cannot write: a non-VIRTUAL metadata column
 * the connector only reads (a Kafka 'offset'), or an option only its sink refuses (SinkFactory.checkWrite).
 * The error points at the column or option in the CREATE TABLE.
 */
export function checkWritable(table: CatalogTable): void {
  const factory = getConnector(table.options['connector']!)
  const sink = factory.sink!
  const writable = sink.writableMetadataKeys ?? []
  for (const c of writtenColumns(table)) {
    if (c.kind !== 'metadata' || writable.includes(c.metadataKey!)) continue
    throw WeirError.plan(`table '${table.name}' cannot be written: connector '${factory.name}' cannot write metadata '${c.metadataKey}' (column '${c.name}')`, {
      span: c.span,
      help: writable.length === 0
        ? `declare the column VIRTUAL (INSERT then leaves it out), or write to a table without it`
        : `declare the column VIRTUAL (INSERT then leaves it out); the sink writes metadata ${writable.map(k => `'${k}'`).join(' and ')}`,
    })
  }
  if (sink.checkWrite === undefined) return
  const options = connectorOptions(table.options)
  const { schema, metadata } = sinkColumns(table)
  try {
    sink.checkWrite(options, schema, table.primaryKey, metadata)
  } catch (e) {
    if (!(e instanceof WeirError)) throw e
    throw new WeirError(e.kind, `table '${table.name}' cannot be written: ${e.message}`, { span: spanOfSubject(table, e), help: e.help })
  }
}
