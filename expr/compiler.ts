// Compiles bound expressions (Rex) to JavaScript with `new Function`: one straight-line function per
// query for Calc (filter + projection over a batch), with SQL NULL semantics and three-valued logic
// inline, and the less common functions called through a constants array.
import { WeirError } from '../common/errors.js'
import { integralBits, isNested, type DataType } from '../common/types.js'
import type { Batch, Row } from '../core/batch.js'
import { inputsUsed, type Rex } from '../core/rex.js'
import type { CallRex } from './registry.js'
import { functionDef } from './builtins.js'
import { userFunctionDef } from './functions/user.js'
import { makeCastFn } from './cast.js'
import { decimalArithmetic, decimalView } from './coercion.js'
import { decimalDivide, pow10, rescale } from './decimal.js'
import { likeMatcher } from './like.js'
import { equalsFor } from './nested-values.js'
import { castCanOverflow, inlineCast } from './inline-cast.js'
import { add64, div64, mod64, mul64, neg64, sub64 } from '../common/int64.js'
import { compareBytes } from '../common/values.js'
import { addMonthsToDays, addMonthsToMillis } from './calendar.js'

const COMPARE: Record<string, string> = { '=': '===', '<>': '!==', '<': '<', '<=': '<=', '>': '>', '>=': '>=' }

/** True when the generated code must check the value for NULL. Input columns are always checked. */
function mayBeNull(rex: Rex): boolean {
  if (rex.kind === 'Input') return true
  if (rex.kind === 'Literal') return rex.value === null || rex.value === undefined
  return rex.type.nullable
}

/** BIGINT's slow paths, by operator (see CodeGen.integral). */
const INT64_OPS: Record<string, (a: any, b: any) => unknown> = { '+': add64, '-': sub64, '*': mul64, '/': div64, '%': mod64 }

/** True when an integer expression's value is never a bigint: narrower than BIGINT, a number literal, or a widening CAST of one. */
function isNumberValued(rex: Rex): boolean {
  const bits = integralBits(rex.type)
  if (bits !== 64) return bits !== 0
  if (rex.kind === 'Literal') return typeof rex.value === 'number'
  if (rex.kind === 'Call' && rex.op === 'CAST') return isNumberValued(rex.args[0]!)
  return false
}

function isNonNullLiteral(rex: Rex): boolean {
  return rex.kind === 'Literal' && rex.value !== null && rex.value !== undefined
}

/**
 * Generates code for one function body. `value` and `pred` append statements to `out` and return a
 * JavaScript expression that is cheap and pure (a variable, a row access or a literal), so callers may
 * repeat it. `pred` gives a boolean that is true exactly when the SQL value is TRUE.
 */
class CodeGen {
  readonly constants: unknown[] = []
  private temps = 0

  constructor(private readonly env?: EvalEnv) {}

  constant(value: unknown): string {
    this.constants.push(value)
    return `c${this.constants.length - 1}`
  }

  private fresh(): string {
    return `v${this.temps++}`
  }

  /** The constants as local variables, for the top of the generated module. */
  header(): string {
    return this.constants.length === 0 ? '' : `const ${this.constants.map((_, i) => `c${i} = C[${i}]`).join(', ')};`
  }

  literal(value: unknown): string {
    if (value === null || value === undefined) return 'null'
    switch (typeof value) {
      case 'number':
        if (Object.is(value, -0)) return '(-0)'
        if (Number.isNaN(value)) return 'NaN'
        if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '(-Infinity)'
        return value < 0 ? `(${value})` : String(value)
      case 'bigint':
        return value < 0n ? `(${value}n)` : `${value}n`
      case 'string':
        return JSON.stringify(value)
      case 'boolean':
        return String(value)
      default:
        return this.constant(value)
    }
  }

  value(rex: Rex, out: string[]): string {
    switch (rex.kind) {
      case 'Input':
        return `r[${rex.index}]`
      case 'Literal':
        return this.literal(rex.value)
      case 'Call':
        return this.call(rex, out)
    }
  }

  pred(rex: Rex, out: string[]): string {
    if (rex.kind === 'Literal') return rex.value === true ? 'true' : 'false'
    if (rex.kind === 'Input') return `(r[${rex.index}] === true)`
    switch (rex.op) {
      case 'AND':
        return this.predAnd(rex.args, out)
      case 'OR':
        return this.predOr(rex.args, out)
      case 'NOT':
        return `(${this.value(rex.args[0]!, out)} === false)`
      case '=':
      case '<>':
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const [x, y] = rex.args as [Rex, Rex]
        if (isNested(x.type)) return `(${this.nestedEquality(rex, out)} === true)`
        const a = this.value(x, out), b = this.value(y, out)
        const cmp = x.type.kind === 'BYTES' ? `${this.constant(compareBytes)}(${a}, ${b}) ${COMPARE[rex.op]} 0` : `${a} ${COMPARE[rex.op]} ${b}`
        // `a === literal` is already false for NULL; every other form needs explicit checks.
        if (rex.op === '=' && (isNonNullLiteral(x) || isNonNullLiteral(y))) return `(${cmp})`
        const guards = [x, y].map((e, i) => (mayBeNull(e) ? `${i === 0 ? a : b} != null` : '')).filter(Boolean)
        return `(${[...guards, cmp].join(' && ')})`
      }
      case 'IN': {
        const { test, xGuard } = this.inTest(rex, out)
        return xGuard ? `(${xGuard} && (${test}))` : `(${test})`
      }
      default:
        return `(${this.value(rex, out)} === true)`
    }
  }

  private predAnd(args: readonly Rex[], out: string[]): string {
    const first = this.pred(args[0]!, out)
    const rest = args.slice(1).map(a => {
      const s: string[] = []
      return { s, e: this.pred(a, s) }
    })
    if (rest.every(r => r.s.length === 0)) return `(${[first, ...rest.map(r => r.e)].join(' && ')})`
    const p = this.fresh()
    out.push(`let ${p} = ${first};`)
    for (const r of rest) out.push(`if (${p}) {`, ...r.s, `${p} = ${r.e};`)
    out.push('}'.repeat(rest.length))
    return p
  }

  private predOr(args: readonly Rex[], out: string[]): string {
    const first = this.pred(args[0]!, out)
    const rest = args.slice(1).map(a => {
      const s: string[] = []
      return { s, e: this.pred(a, s) }
    })
    if (rest.every(r => r.s.length === 0)) return `(${[first, ...rest.map(r => r.e)].join(' || ')})`
    const p = this.fresh()
    out.push(`let ${p} = ${first};`)
    for (const r of rest) out.push(`if (!${p}) {`, ...r.s, `${p} = ${r.e};`)
    out.push('}'.repeat(rest.length))
    return p
  }

  /** Evaluates the arguments, then `body` unless one of them is NULL. */
  private strict(args: readonly Rex[], out: string[], body: (a: string[]) => string): string {
    const a = args.map(x => this.value(x, out))
    const guard = args.map((x, i) => (mayBeNull(x) ? `${a[i]} == null` : '')).filter(Boolean).join(' || ')
    const v = this.fresh()
    out.push(`const ${v} = ${guard ? `(${guard}) ? null : ` : ''}${body(a)};`)
    return v
  }

  private divisionByZero(call: CallRex): string {
    const span = call.span
    return this.constant(() => {
      throw WeirError.execution('division by zero', { span, help: 'guard the divisor, e.g. NULLIF(x, 0)' })
    })
  }

  /** `(b === zero ? fail() : e)`, or just `e` when the divisor is a non-zero literal. */
  private zeroCheck(call: CallRex, divisor: Rex, b: string, zero: string, e: string): string {
    if (isNonNullLiteral(divisor) && (divisor as { value: unknown }).value != 0) return e
    return `(${b} === ${zero} ? ${this.divisionByZero(call)}() : ${e})`
  }

  private call(c: CallRex, out: string[]): string {
    switch (c.op) {
      case '+':
      case '-':
      case '*':
      case '/':
      case '%':
        return this.arithmetic(c, out)
      case 'NEG':
        return this.negate(c, out)
      case '=':
      case '<>':
      case '<':
      case '<=':
      case '>':
      case '>=':
        if (isNested(c.args[0]!.type)) return this.nestedEquality(c, out)
        // BYTES compare byte by byte (Uint8Arrays are not equal by ===).
        if (c.args[0]!.type.kind === 'BYTES') {
          const cmp = this.constant(compareBytes)
          return this.strict(c.args, out, ([a, b]) => `(${cmp}(${a}, ${b}) ${COMPARE[c.op]} 0)`)
        }
        return this.strict(c.args, out, ([a, b]) => `(${a} ${COMPARE[c.op]} ${b})`)
      case 'AND':
      case 'OR':
        return this.andOr(c.args, c.op === 'AND', out)
      case 'NOT':
        return this.strict(c.args, out, ([a]) => `!${a}`)
      case 'IS_NULL':
        return this.unary(c, out, a => (mayBeNull(c.args[0]!) ? `${a} == null` : 'false'))
      case 'IS_NOT_NULL':
        return this.unary(c, out, a => (mayBeNull(c.args[0]!) ? `${a} != null` : 'true'))
      case 'IS_TRUE':
        return this.unary(c, out, a => `${a} === true`)
      case 'IS_NOT_TRUE':
        return this.unary(c, out, a => `${a} !== true`)
      case 'IS_FALSE':
        return this.unary(c, out, a => `${a} === false`)
      case 'IS_NOT_FALSE':
        return this.unary(c, out, a => `${a} !== false`)
      case 'IS_DISTINCT_FROM':
      case 'IS_NOT_DISTINCT_FROM': {
        if (isNested(c.args[0]!.type)) return this.nestedEquality(c, out)
        const a = this.value(c.args[0]!, out), b = this.value(c.args[1]!, out)
        const v = this.fresh()
        const differ = c.args[0]!.type.kind === 'BYTES' ? `${this.constant(compareBytes)}(${a}, ${b}) !== 0` : `${a} !== ${b}`
        const distinct = `(${a} == null ? ${b} != null : (${b} == null || ${differ}))`
        out.push(`const ${v} = ${c.op === 'IS_DISTINCT_FROM' ? distinct : `!${distinct}`};`)
        return v
      }
      case 'CASE':
        return this.caseWhen(c, out)
      case 'COALESCE':
        return this.coalesce(c, out)
      case 'CAST':
      case 'TRY_CAST':
        return this.cast(c, out)
      case 'IN':
        return this.inList(c, out)
      case 'CURRENT_WATERMARK':
        return this.currentWatermark(c, out)
      case 'LIKE': {
        const inline = this.likeInline(c)
        if (inline !== undefined) return this.strict(c.args.slice(0, 1), out, ([a]) => inline(a!))
        return this.generic(c, out)
      }
      default:
        return this.generic(c, out)
    }
  }

  /** = <> IS [NOT] DISTINCT FROM between ROW, ARRAY or MAP values (the binder allows no other comparison of them). */
  private nestedEquality(c: CallRex, out: string[]): string {
    const eq = this.constant(equalsFor(c.args[0]!.type))
    switch (c.op) {
      case '=':
        return this.strict(c.args, out, ([a, b]) => `${eq}(${a}, ${b})`)
      case '<>':
        return this.strict(c.args, out, ([a, b]) => `!${eq}(${a}, ${b})`)
      case 'IS_DISTINCT_FROM':
      case 'IS_NOT_DISTINCT_FROM': {
        const a = this.value(c.args[0]!, out), b = this.value(c.args[1]!, out)
        const v = this.fresh()
        const distinct = `(${a} == null ? ${b} != null : (${b} == null || !${eq}(${a}, ${b})))`
        out.push(`const ${v} = ${c.op === 'IS_DISTINCT_FROM' ? distinct : `!${distinct}`};`)
        return v
      }
      default:
        throw WeirError.internal(`'${c.op}' between nested values`)
    }
  }

  /** The evaluating operator's watermark, NULL before the first (the argument only types the call). */
  private currentWatermark(c: CallRex, out: string[]): string {
    if (this.env === undefined) {
      throw WeirError.plan('CURRENT_WATERMARK is supported in a SELECT list and a WHERE clause only', {
        span: c.span,
        help: 'move the condition from the ON clause to WHERE',
      })
    }
    const env = this.constant(this.env)
    const w = this.fresh(), v = this.fresh()
    out.push(`const ${w} = ${env}.currentWatermark();`, `const ${v} = ${w} === -Infinity ? null : ${w};`)
    return v
  }

  private unary(c: CallRex, out: string[], body: (a: string) => string): string {
    const a = this.value(c.args[0]!, out)
    const v = this.fresh()
    out.push(`const ${v} = ${body(a)};`)
    return v
  }

  private generic(c: CallRex, out: string[]): string {
    const def = functionDef(c.op) ?? userFunctionDef(c.op)
    if (def === undefined) throw WeirError.internal(`no implementation for operator '${c.op}'`)
    if (def.inline !== undefined) {
      const probe = def.inline(c.args.map((_, i) => `a${i}`), c)
      if (probe !== '') return this.strict(c.args, out, a => def.inline!(a, c))
    }
    if (def.impl === undefined) throw WeirError.internal(`no implementation for operator '${c.op}'`)
    const impl = def.impl(c)
    const f = this.constant(impl.fn)
    if (impl.nulls === 'strict') return this.strict(c.args, out, a => `${f}(${a.join(', ')})`)
    const a = c.args.map(x => this.value(x, out))
    const v = this.fresh()
    out.push(`const ${v} = ${f}(${a.join(', ')});`)
    return v
  }

  private arithmetic(c: CallRex, out: string[]): string {
    const [x, y] = c.args as [Rex, Rex]
    const op = c.op
    const t = c.type
    switch (t.kind) {
      case 'TINYINT':
      case 'SMALLINT':
      case 'INT':
      case 'BIGINT':
        return this.integral(c, out)
      case 'DOUBLE':
        if (t.float === true) return this.strict(c.args, out, ([a, b]) => `Math.fround(${a} ${op} ${b})`)
        return this.strict(c.args, out, ([a, b]) => `(${a} ${op} ${b})`)
      case 'DECIMAL':
        return this.decimalArithmetic(c, out)
      case 'INTERVAL':
        return this.strict(c.args, out, ([a, b]) => {
          // A BIGINT factor may be a bigint: multiply by its nearest number.
          if (x.type.kind === 'BIGINT') a = `Number(${a})`
          if (y.type.kind === 'BIGINT') b = `Number(${b})`
          switch (op) {
            case '*':
              return `Math.round(${a} * ${b})`
            case '/':
              return this.zeroCheck(c, y, b!, '0', `Math.round(${a} / ${b})`)
            default:
              return `(${a} ${op} ${b})`
          }
        })
      case 'TIMESTAMP':
      case 'TIMESTAMP_LTZ':
      case 'DATE': {
        // A year-month interval adds calendar months, the day clamped to the month's end (as Java's plusMonths).
        const timeFirst = x.type.kind === t.kind, i = timeFirst ? y : x
        if (i.type.kind === 'INTERVAL' && i.type.yearMonth === true) {
          const add = this.constant(t.kind === 'DATE' ? addMonthsToDays : addMonthsToMillis)
          return this.strict(c.args, out, ([a, b]) => (timeFirst ? `${add}(${a}, ${op === '-' ? `-(${b})` : b})` : `${add}(${b}, ${a})`))
        }
        if (t.kind === 'DATE') {
          return this.strict(c.args, out, ([a, b]) => (timeFirst ? `(${a} ${op} Math.trunc(${b} / 86400000))` : `(${b} + Math.trunc(${a} / 86400000))`))
        }
        return this.strict(c.args, out, ([a, b]) => `(${a} ${op} ${b})`)
      }
      // A time of day wraps around midnight: TIME '23:00:00' + INTERVAL '2' HOUR is 01:00:00.
      case 'TIME': {
        const timeFirst = x.type.kind === 'TIME'
        return this.strict(c.args, out, ([a, b]) => {
          const [d, i] = timeFirst ? [a, b] : [b, a]
          return `(((${d} ${op} ${i} % 86400000) % 86400000 + 86400000) % 86400000)`
        })
      }
      default:
        throw WeirError.internal(`cannot compile '${op}' returning ${t.kind}`)
    }
  }

  /**
   * + - * / % on integers, wrapping as Java does. INT and narrower stay in int32 arithmetic (`| 0`,
   * Math.imul, then a sign-extending shift for SMALLINT and TINYINT). BIGINT computes on doubles
   * while both operands are numbers and the result is a safe integer, and in common/int64.ts else.
   */
  private integral(c: CallRex, out: string[]): string {
    const [x, y] = c.args as [Rex, Rex]
    const op = c.op
    const bits = integralBits(c.type) as 8 | 16 | 32 | 64
    // MOD takes the divisor's type, so its dividend may be a wider BIGINT (a bigint at times).
    const exact = bits === 64 || integralBits(x.type) === 64 || integralBits(y.type) === 64
    const narrow = (e: string): string => (bits === 8 ? `((${e} << 24) >> 24)` : bits === 16 ? `((${e} << 16) >> 16)` : e)
    if (!exact) {
      return this.strict(c.args, out, ([a, b]) => {
        switch (op) {
          case '+':
            return narrow(`((${a} + ${b}) | 0)`)
          case '-':
            return narrow(`((${a} - ${b}) | 0)`)
          case '*':
            return narrow(`Math.imul(${a}, ${b})`)
          case '/':
            return this.zeroCheck(c, y, b!, '0', narrow(`((${a} / ${b}) | 0)`))
          default:
            return this.zeroCheck(c, y, b!, '0', `((${a} % ${b}) | 0)`)
        }
      })
    }
    const numbers = (a: string, b: string): string =>
      [x, y].map((e, i) => (isNumberValued(e) ? '' : `typeof ${i === 0 ? a : b} === 'number'`)).filter(Boolean).join(' && ') || 'true'
    const slow = this.constant(INT64_OPS[op]!)
    switch (op) {
      case '+':
      case '-':
      case '*': {
        const r = this.fresh()
        out.push(`let ${r};`)
        return this.strict(c.args, out,
          ([a, b]) =>
            `(${numbers(a!, b!)} && (${r} = ${a} ${op} ${b}) <= ${Number.MAX_SAFE_INTEGER} && ${r} >= -${Number.MAX_SAFE_INTEGER} ? ${
              op === '*' ? `${r} + 0` : r
            } : ${slow}(${a}, ${b}))`)
      }
      case '/':
        return this.strict(c.args, out, ([a, b]) => this.zeroCheck(c, y, b!, '0', `(${numbers(a!, b!)} ? Math.trunc(${a} / ${b}) + 0 : ${slow}(${a}, ${b}))`))
      default: {
        // |a % b| < |b|: the remainder fits the result type whatever the dividend's (an int32 for INT).
        const fast = bits === 64 ? '+ 0' : '| 0'
        return this.strict(c.args, out, ([a, b]) => this.zeroCheck(c, y, b!, '0', `(${numbers(a!, b!)} ? (${a} % ${b}) ${fast} : ${slow}(${a}, ${b}))`))
      }
    }
  }

  private decimalArithmetic(c: CallRex, out: string[]): string {
    const t = c.type as Extract<DataType, { kind: 'DECIMAL' }>
    const [x, y] = c.args as [Rex, Rex]
    const da = decimalView(x.type), db = decimalView(y.type)
    if (da === null || db === null) throw WeirError.internal(`DECIMAL '${c.op}' on ${x.type.kind} and ${y.type.kind}`)
    const [natural, naturalScale] = decimalArithmetic(c.op, da.precision, da.scale, db.precision, db.scale)
    const align = (e: string, from: number, to: number): string => (from === to ? e : `(${e} * ${pow10(to - from)}n)`)
    let scale = naturalScale
    let v = this.strict(c.args, out, ([a, b]) => {
      switch (c.op) {
        case '+':
        case '-':
          return `(${align(a!, da.scale, naturalScale)} ${c.op} ${align(b!, db.scale, naturalScale)})`
        case '*':
          return `(${a} * ${b})`
        case '%':
          return this.zeroCheck(c, y, b!, '0n', `(${align(a!, da.scale, naturalScale)} % ${align(b!, db.scale, naturalScale)})`)
        default: {
          scale = t.scale
          const sa = da.scale, sb = db.scale, s = t.scale
          const divide = this.constant((p: bigint, q: bigint) => decimalDivide(p, sa, q, sb, s))
          return this.zeroCheck(c, y, b!, '0n', `${divide}(${a}, ${b})`)
        }
      }
    })
    if (scale !== t.scale) {
      const from = scale, to = t.scale
      const f = this.constant((u: bigint) => rescale(u, from, to))
      const w = this.fresh()
      out.push(`const ${w} = ${v} === null ? null : ${f}(${v});`)
      v = w
    }
    if (natural > t.precision) v = this.overflowCheck(v, t.precision, out)
    return v
  }

  /** A DECIMAL beyond its precision becomes NULL (as Flink). */
  private overflowCheck(v: string, precision: number, out: string[]): string {
    const limit = `${pow10(precision)}n`
    const w = this.fresh()
    out.push(`const ${w} = ${v} === null || (${v} < ${limit} && ${v} > -${limit}) ? ${v} : null;`)
    return w
  }

  private negate(c: CallRex, out: string[]): string {
    switch (c.type.kind) {
      case 'TINYINT':
        return this.strict(c.args, out, ([a]) => `(((0 - ${a}) << 24) >> 24)`)
      case 'SMALLINT':
        return this.strict(c.args, out, ([a]) => `(((0 - ${a}) << 16) >> 16)`)
      case 'INT':
        return this.strict(c.args, out, ([a]) => `((0 - ${a}) | 0)`)
      case 'BIGINT': {
        const neg = this.constant(neg64)
        return this.strict(c.args, out, ([a]) => `(typeof ${a} === 'number' ? 0 - ${a} : ${neg}(${a}))`)
      }
      case 'DOUBLE':
      case 'DECIMAL':
        return this.strict(c.args, out, ([a]) => `(-${a})`)
      default:
        return this.strict(c.args, out, ([a]) => `(0 - ${a})`)
    }
  }

  /** AND / OR with three-valued logic, evaluating left to right and stopping at FALSE (AND) or TRUE (OR). */
  private andOr(args: readonly Rex[], isAnd: boolean, out: string[]): string {
    const v = this.fresh()
    const stop = isAnd ? 'false' : 'true'
    out.push(`let ${v} = ${isAnd ? 'true' : 'false'};`)
    let depth = 0
    args.forEach((arg, i) => {
      const a = this.value(arg, out)
      const nullLine = mayBeNull(arg) ? `if (${a} == null) ${v} = null;` : ''
      if (i === args.length - 1) {
        out.push(`if (${a} === ${stop}) ${v} = ${stop};${nullLine ? ` else ${nullLine}` : ''}`)
      } else {
        out.push(`if (${a} === ${stop}) ${v} = ${stop}; else {`)
        if (nullLine) out.push(nullLine)
        depth++
      }
    })
    if (depth > 0) out.push('}'.repeat(depth))
    return v
  }

  private caseWhen(c: CallRex, out: string[]): string {
    const v = this.fresh()
    out.push(`let ${v};`)
    const args = c.args
    let depth = 0
    for (let i = 0; i + 1 < args.length; i += 2) {
      const p = this.pred(args[i]!, out)
      out.push(`if (${p}) {`)
      out.push(`${v} = ${this.value(args[i + 1]!, out)};`)
      out.push('} else {')
      depth++
    }
    out.push(`${v} = ${args.length % 2 === 1 ? this.value(args[args.length - 1]!, out) : 'null'};`)
    out.push('}'.repeat(depth))
    return v
  }

  private coalesce(c: CallRex, out: string[]): string {
    const v = this.fresh()
    out.push(`let ${v} = ${this.value(c.args[0]!, out)};`)
    const rest = c.args.slice(1)
    for (const arg of rest) {
      out.push(`if (${v} == null) {`)
      out.push(`${v} = ${this.value(arg, out)};`)
    }
    out.push('}'.repeat(rest.length))
    return v
  }

  private inTest(c: CallRex, out: string[]): { test: string; xGuard: string; listNull: string } {
    const [x, ...list] = c.args as [Rex, ...Rex[]]
    const a = this.value(x, out)
    const xGuard = mayBeNull(x) ? `${a} != null` : ''
    if (list.every(l => l.kind === 'Literal')) {
      const values = list.map(l => (l as { value: unknown }).value).filter(v => v !== null && v !== undefined)
      const hasNull = values.length < list.length
      const primitive = values.every(v => typeof v !== 'object')
      const test = values.length === 0 ?
        'false'
        : values.length <= 6 || !primitive ?
        values.map(v => `${a} === ${this.literal(v)}`).join(' || ')
        : `${this.constant(new Set(values))}.has(${a})`
      return { test, xGuard, listNull: hasNull ? 'true' : 'false' }
    }
    const b = list.map(l => this.value(l, out))
    const nullable = list.map((l, i) => (mayBeNull(l) ? `${b[i]} == null` : '')).filter(Boolean)
    return { test: b.map(e => `${a} === ${e}`).join(' || '), xGuard, listNull: nullable.length ? nullable.join(' || ') : 'false' }
  }

  /** x IN (…): TRUE if found; else NULL if x or any list value is NULL; else FALSE. */
  private inList(c: CallRex, out: string[]): string {
    const { test, xGuard, listNull } = this.inTest(c, out)
    const v = this.fresh()
    const body = `(${test}) ? true : ${listNull === 'false' ? 'false' : listNull === 'true' ? 'null' : `(${listNull}) ? null : false`}`
    out.push(`const ${v} = ${xGuard ? `!(${xGuard}) ? null : ` : ''}${body};`)
    return v
  }

  private likeInline(c: CallRex): ((a: string) => string) | undefined {
    const [, pattern, escape] = c.args
    if (pattern?.kind !== 'Literal' || typeof pattern.value !== 'string') return undefined
    if (escape !== undefined && (escape.kind !== 'Literal' || typeof escape.value !== 'string')) return undefined
    const m = likeMatcher(pattern.value, escape?.kind === 'Literal' ? (escape.value as string) : undefined)
    switch (m.kind) {
      case 'exact':
        return a => `(${a} === ${JSON.stringify(m.text)})`
      case 'prefix':
        return a => `${a}.startsWith(${JSON.stringify(m.text)})`
      case 'suffix':
        return a => `${a}.endsWith(${JSON.stringify(m.text)})`
      case 'contains':
        return a => `${a}.includes(${JSON.stringify(m.text)})`
      case 'regex': {
        const re = this.constant(m.regex)
        return a => `${re}.test(${a})`
      }
    }
  }

  private cast(c: CallRex, out: string[]): string {
    const arg = c.args[0]!
    const from = arg.type, to = c.type
    const inline = inlineCast(from, to)
    if (inline !== undefined) {
      let v = this.strict(c.args, out, ([a]) => inline(a!))
      if (to.kind === 'DECIMAL' && castCanOverflow(from, to)) v = this.overflowCheck(v, to.precision, out)
      return v
    }
    const f = this.constant(makeCastFn(from, to, c.op === 'TRY_CAST', c.span))
    return this.strict(c.args, out, ([a]) => `${f}(${a})`)
  }
}

/**
 * What an operator gives the expressions it evaluates: its current watermark (-Infinity before the
 * first), read by CURRENT_WATERMARK. Only a Calc has one; elsewhere CURRENT_WATERMARK is refused.
 */
export interface EvalEnv {
  currentWatermark(): number
}

/** The environment of a Calc evaluated outside a running operator (no watermark yet). */
export const NO_WATERMARK: EvalEnv = Object.freeze({ currentWatermark: () => -Infinity })

function build<F>(gen: CodeGen, body: string): F {
  const source = `${gen.header()}\nreturn ${body}`
  try {
    return new Function('C', source)(gen.constants) as F
  } catch (e) {
    throw WeirError.internal(`generated expression code does not compile: ${(e as Error).message}\n${source}`)
  }
}

/**
 * Compiles one expression to a function of a row.
 * @example compileScalar(resolveCall('+', [inputRef(0, T.int()), numberLiteral('1')]))([41]) // 42
 */
export function compileScalar(rex: Rex): (row: Row) => unknown {
  const gen = new CodeGen()
  const out: string[] = []
  const e = gen.value(rex, out)
  return build(gen, `function scalar(r) {\n${out.join('\n')}\nreturn ${e};\n}`)
}

/** Compiles a condition to a function that is true only when the SQL value is TRUE (not FALSE, not NULL). */
export function compilePredicate(rex: Rex): (row: Row) => boolean {
  const gen = new CodeGen()
  const out: string[] = []
  const p = gen.pred(rex, out)
  return build(gen, `function predicate(r) {\n${out.join('\n')}\nreturn ${p};\n}`)
}

/** The JavaScript source compileCalc generates, for debugging and EXPLAIN-style tests. */
export function calcSource(projection: readonly Rex[], condition?: Rex): string {
  return calcParts(projection, condition, NO_WATERMARK).source
}

function calcParts(projection: readonly Rex[], condition: Rex | undefined, env?: EvalEnv): { gen: CodeGen; source: string } {
  const gen = new CodeGen(env)
  const body: string[] = []
  if (condition !== undefined && !(condition.kind === 'Literal' && condition.value === true)) {
    const p = gen.pred(condition, body)
    body.push(`if (!${p}) continue;`)
  }
  const columns = projection.map(e => gen.value(e, body))
  const source = `function calc(batch) {
const rows = batch.rows, kinds = batch.kinds, n = rows.length;
const out = [];
const outKinds = kinds === null ? null : new Uint8Array(n);
for (let i = 0; i < n; i++) {
const r = rows[i];
${body.join('\n')}
if (outKinds !== null) outKinds[out.length] = kinds[i];
out.push([${columns.join(', ')}]);
}
const count = out.length;
if (count === 0) return null;
return { rows: out, kinds: outKinds === null ? null : count === n ? outKinds : outKinds.slice(0, count) };
}`
  return { gen, source }
}

/**
 * Compiles a Calc (optional filter, then projection) into one function over a batch. Rows whose
 * condition is not TRUE are dropped, together with their row kinds; returns null when none remain.
 *
 * @example compileCalc([inputRef(0, T.bigint())], resolveCall('>', [inputRef(1, T.int()), numberLiteral('10')]))
 */
export function compileCalc(projection: readonly Rex[], condition?: Rex, env: EvalEnv = NO_WATERMARK): (batch: Batch) => Batch | null {
  const { gen, source } = calcParts(projection, condition, env)
  return build(gen, source)
}

/**
 * Evaluates an expression that reads no input column (window sizes, LIMIT, hint values).
 * @example evalConstant(intervalLiteral('1', 'HOUR', undefined, false)) // 3600000
 */
export function evalConstant(rex: Rex): unknown {
  if (inputsUsed(rex).size > 0) throw WeirError.internal('evalConstant: the expression reads input columns')
  return compileScalar(rex)([])
}
