// The window columns of a window aggregate's GROUP BY (window_start, window_end, window_time), and
// why a DESCRIPTOR column is not a time attribute when it came from one: what cascading window
// aggregates (a window TVF over the window_time of another window aggregate) need from the binder.
import type * as ast from '../../grammar/ast.js'
import type { Span } from '../../common/span.js'
import { formatType, timeAttrOf } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputsUsed } from '../../core/rex.js'
import type { LogicalPlan } from '../logical/nodes.js'
import { formatRex } from '../rex-format.js'

const WINDOW_COLUMNS = ['window_start', 'window_end', 'window_time'] as const

/**
 * The grouping keys of a window aggregate over a TVF whose input has `n` columns (so its window
 * columns are n, n + 1 and n + 2): every GROUP BY expression but the window columns themselves.
 * window_time is window_end − 1 ms, so grouping by it adds no key (Flink's cascading windows group
 * by it to select it). An expression over a window column cannot be a key: the keys are computed
 * before rows are assigned to windows.
 *
 * @example regularKeys([ref(k), ref(n), ref(n + 1), ref(n + 2)], n, groupBy) // [ref(k)]
 */
export function regularKeys(groupRex: readonly Rex[], n: number, groupBy: readonly ast.Expr[] | undefined, span: Span): Rex[] {
  const keys: Rex[] = []
  groupRex.forEach((r, i) => {
    if (r.kind === 'Input' && r.index >= n && r.index <= n + 2) return
    const used = [...inputsUsed(r)].filter(j => j >= n)
    if (used.length > 0) {
      const name = WINDOW_COLUMNS[used[0]! - n] ?? 'window_time'
      throw WeirError.unsupported(`GROUP BY an expression over ${name} is not supported in a window aggregate`, {
        span: groupBy?.[i]?.span ?? span,
        help: `group by ${name} itself (window_time is window_end - 1 ms, so it adds no key) and compute the expression in the SELECT list`,
      })
    }
    keys.push(r)
  })
  return keys
}

/**
 * Why column `index` of `plan` is no time attribute, when it was made from one or from a window
 * bound: an error for the DESCRIPTOR of a window TVF (or undefined, for the caller's own message).
 */
export function lostTimeAttribute(plan: LogicalPlan, index: number, column: ast.Ident, fn: string): WeirError | undefined {
  const origin = originOf(plan, index)
  if (origin === undefined) return undefined
  const name = plan.fields[index]!.name
  if (origin.kind === 'expression') {
    return WeirError.plan(
      `the DESCRIPTOR column '${column.value}' of ${fn} is not a time attribute: '${name}' is computed as ${origin.text}, and an expression over the time attribute '${origin.attribute}' is a plain ${
        formatType(plan.fields[index]!.type)
      }`,
      {
        span: column.span,
        help:
          `select '${origin.attribute}' unchanged (e.g. \`${origin.attribute} AS ${name}\`) and use that as the DESCRIPTOR; shift the windows with ${fn}'s OFFSET instead of the time`,
      },
    )
  }
  return WeirError.plan(
    `the DESCRIPTOR column '${column.value}' of ${fn} is not a time attribute: '${name}' is made from the ${origin.bound} of a window, a plain TIMESTAMP(3)`,
    {
      span: column.span,
      help: `select the window aggregate's window_time (window_end - 1 ms), a time attribute, and use that as the DESCRIPTOR`,
    },
  )
}

type Origin = { kind: 'expression'; text: string; attribute: string } | { kind: 'bound'; bound: 'window_start' | 'window_end' }

/** Follows column `index` down through projections and filters to where it lost (or never had) the time attribute. */
function originOf(plan: LogicalPlan, index: number): Origin | undefined {
  switch (plan.kind) {
    case 'Filter':
      return originOf(plan.input, index)
    case 'Project': {
      const rex = plan.exprs[index]
      if (rex === undefined) return undefined
      if (rex.kind === 'Input') return originOf(plan.input, rex.index)
      const fields = plan.input.fields
      const attr = [...inputsUsed(rex)].find(j => fields[j] !== undefined && timeAttrOf(fields[j]!.type) !== undefined)
      if (attr === undefined) return boundOrigin(plan.input, rex)
      return { kind: 'expression', text: formatRex(rex, fields), attribute: fields[attr]!.name }
    }
    case 'WindowAggregate': {
      const first = plan.keys.length + plan.aggs.length
      if (index === first) return { kind: 'bound', bound: 'window_start' }
      if (index === first + 1) return { kind: 'bound', bound: 'window_end' }
      return undefined
    }
    case 'WindowTvf': {
      const first = plan.input.fields.length
      if (index === first) return { kind: 'bound', bound: 'window_start' }
      if (index === first + 1) return { kind: 'bound', bound: 'window_end' }
      return undefined
    }
    default:
      return undefined
  }
}

/** A CAST or other expression over window_start or window_end alone is still a window bound. */
function boundOrigin(input: LogicalPlan, rex: Rex): Origin | undefined {
  const used = [...inputsUsed(rex)]
  if (used.length !== 1) return undefined
  const inner = originOf(input, used[0]!)
  return inner?.kind === 'bound' ? inner : undefined
}
