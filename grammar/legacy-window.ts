// Flink's legacy group windows — `GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE)` with TUMBLE_START(…)
// in the SELECT — are refused with the same query rewritten to the window table function, built
// from the user's own text, so the help line is a query they can paste.
import { WeirError } from '../common/errors.js'
import type * as A from './ast.js'

const WINDOWS = new Set(['TUMBLE', 'HOP', 'SESSION'])
/** The auxiliary functions of a legacy group window and the window TVF column that replaces each. */
const AUXILIARY: Readonly<Record<string, string>> = { START: 'window_start', END: 'window_end', ROWTIME: 'window_time', PROCTIME: 'window_time' }

interface Edit {
  readonly start: number
  readonly end: number
  readonly text: string
}

/** The error for a SELECT that groups by a legacy group window, or undefined when it does not. */
export function legacyGroupWindow(sel: A.Select, sql: string): WeirError | undefined {
  const window = sel.groupBy?.find((g): g is A.FunctionCall => g.kind === 'FunctionCall' && WINDOWS.has(g.name.value.toUpperCase()))
  if (window === undefined) return undefined
  const fn = window.name.value.toUpperCase()
  const rewritten = rewrite(sel, window, fn, sql)
  return WeirError.unsupported(`GROUP BY ${fn}(…) is Flink's legacy group window, which Weir does not support`, {
    span: window.span,
    help: rewritten !== undefined
      ? `use the window table function ${fn}: ${rewritten}`
      : `use the window table function ${fn}: FROM TABLE(${fn}(TABLE t, DESCRIPTOR(time_column), …)) … GROUP BY window_start, window_end, …; `
        + `${fn}_START(…) and ${fn}_END(…) become window_start and window_end`,
  })
}

/** The SELECT with its legacy window turned into the TVF form, on one line; undefined when its shape is not the simple one. */
function rewrite(sel: A.Select, window: A.FunctionCall, fn: string, sql: string): string | undefined {
  const text = (n: { readonly span: A.Select['span'] }): string => sql.slice(n.span.start.offset, n.span.end.offset)
  const [time, ...params] = window.args
  if (time?.kind !== 'ColumnRef' || params.length === 0 || sel.from?.kind !== 'TableRef') return undefined
  const from = sel.from
  const otherKeys = sel.groupBy!.filter(g => g !== window)
  // Legacy SESSION windows are per group key; the TVF says so with PARTITION BY.
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
    const name = call.name.value.toUpperCase()
    const suffix = name.startsWith(`${fn}_`) ? name.slice(fn.length + 1) : undefined
    const column = suffix === undefined ? undefined : AUXILIARY[suffix]
    if (column !== undefined) edits.push({ start: call.span.start.offset, end: call.span.end.offset, text: column })
  }
  let out = sql
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end)
  const shift = edits.reduce((n, e) => n + e.text.length - (e.end - e.start), 0)
  return out.slice(sel.span.start.offset, sel.span.end.offset + shift).replace(/\s+/g, ' ')
}

/** Every function call in these parts of the AST, outermost first. */
function functionCalls(node: unknown, found: A.FunctionCall[] = []): A.FunctionCall[] {
  if (Array.isArray(node)) {
    for (const n of node) functionCalls(n, found)
  } else if (typeof node === 'object' && node !== null) {
    if ((node as { kind?: unknown }).kind === 'FunctionCall') found.push(node as A.FunctionCall)
    for (const [key, value] of Object.entries(node)) if (key !== 'span') functionCalls(value, found)
  }
  return found
}
