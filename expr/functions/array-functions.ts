// Flink's ARRAY_* functions (Flink 1.18–2.x): APPEND, PREPEND, CONCAT, CONTAINS, DISTINCT, POSITION,
// REMOVE, REVERSE, SLICE, SORT, UNION, EXCEPT, INTERSECT, MAX, MIN, JOIN. Elements compare as
// Flink's do: two NULL elements are equal, nested elements element by element (nested-values.ts).
// NULL rules per function follow Flink's documentation, quoted in test/expr/array-functions.test.ts.
import { T, isIntegral, isNested, sameType, withNullable, type DataType } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { commonType, nestedCommonType, typeName } from '../coercion.js'
import { compareFor, equalsFor, isOrderable, nullSafe } from '../nested-values.js'
import { badArgs, checkArity, mkCall, type BindContext, type CallRex, type FunctionDef, type Impl } from '../registry.js'

type ArrayType = Extract<DataType, { kind: 'ARRAY' }>

/** The element type of argument `i`, which must be an ARRAY, or a "cannot apply" error. */
function arrayAt(args: readonly Rex[], i: number, ctx: BindContext, signature: string): ArrayType {
  const t = args[i]!.type
  if (t.kind !== 'ARRAY') throw badArgs(args, ctx, signature)
  return t
}

/** The type two element types meet in (nested ones by shape), or a "cannot apply" error. */
function meet(a: DataType, b: DataType, args: readonly Rex[], ctx: BindContext, signature: string): DataType {
  const t = isNested(a) || isNested(b) ? nestedCommonType(a, b) : commonType([a, b])
  if (t === null) throw badArgs(args, ctx, signature)
  return t.kind === 'NULL' ? T.string() : t
}

function nullableIf(t: DataType, args: readonly Rex[]): DataType {
  return withNullable(t, args.some(a => a.type.nullable))
}

/** The needle of CONTAINS / POSITION / REMOVE, converted to the element type (Flink casts it implicitly; narrowing is refused). */
function needle(args: readonly Rex[], element: DataType, ctx: BindContext, signature: string): Rex {
  const n = args[1]!
  if (n.type.kind === 'NULL') return ctx.cast(n, withNullable(element, true))
  const t = isNested(element) || isNested(n.type) ? nestedCommonType(element, n.type) : commonType([element, n.type])
  // Nullability aside (at any depth), the needle must widen into the element type: narrowing is refused.
  if (t === null || !sameType(t, element)) throw badArgs(args, ctx, signature)
  return ctx.cast(n, withNullable(element, n.type.nullable))
}

function elementOf(call: CallRex): DataType {
  return (call.args[0]!.type as ArrayType).element
}

const strictFn = (fn: (...args: any[]) => unknown): Impl => ({ fn, nulls: 'strict' })

/** Index of the first element equal to `x` (NULL finds NULL), or -1. */
function indexIn(a: readonly unknown[], x: unknown, eq: (a: unknown, b: unknown) => boolean): number {
  for (let i = 0; i < a.length; i++) if (eq(a[i], x)) return i
  return -1
}

/** The distinct elements of `a`, in order of first appearance; NULL once, where it first appears. */
function distinct(a: readonly unknown[], eq: (a: unknown, b: unknown) => boolean, into: unknown[] = []): unknown[] {
  for (const x of a) if (indexIn(into, x, eq) < 0) into.push(x)
  return into
}

const APPEND_PREPEND = (name: 'ARRAY_APPEND' | 'ARRAY_PREPEND'): FunctionDef => {
  const signature = `${name}(ARRAY, element)`
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      checkArity(args, 2, 2, ctx, signature)
      const a = arrayAt(args, 0, ctx, signature)
      const e = meet(a.element, args[1]!.type, args, ctx, signature)
      const element = withNullable(e, a.element.nullable || args[1]!.type.nullable)
      const result = T.array(element, a.nullable)
      return mkCall(name, [ctx.cast(args[0]!, result), ctx.cast(args[1]!, element)], result, ctx.span)
    },
    // "If the array itself is null, the function will return null. If an element to add is null, the null element will be added."
    impl: () => ({
      fn: (a: readonly unknown[] | null, x: unknown) => (a == null ? null : name === 'ARRAY_APPEND' ? [...a, x] : [x, ...a]),
      nulls: 'lenient',
    }),
  }
}

/** Functions of arrays of one common type (CONCAT, UNION, EXCEPT, INTERSECT): NULL when any array is NULL. */
function ofArrays(name: string, min: number, max: number, fn: (eq: (a: unknown, b: unknown) => boolean) => (...arrays: unknown[][]) => unknown[]): FunctionDef {
  const signature = max === 2 ? `${name}(ARRAY, ARRAY)` : `${name}(ARRAY, …)`
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      checkArity(args, min, max, ctx, signature)
      let t: DataType = arrayAt(args, 0, ctx, signature)
      for (let i = 1; i < args.length; i++) t = meet(t, arrayAt(args, i, ctx, signature), args, ctx, signature)
      const result = nullableIf(t, args)
      return mkCall(name, args.map(a => ctx.cast(a, withNullable(result, a.type.nullable))), result, ctx.span)
    },
    impl: call => strictFn(fn(nullSafe(equalsFor(elementOf(call))))),
  }
}

/** CONTAINS / POSITION / REMOVE: an array and a value of its element type. */
function withNeedle(name: string, result: (a: ArrayType, args: readonly Rex[]) => DataType, impl: (call: CallRex) => Impl): FunctionDef {
  const signature = `${name}(ARRAY, element)`
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      checkArity(args, 2, 2, ctx, signature)
      const a = arrayAt(args, 0, ctx, signature)
      const typed = [args[0]!, needle(args, a.element, ctx, signature)]
      return mkCall(name, typed, result(a, typed), ctx.span)
    },
    impl,
  }
}

/** DISTINCT / REVERSE / MAX / MIN: one array. */
function ofArray(name: string, result: (a: ArrayType) => DataType, impl: (call: CallRex) => Impl, orderable = false): FunctionDef {
  const signature = `${name}(ARRAY)`
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      checkArity(args, 1, 1, ctx, signature)
      const a = arrayAt(args, 0, ctx, signature)
      // Flink's CollectionFunctionsITCase refuses ARRAY_MAX(ARRAY<BOOLEAN>) as well as ROW, ARRAY and MAP elements.
      if (orderable && (!isOrderable(a.element) || a.element.kind === 'BOOLEAN')) {
        throw ctx.error(`cannot apply '${name}' to ${typeName(a)}: its elements have no order`, 'the elements must be numbers, strings or times')
      }
      return mkCall(name, args, result(a), ctx.span)
    },
    impl,
  }
}

const extreme = (sign: 1 | -1) => (call: CallRex): Impl => {
  const cmp = compareFor(elementOf(call))
  // "Returns the maximum value from the array"; NULL elements are skipped, an empty array gives NULL.
  return strictFn((a: readonly unknown[]) => {
    let best: unknown = null
    for (const x of a) if (x != null && (best === null || sign * cmp(x, best) > 0)) best = x
    return best
  })
}

const SLICE: FunctionDef = {
  names: ['ARRAY_SLICE'],
  signature: 'ARRAY_SLICE(ARRAY, start_offset[, end_offset])',
  bind: (args, ctx) => {
    const signature = 'ARRAY_SLICE(ARRAY, start_offset[, end_offset])'
    checkArity(args, 2, 3, ctx, signature)
    const a = arrayAt(args, 0, ctx, signature)
    const offsets = args.slice(1).map(o => {
      if (o.type.kind !== 'NULL' && !(isIntegral(o.type) && o.type.kind !== 'BIGINT')) throw badArgs(args, ctx, signature)
      return ctx.cast(o, T.int(o.type.nullable))
    })
    return mkCall('ARRAY_SLICE', [args[0]!, ...offsets], nullableIf(a, args), ctx.span)
  },
  // Flink's ArraySliceFunction: negative offsets count from the end, 0 is the start, an end of 0 is 1.
  impl: () =>
    strictFn((a: readonly unknown[], start: number, end: number = a.length) => {
      if (a.length === 0) return a
      let s = start < 0 ? start + a.length + 1 : start
      let e = end < 0 ? end + a.length + 1 : end
      s = Math.max(1, s)
      e = e === 0 ? 1 : Math.min(e, a.length)
      return e < s ? [] : a.slice(s - 1, e)
    }),
}

const SORT: FunctionDef = {
  names: ['ARRAY_SORT'],
  signature: 'ARRAY_SORT(ARRAY[, ascending_order[, null_first]])',
  bind: (args, ctx) => {
    const signature = 'ARRAY_SORT(ARRAY[, ascending_order[, null_first]])'
    checkArity(args, 1, 3, ctx, signature)
    const a = arrayAt(args, 0, ctx, signature)
    if (!isOrderable(a.element)) {
      throw ctx.error(`cannot apply 'ARRAY_SORT' to ${typeName(a)}: its elements have no order`, 'the elements must be numbers, strings, booleans or times')
    }
    const flags = args.slice(1).map(f => {
      if (f.type.kind !== 'NULL' && f.type.kind !== 'BOOLEAN') throw badArgs(args, ctx, signature)
      return ctx.cast(f, T.boolean(f.type.nullable))
    })
    return mkCall('ARRAY_SORT', [args[0]!, ...flags], nullableIf(a, args), ctx.span)
  },
  // "defaulting to ascending order with NULLs at the start"; with ascending_order only, NULLs go first
  // when ascending and last when descending; null_first places them regardless of the order.
  impl: call => {
    const cmp = compareFor(elementOf(call))
    return strictFn((a: readonly unknown[], asc = true, nullFirst: boolean = asc) => {
      const sign = asc ? 1 : -1, nulls = nullFirst ? -1 : 1
      // Array.prototype.sort is stable, as Java's object sort is.
      return [...a].sort((x, y) => (x == null ? (y == null ? 0 : nulls) : y == null ? -nulls : sign * cmp(x, y)))
    })
  },
}

const FLATTEN: FunctionDef = {
  names: ['ARRAY_FLATTEN'],
  signature: 'ARRAY_FLATTEN(ARRAY<ARRAY>)',
  bind: (args, ctx) => {
    checkArity(args, 1, 1, ctx, 'ARRAY_FLATTEN(ARRAY<ARRAY>)')
    const a = arrayAt(args, 0, ctx, 'ARRAY_FLATTEN(ARRAY<ARRAY>)')
    if (a.element.kind !== 'ARRAY') throw badArgs(args, ctx, 'ARRAY_FLATTEN(ARRAY<ARRAY>)')
    return mkCall('ARRAY_FLATTEN', args, T.array(a.element.element, a.nullable), ctx.span)
  },
  // Flink's CollectionFunctionsITCase: NULL inner arrays are skipped, NULL elements kept.
  impl: () => strictFn((a: readonly (readonly unknown[] | null)[]) => a.flatMap(x => x ?? [])),
}

const JOIN: FunctionDef = {
  names: ['ARRAY_JOIN'],
  signature: 'ARRAY_JOIN(ARRAY<STRING>, delimiter[, nullReplacement])',
  bind: (args, ctx) => {
    const signature = 'ARRAY_JOIN(ARRAY<STRING>, delimiter[, nullReplacement])'
    checkArity(args, 2, 3, ctx, signature)
    const a = arrayAt(args, 0, ctx, signature)
    if (a.element.kind !== 'STRING' && a.element.kind !== 'NULL') throw badArgs(args, ctx, signature)
    const rest = args.slice(1).map(s => {
      if (s.type.kind !== 'STRING' && s.type.kind !== 'NULL') throw badArgs(args, ctx, signature)
      return ctx.cast(s, T.string(s.type.nullable))
    })
    return mkCall('ARRAY_JOIN', [args[0]!, ...rest], T.string(args.some(x => x.type.nullable)), ctx.span)
  },
  // "If nullReplacement is not specified, null elements in the array will be omitted."
  impl: () =>
    strictFn((a: readonly (string | null)[], sep: string, nullReplacement?: string) => {
      const parts: string[] = []
      for (const x of a) {
        if (x != null) parts.push(x)
        else if (nullReplacement !== undefined) parts.push(nullReplacement)
      }
      return parts.join(sep)
    }),
}

export const ARRAY_FUNCTIONS: readonly FunctionDef[] = [
  APPEND_PREPEND('ARRAY_APPEND'),
  APPEND_PREPEND('ARRAY_PREPEND'),
  ofArrays('ARRAY_CONCAT', 1, Infinity, () => (...arrays) => arrays.flat()),
  // "the elements in the union of array1 and array2, without duplicates"
  ofArrays('ARRAY_UNION', 2, 2, eq => (a, b) => distinct(b!, eq, distinct(a!, eq))),
  // "the elements from array1 that are not in array2, without duplicates … If one or both arguments are NULL, the
  // function returns NULL. The order of the elements from array1 is kept." (Flink's first ArrayExceptFunction read a NULL
  // array2 as empty and moved NULL elements last; the current one, with these documented rules, does neither.)
  ofArrays('ARRAY_EXCEPT', 2, 2, eq => (a, b) => distinct(a!.filter(x => indexIn(b!, x, eq) < 0), eq)),
  // "the elements from array1 that are also in array2, without duplicates … The order of the elements from array1 is kept."
  ofArrays('ARRAY_INTERSECT', 2, 2, eq => (a, b) => distinct(a!.filter(x => indexIn(b!, x, eq) >= 0), eq)),
  // "Checking for null elements in the array is supported. If the array itself is null, the function will return null."
  withNeedle('ARRAY_CONTAINS', a => T.boolean(a.nullable), call => {
    const eq = nullSafe(equalsFor(elementOf(call)))
    return { fn: (a: readonly unknown[] | null, x: unknown) => (a == null ? null : indexIn(a, x, eq) >= 0), nulls: 'lenient' }
  }),
  // "Returns 0 if the given value could not be found … Returns null if either of the arguments are null."
  withNeedle('ARRAY_POSITION', (a, args) => T.int(a.nullable || args[1]!.type.nullable), call => {
    const eq = nullSafe(equalsFor(elementOf(call)))
    return strictFn((a: readonly unknown[], x: unknown) => indexIn(a, x, eq) + 1)
  }),
  // "Removes all elements that equal to element from array. If the array itself is null, the function will return null."
  withNeedle('ARRAY_REMOVE', a => a, call => {
    const eq = nullSafe(equalsFor(elementOf(call)))
    return { fn: (a: readonly unknown[] | null, x: unknown) => (a == null ? null : a.filter(y => !eq(y, x))), nulls: 'lenient' }
  }),
  ofArray('ARRAY_DISTINCT', a => a, call => {
    const eq = nullSafe(equalsFor(elementOf(call)))
    return strictFn((a: readonly unknown[]) => distinct(a, eq))
  }),
  ofArray('ARRAY_REVERSE', a => a, () => strictFn((a: readonly unknown[]) => [...a].reverse())),
  ofArray('ARRAY_MAX', a => withNullable(a.element, true), extreme(1), true),
  ofArray('ARRAY_MIN', a => withNullable(a.element, true), extreme(-1), true),
  SLICE,
  SORT,
  JOIN,
  FLATTEN,
]
