// The shape of a scalar function definition (binding rules + run-time implementation) and the
// argument-checking helpers the function families share.
import type { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import { T, isIntegral, isNumeric, type DataType } from '../common/types.js'
import type { Rex } from '../core/rex.js'
import { typeName } from './coercion.js'

export type CallRex = Extract<Rex, { kind: 'Call' }>

/** A run-time implementation. `strict`: the compiler yields NULL without calling `fn` when any argument is NULL. */
export interface Impl {
  readonly fn: (...args: any[]) => unknown
  readonly nulls: 'strict' | 'lenient'
}

/** What a function's `bind` may use: its span, errors pointing there, and other functions. */
export interface BindContext {
  /** The name as the user wrote it (upper case), for messages. */
  readonly name: string
  readonly span: Span | undefined
  /** Resolves another operator or function (for rewrites such as BETWEEN → AND of comparisons). */
  call(name: string, args: readonly Rex[]): Rex
  /** An implicit conversion (see cast.ts implicitCast). */
  cast(rex: Rex, to: DataType): Rex
  /** A plan error at the call's span. */
  error(message: string, help?: string): WeirError
}

/** One scalar operator or function. */
export interface FunctionDef {
  /** The canonical name first (as stored in Rex), then aliases. */
  readonly names: readonly string[]
  /** How help text shows the arguments: 'SUBSTRING(STRING, INT[, INT])'. */
  readonly signature: string
  /** Type-checks and coerces the arguments; returns the typed expression (usually a Call). */
  readonly bind: (args: readonly Rex[], ctx: BindContext) => Rex
  /** The run-time implementation for one typed call, for operators the compiler does not inline. */
  readonly impl?: (call: CallRex) => Impl
  /**
   * Optional inline JavaScript for a strict call, given the argument expressions (cheap to repeat,
   * known non-null): `a => \`${a[0]}.toUpperCase()\``. Preferred over `impl` by the compiler;
   * returning '' falls back to `impl` (for argument types the inline form does not cover).
   */
  readonly inline?: (args: readonly string[], call: CallRex) => string
}

/** A typed Call. */
export function mkCall(op: string, args: readonly Rex[], type: DataType, span: Span | undefined): Rex {
  return span === undefined ? { kind: 'Call', op, args, type } : { kind: 'Call', op, args, type, span }
}

export function anyNullable(args: readonly Rex[]): boolean {
  return args.some(a => a.type.nullable)
}

/** A strict implementation from a plain function of non-null values. */
export function strict(fn: (...args: any[]) => unknown): (call: CallRex) => Impl {
  const impl: Impl = { fn, nulls: 'strict' }
  return () => impl
}

/** The constant value of a literal argument, or undefined when the argument is not a literal. */
export function literalValue(rex: Rex | undefined): unknown {
  return rex !== undefined && rex.kind === 'Literal' ? rex.value : undefined
}

/** What an argument position accepts, and what it converts the argument to. */
export type Param = 'STRING' | 'INTEGER' | 'NUMERIC' | 'DOUBLE' | 'BOOLEAN' | 'TEMPORAL' | 'ANY'

function accepts(p: Param, t: DataType): boolean {
  if (t.kind === 'NULL') return true
  switch (p) {
    case 'STRING':
      return t.kind === 'STRING'
    case 'INTEGER':
      return isIntegral(t)
    case 'NUMERIC':
    case 'DOUBLE':
      return isNumeric(t)
    case 'BOOLEAN':
      return t.kind === 'BOOLEAN'
    case 'TEMPORAL':
      return t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ' || t.kind === 'DATE'
    case 'ANY':
      return true
  }
}

const NULL_AS: Record<Param, DataType> = {
  STRING: T.string(),
  INTEGER: T.int(),
  NUMERIC: T.int(),
  DOUBLE: T.double(),
  BOOLEAN: T.boolean(),
  TEMPORAL: T.timestamp(3),
  ANY: T.string(),
}

/** Checks the arity and the argument types; returns the arguments converted as the params say. */
export function checkArgs(args: readonly Rex[], params: readonly Param[], minArgs: number, ctx: BindContext, signature: string): Rex[] {
  checkArity(args, minArgs, params.length, ctx, signature)
  return args.map((a, i) => {
    const p = params[i]!
    if (!accepts(p, a.type)) throw badArgs(args, ctx, signature)
    if (a.type.kind === 'NULL') return ctx.cast(a, NULL_AS[p])
    return p === 'DOUBLE' ? ctx.cast(a, T.double(a.type.nullable)) : a
  })
}

export function checkArity(args: readonly Rex[], min: number, max: number, ctx: BindContext, signature: string): void {
  if (args.length >= min && args.length <= max) return
  const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`
  throw ctx.error(`'${ctx.name}' takes ${want} argument${want === '1' || want === 'at least 1' ? '' : 's'} but was given ${args.length}`, signature)
}

export function badArgs(args: readonly Rex[], ctx: BindContext, signature: string): WeirError {
  return ctx.error(`cannot apply '${ctx.name}' to (${args.map(a => typeName(a.type)).join(', ')})`, `expected ${signature}`)
}

/** A unit given as a string literal ('DAY'), upper-cased, or an error naming the accepted units. */
export function unitArg(rex: Rex | undefined, accepted: readonly string[], ctx: BindContext): string {
  const v = literalValue(rex)
  if (typeof v !== 'string') throw ctx.error(`'${ctx.name}' needs a time unit such as DAY as its unit argument`, `units: ${accepted.join(', ')}`)
  let u = v.trim().toUpperCase().replace(/^SQL_TSI_/, '')
  if (u === 'FRAC_SECOND') u = 'MILLISECOND'
  if (!accepted.includes(u) && u.endsWith('S') && accepted.includes(u.slice(0, -1))) u = u.slice(0, -1)
  if (!accepted.includes(u)) throw ctx.error(`'${ctx.name}' does not support the unit '${v}'`, `units: ${accepted.join(', ')}`)
  return u
}

/**
 * A function of fixed parameter kinds whose result type depends only on its arguments; the result
 * is nullable when any argument is, or always when `alwaysNullable` (it can give NULL by itself).
 */
export function simple(
  names: readonly string[],
  signature: string,
  params: readonly Param[],
  minArgs: number,
  result: (args: readonly Rex[]) => DataType,
  impl: (call: CallRex) => Impl,
  alwaysNullable = false,
  inline?: FunctionDef['inline'],
): FunctionDef {
  // An INTEGER parameter here is a count or a position, used as a JS number: a BIGINT argument
  // (a bigint beyond 2^53) is read as its nearest number, which is past any string's length anyway.
  const counts = (call: CallRex): number[] => call.args.flatMap((a, i) => (params[i] === 'INTEGER' && a.type.kind === 'BIGINT' ? [i] : []))
  return {
    names,
    signature,
    impl: call => {
      const base = impl(call)
      const at = counts(call)
      if (at.length === 0) return base
      return { nulls: base.nulls, fn: (...xs: unknown[]) => {
        for (const i of at) if (xs[i] != null) xs[i] = Number(xs[i])
        return base.fn(...xs)
      } }
    },
    inline: inline === undefined ? undefined : (a, call) => {
      const at = counts(call)
      return inline(at.length === 0 ? a : a.map((x, i) => (at.includes(i) ? `Number(${x})` : x)), call)
    },
    bind: (args, ctx) => {
      const typed = checkArgs(args, params, minArgs, ctx, signature)
      const t = result(typed)
      return mkCall(names[0]!, typed, { ...t, nullable: alwaysNullable || anyNullable(typed) } as DataType, ctx.span)
    },
  }
}
