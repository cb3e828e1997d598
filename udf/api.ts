// The public API of user-defined scalar and aggregate functions: a TypeScript (or JavaScript) module
// declares each function's SQL argument and result types and its code with defineScalarFunction /
// defineAggregateFunction; `CREATE FUNCTION f AS './m.ts#export'` makes it callable in expressions.
import type { ColumnType, ValueOf } from '../ptf/api.js'

/** The SQL types a user function's arguments and result may declare (those of process functions). */
export type SqlType = ColumnType

/** The arguments: names and types in order (`{ s: 'STRING', c: 'STRING' }`), or the types alone. */
export type ArgTypes = Readonly<Record<string, SqlType>> | readonly SqlType[]

/**
 * A scalar function: one value per call.
 * - `nulls: 'strict'` (the default): a call with a NULL argument gives NULL without running `eval`;
 *   `'call'`: `eval` sees the nulls.
 * - BIGINT values are numbers (a bigint beyond ±2^53), TIMESTAMP(3) values epoch milliseconds, FLOAT
 *   values numbers holding a 32-bit float (a result is rounded to one with Math.fround).
 */
export interface ScalarFunctionDefinition<A extends ArgTypes, R extends SqlType> {
  readonly args: A
  readonly returns: R
  readonly nulls?: 'strict' | 'call'
  eval(...args: any[]): ValueOf<R> | null | undefined
}

export interface ScalarFunction<A extends ArgTypes = ArgTypes, R extends SqlType = SqlType> extends ScalarFunctionDefinition<A, R> {
  readonly __weir: 'scalar-function'
}

/**
 * An aggregate function. Its accumulator is a JSON-compatible value (numbers, strings, booleans, null,
 * arrays and plain objects), kept per group in keyed state, checkpointed and restored with it.
 * `accumulate`, `retract` and `merge` change the accumulator in place or return the new one. Rows
 * with a NULL argument are skipped unless `nulls: 'call'`. Without `retract`, the function is refused
 * over an updating input (a GROUP BY over a GROUP BY, a regular join …); without `merge`, in SESSION
 * windows.
 */
export interface AggregateFunctionDefinition<A extends ArgTypes, R extends SqlType, Acc> {
  readonly args: A
  readonly returns: R
  readonly nulls?: 'strict' | 'call'
  create(): Acc
  accumulate(acc: Acc, ...args: any[]): Acc | void
  retract?(acc: Acc, ...args: any[]): Acc | void
  merge?(acc: Acc, other: Acc): Acc | void
  getValue(acc: Acc): ValueOf<R> | null | undefined
}

export interface AggregateFunction<A extends ArgTypes = ArgTypes, R extends SqlType = SqlType, Acc = unknown> extends AggregateFunctionDefinition<A, R, Acc> {
  readonly __weir: 'aggregate-function'
}

export type UserFunction = ScalarFunction | AggregateFunction

const TYPES: readonly string[] = ['STRING', 'BOOLEAN', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'TIMESTAMP(3)']

/**
 * A scalar function for `CREATE FUNCTION … AS './module.ts#name'`.
 *
 * @example
 * export const countChar = defineScalarFunction({
 *   args: { s: 'STRING', c: 'STRING' }, returns: 'INT',
 *   eval: (s: string, c: string) => s.split(c).length - 1,
 * })
 */
export function defineScalarFunction<const A extends ArgTypes, const R extends SqlType>(def: ScalarFunctionDefinition<A, R>): ScalarFunction<A, R> {
  const fn = { ...def, __weir: 'scalar-function' as const }
  checkUserFunction(fn)
  return fn
}

/**
 * An aggregate function for `CREATE FUNCTION … AS './module.ts#name'`.
 *
 * @example
 * export const weightedAvg = defineAggregateFunction({
 *   args: { value: 'DOUBLE', weight: 'INT' }, returns: 'DOUBLE',
 *   create: () => ({ sum: 0, weight: 0 }),
 *   accumulate: (acc, v: number, w: number) => { acc.sum += v * w; acc.weight += w },
 *   retract: (acc, v: number, w: number) => { acc.sum -= v * w; acc.weight -= w },
 *   getValue: acc => (acc.weight === 0 ? null : acc.sum / acc.weight),
 * })
 */
export function defineAggregateFunction<const A extends ArgTypes, const R extends SqlType, Acc>(
  def: AggregateFunctionDefinition<A, R, Acc>,
): AggregateFunction<A, R, Acc> {
  const fn = { ...def, __weir: 'aggregate-function' as const }
  checkUserFunction(fn)
  return fn
}

/** The argument types of a definition, in order, with their names (`arg1`… for a list). */
export function argumentsOf(def: { readonly args: ArgTypes }): { name: string; type: SqlType }[] {
  if (Array.isArray(def.args)) return (def.args as readonly SqlType[]).map((type, i) => ({ name: `arg${i + 1}`, type }))
  return Object.entries(def.args as Readonly<Record<string, SqlType>>).map(([name, type]) => ({ name, type }))
}

/** Throws a TypeError saying what is wrong with a definition (a module written in JavaScript is not type-checked). */
export function checkUserFunction(def: unknown): asserts def is UserFunction {
  const d = def as { __weir?: unknown; args?: unknown; returns?: unknown; nulls?: unknown } | null
  if (d === null || typeof d !== 'object') throw new TypeError('the export is not a function definition')
  const kind = d.__weir
  if (kind !== 'scalar-function' && kind !== 'aggregate-function') {
    throw new TypeError('the export was not made by defineScalarFunction or defineAggregateFunction')
  }
  if (d.args === null || typeof d.args !== 'object') throw new TypeError("'args' must list the argument types, e.g. { s: 'STRING' } or ['STRING']")
  for (const { name, type } of argumentsOf(d as { args: ArgTypes })) {
    if (!TYPES.includes(type)) throw new TypeError(`argument '${name}' has type ${JSON.stringify(type)}; the types are ${TYPES.join(', ')}`)
  }
  if (!TYPES.includes(d.returns as string)) throw new TypeError(`'returns' is ${JSON.stringify(d.returns)}; the types are ${TYPES.join(', ')}`)
  if (d.nulls !== undefined && d.nulls !== 'strict' && d.nulls !== 'call') throw new TypeError("'nulls' is 'strict' or 'call'")
  const need = kind === 'scalar-function' ? ['eval'] : ['create', 'accumulate', 'getValue']
  for (const m of need) if (typeof (d as Record<string, unknown>)[m] !== 'function') throw new TypeError(`'${m}' must be a function`)
  for (const m of ['retract', 'merge']) {
    const v = (d as Record<string, unknown>)[m]
    if (kind === 'aggregate-function' && v !== undefined && typeof v !== 'function') throw new TypeError(`'${m}' must be a function when given`)
  }
}
