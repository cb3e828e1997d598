// Flink's legacy group windows — `GROUP BY k, TUMBLE(ts, INTERVAL '1' MINUTE)` with TUMBLE_START(…),
// TUMBLE_END(…), TUMBLE_ROWTIME(…) in the SELECT — as older Flink SQL and Nexmark's q11 and q12 write
// them. A legacy window aggregate means the same as the window table function's: the SELECT is
// rewritten into that form (the FROM table wrapped in TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), …)), the
// window call in GROUP BY replaced by window_start, window_end, each auxiliary call by the window
// column it names), and planned as any window aggregate. A legacy SESSION window is per group key,
// so the other keys become the TVF's PARTITION BY. Shapes the rewrite cannot take (a join in FROM, a
// SESSION grouped by expressions) are refused with the TVF form to write instead.
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import type * as A from './ast.js'

const WINDOWS = new Set(['TUMBLE', 'HOP', 'SESSION'])
const QUERY_KINDS = new Set<unknown>(['Select', 'SetOperation', 'WithQuery', 'OrderedQuery', 'ValuesQuery'])
/** The auxiliary functions of a legacy group window and the window TVF column that replaces each. */
const AUXILIARY: Readonly<Record<string, string>> = { START: 'window_start', END: 'window_end', ROWTIME: 'window_time', PROCTIME: 'window_time' }

interface Edit {
  readonly start: number
  readonly end: number
  readonly text: string
}

/**
 * The SELECT itself when it groups by no legacy window; else the same query over the window TVF.
 * Throws for a legacy window the rewrite cannot take, or auxiliary calls that do not match it.
 */
export function withoutLegacyWindow(sel: A.Select, sql: string): A.Select {
  const windows = sel.groupBy?.filter((g): g is A.FunctionCall => g.kind === 'FunctionCall' && WINDOWS.has(g.name.value.toUpperCase())) ?? []
  if (windows.length === 0) {
    checkNoAuxiliary(sel, sql)
    return sel
  }
  if (sel.groupingSets !== undefined) {
    throw WeirError.unsupported('GROUPING SETS, ROLLUP and CUBE are not supported with a group window yet', { span: sel.groupingSets.span })
  }
  if (windows.length > 1) {
    throw WeirError.plan('GROUP BY has more than one group window', { span: windows[1]!.span, help: 'group by one TUMBLE, HOP or SESSION window' })
  }
  const window = windows[0]!
  const fn = window.name.value.toUpperCase() as 'TUMBLE' | 'HOP' | 'SESSION'
  const [time, ...params] = window.args
  const arity = fn === 'HOP' ? 3 : 2
  if (window.args.length < arity || window.args.length > arity + 1) {
    const form = fn === 'HOP' ? 'HOP(time_column, slide, size)' : `${fn}(time_column, ${fn === 'SESSION' ? 'gap' : 'size'})`
    throw WeirError.plan(`${fn} in GROUP BY takes ${arity} arguments: ${form}`, { span: window.span })
  }
  if (time?.kind !== 'ColumnRef') {
    throw WeirError.plan(`the first argument of ${fn} in GROUP BY must be a time attribute column`, { span: (time ?? window).span })
  }
  const from = sel.from
  const otherKeys = sel.groupBy!.filter(g => g !== window)
  const partitionBy = fn === 'SESSION' ? otherKeys : []
  if (from === undefined || (from.kind !== 'TableRef' && from.kind !== 'SubqueryRef') || !partitionBy.every(k => k.kind === 'ColumnRef')) {
    throw refused(sel, window, fn, sql)
  }
  const input: A.TableRef | A.SubqueryRef = from.kind === 'TableRef'
    ? { kind: 'TableRef', name: from.name, hints: from.hints, ...(from.asOf ? { asOf: from.asOf } : {}), span: from.span }
    : { kind: 'SubqueryRef', query: from.query, ...(from.columns ? { columns: from.columns } : {}), span: from.span }
  const tvf: A.WindowTvf = {
    kind: 'WindowTvf',
    fn,
    fnSpan: window.name.span,
    input,
    // Within the TVF a partition key names a column of its input, not of the FROM's alias.
    partitionBy: (partitionBy as A.ColumnRef[]).map(k => ({ ...k, name: { parts: [k.name.parts.at(-1)!], span: k.name.span } })),
    timeCol: time.name.parts.at(-1)!,
    args: params.map(p => ({ value: p, span: p.span })),
    ...(from.alias ? { alias: from.alias } : {}),
    span: window.span,
  }
  const column = (name: string, span: Span): A.ColumnRef => ({ kind: 'ColumnRef', name: { parts: [{ value: name, quoted: false, span }], span }, span })
  const groupBy = sel.groupBy!.flatMap(g => (g === window ? [column('window_start', g.span), column('window_end', g.span)] : [g]))
  const replace = auxiliaryReplacer(window, fn, sql, column)
  return {
    ...sel,
    items: sel.items.map(i => (i.kind === 'ExprItem' ? { ...i, expr: replace(i.expr) as A.Expr } : i)),
    from: tvf,
    groupBy,
    ...(sel.having ? { having: replace(sel.having) as A.Expr } : {}),
  }
}

/** Source text of a node, whitespace collapsed: two calls repeat the same arguments when these match. */
function argText(n: { readonly span: Span }, sql: string): string {
  return sql.slice(n.span.start.offset, n.span.end.offset).replace(/\s+/g, ' ').trim()
}

/** The auxiliary function a call is (TUMBLE_START → ['TUMBLE', 'START']), or undefined. */
function auxiliaryOf(call: A.FunctionCall): readonly [string, string] | undefined {
  const name = call.name.value.toUpperCase()
  const at = name.indexOf('_')
  if (at < 0) return undefined
  const fn = name.slice(0, at), part = name.slice(at + 1)
  return WINDOWS.has(fn) && AUXILIARY[part] !== undefined ? [fn, part] : undefined
}

/** Replaces, in an expression tree, each auxiliary call of `window` by its window column. */
function auxiliaryReplacer(window: A.FunctionCall, fn: string, sql: string, column: (name: string, span: Span) => A.ColumnRef) {
  const expected = window.args.map(a => argText(a, sql))
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit)
    if (typeof node !== 'object' || node === null) return node
    const n = node as { readonly kind?: unknown }
    if (n.kind === 'FunctionCall') {
      const call = node as A.FunctionCall
      const aux = auxiliaryOf(call)
      if (aux !== undefined) {
        const [auxFn, part] = aux
        const args = call.args.map(a => argText(a, sql))
        if (auxFn !== fn || args.length !== expected.length || args.some((a, i) => a !== expected[i])) {
          throw WeirError.plan(`${call.name.value}(…) does not match the group window ${fn}(${expected.join(', ')})`, {
            span: call.span,
            help: `write ${fn}_${part}(${expected.join(', ')}): an auxiliary function repeats the arguments of the window in GROUP BY`,
          })
        }
        return column(AUXILIARY[part]!, call.span)
      }
    }
    // A nested query has windows of its own, rewritten when it was built.
    if (QUERY_KINDS.has(n.kind)) return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) out[key] = key === 'span' ? value : visit(value)
    return out
  }
  return visit
}

/** An auxiliary call in a SELECT that groups by no legacy window. */
function checkNoAuxiliary(sel: A.Select, sql: string): void {
  for (const call of functionCalls([sel.items, sel.having])) {
    const aux = auxiliaryOf(call)
    if (aux === undefined) continue
    throw WeirError.plan(`${call.name.value}(…) needs GROUP BY ${aux[0]}(…) in the same SELECT`, {
      span: call.span,
      help: `group by the window whose ${aux[1].toLowerCase()} this is, e.g. GROUP BY ${aux[0]}(${call.args.map(a => argText(a, sql)).join(', ')})`,
    })
  }
}

/** The error for a legacy window the rewrite cannot take. */
function refused(sel: A.Select, window: A.FunctionCall, fn: string, sql: string): WeirError {
  const rewritten = rewriteText(sel, window, fn, sql)
  const why = sel.from?.kind === 'Join'
    ? `a group window over a join is not supported`
    : `a legacy SESSION window grouped by expressions is not supported`
  return WeirError.unsupported(`GROUP BY ${fn}(…): ${why}`, {
    span: window.span,
    help: rewritten !== undefined
      ? `use the window table function ${fn}: ${rewritten}`
      : `use the window table function ${fn}: FROM TABLE(${fn}(TABLE t, DESCRIPTOR(time_column), …)) … GROUP BY window_start, window_end, …; `
        + `${fn}_START(…) and ${fn}_END(…) become window_start and window_end`,
  })
}

/** The SELECT with its legacy window turned into the TVF form, on one line; undefined when its shape is not the simple one. */
function rewriteText(sel: A.Select, window: A.FunctionCall, fn: string, sql: string): string | undefined {
  const text = (n: { readonly span: A.Select['span'] }): string => sql.slice(n.span.start.offset, n.span.end.offset)
  const [time, ...params] = window.args
  if (time?.kind !== 'ColumnRef' || params.length === 0 || sel.from?.kind !== 'TableRef') return undefined
  const from = sel.from
  const otherKeys = sel.groupBy!.filter(g => g !== window)
  const partition = fn === 'SESSION' && otherKeys.length > 0 && otherKeys.every(k => k.kind === 'ColumnRef')
    ? ` PARTITION BY ${otherKeys.map(text).join(', ')}`
    : ''
  const tvf = `TABLE(${fn}(TABLE ${text(from.name)}${partition}, DESCRIPTOR(${text(time)}), ${params.map(text).join(', ')}))${
    from.alias !== undefined ? ` ${from.alias.value}` : ''
  }`
  const edits: Edit[] = [
    { start: from.span.start.offset, end: from.span.end.offset, text: tvf },
    { start: window.span.start.offset, end: window.span.end.offset, text: 'window_start, window_end' },
  ]
  for (const call of functionCalls([sel.items, sel.having])) {
    const aux = auxiliaryOf(call)
    if (aux !== undefined && aux[0] === fn) edits.push({ start: call.span.start.offset, end: call.span.end.offset, text: AUXILIARY[aux[1]]! })
  }
  let out = sql
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end)
  const shift = edits.reduce((n, e) => n + e.text.length - (e.end - e.start), 0)
  return out.slice(sel.span.start.offset, sel.span.end.offset + shift).replace(/\s+/g, ' ')
}

/** Every function call in these parts of the AST, outermost first (not inside nested queries). */
function functionCalls(node: unknown, found: A.FunctionCall[] = []): A.FunctionCall[] {
  if (Array.isArray(node)) {
    for (const n of node) functionCalls(n, found)
  } else if (typeof node === 'object' && node !== null) {
    const kind = (node as { kind?: unknown }).kind
    if (QUERY_KINDS.has(kind)) return found
    if (kind === 'FunctionCall') found.push(node as A.FunctionCall)
    for (const [key, value] of Object.entries(node)) if (key !== 'span') functionCalls(value, found)
  }
  return found
}
