// ROW, ARRAY and MAP type names (CST → AST): `ROW<a INT, b STRING>` or `ROW(a INT, b STRING)`,
// `ARRAY<T>`, `MAP<K, V>`, each element a full type (nesting allowed), with Flink's arities checked here.
import { WeirError } from '../common/errors.js'
import type * as A from './ast.js'
import { has, identFromToken, nodes, token, tokens, type CstNode, type Spans } from './cst.js'

/**
 * `x[i]`, `x.f` after a primary, and the constructors `ARRAY[…]`, `MAP[…]` (ARRAY and MAP are reserved
 * in Flink: before '[' they always construct). A subscript is ITEM(x, i), a field after a subscript or
 * parentheses DOT(x, 'f'); `r.f` on a plain name stays a ColumnRef (the binder resolves fields there).
 */
export function postfixes(acc: A.Expr, post: readonly CstNode[], s: Spans, expression: (e: CstNode) => A.Expr): A.Expr {
  for (const p of post) {
    const span = { ...acc.span, end: s.of(p).end } as A.Expr['span']
    const name = token(p, 'Name')
    if (name !== undefined) {
      const field = identFromToken(name, s)
      acc = { kind: 'FunctionCall', name: { value: 'FIELD', quoted: false, span: field.span },
        args: [acc, { kind: 'Literal', type: 'string', text: field.value, span: field.span }], distinct: false, star: false, span }
      continue
    }
    const args = nodes(p, 'expression').map(expression)
    const ctor = acc.kind === 'ColumnRef' && acc.name.parts.length === 1 && !acc.name.parts[0]!.quoted ? acc.name.parts[0]!.value.toUpperCase() : undefined
    if ((ctor === 'ARRAY' || ctor === 'MAP') && acc.kind === 'ColumnRef') {
      acc = { kind: 'FunctionCall', name: { value: ctor, quoted: false, span: acc.span }, args, distinct: false, star: false, span }
      continue
    }
    if (args.length !== 1) throw WeirError.syntax(`a subscript takes one index, got ${args.length}`, { span: s.of(p), help: "e.g. a[1] or m['key']" })
    acc = { kind: 'FunctionCall', name: { value: 'ITEM', quoted: false, span: s.of(p) }, args: [acc, args[0]!], distinct: false, star: false, span }
  }
  return acc
}

export const NESTED_TYPE_NAMES: ReadonlySet<string> = new Set(['ROW', 'ARRAY', 'MAP', 'MULTISET'])

/** The TypeName of a ROW / ARRAY / MAP CST node; `typeName` converts the types inside. */
export function nestedTypeName(n: CstNode, s: Spans, written: string, typeName: (n: CstNode, s: Spans) => A.TypeName): A.TypeName {
  const span = s.of(n)
  const args = nodes(n, 'typeArg')
  const numbers = tokens(n, 'NumberLit')
  if (numbers.length > 0) throw WeirError.syntax(`type ${written} takes types, not numbers`, { span: s.ofToken(numbers[0]!), help: helpFor(written) })
  const notNull = has(n, 'NOT')
  if (written === 'ROW') {
    const fields = args.map(a => {
      const name = token(a, 'field')
      if (name === undefined) throw WeirError.syntax('a ROW field needs a name before its type', { span: s.of(a), help: helpFor('ROW') })
      return { name: identFromToken(name, s), type: typeName(nodes(a, 'typeName')[0]!, s) }
    })
    const seen = new Set<string>()
    for (const f of fields) {
      const key = f.name.value.toLowerCase()
      if (seen.has(key)) throw WeirError.syntax(`ROW field '${f.name.value}' is declared twice`, { span: f.name.span })
      seen.add(key)
    }
    if (fields.length === 0) throw WeirError.syntax('ROW needs at least one field', { span, help: helpFor('ROW') })
    return { kind: 'TypeName', name: 'ROW', params: [], notNull, span, fields }
  }
  const want = written === 'ARRAY' || written === 'MULTISET' ? 1 : 2
  if (args.length !== want || has(n, 'LParen')) {
    throw WeirError.syntax(`type ${written} takes ${want === 1 ? 'one element type' : 'a key type and a value type'} in <…>`, { span, help: helpFor(written) })
  }
  const elements = args.map(a => {
    const field = token(a, 'field')
    if (field !== undefined) throw WeirError.syntax(`the types of ${written} have no names`, { span: s.ofToken(field), help: helpFor(written) })
    return typeName(nodes(a, 'typeName')[0]!, s)
  })
  return { kind: 'TypeName', name: written, params: [], notNull, span, elements }
}

function helpFor(name: string): string {
  return name === 'ROW'
    ? 'e.g. ROW<id BIGINT, name STRING>'
    : name === 'ARRAY'
    ? 'e.g. ARRAY<INT>'
    : name === 'MULTISET'
    ? 'e.g. MULTISET<STRING>'
    : 'e.g. MAP<STRING, INT>'
}
