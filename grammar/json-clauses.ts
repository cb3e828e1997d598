// The SQL/JSON clauses inside a JSON function's parentheses (CST → AST), as Flink's Calcite grammar
// takes them: `RETURNING type`, `{NULL | ERROR | DEFAULT e} ON EMPTY|ERROR` (JSON_VALUE), `{TRUE |
// FALSE | UNKNOWN | ERROR} ON ERROR` (JSON_EXISTS), `{WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]}
// [ARRAY] WRAPPER` and `{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON EMPTY|ERROR` (JSON_QUERY),
// `{NULL | ABSENT} ON NULL` and JSON_OBJECT's `[KEY] k VALUE v` pairs; `s IS [NOT] JSON [type]`.
// The parser reads the clauses as words (parser.ts jsonClause); which ones a function takes is checked here.
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import type * as A from './ast.js'
import { node, nodes, token, tokens, type CstNode, type IToken, type Spans } from './cst.js'

type Behaviours = readonly string[]

interface Allowed {
  readonly returning?: boolean
  readonly wrapper?: boolean
  readonly onEmpty?: Behaviours
  readonly onError?: Behaviours
  readonly onNull?: boolean
  readonly pairs?: boolean
  readonly syntax: string
}

const VALUE_BEHAVIOURS = ['NULL', 'ERROR', 'DEFAULT']
const QUERY_BEHAVIOURS = ['NULL', 'EMPTY ARRAY', 'EMPTY OBJECT', 'ERROR']

const ALLOWED: Record<string, Allowed> = {
  JSON_VALUE: {
    returning: true,
    onEmpty: VALUE_BEHAVIOURS,
    onError: VALUE_BEHAVIOURS,
    syntax: 'JSON_VALUE(json, path [RETURNING type] [{NULL | ERROR | DEFAULT e} ON EMPTY] [{NULL | ERROR | DEFAULT e} ON ERROR])',
  },
  JSON_QUERY: {
    returning: true,
    wrapper: true,
    onEmpty: QUERY_BEHAVIOURS,
    onError: QUERY_BEHAVIOURS,
    syntax:
      'JSON_QUERY(json, path [{WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]} [ARRAY] WRAPPER] [{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON EMPTY] [… ON ERROR])',
  },
  JSON_EXISTS: { onError: ['TRUE', 'FALSE', 'UNKNOWN', 'ERROR'], syntax: 'JSON_EXISTS(json, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR])' },
  JSON_OBJECT: { onNull: true, pairs: true, syntax: "JSON_OBJECT([KEY] 'k' VALUE v, … [{NULL | ABSENT} ON NULL])" },
  JSON_ARRAY: { onNull: true, syntax: 'JSON_ARRAY(v, … [{NULL | ABSENT} ON NULL])' },
  JSON_OBJECTAGG: { onNull: true, pairs: true, syntax: 'JSON_OBJECTAGG([KEY] k VALUE v [{NULL | ABSENT} ON NULL])' },
  JSON_ARRAYAGG: { onNull: true, syntax: 'JSON_ARRAYAGG(v [{NULL | ABSENT} ON NULL])' },
}

/** Functions that take SQL/JSON clauses (the binder normalizes every call of these, json-call.ts). */
export const JSON_CLAUSE_FUNCTIONS: ReadonlySet<string> = new Set(Object.keys(ALLOWED))

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/**
 * The clauses of a call's argument list, or undefined when it has none. `args` are the converted
 * arguments (keys and values alternating when written as pairs).
 */
export function jsonCallClauses(name: A.Ident, argsNode: CstNode, args: readonly A.Expr[], span: Span, s: Spans, conv: {
  expression: (n: CstNode, s: Spans) => A.Expr
  typeName: (n: CstNode, s: Spans) => A.TypeName
}): A.JsonClauses | undefined {
  const clauses = nodes(argsNode, 'jsonClause')
  const valueWords = tokens(argsNode, 'value')
  const keyWords = tokens(argsNode, 'key')
  const upper = name.quoted ? name.value : name.value.toUpperCase()
  const allowed = ALLOWED[upper]
  if (clauses.length === 0 && valueWords.length === 0 && !(allowed?.pairs === true && args.length > 0)) return undefined
  if (allowed === undefined) {
    const first = clauses[0] ?? argsNode
    const at = clauses.length > 0 ? s.of(first) : s.ofToken(valueWords[0]!)
    throw WeirError.syntax(`${name.value.toUpperCase()} takes no ${clauses.length > 0 ? `'${s.text(first)}' clause` : 'KEY … VALUE pairs'}`, {
      span: at,
      help: 'SQL/JSON clauses belong to JSON_VALUE, JSON_QUERY, JSON_EXISTS, JSON_OBJECT and JSON_ARRAY',
    })
  }
  const out: Mutable<A.JsonClauses> = { span }
  if (valueWords.length > 0 || keyWords.length > 0 || allowed.pairs) {
    if (!allowed.pairs) {
      throw WeirError.syntax(`${upper} takes values, not KEY … VALUE pairs`, { span: s.ofToken(valueWords[0] ?? keyWords[0]!), help: allowed.syntax })
    }
    // Every argument must be a `k VALUE v` pair: the VALUE words sit between keys and values.
    if (args.length !== valueWords.length * 2) {
      throw WeirError.syntax(`${upper} takes key–value pairs written 'key' VALUE value`, { span, help: allowed.syntax })
    }
    out.pairs = true
  }
  for (const c of clauses) clause(c, upper, allowed, out, s, conv)
  return out
}

function clause(c: CstNode, fn: string, allowed: Allowed, out: Mutable<A.JsonClauses>, s: Spans, conv: {
  expression: (n: CstNode, s: Spans) => A.Expr
  typeName: (n: CstNode, s: Spans) => A.TypeName
}): void {
  const span = s.of(c)
  const text = s.text(c).replace(/\s+/g, ' ')
  const refuse = (why: string): never => {
    throw WeirError.syntax(`${fn} ${why}: '${text}'`, { span, help: allowed.syntax })
  }
  const words = (ts: readonly IToken[]) => ts.map(t => t.image.toUpperCase())
  if (token(c, 'returning') !== undefined) {
    if (!allowed.returning) refuse('takes no RETURNING clause')
    if (out.returning !== undefined) refuse('has a second RETURNING clause')
    out.returning = conv.typeName(node(c, 'typeName')!, s)
    return
  }
  if (token(c, 'wrapper') !== undefined) {
    if (!allowed.wrapper) refuse('takes no WRAPPER clause')
    if (out.wrapper !== undefined) refuse('has a second WRAPPER clause')
    const start = token(c, 'wrapperStart')!.image.toUpperCase()
    const w = words(tokens(c, 'word'))
    const mode = w[0] === 'CONDITIONAL' || w[0] === 'UNCONDITIONAL' ? w.shift()! : undefined
    if (w[0] === 'ARRAY') w.shift()
    if (w.length > 0 || (start === 'WITHOUT' && mode !== undefined)) refuse('has an unknown WRAPPER clause')
    out.wrapper = start === 'WITHOUT' ? 'WITHOUT' : mode === 'CONDITIONAL' ? 'CONDITIONAL' : 'UNCONDITIONAL'
    return
  }
  const target = token(c, 'target')!.image.toUpperCase()
  const isDefault = token(c, 'default') !== undefined
  const kind = isDefault ? 'DEFAULT' : words(tokens(c, 'word')).join(' ')
  if (!isDefault && kind === 'DEFAULT') refuse('needs a value after DEFAULT')
  if (target === 'NULL') {
    if (!allowed.onNull) refuse('takes no ON NULL clause')
    if (kind !== 'NULL' && kind !== 'ABSENT') refuse('takes NULL ON NULL or ABSENT ON NULL')
    if (out.onNull !== undefined) refuse('has a second ON NULL clause')
    out.onNull = kind as 'NULL' | 'ABSENT'
    return
  }
  if (target !== 'EMPTY' && target !== 'ERROR') refuse(`has an unknown clause (ON EMPTY, ON ERROR or ON NULL)`)
  const key = target === 'EMPTY' ? 'onEmpty' : 'onError'
  const kinds = allowed[key]
  if (kinds === undefined) refuse(`takes no ON ${target} clause`)
  if (!kinds!.includes(kind)) refuse(`takes ${kinds!.map(k => (k === 'DEFAULT' ? 'DEFAULT e' : k)).join(', ')} ON ${target}`)
  if (out[key] !== undefined) refuse(`has a second ON ${target} clause`)
  out[key] = isDefault ? { kind, default: conv.expression(node(c, 'expression')!, s), span } : { kind, span }
}

/** `s IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT]` as NOT?(IS_JSON(s)). */
export function isJsonExpr(operand: A.Expr, tail: CstNode, negated: boolean, span: Span): A.Expr {
  const type = (token(tail, 'jsonType')?.image.toUpperCase() ?? 'VALUE') as 'VALUE' | 'SCALAR' | 'ARRAY' | 'OBJECT'
  const call: A.FunctionCall = {
    kind: 'FunctionCall',
    name: { value: 'IS_JSON', quoted: false, span },
    args: [operand],
    distinct: false,
    star: false,
    json: { isJson: type, span },
    span,
  }
  return negated ? { kind: 'UnaryOp', op: 'NOT', operand: call, span } : call
}

/**
 * JSON_OBJECTAGG([KEY] k VALUE v [{NULL | ABSENT} ON NULL]) as the aggregate JSON_OBJECTAGG(k, text):
 * `text` is v's JSON text (a JSON_OBJECT / JSON_ARRAY argument inserted as JSON), 'null' for a NULL
 * value under NULL ON NULL (the default) and NULL under ABSENT ON NULL, which the aggregate skips
 * (operators/aggregates-keyed.ts). Flink allows it in GROUP BY and window aggregates, not in OVER
 * windows, nor with DISTINCT.
 */
export function jsonObjectAgg(call: A.FunctionCall): A.FunctionCall {
  const span = call.span
  const syntax = ALLOWED['JSON_OBJECTAGG']!.syntax
  if (call.over !== undefined) {
    throw WeirError.syntax('JSON_OBJECTAGG is not supported in OVER windows (as in Flink)', { span, help: 'use it in a GROUP BY or window aggregate' })
  }
  if (call.distinct || call.star) {
    throw WeirError.syntax(`JSON_OBJECTAGG takes one key and value, without ${call.star ? '*' : 'DISTINCT'}`, { span, help: syntax })
  }
  if (call.json?.pairs !== true || call.args.length !== 2) {
    throw WeirError.syntax(
      `JSON_OBJECTAGG takes one key–value pair written key VALUE value, got ${call.args.length} argument${call.args.length === 1 ? '' : 's'}`,
      { span, help: syntax },
    )
  }
  const [key, v] = call.args as [A.Expr, A.Expr]
  let text = jsonText(v, span)
  if (call.json.onNull !== 'ABSENT') text = fnCall('COALESCE', [text, { kind: 'Literal', type: 'string', text: 'null', span }], span)
  const { json: _clauses, ...rest } = call
  return { ...rest, args: [key, text] }
}

function fnCall(name: string, args: A.Expr[], span: Span): A.FunctionCall {
  return { kind: 'FunctionCall', name: { value: name, quoted: false, span }, args, distinct: false, star: false, span }
}

/** A value's JSON text: JSON_STRING(v), or v itself when it is a JSON_OBJECT / JSON_ARRAY call (Flink inserts those as JSON). */
function jsonText(v: A.Expr, span: Span): A.Expr {
  const nested = v.kind === 'FunctionCall' && !v.name.quoted && ['JSON_OBJECT', 'JSON_ARRAY'].includes(v.name.value.toUpperCase())
  return nested ? v : fnCall('JSON_STRING', [v], span)
}

/**
 * JSON_ARRAYAGG(v [{NULL | ABSENT} ON NULL]) as the retractable LISTAGG it amounts to:
 * COALESCE('[' || LISTAGG(JSON text of v, ',') || ']', '[]'), keeping arrival order as Flink's list
 * accumulator does. ABSENT ON NULL (the default) skips NULLs as LISTAGG does; NULL ON NULL writes
 * `null`. A JSON_OBJECT / JSON_ARRAY argument is inserted as JSON. Flink allows it in GROUP BY and
 * window aggregates but not in OVER windows, nor with DISTINCT.
 */
export function jsonArrayAgg(call: A.FunctionCall): A.FunctionCall {
  const span = call.span
  const syntax = ALLOWED['JSON_ARRAYAGG']!.syntax
  if (call.over !== undefined) {
    throw WeirError.syntax('JSON_ARRAYAGG is not supported in OVER windows (as in Flink)', { span, help: 'use it in a GROUP BY or window aggregate' })
  }
  if (call.distinct || call.star) throw WeirError.syntax(`JSON_ARRAYAGG takes one value, without ${call.star ? '*' : 'DISTINCT'}`, { span, help: syntax })
  if (call.args.length !== 1) throw WeirError.syntax(`JSON_ARRAYAGG takes one value, got ${call.args.length}`, { span, help: syntax })
  const fn = (name: string, args: A.Expr[]): A.FunctionCall => ({ kind: 'FunctionCall', name: { value: name, quoted: false, span }, args, distinct: false,
    star: false, span })
  const str = (text: string): A.Expr => ({ kind: 'Literal', type: 'string', text, span })
  const v = call.args[0]!
  const nested = v.kind === 'FunctionCall' && !v.name.quoted && ['JSON_OBJECT', 'JSON_ARRAY'].includes(v.name.value.toUpperCase())
  let text: A.Expr = nested ? v : fn('JSON_STRING', [v])
  if (call.json?.onNull === 'NULL') text = fn('COALESCE', [text, str('null')])
  const listagg: A.FunctionCall = { ...fn('LISTAGG', [text, str(',')]), ...(call.filter ? { filter: call.filter } : {}) }
  const joined: A.Expr = { kind: 'BinaryOp', op: '||', left: { kind: 'BinaryOp', op: '||', left: str('['), right: listagg, span }, right: str(']'), span }
  return fn('COALESCE', [joined, str('[]')])
}
