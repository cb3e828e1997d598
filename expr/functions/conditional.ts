// CASE, COALESCE / IFNULL, NULLIF, IF, GREATEST and LEAST: branches converted to a common type.
import { T, type DataType } from '../../common/types.js'
import { literal, type Rex } from '../../core/rex.js'
import { commonType, typeName } from '../coercion.js'
import { anyNullable, checkArity, mkCall, type BindContext, type FunctionDef } from '../registry.js'

function common(values: readonly Rex[], ctx: BindContext, what: string): DataType {
  const t = commonType(values.map(v => v.type))
  if (t === null) {
    const kinds = [...new Set(values.filter(v => v.type.kind !== 'NULL').map(v => typeName(v.type)))]
    throw ctx.error(`${what} have incompatible types ${kinds.join(' and ')}`, 'CAST them to one type')
  }
  return t
}

/** CASE WHEN c1 THEN r1 … [ELSE e] END as args [c1, r1, c2, r2, …, e]; a missing ELSE is NULL. */
function bindCase(args: readonly Rex[], ctx: BindContext): Rex {
  if (args.length < 2) throw ctx.error('CASE needs at least one WHEN … THEN …', 'CASE WHEN cond THEN value [ELSE other] END')
  const all = args.length % 2 === 0 ? [...args, literal(null, T.null())] : [...args]
  const results = all.filter((_, i) => i % 2 === 1 || i === all.length - 1)
  const t = common(results, ctx, 'CASE branches')
  if (t.kind === 'NULL') return literal(null, T.null())
  const typed = all.map((a, i) => {
    const isCondition = i % 2 === 0 && i !== all.length - 1
    if (!isCondition) return ctx.cast(a, t)
    if (a.type.kind === 'NULL') return ctx.cast(a, T.boolean())
    if (a.type.kind !== 'BOOLEAN') throw ctx.error(`CASE WHEN needs a BOOLEAN condition, got ${typeName(a.type)}`, 'compare the value, e.g. WHEN x = 1')
    return a
  })
  return mkCall('CASE', typed, t, ctx.span)
}

function bindCoalesce(args: readonly Rex[], ctx: BindContext): Rex {
  checkArity(args, 1, Infinity, ctx, 'COALESCE(x, y, …)')
  // Arguments after the first that cannot be NULL are never reached.
  const firstNotNull = args.findIndex(a => !a.type.nullable)
  const used = firstNotNull < 0 ? args : args.slice(0, firstNotNull + 1)
  const t = common(used, ctx, 'COALESCE arguments')
  if (t.kind === 'NULL') return literal(null, T.null())
  const typed = used.map(a => ctx.cast(a, t))
  if (typed.length === 1) return typed[0]!
  return mkCall('COALESCE', typed, { ...t, nullable: typed.every(a => a.type.nullable) } as DataType, ctx.span)
}

function bindExtremum(op: 'GREATEST' | 'LEAST'): FunctionDef['bind'] {
  return (args, ctx) => {
    checkArity(args, 1, Infinity, ctx, `${op}(x, y, …)`)
    const t = common(args, ctx, `${op} arguments`)
    if (t.kind === 'NULL') return literal(null, T.null())
    const typed = args.map(a => ctx.cast(a, t))
    return mkCall(op, typed, { ...t, nullable: anyNullable(typed) } as DataType, ctx.span)
  }
}

function extremum(greater: boolean): (...xs: unknown[]) => unknown {
  return (...xs) => {
    let best = xs[0] as number
    for (let i = 1; i < xs.length; i++) {
      const x = xs[i] as number
      if (greater ? x > best : x < best) best = x
    }
    return best
  }
}

export const CONDITIONAL: readonly FunctionDef[] = [
  { names: ['CASE'], signature: 'CASE WHEN cond THEN value … [ELSE other] END', bind: bindCase },
  { names: ['COALESCE'], signature: 'COALESCE(x, y, …)', bind: bindCoalesce },
  {
    names: ['IFNULL'],
    signature: 'IFNULL(x, default)',
    bind: (args, ctx) => {
      checkArity(args, 2, 2, ctx, 'IFNULL(x, default)')
      return ctx.call('COALESCE', args)
    },
  },
  {
    names: ['NULLIF'],
    signature: 'NULLIF(x, y)',
    bind: (args, ctx) => {
      checkArity(args, 2, 2, ctx, 'NULLIF(x, y)')
      return ctx.call('CASE', [ctx.call('=', args), literal(null, T.null()), args[0]!])
    },
  },
  {
    names: ['IF'],
    signature: 'IF(cond, then, else)',
    bind: (args, ctx) => {
      checkArity(args, 3, 3, ctx, 'IF(cond, then, else)')
      return ctx.call('CASE', args)
    },
  },
  { names: ['GREATEST'], signature: 'GREATEST(x, y, …)', bind: bindExtremum('GREATEST'), impl: () => ({ fn: extremum(true), nulls: 'strict' }) },
  { names: ['LEAST'], signature: 'LEAST(x, y, …)', bind: bindExtremum('LEAST'), impl: () => ({ fn: extremum(false), nulls: 'strict' }) },
]
