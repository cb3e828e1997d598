// Loads a process function's module: a .ts file is compiled on load (TypeScript's transpileModule,
// types are not checked), a .js / .mjs file is imported as it is. Its definition is the default
// export, or the only export made by defineProcessFunction.
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, extname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { checkDefinition, type ProcessFunction } from './api.js'

export type ModuleLanguage = 'TYPESCRIPT' | 'JAVASCRIPT'

/** Why a module could not be loaded; the planner turns it into an error at the SQL. */
export class ModuleLoadError extends Error {
  constructor(message: string, readonly help: string) {
    super(message)
  }
}

/**
 * This package's built entries: a compiled module's `import … from 'weir'` resolves to them wherever
 * the module is (from the sources, as tests run them, the build in dist/, as worker threads do).
 */
const HERE = fileURLToPath(import.meta.url)
const DIST = HERE.endsWith('.ts') ? resolve(dirname(HERE), '../dist') : resolve(dirname(HERE), '..')
const WEIR_ENTRIES: Readonly<Record<string, string>> = {
  'weir': pathToFileURL(join(DIST, 'index.js')).href,
  'weir/testing': pathToFileURL(join(DIST, 'testing/index.js')).href,
}

/**
 * The process function a module exports (its default export, or its only defineProcessFunction one).
 *
 * @example const def = await loadProcessFunction('/jobs/rules/fraud.ts', 'TYPESCRIPT')
 */
export async function loadProcessFunction(path: string, language: ModuleLanguage): Promise<ProcessFunction> {
  const def = definitionOf(await importModule(path, language), path)
  try {
    checkDefinition(def)
  } catch (e) {
    throw new ModuleLoadError(`module '${path}': ${(e as Error).message}`, 'export default defineProcessFunction({ output, state, process(row, ctx) { … } })')
  }
  return (def as Partial<ProcessFunction>).__weir === 'process-function' ? def as ProcessFunction : { ...def, __weir: 'process-function' }
}

const modules = new Map<string, Promise<Record<string, unknown>>>()

/**
 * A module's exports, imported once per text of the module and thread (a worker thread imports it
 * again): a module edited since is imported anew (CREATE FUNCTION again in the REPL, or a restore
 * into a changed module, sees the change). Shared by process table functions and user-defined
 * scalar and aggregate functions (udf/load.ts).
 */
export async function importModule(path: string, language: ModuleLanguage): Promise<Record<string, unknown>> {
  if (!isAbsolute(path)) throw new ModuleLoadError(`module path '${path}' is not absolute`, 'internal: the planner resolves paths')
  let source: string
  try {
    source = await readFile(path, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new ModuleLoadError(`cannot read module '${path}'${code === 'ENOENT' ? ': no such file' : `: ${(e as Error).message}`}`,
      'the path is relative to the SQL file (or the working directory in the REPL)')
  }
  const version = createHash('sha1').update(source).digest('hex').slice(0, 16)
  const key = `${language}:${path}:${version}`
  let p = modules.get(key)
  if (p === undefined) {
    p = importVersion(path, language, source, version)
    modules.set(key, p)
    p.catch(() => modules.delete(key))
  }
  return p
}

async function importVersion(path: string, language: ModuleLanguage, source: string, version: string): Promise<Record<string, unknown>> {
  const ts = language === 'TYPESCRIPT' || /\.(c|m)?ts$/.test(extname(path))
  // A .js module is imported by its URL with its version: Node caches imports by URL.
  const url = ts ? await compiled(path, source) : `${pathToFileURL(path).href}?v=${version}`
  try {
    return await import(url) as Record<string, unknown>
  } catch (e) {
    throw new ModuleLoadError(`module '${path}' failed to load: ${(e as Error).message}`, 'fix the module so that importing it succeeds')
  }
}

function definitionOf(mod: Record<string, unknown>, path: string): unknown {
  if (mod['default'] !== undefined) return mod['default']
  const marked = Object.values(mod).filter(v => (v as { __weir?: unknown } | null)?.__weir === 'process-function')
  if (marked.length === 1) return marked[0]
  throw new ModuleLoadError(
    marked.length === 0 ? `module '${path}' exports no process function` : `module '${path}' exports ${marked.length} process functions; which one is meant?`,
    "export default defineProcessFunction({ … }) (import { defineProcessFunction } from 'weir')",
  )
}

/**
 * What a compiled module's text depends on besides its path and source: where 'weir' resolves to,
 * the compiler's version, and this file's way of compiling (bump `v1` when `compiled` changes).
 */
const COMPILE_SCHEME = `v1 ${JSON.stringify(WEIR_ENTRIES)} typescript@${compilerVersion()}`

function compilerVersion(): string {
  try {
    return (createRequire(import.meta.url)('typescript/package.json') as { version: string }).version
  } catch {
    return 'unknown'
  }
}

/**
 * Compiles a TypeScript module to an ES module in the system's temporary folder (named by a hash of
 * its path and text, so each thread and each run of the same text finds it). Relative imports are
 * made absolute, and 'weir' points at this package, so the copy imports what the original would.
 */
async function compiled(path: string, source: string): Promise<string> {
  // Named by what the output depends on, so that a run finds an earlier run's copy without loading the
  // compiler (importing TypeScript costs ~1 s of CPU, which each worker thread would pay again).
  const hash = createHash('sha256').update(COMPILE_SCHEME).update('\0').update(path).update('\0').update(source).digest('hex').slice(0, 24)
  const folder = join(tmpdir(), 'weir-process-functions')
  const file = join(folder, `${hash}.mjs`)
  if (await stat(file).then(s => s.isFile(), () => false)) return pathToFileURL(file).href
  const { default: ts } = await import('typescript')
  const dir = dirname(path)
  const rewrite = (spec: string): string => {
    const entry = WEIR_ENTRIES[spec]
    if (entry !== undefined) return entry
    if (spec.startsWith('./') || spec.startsWith('../')) return pathToFileURL(resolve(dir, spec)).href
    return spec
  }
  const transformer: import('typescript').TransformerFactory<import('typescript').SourceFile> = context => {
    const f = context.factory
    const visit = (node: import('typescript').Node): import('typescript').Node => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
        const to = rewrite(node.moduleSpecifier.text)
        if (ts.isImportDeclaration(node)) return f.updateImportDeclaration(node, node.modifiers, node.importClause, f.createStringLiteral(to), node.attributes)
        return f.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, f.createStringLiteral(to), node.attributes)
      }
      return node
    }
    return file => ts.visitEachChild(file, visit, context)
  }
  const out = ts.transpileModule(source, {
    fileName: path,
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false, inlineSourceMap: true, inlineSources: true },
    transformers: { before: [transformer] },
  })
  const errors = (out.diagnostics ?? []).filter(d => d.category === ts.DiagnosticCategory.Error)
  if (errors.length > 0) {
    const d = errors[0]!
    const at = d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined
    throw new ModuleLoadError(
      `module '${path}'${at ? `:${at.line + 1}:${at.character + 1}` : ''} does not compile: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
      'fix the TypeScript syntax error',
    )
  }
  await mkdir(folder, { recursive: true })
  // Written under a unique name, then renamed: a thread importing it never reads half a file.
  const staging = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`
  await writeFile(staging, out.outputText)
  await rename(staging, file)
  return pathToFileURL(file).href
}
