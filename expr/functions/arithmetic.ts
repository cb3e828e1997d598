// + - * / % and unary minus: numeric widening with Flink's DECIMAL precision rules, and day-time
// interval arithmetic on timestamps, dates and times of day (a TIME wraps around midnight).
import { T, isNumeric, withNullable, withoutTimeAttr, type DataType } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { adjustDecimal, decimalArithmetic, decimalView, typeName, widerNumeric } from '../coercion.js'
import { MAX_PRECISION } from '../decimal.js'
import { checkArity, mkCall, type BindContext, type FunctionDef } from '../registry.js'

const isTime = (t: DataType): boolean => t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ' || t.kind === 'DATE' || t.kind === 'TIME'

function cannotApply(op: string, a: Rex, b: Rex, ctx: BindContext): Error {
  const help = a.type.kind === 'STRING' || b.type.kind === 'STRING'
    ? `CAST one side${op === '+' ? `, or use || to concatenate strings` : ''}`
    : 'CAST one side'
  return ctx.error(`cannot apply '${op}' to ${typeName(a.type)} and ${typeName(b.type)}`, help)
}

/** NULL literals take the type the other side needs. */
function adoptNull(op: string, a: Rex, b: Rex, ctx: BindContext): [Rex, Rex] {
  const nullFor = (other: DataType): DataType => {
    if (other.kind === 'NULL') return T.int()
    if (other.kind === 'INTERVAL' && (op === '*' || op === '/')) return T.int()
    if (isTime(other)) return T.interval()
    return other
  }
  if (a.type.kind === 'NULL') a = ctx.cast(a, nullFor(b.type))
  if (b.type.kind === 'NULL') b = ctx.cast(b, nullFor(a.type))
  return [a, b]
}

function numeric(op: string, a: Rex, b: Rex, ctx: BindContext): Rex {
  const nullable = a.type.nullable || b.type.nullable
  const ta = a.type, tb = b.type
  if (ta.kind === 'DOUBLE' || tb.kind === 'DOUBLE') {
    // FLOAT op FLOAT (or an integer) is a FLOAT, rounded to 32 bits; with a DOUBLE or a DECIMAL, a DOUBLE.
    const t = widerNumeric(ta, tb)
    return mkCall(op, [ctx.cast(a, withNullable(t, true)), ctx.cast(b, withNullable(t, true))], withNullable(t, nullable), ctx.span)
  }
  if (ta.kind === 'DECIMAL' || tb.kind === 'DECIMAL') {
    const da = decimalView(ta)!, db = decimalView(tb)!
    const [p, s] = decimalArithmetic(op, da.precision, da.scale, db.precision, db.scale)
    // Past 38 digits the result is narrowed and can overflow, which gives NULL (as Flink).
    const type = adjustDecimal(p, s, nullable || p > MAX_PRECISION)
    const toDecimal = (x: Rex, d: { precision: number; scale: number }): Rex => ctx.cast(x, T.decimal(d.precision, d.scale))
    return mkCall(op, [toDecimal(a, da), toDecimal(b, db)], type, ctx.span)
  }
  // Integral: MOD's type is the divisor's (Calcite), so MOD(bigint_col, 123) is an INT.
  if (op === '%') return mkCall(op, [a, b], withNullable(tb, nullable), ctx.span)
  // Otherwise the wider of the two (Calcite's least restrictive type): TINYINT + TINYINT is a
  // TINYINT, and wraps as Java's (byte) does in Flink's generated code.
  const t = widerNumeric(ta, tb)
  return mkCall(op, [ctx.cast(a, t), ctx.cast(b, t)], withNullable(t, nullable), ctx.span)
}

function bindArithmetic(op: string): FunctionDef['bind'] {
  return (args, ctx) => {
    checkArity(args, 2, 2, ctx, `x ${op} y`)
    const [a, b] = adoptNull(op, args[0]!, args[1]!, ctx)
    const ta = a.type, tb = b.type
    const nullable = ta.nullable || tb.nullable
    if (isNumeric(ta) && isNumeric(tb)) return numeric(op, a, b, ctx)
    const call = (type: DataType, x: Rex = a, y: Rex = b): Rex => mkCall(op, [x, y], withNullable(withoutTimeAttr(type), nullable), ctx.span)
    const asNumber = (x: Rex): Rex => (x.type.kind === 'DECIMAL' ? ctx.cast(x, T.double()) : x)
    const ym = (t: DataType): boolean => t.kind === 'INTERVAL' && t.yearMonth === true
    if (ym(ta) || ym(tb)) return yearMonthArithmetic(op, a, b, call, asNumber, ctx)
    switch (op) {
      case '+':
        if (isTime(ta) && tb.kind === 'INTERVAL') return call(ta)
        if (ta.kind === 'INTERVAL' && isTime(tb)) return call(tb)
        if (ta.kind === 'INTERVAL' && tb.kind === 'INTERVAL') return call(ta)
        break
      case '-':
        if (isTime(ta) && tb.kind === 'INTERVAL') return call(ta)
        if (ta.kind === 'INTERVAL' && tb.kind === 'INTERVAL') return call(ta)
        if (isTime(ta) && isTime(tb)) {
          throw ctx.error(`cannot subtract ${typeName(tb)} from ${typeName(ta)}`, 'use TIMESTAMPDIFF(unit, start, end)')
        }
        break
      case '*':
        if (ta.kind === 'INTERVAL' && isNumeric(tb)) return call(ta, a, asNumber(b))
        if (isNumeric(ta) && tb.kind === 'INTERVAL') return call(tb, asNumber(a), b)
        break
      case '/':
        if (ta.kind === 'INTERVAL' && isNumeric(tb)) return call(ta, a, asNumber(b))
        break
    }
    throw cannotApply(op, a, b, ctx)
  }
}

/**
 * + - * / with an INTERVAL YEAR TO MONTH (months): added to or taken from a DATE or a TIMESTAMP as calendar
 * months, with another year-month interval, scaled by a number. Not with a TIME or a day-time interval (as Flink).
 */
function yearMonthArithmetic(op: string, a: Rex, b: Rex, call: (type: DataType, x?: Rex, y?: Rex) => Rex, asNumber: (x: Rex) => Rex, ctx: BindContext): Rex {
  const ta = a.type, tb = b.type
  const ym = (t: DataType): boolean => t.kind === 'INTERVAL' && t.yearMonth === true
  const dated = (t: DataType): boolean => t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ' || t.kind === 'DATE'
  switch (op) {
    case '+':
      if (dated(ta) && ym(tb)) return call(ta)
      if (ym(ta) && dated(tb)) return call(tb)
      if (ym(ta) && ym(tb)) return call(ta)
      break
    case '-':
      if (dated(ta) && ym(tb)) return call(ta)
      if (ym(ta) && ym(tb)) return call(ta)
      break
    case '*':
      if (ym(ta) && isNumeric(tb)) return call(ta, a, asNumber(b))
      if (isNumeric(ta) && ym(tb)) return call(tb, asNumber(a), b)
      break
    case '/':
      if (ym(ta) && isNumeric(tb)) return call(ta, a, asNumber(b))
      break
  }
  throw cannotApply(op, a, b, ctx)
}

export const ARITHMETIC: readonly FunctionDef[] = [
  { names: ['+'], signature: 'x + y', bind: bindArithmetic('+') },
  { names: ['-'], signature: 'x - y', bind: bindArithmetic('-') },
  { names: ['*'], signature: 'x * y', bind: bindArithmetic('*') },
  { names: ['/'], signature: 'x / y', bind: bindArithmetic('/') },
  { names: ['%'], signature: 'x % y', bind: bindArithmetic('%') },
  { names: ['MOD'], signature: 'MOD(INTEGER, INTEGER)', bind: (args, ctx) => {
    checkArity(args, 2, 2, ctx, 'MOD(NUMERIC, NUMERIC)')
    return ctx.call('%', args)
  } },
  {
    names: ['NEG'],
    signature: '-x',
    bind: (args, ctx) => {
      checkArity(args, 1, 1, ctx, '-x')
      let a = args[0]!
      if (a.type.kind === 'NULL') a = ctx.cast(a, T.int())
      if (!isNumeric(a.type) && a.type.kind !== 'INTERVAL') throw ctx.error(`cannot negate ${typeName(a.type)}`, 'unary minus applies to numbers and intervals')
      return mkCall('NEG', [a], withoutTimeAttr(a.type), ctx.span)
    },
  },
]
