// Window function calls (`f(…) OVER …`, ROW_NUMBER/RANK/DENSE_RANK) found where they cannot be: the
// expression binder refuses them with this message unless the SELECT list bound them to an Over node.
import type * as ast from '../../grammar/ast.js'
import { WeirError } from '../../common/errors.js'
import { OVER_ONLY_FUNCTIONS, RANK_FUNCTIONS } from '../logical/over.js'

/** A call the SELECT list binds to an Over node's output: one with OVER, or a function that needs OVER (RANK, LAG …). */
export function isWindowCall(e: ast.Expr): boolean {
  return e.kind === 'FunctionCall' && (e.over !== undefined || OVER_ONLY_FUNCTIONS.has(e.name.value.toUpperCase()))
}

export function misplacedWindowCall(e: ast.FunctionCall, clause: string, inAggregate: boolean): WeirError {
  const fn = e.name.value.toUpperCase()
  if (e.over === undefined) {
    return WeirError.plan(`${fn}() needs an OVER clause`, {
      span: e.span,
      help: RANK_FUNCTIONS.has(fn)
        ? `write ${fn}() OVER (PARTITION BY key ORDER BY column), and filter on it in an outer query for a Top-N or deduplication`
        : `write ${fn}(…) OVER (PARTITION BY key ORDER BY ts), ordered by a time attribute`,
    })
  }
  if (inAggregate) {
    return WeirError.unsupported(`window functions (OVER) in a GROUP BY query are not supported`, {
      span: e.span,
      help: 'aggregate in a subquery, and apply the OVER function in the outer query',
    })
  }
  return WeirError.plan(`window functions (OVER) are not allowed in ${clause}`, {
    span: e.span,
    help: 'compute it in the SELECT list of a subquery, and filter on its result in the outer query',
  })
}
