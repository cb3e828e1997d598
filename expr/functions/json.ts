// Flink's JSON query functions in their plain call form — JSON_EXISTS(json, path), JSON_VALUE(json,
// path), JSON_QUERY(json, path) — with their default behaviours (JSON_EXISTS: FALSE ON ERROR;
// JSON_VALUE and JSON_QUERY: NULL ON EMPTY, NULL ON ERROR, and JSON_QUERY WITHOUT ARRAY WRAPPER), and
// JSON_STRING(value). Text that is not JSON, a strict path that does not apply, or a result of the
// wrong shape (an object for JSON_VALUE, a scalar for JSON_QUERY) is the "error" case; a path that
// matches nothing the "empty" one. A literal path that cannot be parsed is refused where it is written.
import { T, type DataType } from '../../common/types.js'
import { formatDate, formatDecimal, formatTimestamp } from '../../common/values.js'
import { checkArgs, literalValue, mkCall, type BindContext, type CallRex, type FunctionDef, type Impl } from '../registry.js'
import type { Rex } from '../../core/rex.js'
import { typeName } from '../coercion.js'
import { evalJsonPath, type JsonPath, JsonPathError, parseJsonPath } from './json-path.js'
import { javaDouble, JsonNumber, type JsonValue, numberText, parseJson, writeJson } from './json-value.js'

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

/**
 * The values `spec` matches in `json`, or undefined for the error case (bad JSON, a strict path that
 * does not apply, or a path from a column that cannot be parsed). A definite path gives at most one.
 */
function query(json: string, spec: string, path: (spec: string) => JsonPath): { values: JsonValue[]; definite: boolean } | undefined {
  try {
    const p = path(spec)
    return { values: evalJsonPath(p, parseJson(json)), definite: p.definite }
  } catch {
    return undefined
  }
}

function bindJson(name: string, signature: string, result: () => ReturnType<typeof T.string>) {
  return (args: readonly Rex[], ctx: BindContext): Rex => {
    const typed = checkArgs(args, ['STRING', 'STRING'], 2, ctx, signature)
    const spec = literalValue(typed[1])
    if (typeof spec === 'string') {
      try {
        parseJsonPath(spec)
      } catch (e) {
        if (e instanceof JsonPathError) throw ctx.error(`${name}: ${e.message}`, `write a path such as '$.a.b[0]' ('lax' or 'strict' may come first)`)
        throw e
      }
    }
    return mkCall(name, typed, { ...result(), nullable: true }, ctx.span)
  }
}

function jsonExists(call: CallRex): Impl {
  const path = pathOf(call)
  return { fn: (json: string, spec: string) => (query(json, spec, path)?.values.length ?? 0) > 0, nulls: 'strict' }
}

/** A scalar's text (a string without its quotes), NULL for JSON null, undefined for an object or array. */
function scalarText(v: JsonValue): string | null | undefined {
  if (v === null) return null
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (v instanceof JsonNumber) return numberText(v)
  return undefined
}

function jsonValue(call: CallRex): Impl {
  const path = pathOf(call)
  return {
    fn: (json: string, spec: string) => {
      const r = query(json, spec, path)
      if (r === undefined || r.values.length !== 1) return null
      return scalarText(r.values[0]!) ?? null
    },
    nulls: 'strict',
  }
}

function jsonQuery(call: CallRex): Impl {
  const path = pathOf(call)
  return {
    fn: (json: string, spec: string) => {
      const r = query(json, spec, path)
      if (r === undefined || r.values.length === 0) return null
      // Several matches are one array (a path with a wildcard); one match must be an object or array.
      if (!r.definite) return writeJson(r.values)
      const v = r.values[0]!
      return v instanceof Map || Array.isArray(v) ? writeJson(v) : null
    },
    nulls: 'strict',
  }
}

/** A timestamp as Java's LocalDateTime.toString prints it (Flink's JSON_STRING): `1990-06-02T13:37`, `…:42`, `…:42.001`. */
function isoTimestamp(ms: number): string {
  const t = formatTimestamp(ms).replace(' ', 'T')
  if (t.endsWith(':00.000')) return t.slice(0, -7)
  return t.endsWith('.000') ? t.slice(0, -4) : t
}

/** JSON_STRING: a SQL value as JSON text, by its type; undefined for a type it does not take. */
function toJson(type: DataType): ((v: never) => string) | undefined {
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
      return (v: number) => javaDouble(v)
    case 'DECIMAL':
      return (v: bigint) => formatDecimal(v, type.scale)
    case 'DATE':
      return (v: number) => JSON.stringify(formatDate(v))
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
    signature: 'JSON_EXISTS(STRING, path)',
    bind: (args, ctx) => {
      const r = bindJson('JSON_EXISTS', 'JSON_EXISTS(STRING, path)', () => T.string())(args, ctx) as CallRex
      return mkCall('JSON_EXISTS', r.args, T.boolean(r.args.some(a => a.type.nullable)), ctx.span)
    },
    impl: jsonExists,
  },
  { names: ['JSON_VALUE'], signature: 'JSON_VALUE(STRING, path)', bind: bindJson('JSON_VALUE', 'JSON_VALUE(STRING, path)', () => T.string()), impl: jsonValue },
  { names: ['JSON_QUERY'], signature: 'JSON_QUERY(STRING, path)', bind: bindJson('JSON_QUERY', 'JSON_QUERY(STRING, path)', () => T.string()), impl: jsonQuery },
  {
    names: ['JSON_STRING'],
    signature: 'JSON_STRING(value)',
    bind: (args, ctx) => {
      const typed = checkArgs(args, ['ANY'], 1, ctx, 'JSON_STRING(value)')
      if (toJson(typed[0]!.type) === undefined) {
        throw ctx.error(`JSON_STRING does not take values of type ${typeName(typed[0]!.type)}`, 'it takes a string, number, boolean, date or timestamp')
      }
      return mkCall('JSON_STRING', typed, T.string(typed[0]!.type.nullable), ctx.span)
    },
    impl: call => ({ fn: toJson(call.args[0]!.type)!, nulls: 'strict' }),
  },
]
