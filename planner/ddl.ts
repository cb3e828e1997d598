// CREATE TABLE / CREATE VIEW → catalog objects, checked: columns, watermark, primary key, connector options.
import { watermarkAlignment } from '../connectors/alignment.js'
import type * as ast from '../grammar/ast.js'
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import type { WarningSink } from '../common/warnings.js'
import type { JobConfig } from '../common/config/index.js'
import { formatType, isTimestamp, withNullable } from '../common/types.js'
import { subjectOf } from '../connectors/options.js'
import { getConnector } from '../connectors/registry.js'
import type { CatalogTable, CatalogView, TableColumn } from './catalog.js'
import { connectorOptions, primaryKeyName } from './catalog.js'
import { typeFromAst } from './bind/types.js'
import { QueryBinder } from './bind/query-binder.js'
import { connectorColumns, tableFields } from './bind/table-fields.js'
import { bindExpr } from './bind/expr-binder.js'
import { Scope } from './bind/scope.js'
import type { Catalog } from './catalog.js'
import { mergeLike } from './create-like.js'
import { closest } from '../common/names.js'

/**
 * The table a CREATE TABLE declares; `catalog` holds the table its LIKE clause names, if it has one;
 * `derived` are the columns a CREATE TABLE … AS SELECT takes from its query, after the declared ones.
 */
export function tableFromAst(stmt: ast.CreateTable, catalog?: Catalog, derived: readonly TableColumn[] = []): CatalogTable {
  const name = stmt.name.parts.at(-1)!.value
  const seen = new Map<string, Span>()
  const ownColumns: TableColumn[] = stmt.columns.map(c => {
    const key = c.name.value.toLowerCase()
    if (seen.has(key)) throw WeirError.plan(`column '${c.name.value}' is defined twice`, { span: c.name.span })
    seen.set(key, c.name.span)
    switch (c.kind) {
      case 'PhysicalColumn':
        return { name: c.name.value, type: typeFromAst(c.type), kind: 'physical', ...comment(c), span: c.span }
      case 'ComputedColumn':
        return { name: c.name.value, type: { kind: 'NULL', nullable: true }, kind: 'computed', expr: c.expr, exprText: c.exprText, ...comment(c), span: c.span }
      case 'MetadataColumn':
        // Whether the connector offers this key is checked with its options (checkConnector).
        return { name: c.name.value, type: typeFromAst(c.type), kind: 'metadata', metadataKey: c.from ?? c.name.value, virtual: c.virtual, ...comment(c),
          span: c.span }
    }
  })
  ownColumns.push(...derived.filter(c => !seen.has(c.name.toLowerCase())))
  const options: Record<string, string> = {}
  const optionSpans: Record<string, Span> = {}
  const optionValueSpans: Record<string, Span> = {}
  for (const o of stmt.options) {
    if (o.key in options) throw WeirError.plan(`option '${o.key}' is given twice`, { span: o.keySpan })
    options[o.key] = o.value
    optionSpans[o.key] = o.keySpan
    optionValueSpans[o.key] = o.valueSpan
  }
  if (stmt.primaryKey && stmt.primaryKey.enforced) {
    throw WeirError.unsupported('PRIMARY KEY constraints cannot be enforced', { span: stmt.primaryKey.span,
      help: 'declare it as PRIMARY KEY (…) NOT ENFORCED' })
  }
  const own = { columns: ownColumns, options, optionSpans, optionValueSpans, watermark: stmt.watermark, primaryKey: stmt.primaryKey,
    ...(stmt.partitionedBy ? { partitionedBy: stmt.partitionedBy } : {}) }
  if (stmt.like && !catalog) throw WeirError.internal('CREATE TABLE … LIKE needs the catalog')
  const merged = stmt.like ? mergeLike(stmt.like, own, catalog!) : own
  const columns = merged.columns
  const primaryKey = (merged.primaryKey?.columns ?? []).map(c => {
    const col = columns.find(x => x.name.toLowerCase() === c.value.toLowerCase())
    if (!col) throw WeirError.plan(`primary key column '${c.value}' is not a column of '${name}'`, { span: c.span })
    if (col.kind !== 'physical') {
      throw WeirError.plan(`primary key column '${col.name}' is a computed column`, { span: c.span,
        help: 'a primary key is made of physical columns (as in Flink)' })
    }
    return col.name
  })
  const partitionKeys = partitionColumns(merged.partitionedBy, columns, name)
  // As in Flink, a primary key implies NOT NULL: its columns' types say so in DESCRIBE and in
  // queries, a source rejects a record without a value for one, and a sink enforces it.
  const keyed = new Set(primaryKey)
  let table: CatalogTable = {
    kind: 'table',
    name,
    columns: columns.map(c => (keyed.has(c.name) ? { ...c, type: withNullable(c.type, false) } : c)),
    primaryKey,
    ...(primaryKey.length > 0 ? { primaryKeyName: primaryKeyName(merged.primaryKey?.name?.value, primaryKey) } : {}),
    options: merged.options,
    optionSpans: merged.optionSpans,
    optionValueSpans: merged.optionValueSpans,
    ...comment(stmt),
    ...(partitionKeys.length > 0 ? { partitionKeys } : {}),
    span: stmt.span,
    watermark: merged.watermark
      ? { column: merged.watermark.column.value, expr: merged.watermark.expr, exprText: merged.watermark.exprText, span: merged.watermark.span }
      : undefined,
  }
  // Computed column types come from binding their expressions.
  const { fields } = tableFields(table)
  table = { ...table, columns: table.columns.map((c, i) => (c.kind === 'computed' ? { ...c, type: fields[i]!.type } : c)) }
  if (merged.watermark) checkWatermark(table, merged.watermark)
  checkConnector(table)
  return table
}

/** `PARTITIONED BY (…)`: distinct physical columns, not all of them (a file needs a column of its own). */
function partitionColumns(by: ast.CreateTable['partitionedBy'], columns: readonly TableColumn[], table: string): string[] {
  if (by === undefined) return []
  const keys: string[] = []
  for (const id of by.columns) {
    const col = columns.find(c => c.name.toLowerCase() === id.value.toLowerCase())
    if (!col) {
      const guess = closest(id.value, columns.map(c => c.name))
      throw WeirError.plan(`partition column '${id.value}' is not a column of '${table}'`, { span: id.span,
        help: guess !== undefined ? `did you mean '${guess}'?` : `name columns of the table in PARTITIONED BY` })
    }
    if (col.kind !== 'physical') {
      throw WeirError.plan(`partition column '${col.name}' is a ${col.kind} column`, { span: id.span,
        help: 'partition by physical columns (as in Flink): their values name the folders' })
    }
    if (keys.includes(col.name)) throw WeirError.plan(`partition column '${col.name}' is named twice`, { span: id.span })
    if (!PARTITION_TYPES.has(col.type.kind)) {
      throw WeirError.plan(`partition column '${col.name}' is ${formatType(col.type)}: a folder name cannot hold it`, { span: id.span,
        help: 'partition by a STRING, number, BOOLEAN, DATE or TIMESTAMP column (e.g. a computed day in the query that fills the table)' })
    }
    keys.push(col.name)
  }
  if (keys.length >= columns.filter(c => c.kind === 'physical').length) {
    throw WeirError.plan(`every physical column of '${table}' is a partition column: its files would hold nothing`, { span: by.span,
      help: 'leave at least one physical column out of PARTITIONED BY' })
  }
  return keys
}

const PARTITION_TYPES: ReadonlySet<string> = new Set(['STRING', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DECIMAL', 'DOUBLE', 'BOOLEAN', 'DATE', 'TIMESTAMP'])

/**
 * A table whose schema ALTER TABLE changed, checked again as CREATE TABLE checks one: computed
 * columns bound again, key columns NOT NULL, partition columns physical, the watermark and the
 * connector. `added` is a watermark and `fresh` the columns the statement declares (their errors point into it); errors about
 * what the table already had point at the statement (`span`), since their spans are in older text.
 */
export function rebuiltTable(t: CatalogTable, added: ast.WatermarkDef | undefined, span: Span, fresh: ReadonlySet<TableColumn> = new Set()): CatalogTable {
  const keyed = new Set(t.primaryKey.map(k => k.toLowerCase()))
  const computedOf = (c: TableColumn): TableColumn => fresh.has(c) ? c : { ...c, type: { kind: 'NULL', nullable: true } }
  let table: CatalogTable = {
    ...t,
    columns: t.columns.map(c => c.kind === 'computed' ? computedOf(c) : keyed.has(c.name.toLowerCase()) ? { ...c, type: withNullable(c.type, false) } : c),
  }
  for (const k of t.partitionKeys ?? []) {
    const col = table.columns.find(c => c.name.toLowerCase() === k.toLowerCase())
    if (col?.kind !== 'physical') {
      throw WeirError.plan(`partition column '${k}' of '${t.name}' must stay a physical column`, { span,
        help: 'a table keeps its PARTITIONED BY columns as they are; create a new table to partition it otherwise' })
    }
  }
  const restated = (e: unknown, what: string): unknown =>
    e instanceof WeirError && e.kind !== 'internal' ?
      WeirError.plan(`after this change, ${what} of '${t.name}' is not valid: ${e.message}`, { span, help: `change or drop it in the same ALTER TABLE` }) :
      e
  // The statement's own computed columns first, so that their errors point into it.
  const physical = Scope.of(table.columns.filter(c => c.kind !== 'computed').map(c => ({ name: c.name, type: c.type })))
  for (const c of table.columns) if (c.kind === 'computed' && fresh.has(c)) bindExpr(c.expr!, { scope: physical, clause: 'a computed column' })
  let fields
  try {
    fields = tableFields(table).fields
  } catch (e) {
    throw restated(e, 'a computed column')
  }
  table = { ...table, columns: table.columns.map((c, i) => (c.kind === 'computed' ? { ...c, type: fields[i]!.type } : c)) }
  if (added !== undefined) checkWatermark(table, added)
  else if (table.watermark !== undefined) {
    const wm = table.watermark
    try {
      checkWatermark(table, { column: { value: wm.column, quoted: false, span }, expr: wm.expr, exprText: wm.exprText, span })
    } catch (e) {
      throw restated(e, 'the watermark')
    }
  }
  const here = (m: Readonly<Record<string, Span>>): Record<string, Span> => Object.fromEntries(Object.keys(m).map(k => [k, span]))
  checkConnector({ ...table, span, optionSpans: here(table.optionSpans), optionValueSpans: here(table.optionValueSpans) })
  return table
}

function checkWatermark(table: CatalogTable, wm: ast.WatermarkDef): void {
  const col = table.columns.find(c => c.name.toLowerCase() === wm.column.value.toLowerCase())
  if (!col) {
    throw WeirError.plan(`WATERMARK FOR '${wm.column.value}': no such column in '${table.name}'`, { span: wm.column.span })
  }
  if (!isTimestamp(col.type)) {
    throw WeirError.plan(`WATERMARK FOR '${col.name}' needs a TIMESTAMP(3) or TIMESTAMP_LTZ(3) column, but it is ${formatType(col.type)}`, {
      span: wm.column.span,
      help: `add a computed column, e.g. ts AS TO_TIMESTAMP_LTZ(${col.name}, 3), and declare the watermark on it`,
    })
  }
  const { fields } = tableFields(table)
  const rex = bindExpr(wm.expr, { scope: Scope.of(fields), clause: 'WATERMARK' })
  if (!isTimestamp(rex.type)) {
    throw WeirError.plan(`the WATERMARK expression must be a timestamp, but it is ${formatType(rex.type)}`, { span: wm.expr.span,
      help: `e.g. ${col.name} - INTERVAL '5' SECOND` })
  }
}

/** The connector exists and takes the table's options and columns (CREATE TABLE, ALTER TABLE … SET / RESET). */
export function checkConnector(table: CatalogTable): void {
  const connector = table.options['connector']
  if (connector === undefined) {
    throw WeirError.plan(`table '${table.name}' has no 'connector' option`, { span: table.span,
      help: `add WITH ('connector' = 'filesystem', 'path' = '…', 'format' = 'json'), or datagen, nexmark, print, blackhole` })
  }
  const rest = connectorOptions(table.options)
  let factory
  try {
    factory = getConnector(connector)
  } catch (e) {
    // The name is what is wrong: point at the value, not at 'connector'.
    throw e instanceof WeirError ? e.withSpan(table.optionValueSpans['connector']) : e
  }
  const metadataColumn = table.columns.find(c => c.kind === 'metadata')
  if (metadataColumn !== undefined && (factory.source?.metadataKeys ?? factory.sink?.writableMetadataKeys ?? []).length === 0) {
    throw WeirError.unsupported(`METADATA columns are not supported by connector '${factory.name}'`, { span: metadataColumn.span,
      help: `remove the column, or compute it with AS (the 'kafka' connector offers metadata columns)` })
  }
  if ((table.partitionKeys ?? []).length > 0 && factory.partitioned !== true) {
    throw WeirError.unsupported(`connector '${factory.name}' does not support PARTITIONED BY`, { span: table.span,
      help: `partition a 'filesystem' table, or remove PARTITIONED BY` })
  }
  const { physical, metadata } = connectorColumns(table)
  try {
    // Sources and sinks share the WITH clause; a table is checked as whatever its connector can be.
    if (factory.source) {
      factory.source.validate(rest, physical, metadata, table.primaryKey)
      watermarkAlignment(table.options, table.watermark !== undefined)
    } else {
      factory.sink!.validate(rest, physical, table.primaryKey, metadata)
    }
  } catch (e) {
    if (!(e instanceof WeirError)) throw e
    throw e.withSpan(spanOfSubject(table, e))
  }
}

/** Where in the CREATE TABLE a connector's validation error points: the option key or value, or the column it names. */
export function spanOfSubject(table: CatalogTable, e: WeirError): Span {
  const subject = subjectOf(e)
  if (subject !== undefined && 'column' in subject) {
    return table.columns.find(c => c.name === subject.column)?.span ?? table.span
  }
  if (subject !== undefined) {
    return (subject.part === 'key' ? table.optionSpans : table.optionValueSpans)[subject.option] ?? table.span
  }
  // Not marked: the first option the message names, else the whole statement.
  const key = Object.keys(table.optionSpans).find(k => e.message.includes(`'${k}'`))
  return key !== undefined ? table.optionSpans[key]! : table.span
}

export function viewFromAst(stmt: ast.CreateView, catalog: Catalog, config: JobConfig, warn?: WarningSink): CatalogView {
  const name = stmt.name.parts.at(-1)!.value
  // Bind once now so a broken view is rejected when it is created, not when it is used.
  const bound = new QueryBinder(catalog, config, warn).bindQuery(stmt.query)
  if (stmt.columns && stmt.columns.length !== bound.plan.fields.length) {
    throw WeirError.plan(`view '${name}' names ${stmt.columns.length} columns but its query has ${bound.plan.fields.length}`, { span: stmt.columns[0]!.span })
  }
  return { kind: 'view', name, query: stmt.query, queryText: stmt.queryText, ...comment(stmt), columns: stmt.columns?.map(c => c.value), span: stmt.span }
}

/** `{ comment }` if `x` has one (kept for SHOW CREATE). */
function comment(x: { readonly comment?: string }): { comment?: string } {
  return x.comment !== undefined ? { comment: x.comment } : {}
}
