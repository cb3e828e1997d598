// GROUP BY with GROUPING SETS, ROLLUP and CUBE (CST → AST). The elements are expanded here into the
// list of grouping sets they mean, as Calcite does: ROLLUP(a, b) is (a, b), (a), (); CUBE(a, b) every
// subset; GROUPING SETS the concatenation of its elements' sets; the top-level elements combine as a
// cross product (`GROUP BY k, ROLLUP(a, b)` is (k, a, b), (k, a), (k)). Duplicate sets are kept
// (each is its own aggregate, as in SQL and Flink). A plain GROUP BY stays a plain list of keys.
import { WeirError } from '../common/errors.js'
import type * as A from './ast.js'
import { nodes, token, type CstNode, type Spans } from './cst.js'

/** Flink's limit on the number of grouping sets (its Expand node emits one row per set). */
export const MAX_GROUPING_SETS = 4096

type Sets = number[][]

export function groupByClause(n: CstNode, s: Spans, expression: (e: CstNode) => A.Expr): { groupBy: A.Expr[]; groupingSets?: A.GroupingSets } {
  const groupBy: A.Expr[] = []
  const add = (e: CstNode): number => groupBy.push(expression(e)) - 1
  let sets: Sets = [[]]
  let plain = true
  for (const el of nodes(n, 'groupingElement')) {
    if (token(el, 'groupingSets') || token(el, 'rollupOrCube')) plain = false
    const elSets = element(el, s, add, true)
    if (sets.length * elSets.length > MAX_GROUPING_SETS) throw tooMany(sets.length * elSets.length, s.of(n))
    sets = sets.flatMap(a => elSets.map(b => [...a, ...b]))
  }
  return plain ? { groupBy } : { groupBy, groupingSets: { sets, span: s.of(n) } }
}

function element(el: CstNode, s: Spans, add: (e: CstNode) => number, nested: boolean): Sets {
  const word = token(el, 'groupingSets') ?? token(el, 'rollupOrCube')
  if (word === undefined) {
    // An expression, `(a, b)` or `()`.
    return [nodes(el, 'expression').map(add)]
  }
  const name = word.image.toUpperCase()
  if (!nested) {
    throw WeirError.syntax(`${name === 'GROUPING' ? 'GROUPING SETS' : name} is not allowed inside ROLLUP or CUBE`, { span: s.of(el),
      help: 'ROLLUP and CUBE take expressions or parenthesized lists such as (a, b); combine sets with GROUPING SETS' })
  }
  const inner = nodes(el, 'groupingElement')
  if (name === 'GROUPING') {
    const out: Sets = []
    for (const e of inner) {
      out.push(...element(e, s, add, true))
      if (out.length > MAX_GROUPING_SETS) throw tooMany(out.length, s.of(el))
    }
    return out
  }
  // Within ROLLUP and CUBE each element is one expression or one parenthesized list: one set each.
  const items = inner.map(e => element(e, s, add, false)[0]!)
  if (name === 'ROLLUP') return items.map((_, i) => items.slice(0, items.length - i).flat()).concat([[]])
  // CUBE: every subset, the full set first and () last (as Calcite lists them).
  if (2 ** items.length > MAX_GROUPING_SETS) throw tooMany(2 ** items.length, s.of(el))
  const out: Sets = []
  for (let mask = (1 << items.length) - 1; mask >= 0; mask--) {
    out.push(items.flatMap((item, i) => (mask & (1 << (items.length - 1 - i))) !== 0 ? item : []))
  }
  return out
}

function tooMany(count: number, span: A.Select['span']): WeirError {
  return WeirError.plan(`GROUP BY has ${count} grouping sets, more than the ${MAX_GROUPING_SETS} allowed`, { span,
    help: 'use fewer CUBE or ROLLUP columns, or list the grouping sets you need with GROUPING SETS' })
}
