// ROW, ARRAY and MAP values (representation in common/types.ts): the constructors ROW(…) / (a, b),
// ARRAY[…] and MAP[k, v, …], field access (r.f, bound to FIELD), the subscript a[i] / m[k] (ITEM),
// CARDINALITY and ELEMENT. As in Flink: a[i] counts from 1 and is NULL outside the array, m[k] is NULL
// for a missing key, ELEMENT of an empty array is NULL and of a longer one an error.
import { WeirError } from '../../common/errors.js'
import { T, formatType, isIntegral, type DataType, type Field } from '../../common/types.js'
import { literal, type Rex } from '../../core/rex.js'
import { commonType, typeName } from '../coercion.js'
import { checkArity, mkCall, type BindContext, type FunctionDef } from '../registry.js'
import { equalsFor, nullSafe } from '../nested-values.js'

const lenient = (fn: (...args: any[]) => unknown) => () => ({ fn, nulls: 'lenient' as const })
const strictImpl = (fn: (...args: any[]) => unknown) => () => ({ fn, nulls: 'strict' as const })

/** The common type of constructor arguments, or an error naming the types that do not meet. */
function common(args: readonly Rex[], what: string, ctx: BindContext): DataType {
  const t = commonType(args.map(a => a.type))
  if (t === null) {
    throw ctx.error(`the ${what} of ${ctx.name}[…] have no common type: ${args.map(a => typeName(a.type)).join(', ')}`,
      'give them one type, with CAST where needed')
  }
  // ARRAY[NULL]: Flink has no element type either; Weir makes it a STRING.
  return t.kind === 'NULL' ? T.string() : t
}

const ROW_FN: FunctionDef = {
  names: ['ROW'],
  signature: 'ROW(value, …)',
  bind: (args, ctx) => {
    checkArity(args, 1, Infinity, ctx, 'ROW(value, …)')
    // Flink names the fields of a constructed row EXPR$0, EXPR$1, …
    const fields: Field[] = args.map((a, i) => ({ name: `EXPR$${i}`, type: a.type.kind === 'NULL' ? T.string() : a.type }))
    const typed = args.map((a, i) => ctx.cast(a, fields[i]!.type))
    return mkCall('ROW', typed, T.row(fields, false), ctx.span)
  },
  impl: lenient((...values: unknown[]) => values),
}

const ARRAY_FN: FunctionDef = {
  names: ['ARRAY'],
  signature: 'ARRAY[value, …]',
  bind: (args, ctx) => {
    if (args.length === 0) {
      throw ctx.error('ARRAY[…] needs at least one element', 'e.g. ARRAY[1, 2]; for an empty array CAST(… AS ARRAY<INT>) is not supported yet')
    }
    const element = common(args, 'elements', ctx)
    return mkCall('ARRAY', args.map(a => ctx.cast(a, element)), T.array(element, false), ctx.span)
  },
  impl: lenient((...values: unknown[]) => values),
}

const MAP_FN: FunctionDef = {
  names: ['MAP'],
  signature: 'MAP[key, value, …]',
  bind: (args, ctx) => {
    if (args.length === 0 || args.length % 2 !== 0) {
      throw ctx.error(`MAP[…] takes keys and values in pairs, got ${args.length} value${args.length === 1 ? '' : 's'}`, "e.g. MAP['a', 1, 'b', 2]")
    }
    const keys = args.filter((_, i) => i % 2 === 0), values = args.filter((_, i) => i % 2 === 1)
    const key = common(keys, 'keys', ctx), value = common(values, 'values', ctx)
    const typed = args.map((a, i) => ctx.cast(a, i % 2 === 0 ? key : value))
    return mkCall('MAP', typed, T.map(key, value, false), ctx.span)
  },
  impl: call => {
    const same = keyEquality(call.type)
    return {
      fn: (...kv: unknown[]) => {
        const out: [unknown, unknown][] = []
        for (let i = 0; i < kv.length; i += 2) {
          const at = indexOfKey(out, kv[i], same)
          if (at >= 0) out[at]![1] = kv[i + 1]
          else out.push([kv[i], kv[i + 1]])
        }
        return out
      },
      nulls: 'lenient',
    }
  },
}

/** Map keys compare by value, as `=` compares them (nested keys element by element, a MAP key whatever its order); NULL finds NULL. */
function keyEquality(mapType: DataType): (a: unknown, b: unknown) => boolean {
  return nullSafe(equalsFor((mapType as Extract<DataType, { kind: 'MAP' }>).key))
}

function indexOfKey(pairs: readonly (readonly [unknown, unknown])[], k: unknown, same: (a: unknown, b: unknown) => boolean): number {
  for (let i = 0; i < pairs.length; i++) if (same(pairs[i]![0], k)) return i
  return -1
}

/** The field of a ROW value by name, as `r.f` binds it: FIELD(r, index). Throws naming the fields that exist. */
export function fieldAccess(row: Rex, name: string, quoted: boolean, span: import('../../common/span.js').Span | undefined): Rex {
  const t = row.type
  if (t.kind !== 'ROW') {
    throw WeirError.plan(`cannot read field '${name}' of a value of type ${formatType(t)}`, { span, help: 'only ROW values have fields' })
  }
  let index = t.fields.findIndex(f => f.name === name)
  if (index < 0 && !quoted) {
    const lower = t.fields.flatMap((f, i) => (f.name.toLowerCase() === name.toLowerCase() ? [i] : []))
    if (lower.length === 1) index = lower[0]!
  }
  if (index < 0) {
    throw WeirError.plan(`field '${name}' not found in ${formatType(t)}`, { span, help: `its fields: ${t.fields.map(f => f.name).join(', ')}` })
  }
  const field = t.fields[index]!
  return mkCall('FIELD', [row, literal(index, T.int(false))], { ...field.type, nullable: field.type.nullable || t.nullable } as DataType, span)
}

const FIELD_FN: FunctionDef = {
  names: ['FIELD'],
  signature: 'row.field',
  bind: (args, ctx) => {
    const name = args[1]?.kind === 'Literal' ? args[1].value : undefined
    if (args.length !== 2 || typeof name !== 'string') throw ctx.error('FIELD is written row.field')
    return fieldAccess(args[0]!, name, false, ctx.span)
  },
  impl: strictImpl((r: readonly unknown[], i: number) => r[i] ?? null),
}

const ITEM_FN: FunctionDef = {
  names: ['ITEM'],
  signature: 'array[index] or map[key]',
  bind: (args, ctx) => {
    const [x, k] = args as [Rex, Rex]
    const t = x.type
    if (t.kind === 'ARRAY') {
      if (!isIntegral(k.type) && k.type.kind !== 'NULL') {
        throw ctx.error(`an ARRAY is indexed by an integer, not ${typeName(k.type)}`, 'e.g. a[1] for the first element (indexes start at 1)')
      }
      return mkCall('ITEM', [x, ctx.cast(k, T.int())], { ...t.element, nullable: true } as DataType, ctx.span)
    }
    if (t.kind === 'MAP') {
      if (commonType([t.key, k.type]) === null) {
        throw ctx.error(`a ${formatType(t)} is indexed by its key type ${formatType(t.key)}, not ${typeName(k.type)}`)
      }
      return mkCall('ITEM', [x, ctx.cast(k, t.key)], { ...t.value, nullable: true } as DataType, ctx.span)
    }
    if (t.kind === 'ROW') {
      throw ctx.error(`a ROW is not indexed with […]`, `read its fields by name: ${t.fields.slice(0, 3).map(f => `r.${f.name}`).join(', ')}`)
    }
    throw ctx.error(`cannot use […] on a value of type ${typeName(t)}`, 'only ARRAY and MAP values are indexed')
  },
  impl: call =>
    call.args[0]!.type.kind === 'ARRAY'
      ? { fn: (a: readonly unknown[], i: number) => (i >= 1 && i <= a.length ? a[i - 1] ?? null : null), nulls: 'strict' }
      : (() => {
        const same = keyEquality(call.args[0]!.type)
        return {
          fn: (m: readonly (readonly [unknown, unknown])[], k: unknown) => {
            const at = indexOfKey(m, k, same)
            return at < 0 ? null : m[at]![1] ?? null
          },
          nulls: 'strict' as const,
        }
      })(),
}

const CARDINALITY_FN: FunctionDef = {
  names: ['CARDINALITY'],
  signature: 'CARDINALITY(ARRAY | MAP | MULTISET)',
  bind: (args, ctx) => {
    checkArity(args, 1, 1, ctx, 'CARDINALITY(ARRAY | MAP | MULTISET)')
    const t = args[0]!.type
    if (t.kind !== 'ARRAY' && t.kind !== 'MAP') throw ctx.error(`cannot apply 'CARDINALITY' to ${typeName(t)}`, 'expected CARDINALITY(ARRAY | MAP | MULTISET)')
    // A multiset counts its elements with their multiplicities (Flink: CARDINALITY(MULTISET['a', 'a']) = 2).
    return mkCall(t.kind === 'MAP' && t.multiset === true ? 'CARDINALITY_MULTISET' : 'CARDINALITY', args, T.int(t.nullable), ctx.span)
  },
  impl: strictImpl((a: readonly unknown[]) => a.length),
}

/** CARDINALITY of a multiset (the binder of CARDINALITY chooses it); not callable by name. */
const CARDINALITY_MULTISET_FN: FunctionDef = {
  names: ['CARDINALITY_MULTISET'],
  signature: 'CARDINALITY(MULTISET)',
  bind: (_args, ctx) => {
    throw ctx.error(`unknown function 'CARDINALITY_MULTISET'`, 'write CARDINALITY(multiset)')
  },
  impl: strictImpl((m: readonly [unknown, number][]) => m.reduce((n, e) => n + e[1], 0)),
}

const ELEMENT_FN: FunctionDef = {
  names: ['ELEMENT'],
  signature: 'ELEMENT(ARRAY)',
  bind: (args, ctx) => {
    checkArity(args, 1, 1, ctx, 'ELEMENT(ARRAY)')
    const t = args[0]!.type
    if (t.kind !== 'ARRAY') throw ctx.error(`cannot apply 'ELEMENT' to ${typeName(t)}`, 'expected ELEMENT(ARRAY)')
    return mkCall('ELEMENT', args, { ...t.element, nullable: true } as DataType, ctx.span)
  },
  impl: call => ({
    fn: (a: readonly unknown[]) => {
      if (a.length > 1) {
        throw WeirError.execution(`ELEMENT of an array of ${a.length} elements`, { span: call.span, help: 'ELEMENT takes an array of at most one element' })
      }
      return a.length === 0 ? null : a[0] ?? null
    },
    nulls: 'strict',
  }),
}

export const COLLECTIONS: readonly FunctionDef[] = [ROW_FN, ARRAY_FN, MAP_FN, FIELD_FN, ITEM_FN, CARDINALITY_FN, CARDINALITY_MULTISET_FN, ELEMENT_FN]
