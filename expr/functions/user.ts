// The hook between user-defined scalar functions (udf/) and the expression layer: how a bound call
// names its module in the plan (plain data a worker thread can load again), the functions a
// QueryBinder sees while it binds, and the run-time implementations this thread has loaded.
import { WeirError } from '../../common/errors.js'
import type { CallRex, FunctionDef, Impl } from '../registry.js'

/** What a bound call of a user function carries in its op: enough for any thread to load it. */
export interface UserCallRef {
  /** The name it was created under (for EXPLAIN and messages). */
  readonly name: string
  /** Absolute path of its module, and the export. */
  readonly module: string
  readonly export: string
  /** 'weir.udf.on-error' = 'skip': a failing call gives NULL (and is counted) instead of failing the job. */
  readonly skip: boolean
}

const PREFIX = 'udf:'

/** The Rex op of a call of `ref`. */
export function userOp(ref: UserCallRef): string {
  return PREFIX + JSON.stringify([ref.name, ref.module, ref.export, ref.skip ? 1 : 0])
}

/** The user function a Rex op calls, or undefined for a built-in. */
export function userCallRef(op: string): UserCallRef | undefined {
  if (!op.startsWith(PREFIX)) return undefined
  const [name, module, exp, skip] = JSON.parse(op.slice(PREFIX.length)) as [string, string, string, number]
  return { name, module, export: exp, skip: skip === 1 }
}

/** Module + export: what a thread loads once. */
export const moduleKey = (ref: { readonly module: string; readonly export: string }): string => `${ref.module}#${ref.export}`

// ------------------------------------------------------------------ binding

/** How a binder finds the session's user scalar functions by name. */
export type UserFunctionLookup = (name: string) => FunctionDef | undefined

let lookup: UserFunctionLookup | undefined

/**
 * Runs `bind` with the session's user functions visible to resolveCall. Binding is synchronous, so
 * the functions of one session are never seen while another session binds.
 */
export function withUserFunctions<T>(functions: UserFunctionLookup, bind: () => T): T {
  const outer = lookup
  lookup = functions
  try {
    return bind()
  } finally {
    lookup = outer
  }
}

/** The user scalar function called `name` in the session binding now, if any. */
export function userFunction(name: string): FunctionDef | undefined {
  return lookup?.(name)
}

// ------------------------------------------------------------------ run time

const impls = new Map<string, (ref: UserCallRef) => Impl>()

/** Makes a loaded scalar function's implementation known on this thread (udf/load.ts). */
export function registerUserImpl(key: string, make: (ref: UserCallRef) => Impl): void {
  impls.set(key, make)
}

/** A FunctionDef for the compiler when `op` is a user call: its implementation, loaded on this thread before operators are built. */
export function userFunctionDef(op: string): FunctionDef | undefined {
  const ref = userCallRef(op)
  if (ref === undefined) return undefined
  return {
    names: [op],
    signature: ref.name,
    bind: () => {
      throw WeirError.internal('a user call is bound by its session')
    },
    impl: (_call: CallRex) => {
      const make = impls.get(moduleKey(ref))
      if (make === undefined) throw WeirError.internal(`user function '${ref.name}' (${ref.module}) was not loaded on this thread`)
      return make(ref)
    },
  }
}
