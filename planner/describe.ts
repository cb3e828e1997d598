// DESCRIBE of a table or view and SHOW FUNCTIONS, as the rows a session shows.
import { formatType } from '../common/types.js'
import type * as ast from '../grammar/ast.js'
import type { Catalog, CatalogObject } from './catalog.js'
import { QueryBinder } from './bind/query-binder.js'
import { tableFields } from './bind/table-fields.js'
import type { JobConfig } from '../common/config/index.js'
import { callableFunctionNames } from '../expr/index.js'
import { AGGREGATE_FUNCTIONS } from '../expr/aggregate-types.js'

/** Rows with named columns, as a session shows them. */
export interface Listing {
  readonly columns: readonly string[]
  readonly rows: readonly (readonly string[])[]
}

/**
 * DESCRIBE: a table's columns with their types as a query sees them (a computed column's type is
 * its expression's, a time attribute marked `*ROWTIME*` / `*PROCTIME*` as Flink prints it),
 * nullability, key, a computed column's `AS expr`, and the watermark's expression on its column; a
 * view's columns with the types of its query.
 *
 * @example describeObject(catalog.resolve('clicks', span), catalog, config).rows[0] // ['user_id', 'STRING', 'TRUE', '', '', '']
 */
export function describeObject(obj: CatalogObject, catalog: Catalog, config: JobConfig): Listing {
  if (obj.kind === 'table') {
    const { fields } = tableFields(obj)
    return {
      columns: ['name', 'type', 'null', 'key', 'extras', 'watermark'],
      rows: obj.columns.map((c, i) => [
        c.name,
        // As Flink: the type without NOT NULL (the null column says it), with the time attribute's mark.
        formatType({ ...fields[i]!.type, nullable: true } as typeof c.type),
        fields[i]!.type.nullable ? 'TRUE' : 'FALSE',
        obj.primaryKey.includes(c.name) ? `PRI(${obj.primaryKey.join(', ')})` : '',
        c.kind === 'computed' ? `AS ${c.exprText}` : '',
        obj.watermark && obj.watermark.column.toLowerCase() === c.name.toLowerCase() ? obj.watermark.exprText : '',
      ]),
    }
  }
  // Bound without a warning sink: the view's hints were warned about when it was created.
  const bound = new QueryBinder(catalog, config).bindQuery(obj.query)
  return { columns: ['name', 'type'], rows: bound.plan.fields.map((f, i) => [obj.columns?.[i] ?? f.name, formatType(f.type)]) }
}

/**
 * The names SHOW TABLES / SHOW COLUMNS `[NOT] LIKE 'pattern'` keeps: SQL LIKE (`%` any run, `_` one
 * character, `\\` escapes the next), case-sensitive as in Flink.
 *
 * @example likeFilter({ pattern: 'Ord%', not: false, span })('Orders') // true
 */
export function likeFilter(like: ast.ShowLike | undefined): (name: string) => boolean {
  if (like === undefined) return () => true
  let re = ''
  for (let i = 0; i < like.pattern.length; i++) {
    const ch = like.pattern[i]!
    if (ch === '\\' && i + 1 < like.pattern.length) re += escapeRe(like.pattern[++i]!)
    else re += ch === '%' ? '[\\s\\S]*' : ch === '_' ? '[\\s\\S]' : escapeRe(ch)
  }
  const rx = new RegExp(`^${re}$`, 'u')
  return name => rx.test(name) !== like.not
}

const escapeRe = (ch: string): string => ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Functions written as syntax of their own rather than as calls by name: CAST, the OVERLAPS
 * predicate, the grouping-set functions, the ranking functions and LAG (OVER only).
 */
const SYNTAX_FUNCTIONS: readonly [string, string][] = [
  ['CAST', 'scalar'],
  ['TRY_CAST', 'scalar'],
  ['OVERLAPS', 'scalar'],
  ['GROUPING', 'grouping'],
  ['GROUPING_ID', 'grouping'],
  ['GROUP_ID', 'grouping'],
  ['ROW_NUMBER', 'ranking (OVER)'],
  ['RANK', 'ranking (OVER)'],
  ['DENSE_RANK', 'ranking (OVER)'],
  ['LAG', 'offset (OVER)'],
]

/**
 * SHOW FUNCTIONS: the scalar functions called by name and those written as syntax, the aggregates,
 * the window table functions, and the session's own (CREATE FUNCTION), each with its kind.
 */
export function showFunctions(user: readonly { readonly name: string; readonly kind: 'process' | 'scalar' | 'aggregate' }[] = []): Listing {
  const rows: [string, string][] = [
    ...callableFunctionNames().map(n => [n, 'scalar'] as [string, string]),
    ...SYNTAX_FUNCTIONS.filter(([n]) => !callableFunctionNames().includes(n)),
    ...[...AGGREGATE_FUNCTIONS, 'JSON_ARRAYAGG'].map(n => [n, 'aggregate'] as [string, string]),
    ...['TUMBLE', 'HOP', 'CUMULATE', 'SESSION'].map(n => [n, 'window table function'] as [string, string]),
    ...user.map(f => [f.name, `user ${f.kind === 'process' ? 'process table function' : f.kind}`] as [string, string]),
  ]
  return { columns: ['function name', 'kind'], rows: rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)) }
}
