// SHOW CREATE TABLE / SHOW CREATE VIEW: the DDL that recreates a catalog object, laid out as Flink
// prints it (names in backquotes, one element a line, options quoted). Expressions and a view's
// query are printed as they were written, so running the text again gives the same catalog entry.
import { WeirError } from '../common/errors.js'
import { formatType } from '../common/types.js'
import type { Span } from '../common/span.js'
import { type CatalogObject, type CatalogTable, type CatalogView, primaryKeyName, type TableColumn } from './catalog.js'

/**
 * The DDL of `obj`, which `object` (as written after SHOW CREATE) must name the kind of.
 *
 * @example showCreate(catalog.resolve('t', span), 'TABLE', span) // "CREATE TABLE `t` (\n  `a` INT\n) WITH (\n  'connector' = 'datagen'\n)"
 */
export function showCreate(obj: CatalogObject, object: 'TABLE' | 'VIEW', span: Span): string {
  if (obj.kind !== object.toLowerCase()) {
    throw WeirError.plan(`'${obj.name}' is a ${obj.kind}, not a ${object.toLowerCase()}`, { span,
      help: `use SHOW CREATE ${obj.kind.toUpperCase()} ${obj.name}` })
  }
  return obj.kind === 'table' ? createTableText(obj) : createViewText(obj)
}

function createTableText(t: CatalogTable): string {
  const elements = t.columns.map(columnText)
  if (t.watermark) elements.push(`WATERMARK FOR ${quoteName(t.watermark.column)} AS ${t.watermark.exprText}`)
  if (t.primaryKey.length > 0) {
    // As Flink prints it: the constraint's name (the written one, or the one it generated) first.
    elements.push(
      `CONSTRAINT ${quoteName(primaryKeyName(t.primaryKeyName, t.primaryKey))} PRIMARY KEY (${t.primaryKey.map(quoteName).join(', ')}) NOT ENFORCED`,
    )
  }
  const options = Object.entries(t.options).map(([k, v]) => `  ${quoteString(k)} = ${quoteString(v)}`)
  const comment = t.comment !== undefined ? `\nCOMMENT ${quoteString(t.comment)}` : ''
  const partitioned = (t.partitionKeys ?? []).length > 0 ? `\nPARTITIONED BY (${t.partitionKeys!.map(quoteName).join(', ')})` : ''
  const gap = comment === '' && partitioned === '' ? ' ' : '\n'
  return `CREATE TABLE ${quoteName(t.name)} (\n${elements.map(e => `  ${e}`).join(',\n')}\n)${comment}${partitioned}${gap}WITH (\n${options.join(',\n')}\n)`
}

function columnText(c: TableColumn): string {
  return c.comment !== undefined ? `${columnDefinition(c)} COMMENT ${quoteString(c.comment)}` : columnDefinition(c)
}

function columnDefinition(c: TableColumn): string {
  const name = quoteName(c.name)
  switch (c.kind) {
    case 'computed':
      return `${name} AS ${c.exprText}`
    case 'metadata': {
      // FROM only when the key differs from the name, as Flink prints it.
      const from = c.metadataKey !== undefined && c.metadataKey !== c.name ? ` FROM ${quoteString(c.metadataKey)}` : ''
      return `${name} ${formatType(c.type)} METADATA${from}${c.virtual ? ' VIRTUAL' : ''}`
    }
    case 'physical':
      return `${name} ${formatType(c.type)}`
  }
}

function createViewText(v: CatalogView): string {
  const columns = v.columns ? ` (${v.columns.map(quoteName).join(', ')})` : ''
  const comment = v.comment !== undefined ? `\nCOMMENT ${quoteString(v.comment)}` : ''
  return `CREATE VIEW ${quoteName(v.name)}${columns}${comment} AS\n${v.queryText}`
}

/** `name` in backquotes, a backquote in it doubled. */
export function quoteName(name: string): string {
  return '`' + name.replaceAll('`', '``') + '`'
}

/** `s` as a SQL string literal, a quote in it doubled. */
export function quoteString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`
}
