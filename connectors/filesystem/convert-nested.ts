// Converting decoded JSON values into ROW, ARRAY and MAP values (common/types.ts): an object to a
// ROW by field name (a missing field is NULL, extra ones are ignored, as Flink's JSON format reads
// them), an array to an ARRAY, an object to a MAP (its keys converted to the key type). NULL is
// allowed at every level; a value of the wrong shape is a ConvertError naming the nested field.
import type { DataType } from '../../common/types.js'
import { formatType } from '../../common/types.js'
import { ConvertError } from './convert-error.js'
import type { Converter } from './convert.js'

type Nested = Extract<DataType, { kind: 'ROW' | 'ARRAY' | 'MAP' }>

function shape(v: unknown): string {
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object' && v !== null) return 'an object'
  return typeof v === 'string' ? JSON.stringify(v.length > 60 ? v.slice(0, 60) + '…' : v) : String(v)
}

/** A ConvertError inside a nested value: `path` says where (`.n.z[2]`), outermost first. */
class NestedConvertError extends ConvertError {
  constructor(found: string, readonly base: string, readonly path: string, help?: string) {
    super(found, `${base} at ${path}`, help)
  }
}

/** Runs `convert` on a nested value, adding where it is (`.name`, `[2]`) to an error's path. */
function at(where: string, convert: Converter, v: unknown): unknown {
  if (v === null || v === undefined) return null
  try {
    return convert(v)
  } catch (e) {
    if (e instanceof NestedConvertError) throw new NestedConvertError(e.found, e.base, where + e.path, e.help)
    if (e instanceof ConvertError) throw new NestedConvertError(e.found, e.expected, where, e.help)
    throw e
  }
}

/** A converter for a nested type; `inner` converts the values of the types inside it. */
export function nestedConverter(type: Nested, inner: (t: DataType) => Converter): Converter {
  switch (type.kind) {
    case 'ROW': {
      const names = type.fields.map(f => f.name)
      const convs = type.fields.map(f => inner(f.type))
      const n = names.length
      return v => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConvertError(shape(v), formatType(type))
        const o = v as Record<string, unknown>
        const out = new Array<unknown>(n)
        for (let i = 0; i < n; i++) out[i] = at(`.${names[i]}`, convs[i]!, o[names[i]!])
        return out
      }
    }
    case 'ARRAY': {
      const conv = inner(type.element)
      return v => {
        if (!Array.isArray(v)) throw new ConvertError(shape(v), formatType(type))
        const out = new Array<unknown>(v.length)
        for (let i = 0; i < v.length; i++) out[i] = at(`[${i + 1}]`, conv, v[i])
        return out
      }
    }
    case 'MAP': {
      const key = inner(type.key)
      const value = inner(type.value)
      return v => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConvertError(shape(v), formatType(type))
        const out: [unknown, unknown][] = []
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) out.push([at(`[key '${k}']`, key, k), at(`['${k}']`, value, x)])
        return out
      }
    }
  }
}
