// Numeric functions: ABS, ROUND / TRUNCATE (HALF_UP, exact on DECIMAL), FLOOR / CEIL, SIGN, POWER,
// SQRT, logarithms, trigonometry, PI, RAND. MOD lives with the arithmetic operators.
import { T, integralBits, withoutTimeAttr, type DataType } from '../../common/types.js'
import { abs64, wrapInt, type Int64 } from '../../common/int64.js'
import { seededRandom } from '../../common/random.js'
import type { Rex } from '../../core/rex.js'
import { javaBytes } from './text.js'
import { bytesOfHex, hexOf } from '../../common/values.js'
import { MAX_PRECISION, decimalToDouble, doubleToExactDecimal, pow10, rescale, rescaleDown } from '../decimal.js'
import { anyNullable, badArgs, checkArgs, checkArity, literalValue, mkCall, simple, strict, type BindContext, type CallRex, type FunctionDef,
  type Impl } from '../registry.js'

const dbl = () => T.double()
const sameAsFirst = (args: readonly Rex[]): DataType => withoutTimeAttr(args[0]!.type)

/** The DECIMAL type of ROUND / TRUNCATE(DECIMAL(p, s), d), as Flink derives it (rounding may add a digit). */
function roundedDecimal(p: number, s: number, d: number, truncate: boolean, nullable: boolean): DataType {
  const carry = truncate ? 0 : 1
  if (d >= s) return T.decimal(p, s, nullable)
  if (d < 0) return T.decimal(Math.max(1, Math.min(MAX_PRECISION, carry + p - s)), 0, nullable)
  return T.decimal(Math.max(1, Math.min(MAX_PRECISION, carry + p - s + d)), d, nullable)
}

/**
 * Rounds (HALF_UP) or truncates an integer to 10^-d when d < 0, exactly, wrapping to `bits` as
 * Flink's ROUND does (BigDecimal, then intValue() / longValue()).
 */
function roundIntegral(x: Int64, d: number, truncate: boolean, bits: 8 | 16 | 32 | 64): Int64 {
  if (d >= 0) return x
  const v = truncate ? rescaleDown(BigInt(x), 0, d) : rescale(BigInt(x), 0, d)
  return wrapInt(v * pow10(-d), bits)
}

/** ROUND / TRUNCATE of a double through its exact decimal form (as Java's BigDecimal.valueOf). */
export function roundDouble(x: number, d: number, truncate = false): number {
  const e = doubleToExactDecimal(x)
  if (e === null || d >= e.scale) return x
  const v = truncate ? rescaleDown(e.unscaled, e.scale, d) : rescale(e.unscaled, e.scale, d)
  return d >= 0 ? decimalToDouble(v, d) : Number(v * pow10(-d))
}

function bindRound(name: string, truncate: boolean): FunctionDef['bind'] {
  const signature = `${name}(NUMERIC[, INT])`
  return (args, ctx) => {
    const typed = checkArgs(args, ['NUMERIC', 'INTEGER'], 1, ctx, signature)
    const x = typed[0]!
    if (x.type.kind === 'DECIMAL') {
      const d = typed.length > 1 ? literalValue(typed[1]) : 0
      if (typeof d !== 'number') throw ctx.error(`${name} of a DECIMAL needs a constant number of digits`, `write e.g. ${name}(x, 2)`)
      return mkCall(name, typed, roundedDecimal(x.type.precision, x.type.scale, d, truncate, anyNullable(typed)), ctx.span)
    }
    return mkCall(name, typed, { ...withoutTimeAttr(x.type), nullable: anyNullable(typed) } as DataType, ctx.span)
  }
}

function roundImpl(truncate: boolean): (call: CallRex) => Impl {
  return call => {
    const t = call.args[0]!.type
    if (t.kind === 'DECIMAL') {
      const s = t.scale
      const d = call.args.length > 1 ? (literalValue(call.args[1]) as number) : 0
      const move = truncate ? rescaleDown : rescale
      const fn = d >= s ? (v: bigint) => v : d < 0 ? (v: bigint) => move(v, s, d) * pow10(-d) : (v: bigint) => move(v, s, d)
      return { fn, nulls: 'strict' }
    }
    // The digits may be a BIGINT argument: a count, read as a number.
    if (t.kind === 'DOUBLE') return { fn: (x: number, d: Int64 = 0) => roundDouble(x, Number(d), truncate), nulls: 'strict' }
    const bits = integralBits(t) as 8 | 16 | 32 | 64
    return { fn: (x: Int64, d: Int64 = 0) => roundIntegral(x, Number(d), truncate, bits), nulls: 'strict' }
  }
}

function floorCeilDecimal(v: bigint, scale: number, ceil: boolean): bigint {
  const f = pow10(scale)
  const q = v / f, r = v % f
  if (r === 0n) return q
  return ceil ? (v > 0n ? q + 1n : q) : (v < 0n ? q - 1n : q)
}

function floorCeil(names: string[], ceil: boolean): FunctionDef {
  const signature = `${names[0]}(NUMERIC)`
  return {
    names,
    signature,
    bind: (args, ctx) => {
      const typed = checkArgs(args, ['NUMERIC'], 1, ctx, signature)
      const t = typed[0]!.type
      const type = t.kind === 'DECIMAL'
        ? T.decimal(t.scale === 0 ? t.precision : Math.min(MAX_PRECISION, t.precision - t.scale + 1), 0, t.nullable)
        : withoutTimeAttr(t)
      return mkCall(names[0]!, typed, type, ctx.span)
    },
    inline: (a, call) => {
      const k = call.args[0]!.type.kind
      return integralBits(call.args[0]!.type) !== 0 ? a[0]! : k === 'DOUBLE' ? `Math.${ceil ? 'ceil' : 'floor'}(${a[0]})` : ''
    },
    impl: call => {
      const t = call.args[0]!.type
      const s = t.kind === 'DECIMAL' ? t.scale : 0
      return { fn: (v: bigint) => floorCeilDecimal(v, s, ceil), nulls: 'strict' }
    },
  }
}

function unaryDouble(names: string[], js: string): FunctionDef {
  const f = (Math as unknown as Record<string, (x: number) => number>)[js]!
  return simple(names, `${names[0]}(NUMERIC)`, ['DOUBLE'], 1, dbl, strict(f), false, a => `Math.${js}(${a[0]})`)
}

/**
 * BIN / HEX: an integer in base 2 / 16 as Java's Long.toBinaryString / toHexString (a negative one
 * in 64-bit two's complement); HEX of a string is its UTF-8 bytes. Upper-case, as Flink's.
 */
function radix(name: string, base: number, strings: boolean): FunctionDef {
  const signature = strings ? `${name}(INT), ${name}(STRING) or ${name}(BYTES)` : `${name}(INT)`
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      checkArity(args, 1, 1, ctx, signature)
      const typed = args[0]!.type.kind === 'NULL' ? ctx.cast(args[0]!, T.bigint()) : args[0]!
      const text = typed.type.kind === 'STRING' || typed.type.kind === 'BYTES'
      if ((!text || !strings) && integralBits(typed.type) === 0) throw badArgs(args, ctx, signature)
      return mkCall(name, [typed], T.string(typed.type.nullable), ctx.span)
    },
    impl: call =>
      call.args[0]!.type.kind === 'STRING'
        ? { fn: (s: string) => javaBytes(s).toString('hex').toUpperCase(), nulls: 'strict' }
        : call.args[0]!.type.kind === 'BYTES'
        ? { fn: (b: Uint8Array) => hexOf(b).toUpperCase(), nulls: 'strict' }
        : { fn: (x: Int64) => BigInt.asUintN(64, BigInt(x)).toString(base).toUpperCase(), nulls: 'strict' },
  }
}

export const MATH: readonly FunctionDef[] = [
  {
    // As Java's Math.abs: ABS of an integer type's minimum is that minimum (it wraps).
    ...simple(['ABS'], 'ABS(NUMERIC)', ['NUMERIC'], 1, sameAsFirst,
      call => ({ fn: call.type.kind === 'BIGINT' ? abs64 : (v: bigint) => (v < 0n ? -v : v), nulls: 'strict' })),
    inline: (a, call) => {
      switch (call.type.kind) {
        case 'TINYINT':
          return `((Math.abs(${a[0]}) << 24) >> 24)`
        case 'SMALLINT':
          return `((Math.abs(${a[0]}) << 16) >> 16)`
        case 'INT':
          return `(Math.abs(${a[0]}) | 0)`
        case 'BIGINT':
          return '' // abs64: it may be a bigint
        case 'DECIMAL':
          return `(${a[0]} < 0n ? -${a[0]} : ${a[0]})`
        default:
          return `Math.abs(${a[0]})`
      }
    },
  },
  { names: ['ROUND'], signature: 'ROUND(NUMERIC[, INT])', bind: bindRound('ROUND', false), impl: roundImpl(false) },
  { names: ['TRUNCATE', 'TRUNC'], signature: 'TRUNCATE(NUMERIC[, INT])', bind: bindRound('TRUNCATE', true), impl: roundImpl(true) },
  floorCeil(['FLOOR'], false),
  floorCeil(['CEIL', 'CEILING'], true),
  {
    names: ['SIGN'],
    signature: 'SIGN(NUMERIC)',
    bind: (args, ctx) => {
      const typed = checkArgs(args, ['NUMERIC'], 1, ctx, 'SIGN(NUMERIC)')
      const t = typed[0]!.type
      const type = t.kind === 'DECIMAL' ? T.decimal(Math.max(t.precision, t.scale + 1), t.scale, t.nullable) : withoutTimeAttr(t)
      return mkCall('SIGN', typed, type, ctx.span)
    },
    inline: (a, call) => (call.type.kind === 'DECIMAL' ? '' : call.type.kind === 'BIGINT' ? `(${a[0]} > 0 ? 1 : ${a[0]} < 0 ? -1 : 0)` : `Math.sign(${a[0]})`),
    impl: call => {
      const one = pow10(call.type.kind === 'DECIMAL' ? call.type.scale : 0)
      return { fn: (v: bigint) => (v > 0n ? one : v < 0n ? -one : 0n), nulls: 'strict' }
    },
  },
  simple(['POWER', 'POW'], 'POWER(NUMERIC, NUMERIC)', ['DOUBLE', 'DOUBLE'], 2, dbl, strict(Math.pow), false, a => `Math.pow(${a[0]}, ${a[1]})`),
  unaryDouble(['SQRT'], 'sqrt'),
  unaryDouble(['LN'], 'log'),
  unaryDouble(['LOG10'], 'log10'),
  unaryDouble(['LOG2'], 'log2'),
  unaryDouble(['EXP'], 'exp'),
  unaryDouble(['SIN'], 'sin'),
  unaryDouble(['COS'], 'cos'),
  unaryDouble(['TAN'], 'tan'),
  unaryDouble(['ASIN'], 'asin'),
  unaryDouble(['ACOS'], 'acos'),
  unaryDouble(['ATAN'], 'atan'),
  unaryDouble(['SINH'], 'sinh'),
  unaryDouble(['COSH'], 'cosh'),
  unaryDouble(['TANH'], 'tanh'),
  simple(['COT'], 'COT(NUMERIC)', ['DOUBLE'], 1, dbl, strict((x: number) => 1 / Math.tan(x)), false, a => `(1 / Math.tan(${a[0]}))`),
  // Integers in base 2 / 16 as Java's Long.toBinaryString / toHexString: negatives in 64-bit two's complement.
  radix('BIN', 2, false),
  radix('HEX', 16, true),
  // As Flink's UNHEX: an odd count of digits gets a leading 0; any character that is not a hex digit gives NULL.
  simple(['UNHEX'], 'UNHEX(STRING)', ['STRING'], 1, () => T.bytes(), strict((s: string) => bytesOfHex(s.length % 2 === 1 ? '0' + s : s)), true),
  simple(['LOG'], 'LOG(NUMERIC) or LOG(base, NUMERIC)', ['DOUBLE', 'DOUBLE'], 1, dbl,
    strict((a: number, b?: number) => (b === undefined ? Math.log(a) : Math.log(b) / Math.log(a)))),
  simple(['ATAN2'], 'ATAN2(NUMERIC, NUMERIC)', ['DOUBLE', 'DOUBLE'], 2, dbl, strict(Math.atan2), false, a => `Math.atan2(${a[0]}, ${a[1]})`),
  simple(['DEGREES'], 'DEGREES(NUMERIC)', ['DOUBLE'], 1, dbl, strict((x: number) => (x * 180) / Math.PI)),
  simple(['RADIANS'], 'RADIANS(NUMERIC)', ['DOUBLE'], 1, dbl, strict((x: number) => (x * Math.PI) / 180)),
  {
    names: ['PI'],
    signature: 'PI()',
    bind: (args, ctx) => {
      checkArity(args, 0, 0, ctx, 'PI()')
      return mkCall('PI', [], T.double(false), ctx.span)
    },
    impl: strict(() => Math.PI),
  },
  {
    names: ['E'],
    signature: 'E()',
    bind: (args, ctx) => {
      checkArity(args, 0, 0, ctx, 'E()')
      return mkCall('E', [], T.double(false), ctx.span)
    },
    impl: strict(() => Math.E),
  },
  {
    names: ['RAND'],
    signature: 'RAND([seed])',
    bind: (args, ctx) => mkCall('RAND', checkArgs(args, ['INTEGER'], 0, ctx, 'RAND([seed])'), T.double(false), ctx.span),
    impl: call => {
      const seed = literalValue(call.args[0])
      const next = typeof seed === 'number' || typeof seed === 'bigint' ? seededRandom(Number(seed)) : Math.random
      return { fn: () => next(), nulls: 'lenient' }
    },
  },
  {
    names: ['RAND_INTEGER'],
    signature: 'RAND_INTEGER([seed, ] bound)',
    bind: (args, ctx: BindContext) => {
      const typed = checkArgs(args, ['INTEGER', 'INTEGER'], 1, ctx, 'RAND_INTEGER([seed, ] bound)')
      return mkCall('RAND_INTEGER', typed, T.int(typed[typed.length - 1]!.type.nullable), ctx.span)
    },
    impl: call => {
      const seed = call.args.length > 1 ? literalValue(call.args[0]) : undefined
      const next = typeof seed === 'number' || typeof seed === 'bigint' ? seededRandom(Number(seed)) : Math.random
      const last = call.args.length - 1
      return { fn: (...xs: (Int64 | null)[]) => {
        const bound = xs[last]
        return bound == null ? null : Math.floor(next() * Number(bound))
      }, nulls: 'lenient' }
    },
  },
]
