// CST → AST for queries: WITH, set operations, SELECT, VALUES, ORDER BY / LIMIT, and FROM items
// (tables with hints, subqueries, window TVFs, joins).
import { WeirError } from '../common/errors.js'
import type * as A from './ast.js'
import { alt, child, has, ident, identFromToken, isToken, nameList, node, nodes, qualifiedName, stringValue, token, tokens, type CstNode,
  type Spans } from './cst.js'
import { EXPR_CONVERTERS, expression, orderItem, registerSubqueryBuilder } from './to-ast-expr.js'
import { windowClause } from './to-ast-over.js'
import { withoutLegacyWindow } from './legacy-window.js'
import { groupByClause } from './grouping-sets.js'
import { unnestRef } from './unnest.js'
import { closest } from '../common/names.js'
import * as T from './tokens.js'

registerSubqueryBuilder((n, s) => query(n, s))

export function query(n: CstNode, s: Spans): A.Query {
  const exprNode = child(n, 'queryExpression')
  let body = queryExpression(exprNode, s)
  const orderBy = node(n, 'orderByClause')
  const limit = node(n, 'limitClause')
  if (orderBy || limit) {
    const last = limit ?? orderBy!
    body = {
      kind: 'OrderedQuery',
      query: body,
      orderBy: orderBy ? nodes(orderBy, 'orderItem').map(i => orderItem(i, s)) : [],
      ...(limit ? { limit: expression(child(limit, 'expression'), s), limitSpan: s.of(limit) } : {}),
      span: s.between(exprNode, last),
    }
  }
  const withClause = node(n, 'withClause')
  if (!withClause) return body
  return {
    kind: 'WithQuery',
    ctes: nodes(withClause, 'cte').map(c => {
      const cols = node(c, 'nameList')
      return { name: ident(c, s), ...(cols ? { columns: nameList(cols, s) } : {}), query: query(child(c, 'query'), s), span: s.of(c) }
    }),
    body,
    span: s.of(n),
  }
}

function queryExpression(n: CstNode, s: Spans): A.Query {
  const first = child(n, 'intersectTerm')
  let acc = intersectTerm(first, s)
  for (const tail of nodes(n, 'unionTail')) {
    acc = {
      kind: 'SetOperation',
      op: has(tail, 'UNION') ? 'UNION' : 'EXCEPT',
      all: isAll(tail),
      left: acc,
      right: intersectTerm(child(tail, 'intersectTerm'), s),
      span: s.between(first, tail),
    }
  }
  return acc
}

function intersectTerm(n: CstNode, s: Spans): A.Query {
  const first = child(n, 'queryPrimary')
  let acc = queryPrimary(first, s)
  for (const tail of nodes(n, 'intersectTail')) {
    acc = { kind: 'SetOperation', op: 'INTERSECT', all: isAll(tail), left: acc, right: queryPrimary(child(tail, 'queryPrimary'), s),
      span: s.between(first, tail) }
  }
  return acc
}

function isAll(tail: CstNode): boolean {
  const q = node(tail, 'setQuantifier')
  return q !== undefined && has(q, 'ALL')
}

function queryPrimary(n: CstNode, s: Spans): A.Query {
  const sel = node(n, 'select')
  if (sel) return select(sel, s)
  const values = node(n, 'values')
  if (values) {
    return {
      kind: 'ValuesQuery',
      rows: nodes(values, 'valuesRow').map(r => nodes(r, 'expression').map(e => expression(e, s))),
      span: s.of(values),
    }
  }
  return query(child(n, 'query'), s)
}

function select(n: CstNode, s: Spans): A.Select {
  const quantifier = node(n, 'setQuantifier')
  const where = node(n, 'whereClause')
  const groupBy = node(n, 'groupByClause')
  const having = node(n, 'havingClause')
  const from = node(n, 'fromClause')
  const windows = node(n, 'windowClause')
  const sel: A.Select = {
    kind: 'Select',
    hints: nodes(n, 'hintBlock').flatMap(h => hintBlock(h, s)),
    distinct: quantifier !== undefined && has(quantifier, 'DISTINCT'),
    items: nodes(n, 'selectItem').map(i => selectItem(i, s)),
    ...(from ? { from: fromClause(from, s) } : {}),
    ...(where ? { where: expression(child(where, 'expression'), s) } : {}),
    ...(groupBy ? groupByClause(groupBy, s, e => expression(e, s)) : {}),
    ...(having ? { having: expression(child(having, 'expression'), s) } : {}),
    ...(windows ? { windows: windowClause(windows, s, EXPR_CONVERTERS) } : {}),
    span: s.of(n),
  }
  return withoutLegacyWindow(sel, s.src.text)
}

function selectItem(n: CstNode, s: Spans): A.SelectItem {
  if (has(n, 'Star')) {
    const qualifier = token(n, 'Name')
    return { kind: 'StarItem', ...(qualifier ? { qualifier: identFromToken(qualifier, s) } : {}), span: s.of(n) }
  }
  const aliasNode = node(n, 'alias')
  return {
    kind: 'ExprItem',
    expr: expression(child(n, 'expression'), s),
    ...(aliasNode ? { alias: ident(aliasNode, s) } : {}),
    span: s.of(n),
  }
}

// ---------------------------------------------------------------- FROM

function fromClause(n: CstNode, s: Spans): A.FromItem {
  const first = child(n, 'fromItem')
  let acc = fromItem(first, s)
  for (const tail of nodes(n, 'joinTail')) {
    const right = fromItem(child(tail, 'fromItem'), s)
    const on = node(tail, 'expression')
    acc = {
      kind: 'Join',
      joinType: has(tail, 'Comma') ? 'CROSS' : joinType(node(tail, 'joinType')),
      left: acc,
      right,
      ...(on ? { on: expression(on, s) } : {}),
      span: s.between(first, tail),
    }
  }
  return acc
}

function joinType(n: CstNode | undefined): A.Join['joinType'] {
  if (n === undefined || has(n, 'INNER')) return 'INNER'
  if (has(n, 'LEFT')) return 'LEFT'
  if (has(n, 'RIGHT')) return 'RIGHT'
  if (has(n, 'FULL')) return 'FULL'
  return 'CROSS'
}

function fromItem(n: CstNode, s: Spans): A.FromItem {
  const c = alt(n) as CstNode
  switch (c.name) {
    case 'tableRef':
      return tableRef(c, s)
    case 'subqueryRef': {
      const alias = node(c, 'alias')
      const columns = node(c, 'nameList')
      return {
        kind: 'SubqueryRef',
        query: query(child(c, 'query'), s),
        ...(alias ? { alias: ident(alias, s) } : {}),
        ...(columns ? { columns: nameList(columns, s) } : {}),
        span: s.of(c),
      }
    }
    case 'windowTvfRef':
      // TABLE(f(…)): a window TVF (a DESCRIPTOR says so too: a misspelt one), or a call of a user's table
      // function spelled as Flink's docs spell it.
      return WINDOW_FUNCTIONS.some(f => f === token(c, 'Name')!.image.toUpperCase()) || nodes(c, 'tvfArg').some(a => node(a, 'descriptorArg'))
        ? windowTvf(c, s)
        : tableFunctionCall(c, s)
    case 'tableFunctionRef':
      return tableFunctionCall(c, s)
    case 'unnestRef':
      return unnestRef(c, s)
    default:
      throw WeirError.internal(`unhandled FROM item ${c.name}`)
  }
}

function tableRef(n: CstNode, s: Spans): A.TableRef {
  const alias = node(n, 'alias')
  const asOf = node(n, 'systemTimeAsOf')
  return {
    kind: 'TableRef',
    name: qualifiedName(child(n, 'qualifiedName'), s),
    ...(alias ? { alias: ident(alias, s) } : {}),
    hints: nodes(n, 'hintBlock').flatMap(h => hintBlock(h, s)),
    ...(asOf ? { asOf: systemTimeAsOf(asOf, s) } : {}),
    span: s.of(n),
  }
}

/** `FOR SYSTEM_TIME AS OF expr`: the grammar takes any two names; only these two words are SQL. */
function systemTimeAsOf(n: CstNode, s: Spans): NonNullable<A.TableRef['asOf']> {
  const [system, of] = tokens(n, 'Name')
  for (const [t, word] of [[system!, 'SYSTEM_TIME'], [of!, 'OF']] as const) {
    if (t.image.toUpperCase() !== word) {
      throw WeirError.syntax(`expected ${word} in FOR SYSTEM_TIME AS OF, found '${t.image}'`, { span: s.ofToken(t),
        help: 'write FOR SYSTEM_TIME AS OF probe.time_column' })
    }
  }
  return { expr: expression(child(n, 'expression'), s), span: s.of(n) }
}

const WINDOW_FUNCTIONS = ['TUMBLE', 'HOP', 'CUMULATE', 'SESSION'] as const

/**
 * `TABLE(fn(args))`: the TABLE argument becomes `input`, DESCRIPTOR(col) becomes `timeCol`, and the
 * rest stay in `args` in order (named or not; the planner matches SIZE / SLIDE / STEP / GAP / OFFSET).
 * `inputName` is the parameter name when the table is passed by name (`DATA => TABLE t`).
 */
function windowTvf(n: CstNode, s: Spans): A.WindowTvf {
  const fnId = ident(n, s)
  const fn = WINDOW_FUNCTIONS.find(f => f === fnId.value.toUpperCase())
  if (fn === undefined) {
    const guess = closest(fnId.value, WINDOW_FUNCTIONS)
    throw WeirError.syntax(`unknown window function '${fnId.value}'`, {
      span: fnId.span,
      help: guess ? `did you mean ${guess}?` : 'TABLE(…) takes TUMBLE, HOP, CUMULATE or SESSION',
    })
  }
  let input: A.TableRef | A.SubqueryRef | undefined
  let inputName: A.Ident | undefined
  let partitionBy: A.Expr[] = []
  let timeCol: A.Ident | undefined
  const args: A.TvfArg[] = []
  for (const arg of nodes(n, 'tvfArg')) {
    const argName = token(arg, 'Name')
    const nameId = argName ? identFromToken(argName, s) : undefined
    const table = node(arg, 'tvfTableArg')
    const descriptor = node(arg, 'descriptorArg')
    if (table) {
      if (input) throw WeirError.syntax(`${fn} takes one TABLE argument`, { span: s.of(arg) })
      input = tvfInput(table, s)
      inputName = nameId
      const partition = node(table, 'partitionClause')
      if (partition) {
        partitionBy = nodes(partition, 'qualifiedName').map(q => {
          const name = qualifiedName(q, s)
          return { kind: 'ColumnRef', name, span: name.span }
        })
      }
    } else if (descriptor) {
      if (timeCol) throw WeirError.syntax(`${fn} takes one DESCRIPTOR argument`, { span: s.of(arg) })
      const cols = tokens(descriptor, 'Name')
      if (cols.length !== 1) {
        throw WeirError.syntax(`DESCRIPTOR of ${fn} names one time column, got ${cols.length}`, { span: s.of(descriptor) })
      }
      timeCol = identFromToken(cols[0]!, s)
    } else {
      args.push({ ...(nameId ? { name: nameId } : {}), value: expression(child(arg, 'expression'), s), span: s.of(arg) })
    }
  }
  const help = `write ${fn}(TABLE t, DESCRIPTOR(time_col), …)`
  if (!input) throw WeirError.syntax(`${fn} needs a TABLE argument`, { span: s.of(n), help })
  if (!timeCol) throw WeirError.syntax(`${fn} needs a DESCRIPTOR(time column) argument`, { span: s.of(n), help })
  const alias = node(n, 'alias')
  return {
    kind: 'WindowTvf',
    fn,
    fnSpan: fnId.span,
    input,
    ...(inputName ? { inputName } : {}),
    partitionBy,
    timeCol,
    args,
    ...(alias ? { alias: ident(alias, s) } : {}),
    span: s.of(n),
  }
}

/** `f(args) [alias]`: the planner finds f among the session's functions and checks the arguments against its declaration. */
function tableFunctionCall(n: CstNode, s: Spans): A.TableFunctionCall {
  const name = identFromToken(token(n, 'Name')!, s)
  const args = nodes(n, 'tvfArg').map((arg): A.TableFunctionArg => {
    const argName = token(arg, 'Name')
    const nameId = argName ? { name: identFromToken(argName, s) } : {}
    const table = node(arg, 'tvfTableArg')
    if (table) {
      const partition = node(table, 'partitionClause')
      const partitionBy = partition ? nodes(partition, 'qualifiedName').map(q => qualifiedName(q, s)) : []
      return { kind: 'TableArg', ...nameId, input: tvfInput(table, s), partitionBy, span: s.of(arg) }
    }
    const descriptor = node(arg, 'descriptorArg')
    if (descriptor) throw WeirError.syntax(`${name.value} takes no DESCRIPTOR argument`, { span: s.of(descriptor) })
    return { kind: 'ScalarArg', ...nameId, value: expression(child(arg, 'expression'), s), span: s.of(arg) }
  })
  const alias = node(n, 'alias')
  return { kind: 'TableFunctionCall', name, args, ...(alias ? { alias: ident(alias, s) } : {}), span: s.of(n) }
}

function tvfInput(n: CstNode, s: Spans): A.TableRef | A.SubqueryRef {
  const nameNode = node(n, 'qualifiedName')
  if (nameNode) {
    const name = qualifiedName(nameNode, s)
    return { kind: 'TableRef', name, hints: [], span: name.span }
  }
  const paren = child(n, 'parenQuery')
  return { kind: 'SubqueryRef', query: query(child(paren, 'query'), s), span: s.of(paren) }
}

// ---------------------------------------------------------------- hints

export function hintBlock(n: CstNode, s: Spans): A.Hint[] {
  return nodes(n, 'hintItem').map(item => {
    const options: (readonly [string, string])[] = []
    const values: string[] = []
    const args = nodes(item, 'hintArg')
    for (const arg of args) {
      const [k, v] = nodes(arg, 'hintValue')
      if (v) options.push([hintValue(k!, s), hintValue(v, s)])
      else values.push(hintValue(k!, s))
    }
    if (options.length > 0 && values.length > 0) {
      throw WeirError.syntax('a hint takes either key = value options or plain values, not both', {
        span: s.of(item),
        help: `e.g. OPTIONS('k' = 'v') or BROADCAST(a, b)`,
      })
    }
    return { name: ident(item, s), options, values, span: s.of(item) }
  })
}

function hintValue(n: CstNode, s: Spans): string {
  const c = alt(n)
  if (isToken(c)) return c.tokenType === T.StringLit || c.tokenType === T.QuotedIdentifier ? stringValue(c) : c.image
  return dottedText(c, s)
}

/** The text of an unquoted dotted key (`table.exec.state.ttl`); its words must touch the dots. */
export function dottedText(n: CstNode, s: Spans): string {
  const parts = [...tokens(n, 'Word'), ...tokens(n, 'Dot'), ...tokens(n, 'Minus')].sort((a, b) => a.startOffset - b.startOffset)
  for (let i = 1; i < parts.length; i++) {
    if (parts[i]!.startOffset !== parts[i - 1]!.endOffset! + 1) {
      throw WeirError.syntax(`unexpected space in '${s.text(n)}'`, { span: s.of(n), help: `quote the key: '${parts.map(p => p.image).join('')}'` })
    }
  }
  return s.text(n)
}
