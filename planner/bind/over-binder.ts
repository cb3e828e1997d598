// Window function calls of a SELECT list → one logical Over node under the projection. All calls of
// a SELECT share one PARTITION BY / ORDER BY (as in Flink); each call has its own frame.
import type * as ast from '../../grammar/ast.js'
import type { DataType, Field } from '../../common/types.js'
import { T, formatType, timeAttrOf, withoutTimeAttr } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputRef } from '../../core/rex.js'
import type { AggCall } from '../../core/aggregates.js'
import { evalConstant } from '../../expr/index.js'
import { aggregateResultType, AGGREGATE_FUNCTIONS as AGGREGATE_FUNCTIONS_LIST } from '../../expr/aggregate-types.js'
import { bindAggArguments } from './aggregate-args.js'
import { userAggregate } from '../functions.js'
import type { LogicalPlan } from '../logical/nodes.js'
import type { FrameBoundSpec, OrderKey, Over, OverCall, OverFrame } from '../logical/over.js'
import { RANK_FUNCTIONS } from '../logical/over.js'
import { AGGREGATE_FUNCTIONS, bindExpr, rexKey, visitExpr } from './expr-binder.js'
import { isWindowCall, misplacedWindowCall } from './window-calls.js'
import { Scope } from './scope.js'
import { bindLag, refuseUnstreamable } from './over-offset.js'

/** The window function calls of a SELECT list, in order. */
export function windowCallsOf(items: readonly ast.SelectItem[]): ast.FunctionCall[] {
  const calls: ast.FunctionCall[] = []
  for (const item of items) {
    if (item.kind === 'ExprItem') visitExpr(item.expr, e => void (isWindowCall(e) && calls.push(e as ast.FunctionCall)))
  }
  return calls
}

export interface BoundOver {
  readonly plan: Over
  /** Each call → its column of the Over node's output. */
  readonly mapping: ReadonlyMap<ast.FunctionCall, Rex>
}

/**
 * Binds the window calls of `sel` over `input` (scope `scope`). Partition keys, order keys and
 * arguments that are not plain columns are computed by a Project appended to the input's columns.
 */
export function bindOver(sel: ast.Select, input: LogicalPlan, scope: Scope, calls: readonly ast.FunctionCall[],
  ttl: { ms: number; source: string }): BoundOver
{
  const named = namedWindows(sel)
  const n = input.fields.length
  const exprs: Rex[] = input.fields.map((f, i) => inputRef(i, f.type))
  const index = new Map(exprs.map((r, i) => [rexKey(r), i]))
  const add = (rex: Rex): number => {
    const key = rexKey(rex)
    let i = index.get(key)
    if (i === undefined) index.set(key, i = exprs.push(rex) - 1)
    return i
  }
  let shape: { partition: readonly number[]; order: readonly OrderKey[]; spec: ast.WindowSpec } | undefined
  const overCalls: OverCall[] = []
  for (const call of calls) {
    if (call.over === undefined) throw misplacedWindowCall(call, 'SELECT', false)
    const spec = resolveSpec(call, named)
    const partition = spec.partitionBy.map(e => add(bindExpr(e, { scope, clause: 'PARTITION BY' })))
    const order = spec.orderBy.map(o => ({ index: add(bindExpr(o.expr, { scope, clause: 'ORDER BY' })), descending: o.descending,
      nullsFirst: o.nullsFirst ?? !o.descending })
    )
    if (shape === undefined) {
      shape = { partition, order, spec }
    } else if (JSON.stringify([partition, order]) !== JSON.stringify([shape.partition, shape.order])) {
      throw WeirError.unsupported('all window functions of a SELECT must use the same PARTITION BY and ORDER BY', {
        span: spec.span,
        help: 'compute the other window in a subquery (or an outer query) of its own',
      })
    }
    overCalls.push(bindCall(call, spec, order, exprs, add, scope, sel, n + overCalls.length))
  }
  let base = input
  if (exprs.length > n) {
    const fields: Field[] = exprs.map((r, i) => (i < n ? input.fields[i]! : { name: `$f${i}`, type: withoutTimeAttr(r.type) }))
    base = { kind: 'Project', input, exprs, fields, span: sel.span }
  }
  const first = shape!.order[0]
  const attr = first === undefined ? undefined : timeAttrOf(exprs[first.index]!.type)
  const extra = exprs.length - n
  const plan: Over = {
    kind: 'Over',
    input: base,
    partitionKeys: shape!.partition,
    orderKeys: shape!.order,
    ...(attr !== undefined ? { orderTime: attr === 'rowtime' ? 'event' : 'processing' } : {}),
    calls: overCalls,
    ttlMs: ttl.ms,
    ttlSource: ttl.source,
    fields: [...base.fields, ...overCalls.map(c => ({ name: c.name, type: c.type }))],
    span: sel.span,
  }
  // The SELECT list sees the input's columns at their own positions; the calls follow the computed keys.
  const mapping = new Map(calls.map((c, i) => [c, inputRef(n + extra + i, overCalls[i]!.type)]))
  return { plan, mapping }
}

function namedWindows(sel: ast.Select): Map<string, ast.WindowSpec> {
  const named = new Map<string, ast.WindowSpec>()
  for (const w of sel.windows ?? []) {
    const key = w.name.value.toLowerCase()
    if (named.has(key)) throw WeirError.plan(`WINDOW defines '${w.name.value}' twice`, { span: w.name.span })
    named.set(key, w.spec)
  }
  return named
}

function resolveSpec(call: ast.FunctionCall, named: ReadonlyMap<string, ast.WindowSpec>): ast.WindowSpec {
  const over = call.over
  if (over === undefined) throw WeirError.internal('resolveSpec: a call without OVER')
  if (over.kind === 'WindowSpec') return over
  const spec = named.get(over.name.value.toLowerCase())
  if (spec === undefined) {
    throw WeirError.plan(`window '${over.name.value}' is not defined`, {
      span: over.span,
      help: named.size > 0
        ? `the WINDOW clause defines: ${[...named.keys()].join(', ')}`
        : `define it after HAVING (or after FROM … WHERE … GROUP BY): WINDOW ${over.name.value} AS (PARTITION BY … ORDER BY …)`,
    })
  }
  return spec
}

const RANK_FRAME: OverFrame = { unit: 'ROWS', lower: { kind: 'UNBOUNDED_PRECEDING' }, upper: { kind: 'CURRENT_ROW' }, explicit: false }

function bindCall(call: ast.FunctionCall, spec: ast.WindowSpec, order: readonly OrderKey[], exprs: readonly Rex[], add: (r: Rex) => number, scope: Scope,
  sel: ast.Select, position: number): OverCall
{
  const fn = call.name.value.toUpperCase()
  const item = sel.items.find(i => i.kind === 'ExprItem' && i.expr === call)
  const name = item?.kind === 'ExprItem' && item.alias ? item.alias.value : `EXPR$${position}`
  refuseUnstreamable(call)
  if (fn === 'LAG') {
    checkAggregateOrder(fn, spec, order, exprs)
    return bindLag(call, spec, scope, add, RANK_FRAME, name)
  }
  if (RANK_FUNCTIONS.has(fn)) {
    if (call.args.length > 0 || call.star || call.distinct || call.filter) {
      throw WeirError.plan(`${fn}() takes no arguments`, { span: call.span, help: `write ${fn}() OVER (PARTITION BY … ORDER BY …)` })
    }
    if (order.length === 0) {
      throw WeirError.plan(`${fn}() needs ORDER BY in its OVER clause`, { span: spec.span, help: `write ${fn}() OVER (PARTITION BY … ORDER BY column [DESC])` })
    }
    if (spec.frame) {
      throw WeirError.plan(`${fn}() takes no ROWS or RANGE frame`, { span: spec.frame.span,
        help: "remove the frame: a rank counts from the partition's first row" })
    }
    return { fn: fn as OverCall['fn'], frame: RANK_FRAME, type: T.bigint(false), name, span: call.span }
  }
  if (!AGGREGATE_FUNCTIONS.has(fn) && userAggregate(call.name.value) === undefined) {
    throw WeirError.plan(`${fn} is not a window function`, {
      span: call.name.span,
      help: `OVER applies to ROW_NUMBER, RANK, DENSE_RANK, LAG and the aggregates ${AGGREGATE_FUNCTIONS_LIST.join(', ')}`,
    })
  }
  if (fn === 'APPROX_COUNT_DISTINCT') {
    throw WeirError.unsupported('APPROX_COUNT_DISTINCT is not supported in OVER windows (a frame retracts rows; its sketch cannot)', { span: call.span,
      help: 'use COUNT(DISTINCT …) OVER (…), or APPROX_COUNT_DISTINCT in a GROUP BY or window aggregate' })
  }
  checkAggregateOrder(fn, spec, order, exprs)
  const frame = bindFrame(spec.frame)
  const { fn: aggFn, arg, argType, separator, ignoreNulls, percentile, percentages, valueArg, user, args, userType } = bindAggArguments(call, scope, add)
  // A bounded frame takes each row back out as it leaves the frame: a user aggregate needs retract.
  if (user !== undefined && !user.retract && frame.lower.kind !== 'UNBOUNDED_PRECEDING') {
    throw WeirError.unsupported(`the user aggregate '${user.name}' defines no retract, which a bounded OVER frame needs to take rows out`, {
      span: call.span,
      help: `add retract(acc, …args) to its definition in ${user.module}, or use a frame from UNBOUNDED PRECEDING`,
    })
  }
  let filter: number | null = null
  if (call.filter) {
    const cond = bindExpr(call.filter, { scope, clause: 'FILTER' })
    if (cond.type.kind !== 'BOOLEAN') throw WeirError.plan(`FILTER condition must be BOOLEAN, but it is ${formatType(cond.type)}`, { span: call.filter.span })
    filter = add(cond)
  }
  const type = userType ?? aggregateResultType(aggFn, argType, call.span, ignoreNulls)
  const agg: AggCall = { fn: aggFn, arg, argType, distinct: call.distinct, filter, type, name, ...(separator !== undefined ? { separator } : {}),
    ...(ignoreNulls ? { ignoreNulls } : {}), ...(percentile !== undefined ? { percentile } : {}), ...(user !== undefined ? { user, args } : {}),
    ...(percentages !== undefined ? { percentages } : {}), ...(valueArg !== undefined && aggFn === 'PERCENTILE' ? { valueArg } : {}) }
  return { fn: agg.fn, agg, frame, type, name, span: call.span }
}

/** OVER aggregates run in time order: one ascending ORDER BY on a time attribute (Flink's rule). */
function checkAggregateOrder(fn: string, spec: ast.WindowSpec, order: readonly OrderKey[], exprs: readonly Rex[]): void {
  const help = `order the window by the table's event-time column (the one with a WATERMARK) or a PROCTIME() column: ${fn}(…) OVER (PARTITION BY … ORDER BY ts)`
  if (order.length !== 1) {
    throw WeirError.plan(`an OVER aggregate needs exactly one ORDER BY column, a time attribute`, { span: spec.orderBy[1]?.span ?? spec.span, help })
  }
  const type = exprs[order[0]!.index]!.type
  if (timeAttrOf(type) === undefined) {
    throw WeirError.plan(`an OVER aggregate must be ordered by a time attribute, but this is ${formatType(type)}`, { span: spec.orderBy[0]!.span, help })
  }
  if (order[0]!.descending) {
    throw WeirError.unsupported('an OVER aggregate can only be ordered ascending (in time order)', { span: spec.orderBy[0]!.span, help: 'remove DESC' })
  }
}

/** The frame as written, checked; SQL's default (RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) when absent. */
function bindFrame(frame: ast.WindowFrame | undefined): OverFrame {
  if (frame === undefined) return { unit: 'RANGE', lower: { kind: 'UNBOUNDED_PRECEDING' }, upper: { kind: 'CURRENT_ROW' }, explicit: false }
  const lower = bindBound(frame, frame.lower)
  const upper: FrameBoundSpec = frame.upper ? bindBound(frame, frame.upper) : { kind: 'CURRENT_ROW' }
  const at = frame.upper ?? frame.lower
  if (upper.kind !== 'CURRENT_ROW') {
    throw WeirError.unsupported('OVER frames must end at CURRENT ROW', {
      span: at.span,
      help: `a row's result is emitted when the row arrives, before any later row: write ${frame.unit} BETWEEN … PRECEDING AND CURRENT ROW`,
    })
  }
  if (lower.kind === 'FOLLOWING' || lower.kind === 'UNBOUNDED_FOLLOWING') {
    throw WeirError.plan('a frame cannot start after the current row', { span: frame.lower.span,
      help: `write ${frame.unit} BETWEEN … PRECEDING AND CURRENT ROW` })
  }
  return { unit: frame.unit, lower, upper, explicit: true }
}

function bindBound(frame: ast.WindowFrame, b: ast.FrameBound): FrameBoundSpec {
  if (b.kind === 'CURRENT_ROW') return { kind: 'CURRENT_ROW' }
  if (b.kind === 'UNBOUNDED') return { kind: b.direction === 'PRECEDING' ? 'UNBOUNDED_PRECEDING' : 'UNBOUNDED_FOLLOWING' }
  const offset = b.offset!
  const kind = b.direction === 'PRECEDING' ? 'PRECEDING' : 'FOLLOWING'
  if (frame.unit === 'ROWS') {
    if (offset.kind !== 'Literal' || !/^\d+$/.test(offset.text)) {
      throw WeirError.plan('a ROWS frame counts rows: its offset is a whole number', {
        span: offset.span,
        help: `write e.g. ROWS BETWEEN 10 PRECEDING AND CURRENT ROW; for a time span use RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW`,
      })
    }
    return { kind, offset: Number(offset.text) }
  }
  if (offset.kind !== 'IntervalLiteral') {
    throw WeirError.unsupported('a RANGE frame offset must be an INTERVAL (the window is ordered by time)', {
      span: offset.span,
      help: `write e.g. RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW, or count rows with ROWS BETWEEN ${offset.text} PRECEDING AND CURRENT ROW`,
    })
  }
  const bound = bindExpr(offset, { scope: EMPTY_SCOPE, clause: 'the frame' })
  if (bound.type.kind === 'INTERVAL' && bound.type.yearMonth === true) {
    throw WeirError.unsupported('a RANGE frame offset must be a day-time interval', { span: offset.span,
      help: `write e.g. RANGE BETWEEN INTERVAL '30' DAY PRECEDING AND CURRENT ROW` })
  }
  const ms = evalConstant(bound)
  if (typeof ms !== 'number' || ms < 0) throw WeirError.plan('a RANGE frame offset must be a non-negative interval', { span: offset.span })
  return { kind, offset: ms }
}

const EMPTY_SCOPE = new Scope([])
