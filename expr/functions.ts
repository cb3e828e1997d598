// The scalar function registry and its entry point, resolveCall: name lookup (with aliases and
// "did you mean"), type checking through each function's bind rule, and folding of constant calls.
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import { withNullable } from '../common/types.js'
import { isNonDeterministic, literal, type Rex } from '../core/rex.js'
import { implicitCast } from './cast.js'
import type { BindContext } from './registry.js'
import { evalConstant } from './compiler.js'
import { BY_NAME } from './builtins.js'
import { closest } from '../common/names.js'
import { userFunction } from './functions/user.js'

export { callableFunctionNames, functionDef, functionNames } from './builtins.js'

/** The closest function name within a small edit distance, for "did you mean". */
export function suggestFunction(name: string): string | undefined {
  return closest(name, [...BY_NAME.keys()].filter(c => /^[A-Z]/.test(c)))
}

function context(name: string, span: Span | undefined): BindContext {
  return {
    name,
    span,
    call: (n, args) => resolveCall(n, args, span),
    cast: (rex, to) => implicitCast(rex, to, span),
    error: (message, help) => WeirError.plan(message, { span, help }),
  }
}

/** A deterministic call whose arguments are all literals becomes a literal, unless evaluating it fails. */
function fold(rex: Rex): Rex {
  if (rex.kind !== 'Call' || !rex.args.every(a => a.kind === 'Literal') || isNonDeterministic(rex)) return rex
  try {
    const value = evalConstant(rex)
    return literal(value ?? null, withNullable(rex.type, value === null || value === undefined))
  } catch {
    // Left for run time, where it fails only if the row actually reaches it (e.g. 1/0 in a CASE branch).
    return rex
  }
}

/**
 * Type-checks a call of an operator or function by name (case-insensitive) and returns the typed
 * expression: a Call with implicit conversions made explicit as CASTs, a rewrite (BETWEEN, NOT_IN,
 * NULLIF, IF, YEAR…), or a literal when every argument is constant. Throws WeirError.plan at `span`
 * for unknown names ("did you mean") and bad argument types.
 *
 * @example resolveCall('+', [inputRef(0, T.int()), numberLiteral('1.50')], span) // DECIMAL(13, 2)
 */
export function resolveCall(name: string, args: readonly Rex[], span?: Span): Rex {
  const upper = name.toUpperCase()
  const def = BY_NAME.get(upper)
  if (def === undefined) {
    // A session's user function (CREATE FUNCTION): never folded, its code runs in the job.
    const user = userFunction(name)
    if (user !== undefined) return user.bind(args, context(name, span))
    const suggestion = suggestFunction(upper)
    throw WeirError.plan(`unknown function '${name}'`, { span, help: suggestion ? `did you mean '${suggestion}'?` : undefined })
  }
  try {
    return fold(def.bind(args, context(upper, span)))
  } catch (e) {
    throw e instanceof WeirError ? e.withSpan(span) : e
  }
}
