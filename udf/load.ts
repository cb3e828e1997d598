// Loading user-defined scalar and aggregate functions: the export a CREATE FUNCTION names, checked;
// and, on every thread that runs a job, the functions its plan calls, loaded before its operators
// are built (their expressions compile synchronously).
import { WeirError } from '../common/errors.js'
import { moduleKey, registerUserImpl, userCallRef, type UserCallRef } from '../expr/functions/user.js'
import type { Impl } from '../expr/registry.js'
import { importModule, ModuleLoadError, type ModuleLanguage } from '../ptf/load.js'
import { checkUserFunction, type AggregateFunction, type ScalarFunction, type UserFunction } from './api.js'
import { callFailed, countSkip, engineValue } from './calls.js'

/** Where an aggregate call's definition is (AggCall.user). */
export interface UserAggregateRef {
  readonly name: string
  readonly module: string
  readonly export: string
  readonly skip: boolean
}

const aggregates = new Map<string, AggregateFunction>()

const languageOf = (path: string): ModuleLanguage => (/\.(c|m)?ts$/.test(path) ? 'TYPESCRIPT' : 'JAVASCRIPT')

/** The exports of a module that are definitions (user functions and process functions), by export name. */
export async function definitionsOf(path: string, language: ModuleLanguage): Promise<Map<string, unknown>> {
  const mod = await importModule(path, language)
  const found = new Map<string, unknown>()
  for (const [name, v] of Object.entries(mod)) {
    const kind = (v as { __weir?: unknown } | null)?.__weir
    if (name === 'default' || kind === 'scalar-function' || kind === 'aggregate-function' || kind === 'process-function') found.set(name, v)
  }
  return found
}

/**
 * The user function `exportName` of a module, checked, and made callable on this thread.
 *
 * @example const def = await loadUserFunction('/jobs/udf/strings.ts', 'countChar')
 */
export async function loadUserFunction(path: string, exportName: string): Promise<UserFunction> {
  const mod = await importModule(path, languageOf(path))
  if (!(exportName in mod)) {
    const names = Object.keys(mod).filter(k => (mod[k] as { __weir?: string } | null)?.__weir?.endsWith('-function'))
    throw new ModuleLoadError(`module '${path}' has no export '${exportName}'`,
      names.length > 0 ? `its functions are: ${names.join(', ')}` : 'export one: export const f = defineScalarFunction({ args, returns, eval })')
  }
  const def = mod[exportName]
  try {
    checkUserFunction(def)
  } catch (e) {
    throw new ModuleLoadError(`module '${path}', export '${exportName}': ${(e as Error).message}`,
      "export const f = defineScalarFunction({ args: { s: 'STRING' }, returns: 'INT', eval(s) { … } }) (import { defineScalarFunction } from 'weir')")
  }
  const key = moduleKey({ module: path, export: exportName })
  if (def.__weir === 'scalar-function') registerUserImpl(key, ref => scalarImpl(def, ref))
  else aggregates.set(key, def)
  return def
}

/** An aggregate loaded on this thread (by loadUserFunctionsOf before the operator was built). */
export function loadedAggregate(ref: UserAggregateRef): AggregateFunction {
  const def = aggregates.get(moduleKey(ref))
  if (def === undefined) throw WeirError.internal(`user aggregate '${ref.name}' (${ref.module}) was not loaded on this thread`)
  return def
}

/**
 * Loads every user function a plan node calls (its expressions' ops and its aggregate calls) on this
 * thread; call before building its operator. A module that changed into something else since the job
 * was planned fails the job here.
 */
export async function loadUserFunctionsOf(spec: unknown): Promise<void> {
  const refs = new Map<string, UserCallRef | UserAggregateRef>()
  collect(spec, refs)
  for (const ref of refs.values()) {
    try {
      await loadUserFunction(ref.module, ref.export)
    } catch (e) {
      if (!(e instanceof ModuleLoadError)) throw e
      throw WeirError.execution(`user function '${ref.name}': ${e.message}`, { help: `${e.help}; then plan the job again (CREATE FUNCTION loads the module)` })
    }
  }
}

function collect(v: unknown, into: Map<string, UserCallRef | UserAggregateRef>): void {
  if (Array.isArray(v)) {
    for (const x of v) collect(x, into)
    return
  }
  if (v === null || typeof v !== 'object') return
  const o = v as Record<string, unknown>
  if (o['kind'] === 'Call' && typeof o['op'] === 'string') {
    const ref = userCallRef(o['op'])
    if (ref !== undefined) into.set(moduleKey(ref), ref)
  }
  const user = o['user'] as UserAggregateRef | undefined
  if (user !== undefined && typeof user === 'object' && typeof user.module === 'string' && typeof user.export === 'string') into.set(moduleKey(user), user)
  for (const x of Object.values(o)) collect(x, into)
}

/** A scalar function's run-time implementation: its result checked and converted; a throw fails the job or, skipping, gives NULL. */
function scalarImpl(def: ScalarFunction, ref: UserCallRef): Impl {
  const { name, skip } = ref
  const returns = def.returns
  const fn = (...args: unknown[]): unknown => {
    try {
      return engineValue(def.eval(...args), returns, name, args)
    } catch (e) {
      const error = e instanceof WeirError ? e : callFailed(name, 'eval', args, e)
      if (!skip) throw error
      countSkip(name, error)
      return null
    }
  }
  return { fn, nulls: def.nulls === 'call' ? 'lenient' : 'strict' }
}
