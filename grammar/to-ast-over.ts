// CST → AST for window function calls: `f(…) OVER (PARTITION BY … ORDER BY … frame)`, `OVER w`, and
// the SELECT's `WINDOW w AS (…)` clause. Frames are kept as written; the binder checks them.
import type * as A from './ast.js'
import { child, has, identFromToken, node, nodes, token, type CstNode, type Spans } from './cst.js'

/** The expression converters of to-ast-expr.ts (passed in: that file calls this one). */
export interface ExprConverters {
  readonly expression: (n: CstNode, s: Spans) => A.Expr
  readonly orderItem: (n: CstNode, s: Spans) => A.OrderItem
  readonly intervalLiteral: (n: CstNode, s: Spans) => A.IntervalLiteral
}

/** An `overClause` node → `OVER w` or `OVER (…)`. */
export function overWindow(n: CstNode, s: Spans, c: ExprConverters): A.OverWindow {
  const spec = node(n, 'windowSpec')
  if (spec) return windowSpec(spec, s, c)
  const name = token(n, 'Name')!
  return { kind: 'WindowName', name: identFromToken(name, s), span: s.ofToken(name) }
}

/** A `windowClause` node → its named windows. */
export function windowClause(n: CstNode, s: Spans, c: ExprConverters): A.NamedWindow[] {
  return nodes(n, 'namedWindow').map(w => ({
    name: identFromToken(token(w, 'Name')!, s),
    spec: windowSpec(child(w, 'windowSpec'), s, c),
    span: s.of(w),
  }))
}

function windowSpec(n: CstNode, s: Spans, c: ExprConverters): A.WindowSpec {
  const order = node(n, 'orderByClause')
  const frame = node(n, 'windowFrame')
  return {
    kind: 'WindowSpec',
    partitionBy: nodes(n, 'expression').map(e => c.expression(e, s)),
    orderBy: order ? nodes(order, 'orderItem').map(i => c.orderItem(i, s)) : [],
    ...(frame ? { frame: windowFrame(frame, s, c) } : {}),
    span: s.of(n),
  }
}

function windowFrame(n: CstNode, s: Spans, c: ExprConverters): A.WindowFrame {
  const upper = node(n, 'upper')
  return {
    unit: token(n, 'unit')!.image.toUpperCase() === 'RANGE' ? 'RANGE' : 'ROWS',
    lower: frameBound(child(n, 'lower'), s, c),
    ...(upper ? { upper: frameBound(upper, s, c) } : {}),
    span: s.of(n),
  }
}

function frameBound(n: CstNode, s: Spans, c: ExprConverters): A.FrameBound {
  const span = s.of(n)
  if (has(n, 'CURRENT')) return { kind: 'CURRENT_ROW', direction: 'CURRENT', span }
  const direction = has(n, 'PRECEDING') ? 'PRECEDING' : 'FOLLOWING'
  if (has(n, 'UNBOUNDED')) return { kind: 'UNBOUNDED', direction, span }
  const number = token(n, 'NumberLit')
  const interval = node(n, 'intervalLiteral')
  const offset: A.Literal | A.IntervalLiteral = number
    ? { kind: 'Literal', type: 'number', text: number.image, span: s.ofToken(number) }
    : c.intervalLiteral(interval!, s)
  return { kind: 'OFFSET', direction, offset, span }
}
