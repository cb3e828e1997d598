// CREATE FUNCTION: finds the module (relative to the SQL file, or the working directory), loads it
// (a .ts module compiled on load) and reads its declaration; a module that cannot be used is refused
// at the path in the SQL.
import { dirname, extname, resolve } from 'node:path'
import type * as ast from '../grammar/ast.js'
import { WeirError } from '../common/errors.js'
import { catalogFunction, type CatalogFunction } from '../planner/functions.js'
import { loadProcessFunction, ModuleLoadError } from '../ptf/load.js'

const LANGUAGES: Readonly<Record<string, CatalogFunction['language']>> = { '.ts': 'TYPESCRIPT', '.mts': 'TYPESCRIPT', '.js': 'JAVASCRIPT',
  '.mjs': 'JAVASCRIPT' }

export async function createFunction(stmt: ast.CreateFunction, sqlFile: string | undefined): Promise<CatalogFunction> {
  const base = sqlFile !== undefined && sqlFile !== '<sql>' && !sqlFile.startsWith('<') ? dirname(resolve(sqlFile)) : process.cwd()
  const path = resolve(base, stmt.path)
  const byExtension = LANGUAGES[extname(path).toLowerCase()]
  if (byExtension === undefined) {
    throw WeirError.plan(`module '${stmt.path}' is neither TypeScript nor JavaScript`, { span: stmt.pathSpan,
      help: 'name a .ts (LANGUAGE TYPESCRIPT) or .js / .mjs (LANGUAGE JAVASCRIPT) file' })
  }
  if (stmt.language !== undefined && stmt.language.value !== byExtension) {
    throw WeirError.plan(`LANGUAGE ${stmt.language.value} does not match the module '${stmt.path}'`, { span: stmt.language.span,
      help: `write LANGUAGE ${byExtension}, or name a ${stmt.language.value === 'TYPESCRIPT' ? '.ts' : '.js'} file` })
  }
  try {
    const def = await loadProcessFunction(path, byExtension)
    return catalogFunction(stmt, path, byExtension, def)
  } catch (e) {
    if (e instanceof ModuleLoadError) throw WeirError.plan(e.message, { span: stmt.pathSpan, help: e.help })
    throw e
  }
}
