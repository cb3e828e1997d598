// Flink's JSON query functions JSON_EXISTS, JSON_VALUE and JSON_QUERY with their SQL/JSON clauses,
// which the binder (planner/bind/json-call.ts) passes as literal arguments after the path; without
// them the defaults hold (JSON_EXISTS: FALSE ON ERROR; JSON_VALUE and JSON_QUERY: NULL ON EMPTY, NULL
// ON ERROR; JSON_QUERY WITHOUT ARRAY WRAPPER). As in Flink's Calcite: text that is not JSON, a strict
// path that does not apply, or a result of the wrong shape in strict mode (an object for JSON_VALUE, a
// scalar for JSON_QUERY) is the "error" case; a lax path that matches nothing, JSON null, or a result
// of the wrong shape in lax mode the "empty" one. A literal path that cannot be parsed is refused
// where it is written. toJson writes a scalar as JSON_STRING / JSON_OBJECT do (json-build.ts).
import { T, withNullable, type DataType } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { formatDate, formatDecimal, formatDouble, formatFloat, formatTime, formatTimestamp } from '../../common/values.js'
import { checkArgs, literalValue, mkCall, type BindContext, type CallRex, type FunctionDef, type Impl } from '../registry.js'
import type { Rex } from '../../core/rex.js'
import { typeName } from '../coercion.js'
import { makeCastFn } from '../cast.js'
import { int64 } from '../../common/int64.js'
import { evalJsonPath, type JsonPath, JsonPathError, parseJsonPath } from './json-path.js'
import { JsonNumber, type JsonValue, numberText, parseJson, writeJson } from './json-value.js'

/** Parsed paths of non-literal path arguments, kept up to this many. */
const KEPT_PATHS = 256

/** The path of a call: parsed once when it is a literal, else per distinct text (kept). */
function pathOf(call: CallRex): (spec: string) => JsonPath {
  const literal = literalValue(call.args[1])
  if (typeof literal === 'string') {
    const parsed = parseJsonPath(literal)
    return () => parsed
  }
  const kept = new Map<string, JsonPath>()
  return spec => {
    let p = kept.get(spec)
    if (p === undefined) {
      if (kept.size >= KEPT_PATHS) kept.clear()
      p = parseJsonPath(spec)
      kept.set(spec, p)
    }
    return p
  }
}

/** What a path found: the matches (one at most for a definite path), or why it failed (the error case). */
type Matched = { readonly values: JsonValue[]; readonly path: JsonPath } | { readonly error: string }

/** The values `spec` matches in `json`, or the error: text that is not JSON, a strict path that does not apply, a bad path from a column. */
function query(json: string, spec: string, path: (spec: string) => JsonPath): Matched {
  let p: JsonPath
  try {
    p = path(spec)
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) }
  }
  let doc: JsonValue
  try {
    doc = parseJson(json)
  } catch (e) {
    return { error: `the text is not JSON (${e instanceof Error ? e.message : String(e)})` }
  }
  try {
    return { values: evalJsonPath(p, doc), path: p }
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) }
  }
}

/**
 * The one item a query gives, as Flink's Calcite sees it: a definite path's value (null when it
 * matched nothing or JSON null), else the matches as one array (null when there are none).
 */
function itemOf(values: JsonValue[], path: JsonPath): JsonValue {
  if (path.definite) return values[0] ?? null
  return values.length === 0 ? null : values
}

function isScalar(v: JsonValue): boolean {
  return !(v instanceof Map || Array.isArray(v))
}

/** The SQL/JSON functions' run-time failure (ERROR ON EMPTY / ERROR ON ERROR), naming the path and the text. */
function jsonFailure(fn: string, what: string, spec: string, json: string, clause: string): WeirError {
  const shown = json.length > 200 ? `${json.slice(0, 200)}…` : json
  return WeirError.execution(`${fn}: ${what}; path '${spec}', JSON '${shown}'`, {
    help: `${clause} fails the job here; NULL ${clause.slice(clause.indexOf(' ') + 1)} gives NULL instead`,
  })
}

function bindJson(name: string, signature: string, result: () => DataType) {
  return (args: readonly Rex[], ctx: BindContext): Rex => {
    const typed = checkArgs(args.slice(0, 2), ['STRING', 'STRING'], 2, ctx, signature)
    const spec = literalValue(typed[1])
    if (typeof spec === 'string') {
      try {
        parseJsonPath(spec)
      } catch (e) {
        if (e instanceof JsonPathError) throw ctx.error(`${name}: ${e.message}`, `write a path such as '$.a.b[0]' ('lax' or 'strict' may come first)`)
        throw e
      }
    }
    return mkCall(name, [...typed, ...args.slice(2)], { ...result(), nullable: true }, ctx.span)
  }
}

/** A clause keyword passed as a string literal argument by the binder (json-call.ts), or its default. */
function clauseArg(call: CallRex, at: number, otherwise: string): string {
  const v = literalValue(call.args[at])
  return typeof v === 'string' ? v : otherwise
}

function jsonExists(call: CallRex): Impl {
  const path = pathOf(call)
  const onError = clauseArg(call, 2, 'FALSE')
  return {
    fn: (json: string, spec: string) => {
      const r = query(json, spec, path)
      if (!('error' in r)) return r.values.length > 0
      if (onError === 'ERROR') throw jsonFailure('JSON_EXISTS', r.error, spec, json, 'ERROR ON ERROR')
      return onError === 'TRUE' ? true : onError === 'FALSE' ? false : null
    },
    nulls: 'strict',
  }
}

/** A scalar's text (a string without its quotes), NULL for JSON null, undefined for an object or array. */
function scalarText(v: JsonValue): string | null | undefined {
  if (v === null) return null
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (v instanceof JsonNumber) return numberText(v)
  return undefined
}

const INTEGER_BITS: Partial<Record<DataType['kind'], bigint>> = { TINYINT: 7n, SMALLINT: 15n, INT: 31n, BIGINT: 63n }

/** A JSON number truncated toward zero (as Flink: 13.89 RETURNING INT is 13), or undefined when it is not finite. */
function truncated(v: JsonNumber): bigint | undefined {
  if (v.integer) return BigInt(v.text)
  if (/[eE]/.test(v.text)) {
    const x = Math.trunc(Number(v.text))
    return Number.isFinite(x) ? BigInt(x) : undefined
  }
  return BigInt(v.text.slice(0, v.text.indexOf('.')) || '0')
}

/**
 * A JSON scalar as JSON_VALUE's RETURNING type, or undefined for the error case, as Flink converts
 * it: a number truncated toward zero into an integer type (out of range is an error), a string as
 * CAST reads it (`"42"` is 42, `"account"` an error), a boolean only as BOOLEAN or STRING.
 */
function returning(type: DataType): (v: JsonValue) => unknown {
  if (type.kind === 'STRING') return v => scalarText(v) ?? undefined
  const fromString = makeCastFn(T.string(), type, false)
  const cast = (text: string): unknown => {
    try {
      return fromString(text) ?? undefined
    } catch (e) {
      if (e instanceof WeirError) return undefined
      throw e
    }
  }
  const bits = INTEGER_BITS[type.kind]
  return v => {
    if (typeof v === 'string') return cast(v)
    if (typeof v === 'boolean') return type.kind === 'BOOLEAN' ? v : undefined
    if (!(v instanceof JsonNumber) || type.kind === 'BOOLEAN') return undefined
    if (bits === undefined) return type.kind === 'DOUBLE' ? (type.float === true ? Math.fround(Number(v.text)) : Number(v.text)) : cast(v.text)
    const n = truncated(v)
    if (n === undefined || n < -(1n << bits) || n >= 1n << bits) return undefined
    return type.kind === 'BIGINT' ? int64(n) : Number(n)
  }
}

/** A DEFAULT value as the RETURNING type: for STRING, a number or boolean becomes Java's String.valueOf text (Flink's documented "false"); others were CAST when bound. */
function defaultAs(call: CallRex, at: number): (v: unknown) => unknown {
  const arg = call.args[at]
  if (arg === undefined || call.type.kind !== 'STRING' || arg.type.kind === 'STRING') return v => v
  const text = toJson(arg.type)
  return text === undefined ? v => v : v => (v === null ? null : text(v as never))
}

function jsonValue(call: CallRex): Impl {
  const path = pathOf(call)
  const convert = returning(call.type)
  const onEmpty = clauseArg(call, 3, 'NULL'), onError = clauseArg(call, 5, 'NULL')
  const emptyDefault = defaultAs(call, 4), errorDefault = defaultAs(call, 6)
  const typeText = typeName(call.type).replace(/ NOT NULL$/, '')
  return {
    fn: (json: string | null, spec: string | null, _type?: unknown, _e?: unknown, emptyValue?: unknown, _r?: unknown, errorValue?: unknown) => {
      if (json === null || spec === null) return null
      const r = query(json, spec, path)
      let error: string
      if ('error' in r) error = r.error
      else {
        const item = itemOf(r.values, r.path)
        if (item === null || (!r.path.strict && !isScalar(item))) {
          if (onEmpty === 'ERROR') throw jsonFailure('JSON_VALUE', 'the path matches no scalar value (ERROR ON EMPTY)', spec, json, 'ERROR ON EMPTY')
          return onEmpty === 'DEFAULT' ? emptyDefault(emptyValue ?? null) : null
        }
        if (!isScalar(item)) error = `the path matches ${Array.isArray(item) ? 'an array' : 'an object'}, not a scalar value`
        else {
          const v = convert(item)
          if (v !== undefined) return v
          error = `cannot return ${writeJson(item)} as ${typeText}`
        }
      }
      if (onError === 'ERROR') throw jsonFailure('JSON_VALUE', error, spec, json, 'ERROR ON ERROR')
      return onError === 'DEFAULT' ? errorDefault(errorValue ?? null) : null
    },
    nulls: 'lenient',
  }
}

const QUERY_FALLBACK: Record<string, string | null> = { NULL: null, 'EMPTY ARRAY': '[]', 'EMPTY OBJECT': '{}' }

/** An element of a JSON_QUERY … RETURNING ARRAY<STRING> result, as Flink gives it: a string unquoted, JSON null as NULL, anything else as its JSON text. */
function elementText(v: JsonValue): string | null {
  if (v === null) return null
  return typeof v === 'string' ? v : writeJson(v)
}

function jsonQuery(call: CallRex): Impl {
  const path = pathOf(call)
  const wrapper = clauseArg(call, 2, 'WITHOUT'), onEmpty = clauseArg(call, 3, 'NULL'), onError = clauseArg(call, 4, 'NULL')
  if (call.type.kind === 'ARRAY') return jsonQueryArray(path, wrapper, onEmpty, onError, call.type.element)
  return {
    fn: (json: string, spec: string) => {
      const r = queryWrapped(json, spec, path, wrapper)
      if (r.kind === 'value') {
        if (!isScalar(r.value)) return writeJson(r.value)
        return queryFailed(onError, QUERY_FALLBACK[onError] ?? null, `the path matches the scalar ${writeJson(r.value)}, not an object or array`, spec, json)
      }
      if (r.kind === 'empty') return queryEmpty(onEmpty, QUERY_FALLBACK[onEmpty] ?? null, spec, json)
      return queryFailed(onError, QUERY_FALLBACK[onError] ?? null, r.error, spec, json)
    },
    nulls: 'strict',
  }
}

/** What JSON_QUERY's path gave, its wrapper applied: a value, nothing (a lax path's scalar counts as nothing), or an error. */
type Queried = { readonly kind: 'value'; readonly value: JsonValue } | { readonly kind: 'empty' } | { readonly kind: 'error'; readonly error: string }

function queryWrapped(json: string, spec: string, path: (spec: string) => JsonPath, wrapper: string): Queried {
  const r = query(json, spec, path)
  if ('error' in r) return { kind: 'error', error: r.error }
  const item = itemOf(r.values, r.path)
  const value = item === null || wrapper === 'WITHOUT' ? item : wrapper === 'CONDITIONAL' && Array.isArray(item) ? item : [item]
  if (value === null || (!r.path.strict && isScalar(value))) return { kind: 'empty' }
  return { kind: 'value', value }
}

/** ON EMPTY: fail (ERROR), or the fallback. */
function queryEmpty<T>(onEmpty: string, fallback: T, spec: string, json: string): T {
  if (onEmpty === 'ERROR') throw jsonFailure('JSON_QUERY', 'the path matches no object or array (ERROR ON EMPTY)', spec, json, 'ERROR ON EMPTY')
  return fallback
}

/** ON ERROR: fail (ERROR) naming `error`, or the fallback. */
function queryFailed<T>(onError: string, fallback: T, error: string, spec: string, json: string): T {
  if (onError === 'ERROR') throw jsonFailure('JSON_QUERY', error, spec, json, 'ERROR ON ERROR')
  return fallback
}

/**
 * JSON_QUERY … RETURNING ARRAY<STRING>: as the STRING form (wrapper, empty and error cases alike),
 * then the matched array's elements as strings; an object where an array is wanted is an error, and
 * EMPTY ARRAY gives `[]` (EMPTY OBJECT is refused when planned).
 */
function jsonQueryArray(path: (spec: string) => JsonPath, wrapper: string, onEmpty: string, onError: string, element: DataType): Impl {
  const fallback = (b: string): unknown[] | null => (b === 'EMPTY ARRAY' ? [] : null)
  // STRING: any element as text; another type: a scalar converted as JSON_VALUE … RETURNING converts it.
  const convert = element.kind === 'STRING' ? elementText : returning(element)
  const typeText = typeName(element).replace(/ NOT NULL$/, '')
  return {
    fn: (json: string, spec: string) => {
      const r = queryWrapped(json, spec, path, wrapper)
      if (r.kind === 'value') {
        if (Array.isArray(r.value)) {
          const out: unknown[] = []
          for (const v of r.value) {
            const x = v === null ? null : element.kind === 'STRING' || isScalar(v) ? convert(v) : undefined
            if (x === undefined) return queryFailed(onError, fallback(onError), `cannot return the element ${writeJson(v)} as ${typeText}`, spec, json)
            out.push(x)
          }
          return out
        }
        const error = isScalar(r.value)
          ? `the path matches the scalar ${writeJson(r.value)}, not an object or array`
          : `the path matches an object, not an array (RETURNING ARRAY<${typeText}>)`
        return queryFailed(onError, fallback(onError), error, spec, json)
      }
      if (r.kind === 'empty') return queryEmpty(onEmpty, fallback(onEmpty), spec, json)
      return queryFailed(onError, fallback(onError), r.error, spec, json)
    },
    nulls: 'strict',
  }
}

/** The ARRAY type of JSON_QUERY's RETURNING word ('ARRAY' is ARRAY<STRING>, else 'ARRAY<INT>', 'ARRAY<DECIMAL(10, 2)>'), or undefined for STRING. */
function arrayReturning(word: string): DataType | undefined {
  if (word === 'ARRAY') return T.array(T.string())
  const m = /^ARRAY<([A-Z]+)(?:\((\d+), (\d+)\))?>$/.exec(word)
  if (m === null) return undefined
  const el: DataType = m[1] === 'DECIMAL' ? T.decimal(Number(m[2]), Number(m[3])) : ({ kind: m[1], nullable: true } as DataType)
  return T.array(el)
}

/** A timestamp as Java's LocalDateTime.toString prints it (Flink's JSON_STRING): `1990-06-02T13:37`, `…:42`, `…:42.001`. */
function isoTimestamp(ms: number): string {
  const t = formatTimestamp(ms).replace(' ', 'T')
  if (t.endsWith(':00.000')) return t.slice(0, -7)
  return t.endsWith('.000') ? t.slice(0, -4) : t
}

/** JSON_STRING: a SQL value as JSON text, by its type; undefined for a type it does not take. */
export function toJson(type: DataType): ((v: never) => string) | undefined {
  switch (type.kind) {
    case 'STRING':
      return (v: string) => JSON.stringify(v)
    case 'BOOLEAN':
      return (v: boolean) => (v ? 'true' : 'false')
    case 'INT':
    case 'BIGINT':
    case 'SMALLINT':
    case 'TINYINT':
      return (v: number | bigint) => String(v)
    case 'DOUBLE':
      if (type.float === true) return (v: number) => (Number.isFinite(v) ? formatFloat(v) : formatDouble(v))
      return (v: number) => formatDouble(v)
    case 'DECIMAL':
      return (v: bigint) => formatDecimal(v, type.scale)
    case 'DATE':
      return (v: number) => JSON.stringify(formatDate(v))
    // As Java's LocalTime.toString: 12:34, 12:34:56, 12:34:56.789.
    case 'TIME':
      return (v: number) => JSON.stringify(v % 60_000 === 0 ? formatTime(v).slice(0, 5) : formatTime(v, v % 1000 === 0 ? 0 : 3))
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return (v: number) => JSON.stringify(isoTimestamp(v))
    default:
      return undefined
  }
}

export const JSON_FUNCTIONS: readonly FunctionDef[] = [
  {
    names: ['JSON_EXISTS'],
    signature: 'JSON_EXISTS(STRING, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR])',
    bind: (args, ctx) => {
      const r = bindJson('JSON_EXISTS', 'JSON_EXISTS(STRING, path)', () => T.string())(args, ctx) as CallRex
      const nullable = r.args.slice(0, 2).some(a => a.type.nullable) || literalValue(r.args[2]) === 'UNKNOWN'
      return mkCall('JSON_EXISTS', r.args, T.boolean(nullable), ctx.span)
    },
    impl: jsonExists,
  },
  {
    names: ['JSON_VALUE'],
    signature: 'JSON_VALUE(STRING, path [RETURNING type] [{NULL | ERROR | DEFAULT e} ON EMPTY] [… ON ERROR])',
    // The binder (json-call.ts) passes the RETURNING type as a typed NULL after the path.
    bind: (args, ctx) => {
      const r = bindJson('JSON_VALUE', 'JSON_VALUE(STRING, path)', () => T.string())(args, ctx) as CallRex
      return mkCall('JSON_VALUE', r.args, withNullable(args[2]?.type ?? T.string(), true), ctx.span)
    },
    impl: jsonValue,
  },
  {
    names: ['JSON_QUERY'],
    signature:
      'JSON_QUERY(STRING, path [RETURNING STRING | ARRAY<type>] [{WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]} [ARRAY] WRAPPER] [… ON EMPTY] [… ON ERROR])',
    bind: (args, ctx) => {
      const returning = literalValue(args[5])
      const array = typeof returning === 'string' ? arrayReturning(returning) : undefined
      return bindJson('JSON_QUERY', 'JSON_QUERY(STRING, path)', () => array ?? T.string())(args, ctx)
    },
    impl: jsonQuery,
  },
]
