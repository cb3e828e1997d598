// Functions that look at a value's kind rather than compute with it: IS_ALPHA, IS_DIGIT,
// IS_DECIMAL (never NULL: a NULL is none of them, as Flink's) and TYPEOF (a constant: the type).
import { T, formatType, integralBits, type DataType } from '../../common/types.js'
import { literal } from '../../core/rex.js'
import { typeName } from '../coercion.js'
import { checkArity, literalValue, mkCall, type FunctionDef } from '../registry.js'

/** Every UTF-16 unit passes `test` (Apache Commons' StringUtils.isAlpha / isNumeric), and there is one. */
function allUnits(s: string, test: RegExp): boolean {
  if (s === '') return false
  for (let i = 0; i < s.length; i++) if (!test.test(s[i]!)) return false
  return true
}

const LETTER = /^\p{L}$/u
const DIGIT = /^\p{Nd}$/u

// Java's Double.parseDouble: trimmed; a decimal or hex float with an optional f/d suffix, NaN, Infinity.
const JAVA_DOUBLE = /^[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)$/
// Integer.parseInt / Long.parseLong accept what Double.parseDouble does for plain digits, so the
// double form alone decides; Java trims only ASCII control characters and spaces.
export function isJavaNumber(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return JAVA_DOUBLE.test(s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, ''))
}

function kindTest(name: string, test: (t: DataType) => (v: unknown) => boolean): FunctionDef {
  const signature = `${name}(x)`
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      checkArity(args, 1, 1, ctx, signature)
      const a = args[0]!.type.kind === 'NULL' ? ctx.cast(args[0]!, T.string()) : args[0]!
      return mkCall(name, [a], T.boolean(false), ctx.span)
    },
    impl: call => {
      const f = test(call.args[0]!.type)
      return { fn: (v: unknown) => v != null && f(v), nulls: 'lenient' }
    },
  }
}

const no = () => false
const yes = () => true

function bindTypeof(args: Parameters<FunctionDef['bind']>[0], ctx: Parameters<FunctionDef['bind']>[1]) {
  const signature = 'TYPEOF(x[, forceSerializable])'
  checkArity(args, 1, 2, ctx, signature)
  if (args.length === 2 && typeof literalValue(args[1]) !== 'boolean') {
    throw ctx.error(`'TYPEOF' needs a BOOLEAN literal as forceSerializable, got ${typeName(args[1]!.type)}`, signature)
  }
  // forceSerializable only changes how RAW and structured types print: Weir has neither.
  return literal(formatType(args[0]!.type), T.string(false))
}

export const INSPECT: readonly FunctionDef[] = [
  kindTest('IS_ALPHA', t => (t.kind === 'STRING' ? v => allUnits(v as string, LETTER) : no)),
  kindTest('IS_DIGIT', t => (t.kind === 'STRING' ? v => allUnits(v as string, DIGIT) : integralBits(t) !== 0 ? yes : no)),
  kindTest('IS_DECIMAL', t => {
    if (t.kind === 'STRING') return v => v !== '' && isJavaNumber(v as string)
    return integralBits(t) !== 0 || t.kind === 'DOUBLE' || t.kind === 'DECIMAL' ? yes : no
  }),
  { names: ['TYPEOF'], signature: 'TYPEOF(x[, forceSerializable])', bind: bindTypeof },
]
