// User functions of a session: process table functions, scalar and aggregate functions registered by
// CREATE FUNCTION (their modules loaded and their declarations read), looked up by name,
// case-insensitively, beside the catalog.
import type * as ast from '../grammar/ast.js'
import type { Span } from '../common/span.js'
import { formatType, isIntegral, isNumeric, T, withNullable, type DataType, type Field } from '../common/types.js'
import type { AggCall } from '../core/aggregates.js'
import type { Rex } from '../core/rex.js'
import { implicitCast } from '../expr/cast.js'
import { userOp, withUserFunctions } from '../expr/functions/user.js'
import { withCurrentDatabase } from '../expr/functions/session.js'
import { mkCall, type FunctionDef } from '../expr/registry.js'
import { WeirError } from '../common/errors.js'
import { closest } from '../common/names.js'
import type { ProcessStateInfo } from '../core/process-function.js'
import type { ColumnType, ProcessFunction } from '../ptf/api.js'

/** A process table function as the planner knows it: where its module is, and what it declared. */
export interface CatalogFunction {
  readonly kind: 'process'
  readonly name: string
  /** Absolute path of its module. */
  readonly module: string
  readonly language: 'TYPESCRIPT' | 'JAVASCRIPT'
  /** Input columns it reads (the input may have more). */
  readonly input: readonly Field[]
  readonly output: readonly Field[]
  readonly args: readonly Field[]
  readonly states: readonly ProcessStateInfo[]
  readonly timers: boolean
  /** 'retract': it emits changes of its rows (an updating stream); 'upsert': the latest row per upsert key. */
  readonly changelog: 'insert-only' | 'retract' | 'upsert'
  /** With 'upsert': the output columns that, after the PARTITION BY columns, identify a row. */
  readonly upsertKey: readonly string[]
  readonly span: Span
}

export function dataTypeOf(t: ColumnType): DataType {
  switch (t) {
    case 'STRING':
      return T.string()
    case 'BOOLEAN':
      return T.boolean()
    case 'INT':
      return T.int()
    case 'BIGINT':
      return T.bigint()
    case 'FLOAT':
      return T.float()
    case 'DOUBLE':
      return T.double()
    case 'TIMESTAMP(3)':
      return T.timestamp(3)
  }
}

const fieldsOf = (cols: Readonly<Record<string, ColumnType>> | undefined): Field[] =>
  Object.entries(cols ?? {}).map(([name, type]) => ({ name, type: dataTypeOf(type) }))

/** The states a process function declares, as its spec (EXPLAIN, checkpoints) records them. */
export function processStateInfos(def: ProcessFunction): ProcessStateInfo[] {
  return Object.entries(def.state ?? {}).map(([field, d]) => ({
    field,
    name: d.name,
    kind: d.kind,
    ttlMs: d.ttlMs,
    updateTtlOnRead: d.updateTtlOnRead,
    // The default codec is not written, so plans and checkpoints from before codecs read the same.
    ...(d.codecId !== undefined && d.codecId !== 'json' ? { codec: d.codecId } : {}),
  }))
}

/** What CREATE FUNCTION registers for a loaded module. */
export function catalogFunction(stmt: ast.CreateFunction, module: string, language: CatalogFunction['language'], def: ProcessFunction): CatalogFunction {
  const states = processStateInfos(def)

  return {
    kind: 'process',
    name: stmt.name.parts.at(-1)!.value,
    module,
    language,
    input: fieldsOf(def.input),
    output: fieldsOf(def.output),
    args: fieldsOf(def.args),
    states,
    timers: typeof def.onTimer === 'function',
    changelog: def.changelog ?? 'insert-only',
    upsertKey: def.upsertKey ?? [],
    span: stmt.span,
  }
}

/** A user-defined scalar or aggregate function (udf/api.ts) as the planner knows it. */
export interface UserScalarOrAggregate {
  readonly kind: 'scalar' | 'aggregate'
  readonly name: string
  /** Absolute path of its module, and the export that defines it. */
  readonly module: string
  readonly export: string
  readonly language: 'TYPESCRIPT' | 'JAVASCRIPT'
  readonly args: readonly Field[]
  readonly returns: DataType
  /** 'strict': a NULL argument gives NULL (scalar) or skips the row (aggregate). */
  readonly nulls: 'strict' | 'call'
  /** Aggregates: it can take rows back (so it may run over an updating input), and merge accumulators (SESSION windows). */
  readonly retract: boolean
  readonly merge: boolean
  readonly span: Span
}

export type SessionFunction = CatalogFunction | UserScalarOrAggregate

/** The session's user functions. */
export class FunctionRegistry {
  private readonly byName = new Map<string, SessionFunction>()

  get(name: string): SessionFunction | undefined {
    return this.byName.get(name.toLowerCase())
  }

  /** The process table function called `name` at `span`, or an error naming the closest one. */
  resolve(name: ast.Ident): CatalogFunction {
    const found = this.get(name.value)
    if (found?.kind === 'process') return found
    if (found !== undefined) {
      throw WeirError.plan(`'${found.name}' is a ${found.kind} function, not a table function`, {
        span: name.span,
        help: `call it in an expression: SELECT ${found.name}(${found.args.map(a => a.name).join(', ')}) FROM …`,
      })
    }
    // TABLE(f(…)) reaches here for any name but a window function's: a misspelt TUMBLE is one too.
    const guess = closest(name.value, [...[...this.byName.values()].filter(f => f.kind === 'process').map(f => f.name), 'TUMBLE', 'HOP', 'CUMULATE', 'SESSION'])
    throw WeirError.plan(`table function '${name.value}' not found`, {
      span: name.span,
      help: guess ? `did you mean '${guess}'?` : `create it first: CREATE FUNCTION ${name.value} AS './${name.value}.ts' LANGUAGE TYPESCRIPT`,
    })
  }

  /** False when it exists and `ifNotExists`; an error when it exists otherwise. */
  add(fn: SessionFunction, ifNotExists: boolean, span: Span): boolean {
    const key = fn.name.toLowerCase()
    if (this.byName.has(key)) {
      if (ifNotExists) return false
      throw WeirError.plan(`function '${fn.name}' already exists`, { span, help: `DROP FUNCTION ${fn.name} first, or write CREATE FUNCTION IF NOT EXISTS` })
    }
    this.byName.set(key, fn)
    return true
  }

  drop(name: ast.QualifiedName, ifExists: boolean): boolean {
    const id = name.parts.at(-1)!
    if (this.byName.delete(id.value.toLowerCase())) return true
    if (ifExists) return false
    const guess = closest(id.value, [...this.byName.values()].map(f => f.name))
    throw WeirError.plan(`function '${id.value}' not found`, { span: id.span, help: guess ? `did you mean '${guess}'?` : 'SHOW FUNCTIONS lists them' })
  }

  list(): readonly SessionFunction[] {
    return [...this.byName.values()]
  }
}

// ------------------------------------------------------------------ calls in expressions

/** Where an aggregate call's definition is (core/aggregates.ts AggCall.user). */
export type UserAggregateRef = NonNullable<AggCall['user']>

let active: { readonly registry: FunctionRegistry; readonly skip: boolean } | undefined

/**
 * Binds with the session's scalar and aggregate functions visible (QueryBinder.bindQuery). Binding is
 * synchronous, so one session's functions are never seen while another session binds.
 */
export function withSessionFunctions<T>(registry: FunctionRegistry, skip: boolean, database: string, bind: () => T): T {
  const outer = active
  active = { registry, skip }
  try {
    return withCurrentDatabase(database, () =>
      withUserFunctions(name => {
        const fn = registry.get(name)
        return fn === undefined || fn.kind === 'process' ? undefined : userCallDef(fn, skip)
      }, bind))
  } finally {
    active = outer
  }
}

/** The session's aggregate function called `name`, while a query is being bound. */
export function userAggregate(name: string): UserScalarOrAggregate | undefined {
  const fn = active?.registry.get(name)
  return fn?.kind === 'aggregate' ? fn : undefined
}

/** Whether failing user functions are skipped ('weir.udf.on-error' = 'skip') in the query being bound. */
export function skipFailingCalls(): boolean {
  return active?.skip ?? false
}

/** `name(a STRING, b INT) → INT`, for messages. */
export function userSignature(fn: UserScalarOrAggregate): string {
  return `${fn.name}(${fn.args.map(a => `${a.name} ${formatType(a.type)}`).join(', ')}) → ${formatType(fn.returns)}`
}

/** Whether an argument of type `have` may be passed for a parameter declared `want` (then converted to it). */
function accepts(want: DataType, have: DataType): boolean {
  if (have.kind === 'NULL') return true
  switch (want.kind) {
    case 'INT':
      return have.kind === 'INT' || have.kind === 'SMALLINT' || have.kind === 'TINYINT'
    case 'BIGINT':
      return isIntegral(have)
    case 'DOUBLE':
      // A FLOAT takes what Flink casts to it implicitly: every number but a DOUBLE (which would narrow).
      return isNumeric(have) && !(want.float === true && have.kind === 'DOUBLE' && have.float !== true)
    case 'TIMESTAMP':
      return have.kind === 'TIMESTAMP' || have.kind === 'TIMESTAMP_LTZ'
    default:
      return have.kind === want.kind
  }
}

/**
 * The arguments of a call of `fn` checked against its declaration and converted to the declared
 * types, or an error at the call saying what it takes.
 */
export function checkUserArgs(fn: UserScalarOrAggregate, args: readonly Rex[], span: Span | undefined): Rex[] {
  const signature = userSignature(fn)
  if (args.length !== fn.args.length) {
    throw WeirError.plan(`'${fn.name}' takes ${fn.args.length} argument${fn.args.length === 1 ? '' : 's'} but was given ${args.length}`, {
      span,
      help: `call it as ${signature}`,
    })
  }
  return args.map((a, i) => {
    const want = fn.args[i]!.type
    if (!accepts(want, a.type)) {
      throw WeirError.plan(
        `cannot apply '${fn.name}' to (${args.map(x => formatType(withNullable(x.type, true))).join(', ')}): argument ${i + 1} ('${fn.args[i]!.name}') is ${
          formatType(want)
        }`,
        { span, help: `it is declared ${signature}; CAST the argument, or change 'args' in ${fn.module}` },
      )
    }
    return implicitCast(a, withNullable(want, a.type.nullable), span)
  })
}

function userCallDef(fn: UserScalarOrAggregate, skip: boolean): FunctionDef {
  return {
    names: [fn.name],
    signature: userSignature(fn),
    bind: (args, ctx) => {
      if (fn.kind === 'aggregate') {
        throw ctx.error(`'${fn.name}' is an aggregate function and cannot be used here`,
          'call it in the SELECT list or HAVING of a query with GROUP BY (or over a window TVF)')
      }
      const typed = checkUserArgs(fn, args, ctx.span)
      return mkCall(userOp({ name: fn.name, module: fn.module, export: fn.export, skip }), typed, withNullable(fn.returns, true), ctx.span)
    },
  }
}
