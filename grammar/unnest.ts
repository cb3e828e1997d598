// `UNNEST(expr) [WITH ORDINALITY] [[AS] alias [(col, …)]]` (CST → AST). UNNEST and ORDINALITY are
// plain words to the parser; the words are checked here. Flink's grammar (Calcite's) has no
// `LATERAL UNNEST`: an UNNEST after a table is correlated without it, so LATERAL is refused with that.
import { WeirError } from '../common/errors.js'
import type * as A from './ast.js'
import { expression } from './to-ast-expr.js'
import { has, ident, nameList, node, nodes, token, tokens, type CstNode, type Spans } from './cst.js'

export function unnestRef(n: CstNode, s: Spans): A.Unnest {
  const lateral = token(n, 'LATERAL')
  if (lateral !== undefined) {
    throw WeirError.syntax('LATERAL does not apply to UNNEST', {
      span: s.ofToken(lateral),
      help: 'UNNEST reads the columns of the tables before it without LATERAL: write FROM t CROSS JOIN UNNEST(t.arr) AS u(x)',
    })
  }
  const [, ordinality] = tokens(n, 'Identifier')
  if (ordinality !== undefined && ordinality.image.toUpperCase() !== 'ORDINALITY') {
    throw WeirError.syntax(`expected ORDINALITY after WITH, found '${ordinality.image}'`, { span: s.ofToken(ordinality),
      help: 'write UNNEST(arr) WITH ORDINALITY AS u(x, pos)' })
  }
  const alias = node(n, 'alias')
  const columns = node(n, 'nameList')
  return {
    kind: 'Unnest',
    args: nodes(n, 'expression').map(e => expression(e, s)),
    ordinality: has(n, 'WITH'),
    ...(alias ? { alias: ident(alias, s) } : {}),
    ...(columns ? { columns: nameList(columns, s) } : {}),
    span: s.of(n),
  }
}
