// CREATE FUNCTION: finds the module (relative to the SQL file, or the working directory), loads it
// (a .ts module compiled on load) and reads its declaration — a process table function, or a scalar
// or aggregate function (`AS './m.ts#export'`); a module that cannot be used is refused at the path in the SQL.
import { dirname, extname, resolve } from 'node:path'
import type * as ast from '../grammar/ast.js'
import { WeirError } from '../common/errors.js'
import { catalogFunction, dataTypeOf, type CatalogFunction, type SessionFunction, type UserScalarOrAggregate } from '../planner/functions.js'
import { loadProcessFunction, ModuleLoadError } from '../ptf/load.js'
import { functionNames } from '../expr/functions.js'
import { AGGREGATE_FUNCTIONS } from '../expr/aggregate-types.js'
import { argumentsOf, type UserFunction } from '../udf/api.js'
import { definitionsOf, loadUserFunction } from '../udf/load.js'

const LANGUAGES: Readonly<Record<string, CatalogFunction['language']>> = { '.ts': 'TYPESCRIPT', '.mts': 'TYPESCRIPT', '.js': 'JAVASCRIPT',
  '.mjs': 'JAVASCRIPT' }

export async function createFunction(stmt: ast.CreateFunction, sqlFile: string | undefined): Promise<SessionFunction> {
  const base = sqlFile !== undefined && sqlFile !== '<sql>' && !sqlFile.startsWith('<') ? dirname(resolve(sqlFile)) : process.cwd()
  const hash = stmt.path.lastIndexOf('#')
  const file = hash < 0 ? stmt.path : stmt.path.slice(0, hash)
  const exportName = hash < 0 ? undefined : stmt.path.slice(hash + 1)
  const path = resolve(base, file)
  const byExtension = LANGUAGES[extname(path).toLowerCase()]
  if (byExtension === undefined) {
    throw WeirError.plan(`module '${file}' is neither TypeScript nor JavaScript`, { span: stmt.pathSpan,
      help: /^[\w$]+(\.[\w$]+)+$/.test(file) && !/\.(ts|js)$/i.test(file)
        ? `'${file}' looks like a Java class: Weir runs functions written in TypeScript or JavaScript; name a .ts or .js module (and '#export')`
        : 'name a .ts (LANGUAGE TYPESCRIPT) or .js / .mjs (LANGUAGE JAVASCRIPT) file' })
  }
  if (stmt.language !== undefined && stmt.language.value !== byExtension) {
    throw WeirError.plan(`LANGUAGE ${stmt.language.value} does not match the module '${file}'`, { span: stmt.language.span,
      help: `write LANGUAGE ${byExtension}, or name a ${stmt.language.value === 'TYPESCRIPT' ? '.ts' : '.js'} file` })
  }
  if (exportName === '') throw WeirError.plan(`'${stmt.path}' names no export after '#'`, { span: stmt.pathSpan, help: `write AS '${file}#exportName'` })
  try {
    const defs = await definitionsOf(path, byExtension)
    const name = exportName ?? definingExport(defs, path)
    const kind = (defs.get(name) as { __weir?: string } | null | undefined)?.__weir
    // Without '#export', a module's default export (or its one process function) is a process table function, as before.
    if (exportName === undefined && (kind === 'process-function' || (name === 'default' && kind === undefined))) {
      return catalogFunction(stmt, path, byExtension, await loadProcessFunction(path, byExtension))
    }
    if (kind === 'process-function') {
      throw new ModuleLoadError(`export '${name}' of '${path}' is a process table function`,
        `a process table function is the module's default export: write AS '${file}' (without '#${name}')`)
    }
    return userFunction(stmt, path, byExtension, name, await loadUserFunction(path, name))
  } catch (e) {
    if (e instanceof ModuleLoadError) throw WeirError.plan(e.message, { span: stmt.pathSpan, help: e.help })
    throw e
  }
}

/** Without '#export': the default export, else the module's one function definition. */
function definingExport(defs: ReadonlyMap<string, unknown>, path: string): string {
  if (defs.has('default')) return 'default'
  const names = [...defs.keys()]
  if (names.length === 1) return names[0]!
  throw new ModuleLoadError(
    names.length === 0
      ? `module '${path}' exports no process function, scalar or aggregate function`
      : `module '${path}' exports ${names.length} functions (${names.join(', ')}); which one is meant?`,
    names.length === 0
      ? "export default defineProcessFunction({ … }), or export const f = defineScalarFunction({ … }) or defineAggregateFunction({ … }) (from 'weir')"
      : `name it after '#': AS '…#${names[0]}'`,
  )
}

function userFunction(stmt: ast.CreateFunction, module: string, language: CatalogFunction['language'], exportName: string,
  def: UserFunction): UserScalarOrAggregate
{
  const name = stmt.name.parts.at(-1)!
  const upper = name.value.toUpperCase()
  if (functionNames().includes(upper) || AGGREGATE_FUNCTIONS.includes(upper)) {
    throw WeirError.plan(`'${name.value}' is a built-in function`, { span: name.span,
      help: 'a built-in function wins over a user function of its name: choose another name' })
  }
  const aggregate = def.__weir === 'aggregate-function'
  return {
    kind: aggregate ? 'aggregate' : 'scalar',
    name: name.value,
    module,
    export: exportName,
    language,
    args: argumentsOf(def).map(a => ({ name: a.name, type: dataTypeOf(a.type) })),
    returns: dataTypeOf(def.returns),
    nulls: def.nulls ?? 'strict',
    retract: aggregate && typeof def.retract === 'function',
    merge: aggregate && typeof def.merge === 'function',
    span: stmt.span,
  }
}
