// The arguments of an aggregate call, shared by GROUP BY / window aggregates and OVER: the
// canonical function name, the argument column, and LISTAGG's separator.
import type * as ast from '../../grammar/ast.js'
import type { DataType } from '../../common/types.js'
import { formatType, isIntegral, isNumeric, T, withNullable, withoutTimeAttr } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { Rex } from '../../core/rex.js'
import { inputsUsed } from '../../core/rex.js'
import { castTo, evalConstant } from '../../expr/index.js'
import type { AggFunctionName } from '../../core/aggregates.js'
import { canonicalAggregate } from '../../expr/aggregate-types.js'
import { distinctTuple } from '../../expr/functions/distinct-tuple.js'
import type { Scope } from './scope.js'
import { checkUserArgs, skipFailingCalls, userAggregate, userSignature, type UserAggregateRef, type UserScalarOrAggregate } from '../functions.js'
import { bindExpr } from './expr-binder.js'
import { resolveCall } from '../../expr/index.js'
import { DEFAULT_PERCENTILE_ACCURACY } from '../../expr/aggregate-types.js'

export interface AggArguments {
  readonly fn: AggFunctionName
  /** Column of the argument (from `add`); null for COUNT(*). */
  readonly arg: number | null
  readonly argType: DataType | null
  readonly separator?: string
  readonly percentile?: { readonly q: number; readonly accuracy: number }
  readonly percentages?: { readonly values: readonly number[]; readonly array: boolean }
  readonly ignoreNulls?: boolean
  readonly valueArg?: number
  /** A user-defined aggregate: its definition, argument columns and result type (`userType` also types PERCENTILE over an ARRAY). */
  readonly user?: UserAggregateRef
  readonly args?: readonly number[]
  readonly userType?: DataType
}

/** Aggregates that accept DISTINCT (the others refuse it rather than ignore it). */
const DISTINCT_OK = new Set<string>(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'ARRAY_AGG', 'COLLECT', 'APPROX_COUNT_DISTINCT', 'STDDEV_POP', 'STDDEV_SAMP',
  'VAR_POP', 'VAR_SAMP', 'FIRST_VALUE', 'LAST_VALUE', 'LISTAGG'])

/** Binds the arguments of `call`, adding the argument expression as a column with `add`. */
export function bindAggArguments(call: ast.FunctionCall, scope: Scope, add: (r: Rex) => number): AggArguments {
  const user = userAggregate(call.name.value)
  if (user !== undefined) return bindUserAggArguments(user, call, scope, add)
  const written = call.name.value.toUpperCase()
  const fn = canonicalAggregate(written)
  if (call.star) {
    if (fn !== 'COUNT') throw WeirError.plan(`${written}(*) is not valid`, { span: call.span, help: `only COUNT takes *; write ${written}(column)` })
    return { fn, arg: null, argType: null }
  }
  if (call.distinct && !DISTINCT_OK.has(fn)) {
    const flink = fn === 'JSON_OBJECTAGG' ? ' (nor in Flink)' : fn === 'APPROX_PERCENTILE' ? '' : ' yet (Flink has it)'
    throw WeirError.unsupported(`${written}(DISTINCT …) is not supported${flink}`, {
      span: call.span,
      help: `remove DISTINCT, or apply ${written} to a DISTINCT subquery`,
    })
  }
  if (fn === 'COUNT' && call.distinct && call.args.length > 1) {
    const parts = call.args.map(a => bindExpr(a, { scope, clause: 'the arguments of COUNT(DISTINCT …)' }))
    return { fn, arg: add(distinctTuple(parts, call.span)), argType: T.string(true) }
  }
  if (fn === 'JSON_OBJECTAGG') {
    // The grammar wrote the value as its JSON text (grammar/json-clauses.ts jsonObjectAgg): [key, text].
    const key = bindExpr(call.args[0]!, { scope, clause: 'the key of JSON_OBJECTAGG' })
    const text = bindExpr(call.args[1]!, { scope, clause: 'the value of JSON_OBJECTAGG' })
    return { fn, arg: add(key), argType: withoutTimeAttr(key.type), valueArg: add(text) }
  }
  if (fn === 'APPROX_PERCENTILE') return bindApproxPercentile(call, scope, add)
  if (fn === 'PERCENTILE') return bindPercentile(call, scope, add)
  const maxArgs = fn === 'LISTAGG' ? 2 : 1
  if (call.args.length < 1 || call.args.length > maxArgs) {
    throw WeirError.plan(`${written} takes ${maxArgs === 2 ? 'one or two arguments' : 'one argument'}, got ${call.args.length}`, {
      span: call.span,
      help: fn === 'LISTAGG'
        ? "write LISTAGG(expression) or LISTAGG(expression, 'separator')"
        : undefined,
    })
  }
  const rex = bindExpr(call.args[0]!, { scope, clause: `the argument of ${written}` })
  const arg = add(rex)
  let separator: string | undefined
  const sep = call.args[1]
  if (sep !== undefined) {
    if (sep.kind !== 'Literal' || sep.type !== 'string') {
      throw WeirError.unsupported("LISTAGG's separator must be a string literal", { span: sep.span,
        help: "write the separator as a constant, e.g. LISTAGG(name, '; ')" })
    }
    separator = sep.text
  }
  const ignoreNulls = call.nullTreatment?.value === 'IGNORE'
  if (fn === 'ARRAY_AGG' && call.distinct && call.nullTreatment?.value === 'RESPECT') {
    throw WeirError.unsupported('ARRAY_AGG(DISTINCT x RESPECT NULLS) is not supported', { span: call.nullTreatment.span,
      help: 'DISTINCT leaves NULL out, as COUNT(DISTINCT x) does: write ARRAY_AGG(DISTINCT x)' })
  }
  return { fn, arg, argType: withoutTimeAttr(rex.type), ...(separator !== undefined ? { separator } : {}), ...(ignoreNulls ? { ignoreNulls } : {}) }
}

/** APPROX_PERCENTILE(x, percentage [, accuracy]): both literals, the percentage in [0, 1], the accuracy in (0, 1). */
function bindApproxPercentile(call: ast.FunctionCall, scope: Scope, add: (r: Rex) => number): AggArguments {
  const help = 'write APPROX_PERCENTILE(x, 0.95) or APPROX_PERCENTILE(x, 0.95, 0.001): the percentage in [0, 1], the relative accuracy in (0, 1), default 0.01'
  if (call.args.length < 2 || call.args.length > 3) {
    throw WeirError.plan(`APPROX_PERCENTILE takes two or three arguments, got ${call.args.length}`, { span: call.span, help })
  }
  const constant = (e: ast.Expr, what: string, ok: (v: number) => boolean): number => {
    const v = e.kind === 'Literal' && e.type === 'number' ? Number(e.text) : NaN
    if (!Number.isFinite(v) || !ok(v)) {
      throw WeirError.plan(`APPROX_PERCENTILE's ${what} must be a numeric literal ${what === 'percentage' ? 'in [0, 1]' : 'in (0, 1)'}`, { span: e.span, help })
    }
    return v
  }
  const q = constant(call.args[1]!, 'percentage', v => v >= 0 && v <= 1)
  const accuracy = call.args[2] === undefined ? DEFAULT_PERCENTILE_ACCURACY : constant(call.args[2], 'accuracy', v => v > 0 && v < 1)
  const rex = bindExpr(call.args[0]!, { scope, clause: 'the argument of APPROX_PERCENTILE' })
  return { fn: 'APPROX_PERCENTILE', arg: add(rex), argType: withoutTimeAttr(rex.type), percentile: { q, accuracy } }
}

/**
 * PERCENTILE(x, percentage [, frequency]) as Flink's: the percentage a constant in [0, 1] or an ARRAY
 * of them (then the result is ARRAY<DOUBLE>), the frequency an integer column (rows whose frequency
 * is NULL or ≤ 0 are left out).
 */
function bindPercentile(call: ast.FunctionCall, scope: Scope, add: (r: Rex) => number): AggArguments {
  const help = 'write PERCENTILE(x, 0.5), PERCENTILE(x, ARRAY[0.25, 0.75]) or PERCENTILE(x, 0.5, frequency): percentages in [0, 1]'
  if (call.args.length < 2 || call.args.length > 3) {
    throw WeirError.plan(`PERCENTILE takes two or three arguments, got ${call.args.length}`, { span: call.span, help })
  }
  const rex = bindExpr(call.args[0]!, { scope, clause: 'the argument of PERCENTILE' })
  if (!isNumeric(rex.type) && rex.type.kind !== 'NULL') {
    throw WeirError.plan(`PERCENTILE does not accept ${formatType(withNullable(rex.type, true))}`, { span: call.args[0]!.span,
      help: 'PERCENTILE takes a number: CAST the argument to a numeric type' })
  }
  const pExpr = call.args[1]!
  const p = bindExpr(pExpr, { scope, clause: 'the percentage of PERCENTILE' })
  const array = p.type.kind === 'ARRAY'
  if (inputsUsed(p).size > 0 || !(array ? isNumeric(p.type.element) : isNumeric(p.type))) {
    throw WeirError.plan('the percentage of PERCENTILE must be a numeric constant or an ARRAY of them', { span: pExpr.span, help })
  }
  const value = evalConstant(castTo(p, array ? T.array(T.double(false), false) : T.double(false), pExpr.span))
  const values = value == null ? null : array ? (value as (number | null)[]) : [value as number]
  if (values === null || values.some(v => v === null || !(v >= 0 && v <= 1))) {
    const bad = values === null ? 'NULL' : String(values.find(v => v === null || !(v >= 0 && v <= 1)))
    throw WeirError.plan(`the percentage of PERCENTILE must be between 0 and 1, got ${bad}`, { span: pExpr.span, help })
  }
  let valueArg: number | undefined
  const fExpr = call.args[2]
  if (fExpr !== undefined) {
    const f = bindExpr(fExpr, { scope, clause: 'the frequency of PERCENTILE' })
    if (!isIntegral(f.type) && f.type.kind !== 'NULL') {
      throw WeirError.plan(`the frequency of PERCENTILE must be an integer, got ${formatType(withNullable(f.type, true))}`, { span: fExpr.span,
        help: 'the frequency is how many times the row counts: an INT or BIGINT column (rows where it is NULL or ≤ 0 are left out)' })
    }
    valueArg = add(f)
  }
  return { fn: 'PERCENTILE', arg: add(rex), argType: withoutTimeAttr(rex.type), percentages: { values: values as number[], array },
    ...(valueArg !== undefined ? { valueArg } : {}), ...(array ? { userType: T.array(T.double(true), true) } : {}) }
}

/** A user-defined aggregate's arguments: checked against its declaration, each a pre-projected column. */
function bindUserAggArguments(fn: UserScalarOrAggregate, call: ast.FunctionCall, scope: Scope, add: (r: Rex) => number): AggArguments {
  if (call.star || call.nullTreatment !== undefined || (call.distinct && call.args.length === 0)) {
    throw WeirError.unsupported(
      `${
        call.star ? '*' : call.distinct ? 'DISTINCT without arguments' : `${call.nullTreatment!.value} NULLS`
      } is not supported for the user aggregate '${fn.name}'`,
      { span: call.span, help: `call it as ${userSignature(fn)}` },
    )
  }
  const bound = call.args.map(a => bindExpr(a, { scope, clause: `the arguments of ${fn.name}` }))
  const checked = checkUserArgs(fn, bound, call.span)
  const args = checked.map(add)
  const user: UserAggregateRef = { name: fn.name, module: fn.module, export: fn.export, skip: skipFailingCalls(), retract: fn.retract, merge: fn.merge }
  const first = args[0]
  // DISTINCT over several arguments keeps their combinations: one ROW column, the distinct value counts' key.
  const arg = call.distinct && checked.length > 1 ? add(resolveCall('ROW', checked, call.span)) : first ?? null
  return { fn: 'USER', arg, argType: first === undefined ? null : fn.args[0]!.type, user, args, userType: withNullable(fn.returns, true) }
}
