// CREATE TABLE … AS SELECT (Flink's CTAS): the table's columns are those declared in its CREATE part
// (if any), then the query's columns it did not declare, in the query's order; the query then fills
// it as `INSERT INTO t (the query's columns) query` would. A column both declare keeps its declared
// place and type (the query's value cast as INSERT casts it); a declared column the query does not
// produce is NULL. A time attribute of the query is a plain TIMESTAMP in the new table unless the
// CREATE part declares a WATERMARK for it.
import type * as ast from '../grammar/ast.js'
import { WeirError } from '../common/errors.js'
import { withoutTimeAttr } from '../common/types.js'
import type { CatalogTable, TableColumn } from './catalog.js'
import { tableFromAst } from './ddl.js'
import { planSelect } from './planner.js'
import type { PlanContext } from './index.js'

/** The table a CREATE TABLE … AS SELECT creates, and the INSERT that fills it. */
export function createTableAs(stmt: ast.CreateTable & { readonly asQuery: ast.Query }, ctx: PlanContext): { table: CatalogTable; insert: ast.Insert } {
  const query = stmt.asQuery
  for (const c of stmt.columns) {
    if (c.kind === 'PhysicalColumn') continue
    throw WeirError.unsupported(
      `CREATE TABLE … AS SELECT declares physical columns only, and '${c.name.value}' is a ${c.kind === 'ComputedColumn' ? 'computed' : 'metadata'} column`,
      { span: c.span, help: 'declare the table with CREATE TABLE, then fill it with INSERT INTO … SELECT' },
    )
  }
  const fields = planSelect({ kind: 'QueryStatement', query, span: query.span }, ctx.catalog, ctx.config, ctx.warn).fields
  const seen = new Set<string>()
  for (const f of fields) {
    const key = f.name.toLowerCase()
    if (seen.has(key)) {
      throw WeirError.plan(`the query of CREATE TABLE … AS SELECT produces two columns named '${f.name}'`, { span: query.span,
        help: `give one of them another name: … AS ${f.name}_2` })
    }
    seen.add(key)
  }
  const derived: TableColumn[] = fields.map(f => ({ name: f.name, type: withoutTimeAttr(f.type), kind: 'physical', span: query.span }))
  const table = tableFromAst(stmt, ctx.catalog, derived)
  for (const c of table.columns) {
    if (seen.has(c.name.toLowerCase()) || c.type.nullable) continue
    throw WeirError.plan(`column '${c.name}' is NOT NULL, but the query of CREATE TABLE … AS SELECT does not produce it`, { span: c.span,
      help: `select a value for it (… AS ${c.name}), or declare it without NOT NULL` })
  }
  const columns: ast.Ident[] = fields.map(f => ({ value: f.name, quoted: true, span: query.span }))
  return { table, insert: { kind: 'Insert', table: stmt.name, overwrite: false, columns, query, span: stmt.span } }
}
