// CREATE TABLE t2 (…) WITH (…) LIKE t1 (…): t1's columns, watermark, key and options merged with
// t2's by Flink's strategies (default INCLUDING ALL, OVERWRITING OPTIONS; a later option overrides
// ALL for its feature). t1's physical columns always come first, t2's columns after them.
import type * as ast from '../grammar/ast.js'
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import type { Catalog, CatalogTable, TableColumn } from './catalog.js'

type Feature = Exclude<ast.LikeFeature, 'ALL'>
const FEATURES: readonly Feature[] = ['CONSTRAINTS', 'GENERATED', 'OPTIONS', 'WATERMARKS', 'METADATA', 'PARTITIONS']

/** What CREATE TABLE itself declares, and what it becomes with the base table merged in. */
export interface TableParts {
  readonly columns: readonly TableColumn[]
  readonly options: Readonly<Record<string, string>>
  readonly optionSpans: Readonly<Record<string, Span>>
  readonly optionValueSpans: Readonly<Record<string, Span>>
  readonly watermark?: ast.WatermarkDef
  readonly primaryKey?: ast.PrimaryKeyDef
  readonly partitionedBy?: ast.CreateTable['partitionedBy']
}

/** The merging strategy of each feature: Flink's defaults, then ALL, then each option as written. */
export function likeStrategies(like: ast.LikeClause): Record<Feature, ast.LikeStrategy> {
  const result: Record<Feature, ast.LikeStrategy> = {
    CONSTRAINTS: 'INCLUDING',
    GENERATED: 'INCLUDING',
    OPTIONS: 'OVERWRITING',
    WATERMARKS: 'INCLUDING',
    METADATA: 'INCLUDING',
    PARTITIONS: 'INCLUDING',
  }
  const seen = new Set<ast.LikeFeature>()
  for (const o of like.options) {
    if (seen.has(o.feature)) {
      throw WeirError.syntax(`LIKE option ${o.feature} is given twice`, { span: o.span, help: 'give each feature one strategy' })
    }
    seen.add(o.feature)
    if (o.strategy === 'OVERWRITING' && (o.feature === 'ALL' || o.feature === 'CONSTRAINTS' || o.feature === 'PARTITIONS')) {
      throw WeirError.syntax(`OVERWRITING ${o.feature} is not a LIKE option`, { span: o.span, help: `use INCLUDING ${o.feature} or EXCLUDING ${o.feature}` })
    }
  }
  const all = like.options.find(o => o.feature === 'ALL')
  if (all) { for (const f of FEATURES) result[f] = all.strategy }
  for (const o of like.options) if (o.feature !== 'ALL') result[o.feature] = o.strategy
  return result
}

/**
 * `own` (what the CREATE TABLE declares) merged with the table LIKE names. What comes from the base
 * table points at the LIKE clause in errors (its own spans are in the text that created it).
 */
export function mergeLike(like: ast.LikeClause, own: TableParts, catalog: Catalog): TableParts {
  const baseName = like.table.parts.at(-1)!.value
  const found = catalog.resolve(like.table, like.table.span)
  if (found.kind !== 'table') {
    throw WeirError.plan(`'${found.name}' is a view: LIKE copies a table`, { span: like.table.span, help: 'name a table after LIKE' })
  }
  const base: CatalogTable = found
  const s = likeStrategies(like)
  const here = like.table.span
  const columns: TableColumn[] = base.columns
    .filter(c => c.kind === 'physical' || (c.kind === 'computed' ? s.GENERATED : s.METADATA) !== 'EXCLUDING')
    .map(c => ({ ...c, span: here }))
  for (const c of own.columns) {
    const i = columns.findIndex(b => b.name.toLowerCase() === c.name.toLowerCase())
    if (i < 0) {
      columns.push(c)
      continue
    }
    const b = columns[i]!
    const feature = b.kind === 'computed' ? 'GENERATED' : b.kind === 'metadata' ? 'METADATA' : undefined
    if (feature !== undefined && b.kind === c.kind && s[feature] === 'OVERWRITING') {
      columns[i] = c
      continue
    }
    const what = b.kind === 'computed' ? 'a computed column' : b.kind === 'metadata' ? 'a metadata column' : 'a column'
    throw WeirError.plan(`${what} named '${c.name}' is in the base table '${base.name}' already`, {
      span: c.span,
      help: feature !== undefined && b.kind === c.kind
        ? `use OVERWRITING ${feature} to replace it, or EXCLUDING ${feature}`
        : 'give the column another name',
    })
  }

  const options: Record<string, string> = {}
  const optionSpans: Record<string, Span> = {}
  const optionValueSpans: Record<string, Span> = {}
  if (s.OPTIONS !== 'EXCLUDING') {
    for (const [k, v] of Object.entries(base.options)) {
      options[k] = v
      optionSpans[k] = here
      optionValueSpans[k] = here
    }
  }
  for (const [k, v] of Object.entries(own.options)) {
    if (k in options && s.OPTIONS === 'INCLUDING') {
      throw WeirError.plan(`option '${k}' is in the base table '${base.name}' already`, { span: own.optionSpans[k],
        help: 'use OVERWRITING OPTIONS to replace it, or EXCLUDING OPTIONS' })
    }
    options[k] = v
    optionSpans[k] = own.optionSpans[k]!
    optionValueSpans[k] = own.optionValueSpans[k]!
  }

  let watermark = own.watermark
  if (base.watermark && s.WATERMARKS !== 'EXCLUDING') {
    if (watermark && s.WATERMARKS === 'INCLUDING') {
      throw WeirError.plan(`the base table '${base.name}' has a watermark already (on '${base.watermark.column}')`, { span: watermark.span,
        help: 'use OVERWRITING WATERMARKS to replace it, or EXCLUDING WATERMARKS' })
    }
    const ident = { value: base.watermark.column, quoted: false, span: here }
    watermark ??= { column: ident, expr: base.watermark.expr, exprText: base.watermark.exprText, span: here }
  }

  let primaryKey = own.primaryKey
  if (base.primaryKey.length > 0 && s.CONSTRAINTS === 'INCLUDING') {
    if (primaryKey) {
      throw WeirError.plan(`the base table '${base.name}' has a primary key already`, { span: primaryKey.span,
        help: 'use EXCLUDING CONSTRAINTS to declare another' })
    }
    const name = base.primaryKeyName !== undefined ? { name: { value: base.primaryKeyName, quoted: false, span: here } } : {}
    primaryKey = { ...name, columns: base.primaryKey.map(value => ({ value, quoted: false, span: here })), enforced: false, span: here }
  }
  let partitionedBy = own.partitionedBy
  if ((base.partitionKeys ?? []).length > 0 && s.PARTITIONS === 'INCLUDING') {
    if (partitionedBy) {
      throw WeirError.plan(`the base table '${base.name}' is partitioned already (by ${base.partitionKeys!.join(', ')})`, { span: partitionedBy.span,
        help: 'use EXCLUDING PARTITIONS to partition the new table otherwise' })
    }
    partitionedBy = { columns: base.partitionKeys!.map(value => ({ value, quoted: false, span: here })), span: here }
  }
  return { columns, options, optionSpans, optionValueSpans, ...(watermark ? { watermark } : {}), ...(primaryKey ? { primaryKey } : {}),
    ...(partitionedBy ? { partitionedBy } : {}) }
}
