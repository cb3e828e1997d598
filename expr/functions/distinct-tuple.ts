// COUNT(DISTINCT a, b, …) counts the distinct combinations of its arguments, leaving out rows where
// any of them is NULL. The binder gives the aggregate one argument column instead: this internal
// function's text of the combination (NULL when an argument is), which the distinct count keeps as
// it keeps any value. The text is unambiguous: strings are quoted, and each position has one type.
import { T } from '../../common/types.js'
import type { FunctionDef } from '../registry.js'
import { mkCall } from '../registry.js'
import type { Span } from '../../common/span.js'
import type { Rex } from '../../core/rex.js'

/** The internal name (not callable from SQL: `$` cannot start an identifier, and SHOW FUNCTIONS leaves it out). */
export const DISTINCT_TUPLE = '$DISTINCT_TUPLE'

function part(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v)
  if (typeof v === 'bigint') return `${v}n`
  // String(-0) is '0': -0 and 0 are one value to DISTINCT, as they are equal.
  return String(v)
}

/** The combination of `args` as the one argument of COUNT(DISTINCT …). */
export function distinctTuple(args: readonly Rex[], span: Span): Rex {
  return mkCall(DISTINCT_TUPLE, args, T.string(true), span)
}

export const DISTINCT_TUPLE_FUNCTION: FunctionDef = {
  names: [DISTINCT_TUPLE],
  signature: 'COUNT(DISTINCT a, b, …)',
  bind: (_args, ctx) => {
    throw ctx.error('an internal function cannot be called', 'write COUNT(DISTINCT a, b)')
  },
  impl: () => ({ fn: (...xs: unknown[]) => xs.map(part).join(','), nulls: 'strict' }),
}
