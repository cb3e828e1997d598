// Flink's MAP_* functions: MAP_KEYS, MAP_VALUES, MAP_ENTRIES, MAP_FROM_ARRAYS, MAP_UNION. A MAP is
// an array of [key, value] pairs with distinct keys (common/types.ts); Flink guarantees no order for
// keys, values and entries, Weir gives them in the map's order.
import { WeirError } from '../../common/errors.js'
import { T, isNested, sameType, withNullable, type DataType } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { commonType, nestedCommonType } from '../coercion.js'
import { canonicalFor, equalsFor, nullSafe } from '../nested-values.js'
import { badArgs, checkArity, mkCall, type BindContext, type FunctionDef } from '../registry.js'

type MapType = Extract<DataType, { kind: 'MAP' }>
type Pairs = readonly (readonly [unknown, unknown])[]

function mapAt(args: readonly Rex[], i: number, ctx: BindContext, signature: string): MapType {
  const t = args[i]!.type
  if (t.kind !== 'MAP') throw badArgs(args, ctx, signature)
  return t
}

/** One map argument; the result type from the map's type. */
function ofMap(name: string, result: (m: MapType) => DataType, fn: (m: Pairs) => unknown): FunctionDef {
  const signature = `${name}(MAP)`
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      checkArity(args, 1, 1, ctx, signature)
      return mkCall(name, args, result(mapAt(args, 0, ctx, signature)), ctx.span)
    },
    impl: () => ({ fn, nulls: 'strict' }),
  }
}

/** Puts [k, v] into `out`, replacing the value of an equal key (a later key wins, as Flink's MAP_UNION). */
function put(out: [unknown, unknown][], k: unknown, v: unknown, eq: (a: unknown, b: unknown) => boolean): void {
  for (const pair of out) {
    if (eq(pair[0], k)) {
      pair[1] = v
      return
    }
  }
  out.push([k, v])
}

const FROM_ARRAYS: FunctionDef = {
  names: ['MAP_FROM_ARRAYS'],
  signature: 'MAP_FROM_ARRAYS(ARRAY of keys, ARRAY of values)',
  bind: (args, ctx) => {
    const signature = 'MAP_FROM_ARRAYS(ARRAY of keys, ARRAY of values)'
    checkArity(args, 2, 2, ctx, signature)
    const [k, v] = args.map(a => a.type)
    if (k!.kind !== 'ARRAY' || v!.kind !== 'ARRAY') throw badArgs(args, ctx, signature)
    return mkCall('MAP_FROM_ARRAYS', args, T.map(k.element, v.element, k.nullable || v.nullable), ctx.span)
  },
  impl: call => {
    const eq = nullSafe(equalsFor((call.type as MapType).key))
    return {
      fn: (keys: readonly unknown[], values: readonly unknown[]) => {
        // Flink: "Note that the lengths of two arrays should be the same"; its map then fails to build.
        if (keys.length !== values.length) {
          throw WeirError.execution(
            `MAP_FROM_ARRAYS got ${keys.length} key${keys.length === 1 ? '' : 's'} and ${values.length} value${values.length === 1 ? '' : 's'}`,
            {
              span: call.span,
              help: 'give both arrays the same length',
            },
          )
        }
        const out: [unknown, unknown][] = []
        keys.forEach((k, i) => put(out, k, values[i], eq))
        return out
      },
      nulls: 'strict',
    }
  },
}

const UNION: FunctionDef = {
  names: ['MAP_UNION'],
  signature: 'MAP_UNION(MAP, …)',
  bind: (args, ctx) => {
    const signature = 'MAP_UNION(MAP, …)'
    checkArity(args, 1, Infinity, ctx, signature)
    let t: DataType = mapAt(args, 0, ctx, signature)
    for (let i = 1; i < args.length; i++) {
      const next = mapAt(args, i, ctx, signature)
      const met = nestedCommonType(t, next)
      if (met === null) throw badArgs(args, ctx, signature)
      t = met
    }
    const result = withNullable(t, args.some(a => a.type.nullable))
    return mkCall('MAP_UNION', args.map(a => ctx.cast(a, withNullable(result, a.type.nullable))), result, ctx.span)
  },
  // "If there are overlapping keys, the value from 'map2' will overwrite the value from 'map1' … If any of maps is null, return null."
  impl: call => {
    const eq = nullSafe(equalsFor((call.type as MapType).key))
    return {
      fn: (...maps: Pairs[]) => {
        const out: [unknown, unknown][] = []
        for (const m of maps) for (const [k, v] of m) put(out, k, v, eq)
        return out
      },
      nulls: 'strict',
    }
  },
}

const CONTAINS_KEY: FunctionDef = {
  names: ['MAP_CONTAINS_KEY'],
  signature: 'MAP_CONTAINS_KEY(MAP, key)',
  bind: (args, ctx) => {
    const signature = 'MAP_CONTAINS_KEY(MAP, key)'
    checkArity(args, 2, 2, ctx, signature)
    const m = mapAt(args, 0, ctx, signature)
    const k = args[1]!
    const met = k.type.kind === 'NULL' ? m.key : isNested(m.key) || isNested(k.type) ? nestedCommonType(m.key, k.type) : commonType([m.key, k.type])
    if (met === null || !sameType(met, m.key)) throw badArgs(args, ctx, signature)
    return mkCall('MAP_CONTAINS_KEY', [args[0]!, ctx.cast(k, withNullable(m.key, k.type.nullable))], T.boolean(m.nullable), ctx.span)
  },
  // Flink's MapContainsKeyFunction: a NULL needle finds a NULL key; a NULL map gives NULL.
  impl: call => {
    const eq = nullSafe(equalsFor((call.args[0]!.type as MapType).key))
    return { fn: (m: Pairs | null, k: unknown) => (m == null ? null : m.some(p => eq(p[0], k))), nulls: 'lenient' }
  },
}

/**
 * MAP_KEY(x): x with the entries of every MAP inside sorted (nested-values.ts canonicalFor). The
 * planner wraps a join or IN key holding a MAP in it, since keys meet by their stored encoding and
 * MAP equality does not depend on entry order. Not callable by name (its signature says so).
 */
export const MAP_KEY: FunctionDef = {
  names: ['MAP_KEY'],
  signature: 'a join key holding a MAP',
  bind: (args, ctx) => mkCall('MAP_KEY', args, args[0]!.type, ctx.span),
  impl: call => ({ fn: canonicalFor(call.type), nulls: 'strict' }),
}

export const MAP_FUNCTIONS: readonly FunctionDef[] = [
  ofMap('MAP_KEYS', m => T.array(m.key, m.nullable), m => m.map(p => p[0])),
  ofMap('MAP_VALUES', m => T.array(m.value, m.nullable), m => m.map(p => p[1])),
  // Flink's entries are ROW<key K, value V>.
  ofMap('MAP_ENTRIES', m => T.array(T.row([{ name: 'key', type: m.key }, { name: 'value', type: m.value }], false), m.nullable), m => m.map(p => [p[0], p[1]])),
  FROM_ARRAYS,
  UNION,
  CONTAINS_KEY,
  MAP_KEY,
]
