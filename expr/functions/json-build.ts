// Flink's JSON construction functions JSON_OBJECT and JSON_ARRAY and the predicate `s IS JSON [type]`.
// A value is written by its SQL type as Flink's JsonGenerateUtils writes it (JSON_STRING's rules for
// scalars; a ROW as an object of its fields, an ARRAY as an array, a MAP as an object), except that an
// argument written as a JSON_OBJECT / JSON_ARRAY call is inserted as JSON, not as a string (the binder,
// json-call.ts, marks those arguments). Members keep their written order, as Jackson's ObjectNode does
// (a repeated key keeps its first place and takes the last value).
import { T, type DataType } from '../../common/types.js'
import { formatType } from '../../common/types.js'
import { checkArity, literalValue, mkCall, type CallRex, type FunctionDef, type Impl } from '../registry.js'
import { toJson } from './json.js'
import { typeName } from '../coercion.js'
import { JsonSyntaxError, parseJson, writeJson } from './json-value.js'
import { WeirError } from '../../common/errors.js'

/** A SQL value as JSON text by its type, nested types included; undefined for a type JSON cannot hold. */
export function jsonWriter(type: DataType): ((v: unknown) => string) | undefined {
  switch (type.kind) {
    case 'ROW': {
      const fields = type.fields.map(f => ({ name: JSON.stringify(f.name), write: jsonWriter(f.type) }))
      if (fields.some(f => f.write === undefined)) return undefined
      return v => `{${fields.map((f, i) => `${f.name}:${nullable(f.write!)((v as unknown[])[i])}`).join(',')}}`
    }
    case 'ARRAY': {
      const element = jsonWriter(type.element)
      if (element === undefined) return undefined
      const write = nullable(element)
      return v => `[${(v as unknown[]).map(write).join(',')}]`
    }
    case 'MAP': {
      const key = type.key.kind === 'STRING' ? (k: unknown) => JSON.stringify(k) : jsonWriter(type.key)
      const value = jsonWriter(type.value)
      if (key === undefined || value === undefined) return undefined
      // Non-string keys become the text of their JSON (an object's keys are strings).
      const keyText = type.key.kind === 'STRING' ? key : (k: unknown) => JSON.stringify(k === null ? 'null' : key(k))
      const write = nullable(value)
      return v => `{${(v as [unknown, unknown][]).map(([k, x]) => `${keyText(k)}:${write(x)}`).join(',')}}`
    }
    default: {
      const write = toJson(type)
      return write === undefined ? undefined : (write as (v: unknown) => string)
    }
  }
}

function nullable(write: (v: unknown) => string): (v: unknown) => string {
  return v => (v === null || v === undefined ? 'null' : write(v))
}

/** The writer of each argument from `first` on: raw JSON text for a marked nested JSON_OBJECT / JSON_ARRAY. */
function writers(call: CallRex, first: number, raw: string, step: number): ((v: unknown) => string)[] {
  const out: ((v: unknown) => string)[] = []
  for (let i = first; i < call.args.length; i += step) {
    const index = (i - first) / step
    out.push(raw[index] === '1' ? v => String(v) : jsonWriter(call.args[i]!.type)!)
  }
  return out
}

function jsonObject(call: CallRex): Impl {
  const absent = literalValue(call.args[0]) === 'ABSENT'
  const raw = String(literalValue(call.args[1]) ?? '')
  const write = writers(call, 3, raw, 2)
  return {
    fn: (...args: unknown[]) => {
      const members = new Map<string, string>()
      for (let i = 2, p = 0; i < args.length; i += 2, p++) {
        const v = args[i + 1]
        if (v === null && absent) continue
        members.set(args[i] as string, v === null ? 'null' : write[p]!(v))
      }
      let out = '{'
      for (const [k, v] of members) out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${v}`
      return `${out}}`
    },
    nulls: 'lenient',
  }
}

function jsonArray(call: CallRex): Impl {
  const absent = literalValue(call.args[0]) === 'ABSENT'
  const raw = String(literalValue(call.args[1]) ?? '')
  const write = writers(call, 2, raw, 1)
  return {
    fn: (...args: unknown[]) => {
      const items: string[] = []
      for (let i = 2; i < args.length; i++) {
        const v = args[i]
        if (v === null) {
          if (!absent) items.push('null')
        } else items.push(write[i - 2]!(v))
      }
      return `[${items.join(',')}]`
    },
    nulls: 'lenient',
  }
}

/** Checks the values' types (the binder built the clause arguments). */
function checkValues(values: readonly CallRex['args'][number][], fn: string, error: (m: string, h?: string) => Error): void {
  for (const v of values) {
    if (v.type.kind !== 'NULL' && jsonWriter(v.type) === undefined) {
      throw error(`${fn} cannot hold a value of type ${formatType(v.type)}`, 'values may be strings, numbers, booleans, dates, timestamps, ROW, ARRAY or MAP')
    }
  }
}

function isJson(call: CallRex): Impl {
  const type = literalValue(call.args[1])
  return {
    fn: (s: string) => {
      let v
      try {
        v = parseJson(s)
      } catch (e) {
        if (e instanceof JsonSyntaxError) return false
        throw e
      }
      if (type === 'OBJECT') return v instanceof Map
      if (type === 'ARRAY') return Array.isArray(v)
      if (type === 'SCALAR') return !(v instanceof Map || Array.isArray(v))
      return true
    },
    // NULL for a NULL input, IS NOT JSON too (Flink's three-valued IS JSON, FLINK-39943)
    nulls: 'strict',
  }
}

/** JSON(s): the JSON text `s` as a value of JSON_OBJECT / JSON_ARRAY, compacted as Flink writes it; NULL for NULL or blank text. */
function rawJson(s: string): string | null {
  if (s.trim() === '') return null
  try {
    return writeJson(parseJson(s))
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e
    throw WeirError.execution(`JSON received text that is not JSON: ${e.message}; text '${s.length > 200 ? `${s.slice(0, 200)}…` : s}'`, {
      help: 'pass JSON text (check it with s IS JSON), or a string value without JSON(…) to have it written as a JSON string',
    })
  }
}

export const JSON_BUILD_FUNCTIONS: readonly FunctionDef[] = [
  {
    names: ['JSON'],
    signature: 'JSON(STRING)',
    // Only the binder of JSON_OBJECT's and JSON_ARRAY's values makes this call (planner/bind/json-call.ts); anywhere else it is refused, as in Flink.
    bind: (_args, ctx) => {
      throw ctx.error('The JSON() function is currently only supported inside a JSON_OBJECT() or JSON_ARRAY() function',
        "use it as a value there: JSON_OBJECT('k' VALUE JSON(payload)), JSON_ARRAY(JSON(payload))")
    },
    impl: () => ({ fn: rawJson, nulls: 'strict' }),
  },
  {
    names: ['JSON_STRING'],
    signature: 'JSON_STRING(value)',
    bind: (args, ctx) => {
      checkArity(args, 1, 1, ctx, 'JSON_STRING(value)')
      const t = args[0]!.type
      if (t.kind !== 'NULL' && jsonWriter(t) === undefined) {
        throw ctx.error(`JSON_STRING does not take values of type ${typeName(t)}`, 'it takes strings, numbers, booleans, dates, timestamps, ROW, ARRAY and MAP')
      }
      const typed = t.kind === 'NULL' ? [ctx.cast(args[0]!, T.string())] : args
      return mkCall('JSON_STRING', typed, T.string(typed[0]!.type.nullable), ctx.span)
    },
    impl: call => ({ fn: jsonWriter(call.args[0]!.type)!, nulls: 'strict' }),
  },
  {
    names: ['JSON_OBJECT'],
    signature: "JSON_OBJECT([KEY] 'k' VALUE v, … [{NULL | ABSENT} ON NULL])",
    // Arguments from the binder: ON NULL, the raw-JSON marks, then keys and values alternating.
    bind: (args, ctx) => {
      checkValues(args.slice(3).filter((_, i) => i % 2 === 0), 'JSON_OBJECT', ctx.error)
      const typed = args.map((a, i) => (i >= 3 && (i - 3) % 2 === 0 && a.type.kind === 'NULL' ? ctx.cast(a, T.string()) : a))
      return mkCall('JSON_OBJECT', typed, T.string(false), ctx.span)
    },
    impl: jsonObject,
  },
  {
    names: ['JSON_ARRAY'],
    signature: 'JSON_ARRAY(v, … [{NULL | ABSENT} ON NULL])',
    bind: (args, ctx) => {
      checkValues(args.slice(2), 'JSON_ARRAY', ctx.error)
      const typed = args.map((a, i) => (i >= 2 && a.type.kind === 'NULL' ? ctx.cast(a, T.string()) : a))
      return mkCall('JSON_ARRAY', typed, T.string(false), ctx.span)
    },
    impl: jsonArray,
  },
  {
    names: ['IS_JSON'],
    signature: 's IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT]',
    bind: (args, ctx) => {
      checkArity(args, 2, 2, ctx, 's IS JSON')
      const s = args[0]!
      if (s.type.kind !== 'STRING' && s.type.kind !== 'NULL') {
        throw ctx.error(`IS JSON applies to strings, not ${formatType(s.type)}`, 'e.g. payload IS JSON OBJECT')
      }
      return mkCall('IS_JSON', [s.type.kind === 'NULL' ? ctx.cast(s, T.string()) : s, args[1]!], T.boolean(s.type.nullable), ctx.span)
    },
    impl: isJson,
  },
]
