// PRINTF(format, args…): the part of Java's String.format (Locale.US) that Flink users write —
// %s %S %b %d %x %X %f %% %n with width, precision and the flags - 0 + and space. Anything else is
// refused: at bind time when the format is a literal, when the row is formatted otherwise.
import { WeirError } from '../../common/errors.js'
import { T, integralBits, type DataType } from '../../common/types.js'
import { formatDecimal, formatDouble } from '../../common/values.js'
import { typeName } from '../coercion.js'
import { doubleToDecimal } from '../decimal.js'
import { cached } from '../like.js'
import { checkArity, literalValue, mkCall, type CallRex, type FunctionDef } from '../registry.js'

const SIGNATURE = 'PRINTF(format, arg, …)'
const SPEC = /%([-#+ 0,(<]*)(\d+\$)?([-#+ 0,(<]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])?/g

type Piece = string | ((args: readonly unknown[]) => string)

/** A compiled format: the text it renders, or why Java's Formatter would refuse it. */
type Compiled = { readonly render: (args: readonly unknown[]) => string } | { readonly error: string; readonly help: string }

function pad(s: string, width: number, left: boolean): string {
  return s.length >= width ? s : left ? s + ' '.repeat(width - s.length) : ' '.repeat(width - s.length) + s
}

/** Sign flags and zero padding of a number's digits, as Java's Formatter applies them. */
function numeric(digits: string, negative: boolean, flags: string, width: number): string {
  const sign = negative ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : ''
  if (flags.includes('0')) return sign + digits.padStart(width - sign.length, '0')
  return pad(sign + digits, width, flags.includes('-'))
}

/** Java's LocalDateTime.toString of epoch milliseconds (how Flink's TimestampData prints). */
function javaDateTime(ms: number): string {
  const iso = new Date(ms).toISOString() // yyyy-MM-ddTHH:mm:ss.SSSZ
  const sec = iso.slice(17, 19), frac = iso.slice(20, 23)
  return iso.slice(0, 16) + (frac !== '000' ? `:${sec}.${frac}` : sec !== '00' ? `:${sec}` : '')
}

/**
 * A value's text for %s: what Java prints for Flink's internal value — the string, the number,
 * DecimalData's plain digits, a DATE's epoch days, an INTERVAL's milliseconds, TimestampData as
 * LocalDateTime ('2024-07-30T10:24').
 */
function textOf(t: DataType): (v: unknown) => string {
  switch (t.kind) {
    case 'DOUBLE':
      return v => formatDouble(v as number)
    case 'DECIMAL': {
      const scale = t.scale
      return v => formatDecimal(v as bigint, scale)
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return v => javaDateTime(v as number)
    default:
      return v => String(v)
  }
}

function fixed(x: number, precision: number): string {
  if (Number.isNaN(x)) return 'NaN'
  if (!Number.isFinite(x)) return 'Infinity'
  // Java rounds the shortest decimal form of the double HALF_UP (0.125 → '0.13', 1.005 → '1.01').
  const v = doubleToDecimal(Math.abs(x), precision)!
  return formatDecimal(v, precision)
}

function compile(format: string, types: readonly DataType[]): Compiled {
  const pieces: Piece[] = []
  let next = 0, last = 0
  for (const m of format.matchAll(SPEC)) {
    if (m.index > last) pieces.push(format.slice(last, m.index))
    last = m.index + m[0].length
    const [spec, flags1 = '', index, flags2 = '', w, p, conv] = m
    const flags = flags1 + flags2
    const width = w === undefined ? 0 : Number(w)
    const precision = p === undefined ? undefined : Number(p)
    const refuse = (what: string, help = 'PRINTF supports %s %S %b %d %x %X %f %% %n with width, precision and the flags - 0 + space') => ({
      error: `PRINTF format '${format}': ${what}`,
      help,
    })
    if (conv === undefined) return refuse(`'${spec}' has no conversion`)
    if (index !== undefined || /[#,(<]/.test(flags)) return refuse(`'${spec}' uses a flag or argument index PRINTF does not support`)
    if ((flags.includes('-') || flags.includes('0')) && w === undefined) return refuse(`'${spec}' needs a width for the flags '${flags}'`)
    if ((flags.includes('-') && flags.includes('0')) || (flags.includes('+') && flags.includes(' '))) {
      return refuse(`'${spec}' combines illegal flags '${flags}'`)
    }
    if (conv === '%' || conv === 'n') {
      if (conv === 'n' && (flags !== '' || w !== undefined || p !== undefined)) return refuse(`'${spec}' takes no width or flags`)
      pieces.push(conv === 'n' ? '\n' : pad('%', width, flags.includes('-')))
      continue
    }
    if (!'sSbBdxXf'.includes(conv)) return refuse(`the conversion '%${conv}' is not supported`)
    const at = next++
    if (at >= types.length) return refuse(`'${spec}' has no argument (the format needs more than ${types.length})`, 'pass one argument per conversion')
    const t = types[at]!
    // Java prints a NULL argument as 'null' (upper-cased by %S / %X, cut by a %s precision), padded to the width.
    let nullText = conv === 'S' || conv === 'X' ? 'NULL' : 'null'
    if (precision !== undefined && (conv === 's' || conv === 'S')) nullText = nullText.slice(0, precision)
    const nullPadded = pad(nullText, width, flags.includes('-'))
    const nulls = (f: (v: unknown) => string) => (args: readonly unknown[]) => {
      const v = args[at]
      return v == null ? nullPadded : f(v)
    }
    const argHelp = (want: string) => refuse(`'${spec}' cannot format argument ${at + 2} of type ${typeName(t)}`, want)
    if (conv === 'b' || conv === 'B') {
      // Java's %b: false for null, the value of a BOOLEAN, true for anything else.
      if (/[0+ ]/.test(flags)) return refuse(`'${spec}' combines %${conv} with the flags '${flags}'`)
      pieces.push(args => {
        const v = args[at]
        let s = v == null ? 'false' : typeof v === 'boolean' ? String(v) : 'true'
        if (precision !== undefined) s = s.slice(0, precision)
        return pad(conv === 'B' ? s.toUpperCase() : s, width, flags.includes('-'))
      })
    } else if (conv === 's' || conv === 'S') {
      if (/[0+ ]/.test(flags)) return refuse(`'${spec}' combines %${conv} with the flags '${flags}'`)
      const text = textOf(t)
      const upper = conv === 'S'
      pieces.push(nulls(v => {
        let s = text(v)
        if (precision !== undefined) s = s.slice(0, precision)
        return pad(upper ? s.toUpperCase() : s, width, flags.includes('-'))
      }))
    } else if (conv === 'd' || conv === 'x' || conv === 'X') {
      if (precision !== undefined) return refuse(`'${spec}' takes no precision`)
      if (t.kind !== 'NULL' && integralBits(t) === 0) return argHelp('the argument must be an integer (CAST it)')
      if (conv !== 'd' && /[+ ]/.test(flags)) return refuse(`'${spec}' combines %${conv} with the flags '${flags}'`)
      // %x of a negative value: its two's complement at the type's width, as Java's Byte/Short/Integer/Long.
      const bits = integralBits(t) || 64
      pieces.push(nulls(v => {
        const n = BigInt(v as number | bigint)
        if (conv === 'd') return numeric((n < 0n ? -n : n).toString(), n < 0n, flags, width)
        const hex = BigInt.asUintN(bits, n).toString(16)
        return numeric(conv === 'X' ? hex.toUpperCase() : hex, false, flags, width)
      }))
    } else {
      if (t.kind !== 'NULL' && t.kind !== 'DOUBLE') return argHelp('the argument must be a DOUBLE (CAST it)')
      const digits = precision ?? 6
      pieces.push(nulls(v => {
        const x = v as number
        const negative = x < 0 || Object.is(x, -0)
        return Number.isNaN(x) ? pad('NaN', width, flags.includes('-')) : numeric(fixed(x, digits), negative, flags, width)
      }))
    }
  }
  if (last < format.length) pieces.push(format.slice(last))
  return { render: args => pieces.map(p => (typeof p === 'string' ? p : p(args))).join('') }
}

function bind(args: Parameters<FunctionDef['bind']>[0], ctx: Parameters<FunctionDef['bind']>[1]) {
  checkArity(args, 1, Infinity, ctx, SIGNATURE)
  const format = args[0]!
  if (format.type.kind !== 'STRING' && format.type.kind !== 'NULL') throw ctx.error(`PRINTF needs a STRING format, got ${typeName(format.type)}`, SIGNATURE)
  const fmt = literalValue(format)
  if (typeof fmt === 'string') {
    const c = compile(fmt, args.slice(1).map(a => a.type))
    if ('error' in c) throw ctx.error(c.error, c.help)
  }
  const typed = [format.type.kind === 'NULL' ? ctx.cast(format, T.string()) : format, ...args.slice(1)]
  return mkCall('PRINTF', typed, T.string(format.type.nullable), ctx.span)
}

function impl(call: CallRex) {
  const types = call.args.slice(1).map(a => a.type)
  const formats = cached((f: string) => compile(f, types))
  return {
    nulls: 'lenient' as const,
    fn: (format: string | null, ...args: unknown[]) => {
      if (format == null) return null
      const c = formats(format)
      if ('error' in c) throw new WeirError('execution', c.error, { span: call.span, help: c.help })
      return c.render(args)
    },
  }
}

export const PRINTF: FunctionDef = { names: ['PRINTF'], signature: SIGNATURE, bind, impl }
