// Comparisons, AND / OR / NOT (three-valued), IS [NOT] NULL / TRUE / FALSE, IS [NOT] DISTINCT FROM,
// BETWEEN and IN. Operands of different types are converted to their comparison type first.
import { T, isNested, type DataType } from '../../common/types.js'
import { literal, type Rex } from '../../core/rex.js'
import { comparisonType, typeName } from '../coercion.js'
import { anyNullable, checkArity, mkCall, type BindContext, type FunctionDef } from '../registry.js'

/** Casts for a comparison; two DECIMALs only need the same scale, not the same precision. */
function toComparable(x: Rex, t: DataType, ctx: BindContext): Rex {
  if (t.kind === 'DECIMAL' && x.type.kind === 'DECIMAL' && x.type.scale === t.scale) return x
  return ctx.cast(x, t)
}

function comparable(op: string, a: Rex, b: Rex, ctx: BindContext): [Rex, Rex] | null {
  const t = comparisonType(a.type, b.type)
  const nested = isNested(a.type) || isNested(b.type)
  if (t === null) {
    throw ctx.error(`cannot apply '${op}' to ${typeName(a.type)} and ${typeName(b.type)}`,
      nested ? 'ROW, ARRAY and MAP values compare with values of the same shape (fields by position, elements of comparable types)' : 'CAST one side')
  }
  // As Flink, nested values are equal or not (element by element) but have no order.
  if (nested && op !== '=' && op !== '<>' && op !== 'IS_DISTINCT_FROM' && op !== 'IS_NOT_DISTINCT_FROM') {
    throw ctx.error(`cannot apply '${op}' to ${typeName(a.type)} and ${typeName(b.type)}: ROW, ARRAY and MAP values have no order`,
      'compare them with = or <>, or compare their fields or elements')
  }
  if (t.kind === 'NULL') return null
  return [toComparable(a, t, ctx), toComparable(b, t, ctx)]
}

function bindComparison(op: string): FunctionDef['bind'] {
  return (args, ctx) => {
    checkArity(args, 2, 2, ctx, `x ${op} y`)
    const pair = comparable(op, args[0]!, args[1]!, ctx)
    if (pair === null) return literal(null, T.boolean())
    return mkCall(op, pair, T.boolean(anyNullable(pair)), ctx.span)
  }
}

function bindDistinct(op: string): FunctionDef['bind'] {
  return (args, ctx) => {
    checkArity(args, 2, 2, ctx, `x ${op.replace(/_/g, ' ')} y`)
    const pair = comparable(op, args[0]!, args[1]!, ctx) ?? [ctx.cast(args[0]!, T.int()), ctx.cast(args[1]!, T.int())]
    return mkCall(op, pair, T.boolean(false), ctx.span)
  }
}

function booleanArgs(args: readonly Rex[], ctx: BindContext, what: string): Rex[] {
  return args.map(a => {
    if (a.type.kind === 'NULL') return ctx.cast(a, T.boolean())
    if (a.type.kind !== 'BOOLEAN') throw ctx.error(`${what} needs BOOLEAN operands, got ${typeName(a.type)}`, `compare the value, e.g. x <> 0`)
    return a
  })
}

function bindLogical(op: 'AND' | 'OR'): FunctionDef['bind'] {
  return (args, ctx) => {
    checkArity(args, 2, Infinity, ctx, `x ${op} y`)
    const typed = booleanArgs(args, ctx, op)
    return mkCall(op, typed, T.boolean(anyNullable(typed)), ctx.span)
  }
}

function bindIsBool(op: string): FunctionDef['bind'] {
  return (args, ctx) => {
    checkArity(args, 1, 1, ctx, `x ${op.replace(/_/g, ' ')}`)
    return mkCall(op, booleanArgs(args, ctx, op.replace(/_/g, ' ')), T.boolean(false), ctx.span)
  }
}

function bindIsNull(op: string): FunctionDef['bind'] {
  return (args, ctx) => {
    checkArity(args, 1, 1, ctx, `x ${op.replace(/_/g, ' ')}`)
    return mkCall(op, args, T.boolean(false), ctx.span)
  }
}

function bindIn(args: readonly Rex[], ctx: BindContext): Rex {
  checkArity(args, 2, Infinity, ctx, 'x IN (v1, v2, …)')
  let t: DataType | null = args[0]!.type
  for (const v of args.slice(1)) {
    const next: DataType | null = comparisonType(t, v.type)
    if (next === null) {
      throw ctx.error(`cannot apply 'IN' to ${typeName(args[0]!.type)} and ${typeName(v.type)}`, 'make the IN list the same type as the value, or CAST it')
    }
    t = next
  }
  if (t.kind === 'NULL') return literal(null, T.boolean())
  // Nested values: x = v1 OR x = v2 …, which has IN's three-valued result (the compiler's IN compares scalars).
  if (isNested(t)) return ctx.call('OR', [...args.slice(1).map(v => ctx.call('=', [args[0]!, v])), literal(false, T.boolean(false))])
  const typed = args.map(a => toComparable(a, t, ctx))
  return mkCall('IN', typed, T.boolean(anyNullable(typed)), ctx.span)
}

export const LOGIC: readonly FunctionDef[] = [
  ...(['=', '<>', '<', '<=', '>', '>='] as const).map((op): FunctionDef => ({ names: [op], signature: `x ${op} y`, bind: bindComparison(op) })),
  { names: ['IS_DISTINCT_FROM'], signature: 'x IS DISTINCT FROM y', bind: bindDistinct('IS_DISTINCT_FROM') },
  { names: ['IS_NOT_DISTINCT_FROM'], signature: 'x IS NOT DISTINCT FROM y', bind: bindDistinct('IS_NOT_DISTINCT_FROM') },
  { names: ['AND'], signature: 'x AND y', bind: bindLogical('AND') },
  { names: ['OR'], signature: 'x OR y', bind: bindLogical('OR') },
  {
    names: ['NOT'],
    signature: 'NOT x',
    bind: (args, ctx) => {
      checkArity(args, 1, 1, ctx, 'NOT x')
      const typed = booleanArgs(args, ctx, 'NOT')
      return mkCall('NOT', typed, T.boolean(anyNullable(typed)), ctx.span)
    },
  },
  { names: ['IS_NULL'], signature: 'x IS NULL', bind: bindIsNull('IS_NULL') },
  { names: ['IS_NOT_NULL'], signature: 'x IS NOT NULL', bind: bindIsNull('IS_NOT_NULL') },
  ...(['IS_TRUE', 'IS_NOT_TRUE', 'IS_FALSE', 'IS_NOT_FALSE'] as const).map((op): FunctionDef => ({ names: [op], signature: `x ${op.replace(/_/g, ' ')}`,
    bind: bindIsBool(op) })
  ),
  {
    // x BETWEEN lo AND hi ≡ x >= lo AND x <= hi (x is evaluated twice; it is deterministic or the caller accepts that).
    names: ['BETWEEN'],
    signature: 'x BETWEEN lo AND hi',
    bind: (args, ctx) => {
      checkArity(args, 3, 3, ctx, 'x BETWEEN lo AND hi')
      const [x, lo, hi] = args as [Rex, Rex, Rex]
      return ctx.call('AND', [ctx.call('>=', [x, lo]), ctx.call('<=', [x, hi])])
    },
  },
  {
    names: ['NOT_BETWEEN'],
    signature: 'x NOT BETWEEN lo AND hi',
    bind: (args, ctx) => {
      checkArity(args, 3, 3, ctx, 'x NOT BETWEEN lo AND hi')
      const [x, lo, hi] = args as [Rex, Rex, Rex]
      return ctx.call('OR', [ctx.call('<', [x, lo]), ctx.call('>', [x, hi])])
    },
  },
  { names: ['IN'], signature: 'x IN (v1, v2, …)', bind: bindIn },
  { names: ['NOT_IN'], signature: 'x NOT IN (v1, v2, …)', bind: (args, ctx) => ctx.call('NOT', [ctx.call('IN', args)]) },
]
