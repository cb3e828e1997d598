// GROUPING SETS, ROLLUP and CUBE in a group aggregate, planned as Flink plans them: an Expand emits
// each input row once per grouping set (the keys outside the set NULL, plus the set's id), ONE group
// aggregate keys on all the keys and the id, and the SELECT's projection computes GROUPING() /
// GROUPING_ID() from the id and drops it. The source is read once; each set's groups are an
// independent aggregate of the updating result. GROUPING() with a plain GROUP BY is one set.
//
// The id holds one bit per key, set when the key is aggregated away, the first key the highest bit
// (so GROUPING(a, b) over keys (a, b) is the id itself), plus, above those bits, the ordinal of a set
// listed more than once (duplicate sets are separate aggregates, as in SQL and Flink).
import type * as ast from '../../grammar/ast.js'
import type { DataType, Field } from '../../common/types.js'
import type { Span } from '../../common/span.js'
import { T, withNullable, withoutTimeAttr } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputRef, literal } from '../../core/rex.js'
import { resolveCall } from '../../expr/functions.js'
import type { AggCall } from '../../core/aggregates.js'
import type { LogicalPlan } from '../logical/nodes.js'
import type { Scope } from './scope.js'
import { bindExpr, rexKey, visitExpr, type AggregateMapping } from './expr-binder.js'
import { PreProjection } from './pre-projection.js'

/** Keys beyond this would not leave the id's bits and set ordinals within a safe integer. */
const MAX_KEYS = 40
const GROUPING_FUNCTIONS = new Set(['GROUPING', 'GROUPING_ID', 'GROUP_ID'])

export function isGroupingCall(e: ast.Expr): e is ast.FunctionCall {
  return e.kind === 'FunctionCall' && GROUPING_FUNCTIONS.has(e.name.value.toUpperCase())
}

/** The GROUPING() / GROUPING_ID() calls of a SELECT's items and HAVING. */
export function groupingCallsOf(sel: ast.Select): ast.FunctionCall[] {
  const calls: ast.FunctionCall[] = []
  const visit = (e: ast.Expr): void =>
    visitExpr(e, n => {
      if (isGroupingCall(n)) calls.push(n)
    }, false)
  for (const item of sel.items) if (item.kind === 'ExprItem') visit(item.expr)
  if (sel.having) visit(sel.having)
  return calls
}

export interface GroupingSetsInput {
  readonly sel: ast.Select
  readonly input: LogicalPlan
  readonly scope: Scope
  /** The GROUP BY expressions bound over `scope`, in the order of sel.groupBy. */
  readonly groupRex: readonly Rex[]
  readonly aggCalls: readonly ast.FunctionCall[]
  readonly groupingCalls: readonly ast.FunctionCall[]
  readonly bindAggCall: (call: ast.FunctionCall, pre: PreProjection, position: number) => AggCall
  readonly ttl: { readonly ms: number; readonly source: string }
}

/** Project → Expand → Aggregate, and how the SELECT's expressions map onto the aggregate's output. */
export function bindGroupingSets(g: GroupingSetsInput): { aggregate: LogicalPlan; mapping: AggregateMapping } {
  const { sel, scope } = g
  const { keyRex, keyOf, sets, span } = groupingKeys(sel, g.groupRex)
  const n = keyRex.length

  // Pre-projection [keys…, aggregate arguments and FILTER conditions…]; the Expand puts the keys,
  // NULL where a set leaves them out, in front of the columns the aggregates read (an argument may
  // be a key's own column, which must not be NULLed).
  const pre = new PreProjection()
  const preKeys = keyRex.map(r => pre.add(r))
  const aggs = g.aggCalls.map((call, i) => g.bindAggCall(call, pre, n + i))
  const preFields = pre.fields(g.input.fields)
  const project: LogicalPlan = { kind: 'Project', input: g.input, exprs: pre.exprs, fields: preFields, span: sel.span }
  const idType = T.bigint(false)
  const { expand, keyFields, aggs: shifted, idColumn } = expandSets({ project, keyCols: preKeys, keyTypes: keyRex.map(r => r.type), sets, aggs, span })
  const outFields: Field[] = [...keyFields, { name: '$e', type: idType }, ...shifted.map(a => ({ name: a.name, type: a.type }))]
  const aggregate: LogicalPlan = {
    kind: 'Aggregate',
    input: expand,
    keys: [...keyFields.map((_, i) => i), idColumn],
    aggs: shifted,
    distinct: false,
    ttlMs: g.ttl.ms,
    ttlSource: g.ttl.source,
    fields: outFields,
    span: sel.span,
  }
  const id = inputRef(n, idType)
  const grouping = new Map<ast.FunctionCall, Rex>()
  for (const call of g.groupingCalls) grouping.set(call, groupingValue(call, id, n, scope, keyOf))
  const mapping: AggregateMapping = {
    inputScope: scope,
    groupOutput: new Map([...keyOf].map(([k, i]) => [k, i])),
    aggOutput: new Map(g.aggCalls.map((c, i) => [c, n + 1 + i])),
    outputTypes: outFields.map(f => f.type),
    grouping,
  }
  return { aggregate, mapping }
}

/** The distinct GROUP BY expressions, each one's position by rexKey, and the grouping sets as sets of positions. */
export function groupingKeys(sel: ast.Select, groupRex: readonly Rex[]): { keyRex: Rex[]; keyOf: Map<string, number>; sets: Set<number>[]; span: Span } {
  // The distinct keys, and each GROUP BY expression's key.
  const keyRex: Rex[] = [], keyOf = new Map<string, number>()
  const exprKey = groupRex.map(r => {
    const k = rexKey(r)
    let i = keyOf.get(k)
    if (i === undefined) keyOf.set(k, i = keyRex.push(r) - 1)
    return i
  })
  const n = keyRex.length
  const span = sel.groupingSets?.span ?? sel.groupBy?.[0]?.span ?? sel.span
  if (n > MAX_KEYS) {
    throw WeirError.unsupported(`GROUPING SETS, ROLLUP and CUBE take at most ${MAX_KEYS} distinct GROUP BY expressions; this query has ${n}`, { span })
  }
  const sets = (sel.groupingSets?.sets ?? [exprKey.map((_, i) => i)]).map(s => new Set(s.map(i => exprKey[i]!)))
  // Each GROUP BY expression groups some set (as parsed); a rewrite that added keys to GROUP BY alone would NULL them everywhere.
  if (!keyRex.every((_, i) => sets.some(s => s.has(i)))) throw WeirError.internal('a GROUP BY expression is in no grouping set')
  return { keyRex, keyOf, sets, span }
}

/**
 * GROUPING(a, b, …): the bits of the id for a, b, … (a the highest), as BIGINT NOT NULL. GROUP_ID():
 * the ordinal of the row's set among the sets listed alike (0 for the first), the id above its n bits.
 */
export function groupingValue(call: ast.FunctionCall, id: Rex, n: number, scope: Scope, keyOf: ReadonlyMap<string, number>): Rex {
  const name = call.name.value.toUpperCase()
  if (name === 'GROUP_ID') {
    if (call.args.length > 0) {
      throw WeirError.plan(`GROUP_ID takes no arguments, got ${call.args.length}`, { span: call.span,
        help: 'GROUP_ID() tells apart grouping sets listed more than once: 0 for the first, 1 for the second…' })
    }
    return n === 0 ? literal(0, T.bigint(false)) : resolveCall('/', [id, literal(2 ** n, T.bigint(false))])
  }
  if (call.args.length === 0) {
    throw WeirError.plan(`${name} takes one or more GROUP BY expressions`, { span: call.span, help: `write e.g. ${name}(a, b)` })
  }
  const bigint = (v: number): Rex => literal(v, T.bigint(false))
  let value: Rex | undefined
  call.args.forEach((arg, j) => {
    const key = keyOf.get(rexKey(bindExpr(arg, { scope, clause: name })))
    if (key === undefined) {
      throw WeirError.plan(`the argument of ${name} must be a GROUP BY expression`, { span: arg.span,
        help: 'GROUPING tells whether a GROUP BY expression is aggregated away in a row; add it to GROUP BY or GROUPING SETS' })
    }
    const shift = 2 ** (n - 1 - key), weight = 2 ** (call.args.length - 1 - j)
    const bit = resolveCall('%', [shift === 1 ? id : resolveCall('/', [id, bigint(shift)]), bigint(2)])
    const weighted = weight === 1 ? bit : resolveCall('*', [bit, bigint(weight)])
    value = value === undefined ? weighted : resolveCall('+', [value, weighted])
  })
  return value!
}

export interface ExpandSetsInput {
  /** The pre-projection the Expand reads. */
  readonly project: LogicalPlan
  /** Each distinct key's pre-projection column; undefined for a key in every set that the Expand does not emit (a window's bounds). */
  readonly keyCols: readonly (number | undefined)[]
  readonly keyTypes: readonly DataType[]
  /** The grouping sets, as sets of key positions. */
  readonly sets: readonly ReadonlySet<number>[]
  readonly aggs: readonly AggCall[]
  /** Further pre-projection columns to carry through unchanged (a window's time column). */
  readonly alsoCarry?: readonly number[]
  readonly span: Span
}

/**
 * The Expand of grouping sets: [emitted keys (NULL outside the set)…, carried columns…, $e] once per
 * set; the aggregates re-pointed at the carried columns.
 */
export function expandSets(e: ExpandSetsInput): { expand: LogicalPlan; keyFields: Field[]; aggs: AggCall[]; carriedAt: Map<number, number>; idColumn: number } {
  const n = e.keyCols.length
  const preFields = e.project.fields
  const idType = T.bigint(false)
  const emitted = e.keyCols.flatMap((c, i) => c === undefined ? [] : [{ c, i }])
  const m = emitted.length
  // Every column an aggregate reads: its argument (a user aggregate's further ones too), FILTER and JSON_OBJECTAGG's value.
  const carried = [...new Set([...e.aggs.flatMap(a => [a.arg, a.filter, a.valueArg ?? null, ...(a.args ?? [])]), ...(e.alsoCarry ?? [])]
    .filter((c): c is number => c !== null))].sort((x, y) => x - y)
  const carriedAt = new Map(carried.map((c, i) => [c, m + i]))
  const keyFields: Field[] = emitted.map(({ c, i }) => ({ name: preFields[c]!.name, type: withNullable(withoutTimeAttr(e.keyTypes[i]!), true) }))
  const seen = new Map<number, number>()
  const projections = e.sets.map(set => {
    let mask = 0
    for (let i = 0; i < n; i++) if (!set.has(i)) mask += 2 ** (n - 1 - i)
    const dup = seen.get(mask) ?? 0
    seen.set(mask, dup + 1)
    return [
      ...emitted.map(({ c, i }, j) => set.has(i) ? inputRef(c, preFields[c]!.type) : literal(null, keyFields[j]!.type)),
      ...carried.map(c => inputRef(c, preFields[c]!.type)),
      literal(mask + dup * 2 ** n, idType),
    ]
  })
  const expand: LogicalPlan = {
    kind: 'Expand',
    input: e.project,
    projections,
    fields: [...keyFields, ...carried.map(c => preFields[c]!), { name: '$e', type: idType }],
    span: e.span,
  }
  const aggs = e.aggs.map(a => ({ ...a, arg: a.arg === null ? null : carriedAt.get(a.arg)!, filter: a.filter === null ? null : carriedAt.get(a.filter)!,
    ...(a.valueArg !== undefined ? { valueArg: carriedAt.get(a.valueArg)! } : {}),
    ...(a.args !== undefined ? { args: a.args.map(c => carriedAt.get(c)!) } : {}) })
  )
  return { expand, keyFields, aggs, carriedAt, idColumn: m + carried.length }
}
