// ALTER TABLE … SET / RESET / RENAME TO and ALTER VIEW … RENAME TO: a catalog entry changed in place,
// its options checked by its connector as at CREATE TABLE; ADD / MODIFY / DROP / RENAME c TO d are in
// alter-schema.ts.
import type * as ast from '../grammar/ast.js'
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import type { Catalog, CatalogObject, CatalogTable } from './catalog.js'
import { checkConnector } from './ddl.js'
import { alterSchema } from './alter-schema.js'

/**
 * Applies an ALTER statement to `catalog`; the message says what it did. A missing object is an
 * error unless IF EXISTS.
 *
 * @example alterObject(parseSql("ALTER TABLE t SET ('rows-per-second' = '5')")[0], catalog) // "table 't' altered"
 */
export function alterObject(stmt: ast.AlterObject, catalog: Catalog): string {
  const kind = stmt.object === 'TABLE' ? 'table' : 'view'
  const name = stmt.name.parts.at(-1)!.value
  const found = catalog.get(stmt.name)
  if (found === undefined && stmt.ifExists) return `${kind} '${name}' does not exist`
  const obj = found ?? catalog.resolve(stmt.name, stmt.name.span)
  if (obj.kind !== kind) {
    throw WeirError.plan(`'${obj.name}' is a ${obj.kind}, not a ${kind}`, { span: stmt.name.span, help: `use ALTER ${obj.kind.toUpperCase()} ${obj.name}` })
  }
  const action = stmt.action
  if (action.kind === 'Rename') return rename(obj, action.to, catalog)
  if (obj.kind !== 'table') {
    // Flink's ALTER VIEW has RENAME TO and AS query only.
    if (action.kind !== 'SetOptions' && action.kind !== 'ResetOptions') {
      throw WeirError.plan(`'${obj.name}' is a view: ALTER VIEW changes its name only, not its columns`, { span: stmt.span,
        help: `ALTER VIEW ${obj.name} RENAME TO new_name renames it; to change its columns, DROP VIEW and CREATE VIEW again` })
    }
    throw WeirError.unsupported(`ALTER VIEW … ${action.kind === 'SetOptions' ? 'SET' : 'RESET'} is not supported: a view has no options`, {
      span: stmt.span,
      help: `ALTER VIEW ${obj.name} RENAME TO new_name renames it; to change its query, DROP VIEW and CREATE VIEW again`,
    })
  }
  const altered = action.kind === 'SetOptions'
    ? setOptions(obj, action.options, stmt.span)
    : action.kind === 'ResetOptions'
    ? resetOptions(obj, action.keys, stmt.span)
    : alterSchema(obj, action, stmt.span)
  catalog.replace(obj, altered)
  return `table '${obj.name}' altered`
}

function setOptions(t: CatalogTable, pairs: readonly ast.OptionPair[], span: Span): CatalogTable {
  const options = { ...t.options }
  const optionSpans = { ...t.optionSpans }
  const optionValueSpans = { ...t.optionValueSpans }
  for (const p of pairs) {
    options[p.key] = p.value
    optionSpans[p.key] = p.keySpan
    optionValueSpans[p.key] = p.valueSpan
  }
  return checked({ ...t, options, optionSpans, optionValueSpans }, new Set(pairs.map(p => p.key)), span)
}

function resetOptions(t: CatalogTable, keys: readonly { readonly key: string; readonly span: Span }[], span: Span): CatalogTable {
  const options = { ...t.options }
  for (const k of keys) {
    if (k.key === 'connector') {
      // As in Flink: the connector is what the table is; changing it is a new table.
      throw WeirError.plan(`ALTER TABLE … RESET cannot remove 'connector'`, { span: k.span,
        help: `to change the connector, ALTER TABLE ${t.name} SET ('connector' = '…'), or DROP TABLE and CREATE TABLE again` })
    }
    // A key the table does not have is nothing to reset, as in Flink.
    delete options[k.key]
  }
  const keep = <V>(m: Readonly<Record<string, V>>): Record<string, V> => Object.fromEntries(Object.entries(m).filter(([k]) => k in options))
  return checked({ ...t, options, optionSpans: keep(t.optionSpans), optionValueSpans: keep(t.optionValueSpans) }, new Set(), span)
}

/**
 * `t` validated by its connector as CREATE TABLE validates it. Errors point at the ALTER statement:
 * at an option it sets, or at the statement for an option it kept (whose span is in older text).
 */
function checked(t: CatalogTable, setHere: ReadonlySet<string>, span: Span): CatalogTable {
  const here = <V>(m: Readonly<Record<string, V>>, stmt: V): Record<string, V> =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, setHere.has(k) ? v : stmt]))
  checkConnector({ ...t, span, optionSpans: here(t.optionSpans, span), optionValueSpans: here(t.optionValueSpans, span) })
  return t
}

function rename(obj: CatalogObject, to: ast.QualifiedName, catalog: Catalog): string {
  const newName = to.parts.at(-1)!.value
  if (to.parts.length > 1) {
    throw WeirError.unsupported(`RENAME TO takes a name in the same database, not '${to.parts.map(p => p.value).join('.')}'`, { span: to.span,
      help: `RENAME TO ${newName}` })
  }
  const neighbours = catalog.neighbours(obj)
  const taken = neighbours.find(o => o.name.toLowerCase() === newName.toLowerCase())
  if (taken !== undefined && taken !== obj) {
    throw WeirError.plan(`cannot rename ${obj.kind} '${obj.name}' to '${newName}': ${taken.kind} '${taken.name}' already exists`, { span: to.span,
      help: `choose another name, or DROP ${taken.kind.toUpperCase()} ${taken.name} first` })
  }
  // A view names what it reads in its query: renaming that would break the view, so it is refused
  // (Flink's in-memory catalog does not check, and the view fails when next used).
  const user = neighbours.find(v => v !== obj && v.kind === 'view' && readsName(v.query, obj.name))
  if (user !== undefined) {
    throw WeirError.plan(`cannot rename ${obj.kind} '${obj.name}': view '${user.name}' reads it`, { span: to.span,
      help: `DROP VIEW ${user.name} first, then create it again over '${newName}'` })
  }
  catalog.replace(obj, { ...obj, name: newName })
  return `${obj.kind} '${obj.name}' renamed to '${newName}'`
}

/** Whether a table reference anywhere in `node` (a view's query AST) names `name`. */
function readsName(node: unknown, name: string): boolean {
  if (typeof node !== 'object' || node === null) return false
  if (Array.isArray(node)) return node.some(n => readsName(n, name))
  const o = node as Record<string, unknown>
  if (o['kind'] === 'TableRef') {
    const ref = o['name'] as ast.QualifiedName
    if (ref.parts.at(-1)!.value.toLowerCase() === name.toLowerCase()) return true
  }
  return Object.entries(o).some(([k, v]) => k !== 'span' && readsName(v, name))
}
