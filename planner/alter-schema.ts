// ALTER TABLE … ADD / MODIFY / DROP / RENAME c TO d: a table's schema changed, with Flink's rules
// (a column added must be new, one modified or dropped must exist, a primary key or watermark is
// added only when there is none, and a column that a computed column, the watermark, the primary key
// or PARTITIONED BY uses cannot be dropped), then checked again as CREATE TABLE checks it.
import type * as ast from '../grammar/ast.js'
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import { closest } from '../common/names.js'
import { type CatalogTable, primaryKeyName, type TableColumn } from './catalog.js'
import { typeFromAst } from './bind/types.js'
import { rebuiltTable } from './ddl.js'

type SchemaAction = Extract<ast.AlterAction, {
  kind: 'AddSchema' | 'ModifySchema' | 'DropColumns' | 'DropPrimaryKey' | 'DropConstraint' | 'DropWatermark' | 'RenameColumn'
}>
type Watermark = NonNullable<CatalogTable['watermark']>

/**
 * `t` with `action` applied, checked as a new CREATE TABLE would be.
 *
 * @example alterSchema(orders, { kind: 'DropWatermark', span }, stmt.span) // orders without its watermark
 */
export function alterSchema(t: CatalogTable, action: SchemaAction, span: Span): CatalogTable {
  switch (action.kind) {
    case 'AddSchema':
    case 'ModifySchema':
      return addOrModify(t, action, span)
    case 'DropColumns':
      return dropColumns(t, action.columns, span)
    case 'DropPrimaryKey':
      if (t.primaryKey.length === 0) {
        throw WeirError.plan(`table '${t.name}' has no primary key to drop`, { span: action.span, help: `DESCRIBE ${t.name} shows its columns and keys` })
      }
      return withoutKey(t, span)
    case 'DropConstraint':
      return dropConstraint(t, action.name, span)
    case 'DropWatermark':
      if (t.watermark === undefined) {
        throw WeirError.plan(`table '${t.name}' has no watermark to drop`, { span: action.span, help: `DESCRIBE ${t.name} shows its columns and watermark` })
      }
      return rebuiltTable({ ...t, watermark: undefined }, undefined, span)
    case 'RenameColumn':
      return renameColumn(t, action.from, action.to, span)
  }
}

/** `t` without its primary key; as in Flink, the key's columns stay NOT NULL. */
function withoutKey(t: CatalogTable, span: Span): CatalogTable {
  const { primaryKeyName: _, ...rest } = t
  return rebuiltTable({ ...rest, primaryKey: [] }, undefined, span)
}

/**
 * DROP CONSTRAINT name: a table's only constraint is its primary key, so the name must be the key's
 * (as written in CONSTRAINT name, else Flink's generated `PK_` + columns); compared as a name is,
 * without regard to case.
 */
function dropConstraint(t: CatalogTable, name: ast.Ident, span: Span): CatalogTable {
  if (t.primaryKey.length === 0) {
    throw WeirError.plan(`table '${t.name}' has no constraint '${name.value}': it has no primary key`, { span: name.span,
      help: `DESCRIBE ${t.name} shows its columns and keys` })
  }
  const own = primaryKeyName(t.primaryKeyName, t.primaryKey)
  if (!sameName(own, name.value)) {
    throw WeirError.plan(`table '${t.name}' has no constraint '${name.value}': its primary key (${t.primaryKey.join(', ')}) is named '${own}'`, {
      span: name.span,
      help: `ALTER TABLE ${t.name} DROP CONSTRAINT ${own}, or DROP PRIMARY KEY`,
    })
  }
  return withoutKey(t, span)
}

function addOrModify(t: CatalogTable, action: Extract<SchemaAction, { kind: 'AddSchema' | 'ModifySchema' }>, span: Span): CatalogTable {
  const add = action.kind === 'AddSchema'
  const columns: TableColumn[] = [...t.columns]
  const fresh = new Set<TableColumn>()
  for (const { column, position } of action.columns) {
    const at = indexOf(columns, column.name.value)
    if (add && at >= 0) {
      throw WeirError.plan(`column '${columns[at]!.name}' already exists in table '${t.name}'`, { span: column.name.span,
        help: `to change it: ALTER TABLE ${t.name} MODIFY ${column.name.value} …; to add a new column, give it another name` })
    }
    if (!add && at < 0) {
      throw WeirError.plan(`column '${column.name.value}' does not exist in table '${t.name}', so it cannot be modified`, { span: column.name.span,
        help: hint(column.name.value, columns) ?? `to add it: ALTER TABLE ${t.name} ADD ${column.name.value} …` })
    }
    const next = columnFromAst(column)
    fresh.add(next)
    if (at >= 0) columns.splice(at, 1)
    const to = position === undefined ? (at >= 0 ? at : columns.length) : placed(columns, position, column.name, t.name)
    columns.splice(to, 0, next)
  }
  let primaryKey = t.primaryKey
  if (action.primaryKey !== undefined) {
    if (add && t.primaryKey.length > 0) {
      throw WeirError.plan(`table '${t.name}' already has a primary key (${t.primaryKey.join(', ')})`, { span: action.primaryKey.span,
        help: `to replace it: ALTER TABLE ${t.name} MODIFY PRIMARY KEY (…) NOT ENFORCED, or DROP PRIMARY KEY first` })
    }
    if (!add && t.primaryKey.length === 0) {
      throw WeirError.plan(`table '${t.name}' has no primary key to modify`, { span: action.primaryKey.span,
        help: `to add one: ALTER TABLE ${t.name} ADD PRIMARY KEY (…) NOT ENFORCED` })
    }
    if (action.primaryKey.enforced) {
      throw WeirError.unsupported('PRIMARY KEY constraints cannot be enforced', { span: action.primaryKey.span,
        help: 'declare it as PRIMARY KEY (…) NOT ENFORCED' })
    }
    primaryKey = keyColumns(action.primaryKey, columns, t.name)
  }
  const keyName = action.primaryKey !== undefined
    ? { primaryKeyName: primaryKeyName(action.primaryKey.name?.value, primaryKey) }
    : t.primaryKeyName !== undefined
    ? { primaryKeyName: t.primaryKeyName }
    : {}
  let watermark: Watermark | undefined = t.watermark
  let newWatermark: ast.WatermarkDef | undefined
  if (action.watermark !== undefined) {
    const wm = action.watermark
    if (add && t.watermark !== undefined) {
      throw WeirError.plan(`table '${t.name}' already has a watermark: FOR ${t.watermark.column} AS ${t.watermark.exprText}`, { span: wm.span,
        help: `to replace it: ALTER TABLE ${t.name} MODIFY WATERMARK FOR …, or DROP WATERMARK first` })
    }
    if (!add && t.watermark === undefined) {
      throw WeirError.plan(`table '${t.name}' has no watermark to modify`, { span: wm.span,
        help: `to add one: ALTER TABLE ${t.name} ADD WATERMARK FOR … AS …` })
    }
    watermark = { column: wm.column.value, expr: wm.expr, exprText: wm.exprText, span: wm.span }
    newWatermark = wm
  }
  return rebuiltTable({ ...t, columns, primaryKey, ...keyName, watermark }, newWatermark, span, fresh)
}

function dropColumns(t: CatalogTable, names: readonly ast.Ident[], span: Span): CatalogTable {
  const dropped = new Set<string>()
  for (const n of names) {
    const at = indexOf(t.columns, n.value)
    if (at < 0) {
      throw WeirError.plan(`column '${n.value}' does not exist in table '${t.name}'`, { span: n.span,
        help: hint(n.value, t.columns) ?? `DESCRIBE ${t.name} lists its columns` })
    }
    const name = t.columns[at]!.name
    if (dropped.has(name)) throw WeirError.plan(`column '${name}' is named twice`, { span: n.span })
    dropped.add(name)
  }
  const kept = t.columns.filter(c => !dropped.has(c.name))
  if (kept.length === 0) {
    throw WeirError.plan(`cannot drop every column of table '${t.name}'`, { span, help: `DROP TABLE ${t.name} removes the table` })
  }
  for (const n of names) {
    const name = t.columns[indexOf(t.columns, n.value)]!.name
    const user = kept.find(c => c.kind === 'computed' && references(c.expr, name))
    if (user !== undefined) {
      throw WeirError.plan(`column '${name}' cannot be dropped: computed column '${user.name}' uses it`, { span: n.span,
        help: `drop '${user.name}' too (ALTER TABLE ${t.name} DROP (${name}, ${user.name})), or MODIFY it first` })
    }
    if (t.watermark !== undefined && (sameName(t.watermark.column, name) || references(t.watermark.expr, name))) {
      throw WeirError.plan(`column '${name}' cannot be dropped: the watermark uses it (FOR ${t.watermark.column} AS ${t.watermark.exprText})`, { span: n.span,
        help: `ALTER TABLE ${t.name} DROP WATERMARK first` })
    }
    if (t.primaryKey.some(k => sameName(k, name))) {
      throw WeirError.plan(`column '${name}' cannot be dropped: it is in the primary key (${t.primaryKey.join(', ')})`, { span: n.span,
        help: `ALTER TABLE ${t.name} DROP PRIMARY KEY first` })
    }
    if ((t.partitionKeys ?? []).some(k => sameName(k, name))) {
      throw WeirError.plan(`column '${name}' cannot be dropped: it is a partition column of '${t.name}'`, { span: n.span,
        help: 'a table keeps its PARTITIONED BY columns; create a new table to partition it otherwise' })
    }
  }
  return rebuiltTable({ ...t, columns: kept }, undefined, span)
}

function renameColumn(t: CatalogTable, from: ast.Ident, to: ast.Ident, span: Span): CatalogTable {
  const at = indexOf(t.columns, from.value)
  if (at < 0) {
    throw WeirError.plan(`column '${from.value}' does not exist in table '${t.name}'`, { span: from.span,
      help: hint(from.value, t.columns) ?? `DESCRIBE ${t.name} lists its columns` })
  }
  const old = t.columns[at]!.name
  const taken = indexOf(t.columns, to.value)
  if (taken >= 0 && taken !== at) {
    throw WeirError.plan(`cannot rename column '${old}' to '${to.value}': table '${t.name}' already has a column '${t.columns[taken]!.name}'`, { span: to.span,
      help: 'choose another name' })
  }
  const user = t.columns.find(c => c.kind === 'computed' && references(c.expr, old))
  if (user !== undefined) {
    throw WeirError.plan(`column '${old}' cannot be renamed: computed column '${user.name}' uses it`, { span: from.span,
      help: `MODIFY '${user.name}' to use another column first, or DROP it` })
  }
  if (t.watermark !== undefined && references(t.watermark.expr, old)) {
    throw WeirError.plan(`column '${old}' cannot be renamed: the watermark's expression uses it (${t.watermark.exprText})`, { span: from.span,
      help: `ALTER TABLE ${t.name} DROP WATERMARK first, then add it again over the new name` })
  }
  const rename = (n: string): string => (sameName(n, old) ? to.value : n)
  const columns = t.columns.map((c, i) => (i === at ? { ...c, name: to.value } : c))
  const watermark = t.watermark === undefined ? undefined : { ...t.watermark, column: rename(t.watermark.column) }
  const partition = t.partitionKeys === undefined ? {} : { partitionKeys: t.partitionKeys.map(rename) }
  return rebuiltTable({ ...t, columns, primaryKey: t.primaryKey.map(rename), watermark, ...partition }, undefined, span)
}

/** Where FIRST / AFTER c puts a column in `columns` (which no longer holds it). */
function placed(columns: readonly TableColumn[], position: ast.ColumnPosition, name: ast.Ident, table: string): number {
  if (position.kind === 'First') return 0
  if (sameName(position.column.value, name.value)) {
    throw WeirError.plan(`column '${name.value}' cannot be placed AFTER itself`, { span: position.column.span, help: 'name another column after AFTER' })
  }
  const at = indexOf(columns, position.column.value)
  if (at < 0) {
    throw WeirError.plan(`column '${position.column.value}' named by AFTER does not exist in table '${table}'`, { span: position.column.span,
      help: hint(position.column.value, columns) ?? "place the column AFTER one of the table's columns, or FIRST" })
  }
  return at + 1
}

function keyColumns(pk: ast.PrimaryKeyDef, columns: readonly TableColumn[], table: string): string[] {
  return pk.columns.map(c => {
    const col = columns[indexOf(columns, c.value)]
    if (col === undefined) throw WeirError.plan(`primary key column '${c.value}' is not a column of '${table}'`, { span: c.span, help: hint(c.value, columns) })
    if (col.kind !== 'physical') {
      throw WeirError.plan(`primary key column '${col.name}' is a ${col.kind} column`, { span: c.span,
        help: 'a primary key is made of physical columns (as in Flink)' })
    }
    return col.name
  })
}

function columnFromAst(c: ast.ColumnDef): TableColumn {
  const comment = c.comment !== undefined ? { comment: c.comment } : {}
  switch (c.kind) {
    case 'PhysicalColumn':
      return { name: c.name.value, type: typeFromAst(c.type), kind: 'physical', ...comment, span: c.span }
    case 'ComputedColumn':
      return { name: c.name.value, type: { kind: 'NULL', nullable: true }, kind: 'computed', expr: c.expr, exprText: c.exprText, ...comment, span: c.span }
    case 'MetadataColumn':
      return { name: c.name.value, type: typeFromAst(c.type), kind: 'metadata', metadataKey: c.from ?? c.name.value, virtual: c.virtual, ...comment,
        span: c.span }
  }
}

/** Whether a column reference anywhere in `expr` (an expression's AST) names `name`. */
function references(expr: unknown, name: string): boolean {
  if (typeof expr !== 'object' || expr === null) return false
  if (Array.isArray(expr)) return expr.some(e => references(e, name))
  const o = expr as Record<string, unknown>
  if (o['kind'] === 'ColumnRef' && sameName((o['name'] as ast.QualifiedName).parts.at(-1)!.value, name)) return true
  return Object.entries(o).some(([k, v]) => k !== 'span' && references(v, name))
}

const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase()
const indexOf = (columns: readonly TableColumn[], name: string): number => columns.findIndex(c => sameName(c.name, name))

function hint(name: string, columns: readonly TableColumn[]): string | undefined {
  const guess = closest(name, columns.map(c => c.name))
  return guess !== undefined ? `did you mean '${guess}'?` : undefined
}
