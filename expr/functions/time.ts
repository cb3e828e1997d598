// Date and time functions on epoch-millisecond timestamps and epoch-day dates (UTC wall clock):
// EXTRACT and YEAR…SECOND, FLOOR/CEIL TO unit, DATE_FORMAT and parsing, TIMESTAMPADD/DIFF, and
// the clock functions (CURRENT_TIMESTAMP, PROCTIME, …) which read Date.now() on every row.
import { T, isNumeric, isTemporal, withoutTimeAttr, type DataType } from '../../common/types.js'
import { parseDate, parseTimestamp } from '../../common/values.js'
import { literal, type Rex } from '../../core/rex.js'
import { INT64_MIN, type Int64 } from '../../common/int64.js'
import { castTo } from '../cast.js'
import { commonType, typeName } from '../coercion.js'
import { rescaleDown } from '../decimal.js'
import { cached } from '../like.js'
import { compileFormatter, compileParser, dateFormatError } from '../date-format.js'
import { MS_PER_DAY, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND, addMonthsToDays, addMonthsToMillis, civilOf, dayOfMonth, dayOfWeek, dayOfYear, daysFromCivil,
  floorDiv, isoDayOfWeek, isoWeek, isoYear, monthOf, monthsBetween, yearOf } from '../calendar.js'
import { anyNullable, badArgs, checkArgs, checkArity, literalValue, mkCall, unitArg, type BindContext, type CallRex, type FunctionDef,
  type Impl } from '../registry.js'

const DEFAULT_FORMAT = 'yyyy-MM-dd HH:mm:ss'

const EXTRACT_UNITS = [
  'MILLENNIUM',
  'CENTURY',
  'DECADE',
  'YEAR',
  'ISOYEAR',
  'QUARTER',
  'MONTH',
  'WEEK',
  'DAY',
  'DOY',
  'DOW',
  'ISODOW',
  'HOUR',
  'MINUTE',
  'SECOND',
  'MILLISECOND',
  'MICROSECOND',
  'NANOSECOND',
  'EPOCH',
] as const
const EXTRACT_ALIASES: Record<string, string> = { DAYOFWEEK: 'DOW', DAYOFYEAR: 'DOY', DAYOFMONTH: 'DAY' }
const INTERVAL_UNITS = ['DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'EPOCH']
/** What EXTRACT takes from a TIME (Calcite refuses the date fields). */
const TIME_OF_DAY_UNITS = ['HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', 'MICROSECOND', 'NANOSECOND']
const TIME_OF_DAY_TRUNC_UNITS = ['HOUR', 'MINUTE', 'SECOND', 'MILLISECOND']
const TIME_UNITS = ['MILLISECOND', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'] as const
const FIXED_MS: Record<string, number> = {
  MILLISECOND: 1,
  SECOND: MS_PER_SECOND,
  MINUTE: MS_PER_MINUTE,
  HOUR: MS_PER_HOUR,
  DAY: MS_PER_DAY,
  WEEK: 7 * MS_PER_DAY,
}
const MONTHS_OF: Record<string, number> = { MONTH: 1, QUARTER: 3, YEAR: 12 }

/** A temporal argument as epoch milliseconds: dates are converted. */
function toMillis(t: DataType): (v: number) => number {
  return t.kind === 'DATE' ? v => v * MS_PER_DAY : v => v
}

/** The value of a date/time field of epoch milliseconds, as EXTRACT returns it. */
export function extractField(unit: string, ms: number): number {
  const days = floorDiv(ms, MS_PER_DAY)
  const tod = ms - days * MS_PER_DAY
  switch (unit) {
    case 'YEAR':
      return yearOf(days)
    case 'ISOYEAR':
      return isoYear(days)
    case 'QUARTER':
      return Math.floor((monthOf(days) - 1) / 3) + 1
    case 'MONTH':
      return monthOf(days)
    case 'WEEK':
      return isoWeek(days)
    case 'DAY':
      return dayOfMonth(days)
    case 'DOY':
      return dayOfYear(days)
    case 'DOW':
      return dayOfWeek(days)
    case 'ISODOW':
      return isoDayOfWeek(days)
    case 'HOUR':
      return Math.floor(tod / MS_PER_HOUR)
    case 'MINUTE':
      return Math.floor(tod / MS_PER_MINUTE) % 60
    case 'SECOND':
      return Math.floor(tod / MS_PER_SECOND) % 60
    // As Flink: the fraction of the second only (12.345 s → 345 ms, 345000 µs).
    case 'MILLISECOND':
      return tod % MS_PER_SECOND
    case 'MICROSECOND':
      return (tod % MS_PER_SECOND) * 1000
    case 'NANOSECOND':
      return (tod % MS_PER_SECOND) * 1_000_000
    case 'EPOCH':
      return Math.trunc(ms / 1000) + 0
    case 'DECADE':
      return Math.floor(yearOf(days) / 10)
    case 'CENTURY': {
      const y = yearOf(days)
      return y > 0 ? Math.floor((y + 99) / 100) : -Math.floor((99 - y) / 100)
    }
    case 'MILLENNIUM': {
      const y = yearOf(days)
      return y > 0 ? Math.floor((y + 999) / 1000) : -Math.floor((999 - y) / 1000)
    }
    default:
      throw new Error(`unknown EXTRACT unit ${unit}`)
  }
}

function extractInterval(unit: string, ms: number): number {
  const t = (x: number): number => Math.trunc(x) + 0
  switch (unit) {
    case 'DAY':
      return t(ms / MS_PER_DAY)
    case 'HOUR':
      return t(ms / MS_PER_HOUR) % 24
    case 'MINUTE':
      return t(ms / MS_PER_MINUTE) % 60
    case 'SECOND':
      return t(ms / MS_PER_SECOND) % 60
    case 'MILLISECOND':
      return ms % MS_PER_SECOND
    default:
      return t(ms / 1000)
  }
}

function bindExtract(args: readonly Rex[], ctx: BindContext): Rex {
  checkArity(args, 2, 2, ctx, 'EXTRACT(unit FROM x)')
  const raw = literalValue(args[0])
  const alias = typeof raw === 'string' ? EXTRACT_ALIASES[raw.toUpperCase()] : undefined
  const unit = alias ?? unitArg(args[0], EXTRACT_UNITS, ctx)
  let x = args[1]!
  if (x.type.kind === 'NULL') x = ctx.cast(x, T.timestamp(3))
  if (x.type.kind === 'INTERVAL') {
    if (!INTERVAL_UNITS.includes(unit)) throw ctx.error(`cannot extract ${unit} from an INTERVAL`, `units for intervals: ${INTERVAL_UNITS.join(', ')}`)
  } else if (x.type.kind === 'TIME') {
    if (!TIME_OF_DAY_UNITS.includes(unit)) throw ctx.error(`cannot extract ${unit} from a TIME`, `units for times: ${TIME_OF_DAY_UNITS.join(', ')}`)
  } else if (!isTemporal(x.type)) {
    throw ctx.error(`cannot extract ${unit} from ${typeName(x.type)}`, 'EXTRACT needs a TIMESTAMP, TIMESTAMP_LTZ, DATE, TIME or INTERVAL')
  }
  return mkCall('EXTRACT', [literal(unit, T.string(false)), x], T.bigint(x.type.nullable), ctx.span)
}

function extractImpl(call: CallRex): Impl {
  const unit = literalValue(call.args[0]) as string
  const t = call.args[1]!.type
  if (t.kind === 'INTERVAL') return { fn: (_u: string, v: number) => extractInterval(unit, v), nulls: 'strict' }
  const ms = toMillis(t)
  return { fn: (_u: string, v: number) => extractField(unit, ms(v)), nulls: 'strict' }
}

/** YEAR(x) and friends are EXTRACT(unit FROM x). */
function extractShorthand(name: string, unit: string): FunctionDef {
  return {
    names: [name],
    signature: `${name}(${TIME_OF_DAY_UNITS.includes(unit) ? 'TIMESTAMP or TIME' : 'TIMESTAMP or DATE'})`,
    bind: (args, ctx) => {
      checkArity(args, 1, 1, ctx, `${name}(${TIME_OF_DAY_UNITS.includes(unit) ? 'TIMESTAMP or TIME' : 'TIMESTAMP or DATE'})`)
      return ctx.call('EXTRACT', [literal(unit, T.string(false)), args[0]!])
    },
  }
}

/** Epoch days rounded down to the start of a WEEK (Sunday, as Calcite), MONTH, QUARTER or YEAR. */
function floorDays(days: number, unit: string): number {
  switch (unit) {
    case 'WEEK':
      return days - (dayOfWeek(days) - 1)
    case 'MONTH':
    case 'QUARTER':
    case 'YEAR': {
      const c = civilOf(days)
      const y = Math.floor(c / 10000), m = Math.floor(c / 100) % 100
      return daysFromCivil(y, unit === 'YEAR' ? 1 : unit === 'QUARTER' ? Math.floor((m - 1) / 3) * 3 + 1 : m, 1)
    }
    default:
      return days
  }
}

/** FLOOR(ms TO unit) on epoch milliseconds. */
export function floorMillis(ms: number, unit: string): number {
  const fixed = FIXED_MS[unit]
  if (fixed !== undefined && unit !== 'WEEK') return Math.floor(ms / fixed) * fixed
  return floorDays(floorDiv(ms, MS_PER_DAY), unit) * MS_PER_DAY
}

/** CEIL(ms TO unit) on epoch milliseconds: unchanged when already on a boundary. */
export function ceilMillis(ms: number, unit: string): number {
  const f = floorMillis(ms, unit)
  if (f === ms) return ms
  const months = MONTHS_OF[unit]
  return months !== undefined ? addMonthsToMillis(f, months) : f + FIXED_MS[unit]!
}

function floorCeilTo(name: 'FLOOR_TO' | 'CEIL_TO'): FunctionDef {
  const signature = `${name === 'FLOOR_TO' ? 'FLOOR' : 'CEIL'}(x TO unit)`
  const ceil = name === 'CEIL_TO'
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      checkArity(args, 2, 2, ctx, signature)
      let x = args[0]!
      if (x.type.kind === 'NULL') x = ctx.cast(x, T.timestamp(3))
      if (x.type.kind === 'TIME') {
        // A time of day floors and ceils to HOUR, MINUTE, SECOND or MILLISECOND (a CEIL past 23:00 TO HOUR wraps to 00:00).
        const unit = unitArg(args[1], TIME_OF_DAY_TRUNC_UNITS, ctx)
        return mkCall(name, [x, literal(unit, T.string(false))], x.type, ctx.span)
      }
      const unit = unitArg(args[1], TIME_UNITS, ctx)
      if (!isTemporal(x.type)) throw ctx.error(`cannot apply ${signature} to ${typeName(x.type)}`, 'the value must be a TIMESTAMP, TIMESTAMP_LTZ, DATE or TIME')
      return mkCall(name, [x, literal(unit, T.string(false))], withoutTimeAttr(x.type), ctx.span)
    },
    impl: call => {
      const unit = literalValue(call.args[1]) as string
      if (call.args[0]!.type.kind === 'TIME') {
        const step = FIXED_MS[unit]!
        return { fn: (t: number) => (ceil ? Math.ceil(t / step) * step : Math.floor(t / step) * step) % MS_PER_DAY, nulls: 'strict' }
      }
      if (call.args[0]!.type.kind === 'DATE') {
        if (FIXED_MS[unit] !== undefined && unit !== 'WEEK') return { fn: (d: number) => d, nulls: 'strict' }
        return { fn: (d: number) => floorDiv((ceil ? ceilMillis : floorMillis)(d * MS_PER_DAY, unit), MS_PER_DAY), nulls: 'strict' }
      }
      const f = ceil ? ceilMillis : floorMillis
      return { fn: (v: number) => f(v, unit), nulls: 'strict' }
    },
  }
}

function checkFormatLiteral(rex: Rex | undefined, ctx: BindContext): void {
  const v = literalValue(rex)
  if (typeof v !== 'string') return
  const err = dateFormatError(v)
  if (err !== null) throw ctx.error(`invalid date format '${v}': ${err}`, `use Java DateTimeFormatter letters, e.g. '${DEFAULT_FORMAT}'`)
}

/** A formatter or parser for an optional format argument: compiled once for a literal, cached otherwise. */
function patternArg<F>(call: CallRex, index: number, compile: (p: string) => F): (p: string | undefined) => F | null {
  const safe = (p: string): F | null => {
    try {
      return compile(p)
    } catch {
      return null
    }
  }
  const arg = call.args[index]
  const lit = arg === undefined ? DEFAULT_FORMAT : literalValue(arg)
  if (typeof lit === 'string') {
    const f = safe(lit)
    return () => f
  }
  const c = cached(safe)
  return p => c(p ?? DEFAULT_FORMAT)
}

function bindDateFormat(args: readonly Rex[], ctx: BindContext): Rex {
  const signature = `DATE_FORMAT(TIMESTAMP or STRING[, format])`
  checkArity(args, 1, 2, ctx, signature)
  let x = args[0]!
  if (x.type.kind === 'NULL') x = ctx.cast(x, T.timestamp(3))
  if (!isTemporal(x.type) && x.type.kind !== 'STRING') throw badArgs(args, ctx, signature)
  const rest = checkArgs(args.slice(1), ['STRING'], 0, ctx, signature)
  checkFormatLiteral(rest[0], ctx)
  const typed = [x, ...rest]
  return mkCall('DATE_FORMAT', typed, T.string(anyNullable(typed) || x.type.kind === 'STRING'), ctx.span)
}

function dateFormatImpl(call: CallRex): Impl {
  const formatter = patternArg(call, 1, compileFormatter)
  const t = call.args[0]!.type
  const ms: (v: unknown) => number | null = t.kind === 'STRING'
    ? v => parseTimestamp(v as string)
    : t.kind === 'DATE'
    ? v => (v as number) * MS_PER_DAY
    : v => v as number
  return {
    nulls: 'strict',
    fn: (v: unknown, p?: string) => {
      const f = formatter(p)
      const m = ms(v)
      return f === null || m === null ? null : f(m)
    },
  }
}

/**
 * TO_TIMESTAMP / TO_DATE / UNIX_TIMESTAMP(string[, format]): a parse failure gives `failed` (NULL,
 * except UNIX_TIMESTAMP's Long.MIN_VALUE, as Flink's DateTimeUtils.unixTimestamp).
 */
function parsing(
  name: string,
  result: DataType,
  convert: (ms: number) => Int64,
  noFormat: (s: string) => number | null,
  failed: Int64 | null = null,
): FunctionDef {
  const signature = `${name}(STRING[, format])`
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      const typed = checkArgs(args, ['STRING', 'STRING'], 1, ctx, signature)
      checkFormatLiteral(typed[1], ctx)
      return mkCall(name, typed, result, ctx.span)
    },
    impl: call => {
      const parser = call.args.length > 1 ? patternArg(call, 1, compileParser) : null
      return {
        nulls: 'strict',
        fn: (s: string, p?: string) => {
          if (parser === null) return noFormat(s) ?? failed
          const parse = parser(p)
          const ms = parse === null ? null : parse(s)
          return ms === null ? failed : convert(ms)
        },
      }
    },
  }
}

function bindToTimestampLtz(args: readonly Rex[], ctx: BindContext): Rex {
  const signature = 'TO_TIMESTAMP_LTZ(NUMERIC, 0 or 3) or TO_TIMESTAMP_LTZ(STRING[, format])'
  checkArity(args, 1, 2, ctx, signature)
  let x = args[0]!
  if (x.type.kind === 'NULL') x = ctx.cast(x, T.bigint())
  if (x.type.kind === 'STRING') {
    const typed = checkArgs(args, ['STRING', 'STRING'], 1, ctx, signature)
    checkFormatLiteral(typed[1], ctx)
    return mkCall('TO_TIMESTAMP_LTZ', typed, T.timestampLtz(3), ctx.span)
  }
  if (!isNumeric(x.type)) throw badArgs(args, ctx, signature)
  const precision = args.length > 1 ? literalValue(args[1]) : 3
  if (precision !== 0 && precision !== 3) throw ctx.error(`TO_TIMESTAMP_LTZ precision must be the constant 0 (seconds) or 3 (milliseconds)`, signature)
  return mkCall('TO_TIMESTAMP_LTZ', [x, literal(precision, T.int(false))], T.timestampLtz(3, x.type.nullable), ctx.span)
}

function toTimestampLtzImpl(call: CallRex): Impl {
  const t = call.args[0]!.type
  if (t.kind === 'STRING') {
    const parser = call.args.length > 1 ? patternArg(call, 1, compileParser) : null
    return { nulls: 'strict', fn: (s: string, p?: string) => {
      if (parser === null) return parseTimestamp(s)
      const f = parser(p)
      return f === null ? null : f(s)
    } }
  }
  // As Flink: a DECIMAL is truncated to whole seconds (precision 0) or milliseconds (3); a DOUBLE to milliseconds.
  const seconds = literalValue(call.args[1]) === 0
  if (t.kind === 'DECIMAL') {
    const s = t.scale
    return { nulls: 'strict', fn: (v: bigint) => Number(rescaleDown(v, s, 0)) * (seconds ? 1000 : 1) + 0 }
  }
  // A BIGINT may be a bigint (beyond 2^53): past any timestamp, read as its nearest number.
  return { nulls: 'strict', fn: seconds ? (v: number) => Math.trunc(Number(v) * 1000) + 0 : (v: number) => Math.trunc(Number(v)) + 0 }
}

function addUnits(unit: string, n: number, ms: number): number {
  const months = MONTHS_OF[unit]
  return months !== undefined ? addMonthsToMillis(ms, n * months) : ms + n * FIXED_MS[unit]!
}

function bindTimestampAdd(args: readonly Rex[], ctx: BindContext): Rex {
  const signature = 'TIMESTAMPADD(unit, INT, TIMESTAMP or DATE)'
  checkArity(args, 3, 3, ctx, signature)
  const unit = unitArg(args[0], TIME_UNITS, ctx)
  const [n, x] = checkArgs(args.slice(1), ['INTEGER', 'TEMPORAL'], 2, ctx, signature) as [Rex, Rex]
  const nullable = n.type.nullable || x.type.nullable
  const subDay = FIXED_MS[unit] !== undefined && FIXED_MS[unit]! < MS_PER_DAY
  const type = x.type.kind === 'DATE' ? (subDay ? T.timestamp(3, nullable) : T.date(nullable)) : { ...withoutTimeAttr(x.type), nullable } as DataType
  return mkCall('TIMESTAMPADD', [literal(unit, T.string(false)), n, x], type, ctx.span)
}

function timestampAddImpl(call: CallRex): Impl {
  const unit = literalValue(call.args[0]) as string
  if (call.args[2]!.type.kind === 'DATE') {
    if (call.type.kind === 'DATE') {
      const months = MONTHS_OF[unit]
      const days = unit === 'WEEK' ? 7 : 1
      return { nulls: 'strict',
        fn: (_u: string, n: number, d: number) => (months !== undefined ? addMonthsToDays(d, Number(n) * months) : d + Number(n) * days) }
    }
    return { nulls: 'strict', fn: (_u: string, n: number, d: number) => addUnits(unit, Number(n), d * MS_PER_DAY) }
  }
  return { nulls: 'strict', fn: (_u: string, n: number, v: number) => addUnits(unit, Number(n), v) }
}

function bindTimestampDiff(args: readonly Rex[], ctx: BindContext): Rex {
  const signature = 'TIMESTAMPDIFF(unit, start, end)'
  checkArity(args, 3, 3, ctx, signature)
  const unit = unitArg(args[0], TIME_UNITS, ctx)
  const rest = checkArgs(args.slice(1), ['TEMPORAL', 'TEMPORAL'], 2, ctx, signature)
  return mkCall('TIMESTAMPDIFF', [literal(unit, T.string(false)), ...rest], T.int(anyNullable(rest)), ctx.span)
}

function timestampDiffImpl(call: CallRex): Impl {
  const unit = literalValue(call.args[0]) as string
  const a = toMillis(call.args[1]!.type), b = toMillis(call.args[2]!.type)
  const months = MONTHS_OF[unit]
  if (months !== undefined) return { nulls: 'strict', fn: (_u: string, x: number, y: number) => Math.trunc(monthsBetween(a(x), b(y)) / months) + 0 }
  const f = FIXED_MS[unit]!
  return { nulls: 'strict', fn: (_u: string, x: number, y: number) => Math.trunc((b(y) - a(x)) / f) + 0 }
}

function clock(names: string[], type: DataType, js: string, fn: () => number): FunctionDef {
  return {
    names,
    signature: `${names[0]}()`,
    bind: (args, ctx) => {
      checkArity(args, 0, 0, ctx, `${names[0]}()`)
      return mkCall(names[0]!, [], type, ctx.span)
    },
    inline: () => js,
    impl: () => ({ fn, nulls: 'lenient' }),
  }
}

// Whole seconds as Java's long division gives them (toward zero), and Long.MIN_VALUE for text that
// does not parse, as Flink's UNIX_TIMESTAMP(string[, format]).
const epochSeconds = (ms: number): number => Math.trunc(ms / 1000) || 0
const unixTimestampParse = parsing('UNIX_TIMESTAMP', T.bigint(), epochSeconds, s => {
  const ms = parseTimestamp(s)
  return ms === null ? null : epochSeconds(ms)
}, INT64_MIN)

/**
 * `(s1, e1) OVERLAPS (s2, e2)`: each period ordered (an end before its start is swapped), an interval end
 * added to its start; true when each starts no later than the other ends (ends included, as Flink's Calcite).
 */
function bindOverlaps(args: readonly Rex[], ctx: BindContext): Rex {
  const signature = '(start, end | interval) OVERLAPS (start, end | interval)'
  checkArity(args, 4, 4, ctx, signature)
  const point = (s: Rex, e: Rex): [Rex, Rex] => [s, e.type.kind === 'INTERVAL' ? ctx.call('+', [s, e]) : e]
  const [s1, e1] = point(args[0]!, args[1]!), [s2, e2] = point(args[2]!, args[3]!)
  const all = [s1, e1, s2, e2]
  const common = commonType(all.map(a => a.type))
  if (common === null || !(isTemporal(common) || common.kind === 'TIME')) {
    throw ctx.error(`OVERLAPS needs periods of one datetime type, got ${all.map(a => typeName(a.type)).join(', ')}`,
      'write (start, end) or (start, INTERVAL …) with TIMESTAMP, DATE or TIME values')
  }
  return mkCall('OVERLAPS', all.map(a => ctx.cast(a, common)), T.boolean(anyNullable(all)), ctx.span)
}

function overlaps(s1: number, e1: number, s2: number, e2: number): boolean {
  const lo1 = Math.min(s1, e1), hi1 = Math.max(s1, e1), lo2 = Math.min(s2, e2), hi2 = Math.max(s2, e2)
  return lo1 <= hi2 && lo2 <= hi1
}

export const TIME: readonly FunctionDef[] = [
  { names: ['OVERLAPS'], signature: '(start, end) OVERLAPS (start, end)', bind: bindOverlaps, impl: () => ({ fn: overlaps, nulls: 'strict' }) },
  { names: ['EXTRACT'], signature: 'EXTRACT(unit FROM x)', bind: bindExtract, impl: extractImpl },
  extractShorthand('YEAR', 'YEAR'),
  extractShorthand('QUARTER', 'QUARTER'),
  extractShorthand('MONTH', 'MONTH'),
  extractShorthand('WEEK', 'WEEK'),
  extractShorthand('DAYOFMONTH', 'DAY'),
  extractShorthand('DAYOFYEAR', 'DOY'),
  extractShorthand('DAYOFWEEK', 'DOW'),
  extractShorthand('HOUR', 'HOUR'),
  extractShorthand('MINUTE', 'MINUTE'),
  extractShorthand('SECOND', 'SECOND'),
  floorCeilTo('FLOOR_TO'),
  floorCeilTo('CEIL_TO'),
  { names: ['DATE_FORMAT'], signature: 'DATE_FORMAT(TIMESTAMP or STRING[, format])', bind: bindDateFormat, impl: dateFormatImpl },
  parsing('TO_TIMESTAMP', T.timestamp(3), ms => ms, parseTimestamp),
  parsing('TO_DATE', T.date(), ms => floorDiv(ms, MS_PER_DAY), parseDate),
  { names: ['TO_TIMESTAMP_LTZ'], signature: 'TO_TIMESTAMP_LTZ(NUMERIC, 0 or 3)', bind: bindToTimestampLtz, impl: toTimestampLtzImpl },
  {
    ...unixTimestampParse,
    signature: 'UNIX_TIMESTAMP([STRING[, format]])',
    // With no argument: the current epoch second, CAST(CURRENT_TIMESTAMP AS BIGINT).
    bind: (args, ctx) => (args.length === 0 ? castTo(ctx.call('CURRENT_TIMESTAMP', []), T.bigint(false), ctx.span) : unixTimestampParse.bind(args, ctx)),
  },
  {
    names: ['FROM_UNIXTIME'],
    signature: 'FROM_UNIXTIME(seconds[, format])',
    bind: (args, ctx) => {
      const typed = checkArgs(args, ['INTEGER', 'STRING'], 1, ctx, 'FROM_UNIXTIME(seconds[, format])')
      checkFormatLiteral(typed[1], ctx)
      return mkCall('FROM_UNIXTIME', typed, T.string(anyNullable(typed)), ctx.span)
    },
    impl: call => {
      const formatter = patternArg(call, 1, compileFormatter)
      return { nulls: 'strict', fn: (n: number, p?: string) => {
        const f = formatter(p)
        return f === null ? null : f(Number(n) * 1000)
      } }
    },
  },
  { names: ['TIMESTAMPADD'], signature: 'TIMESTAMPADD(unit, INT, TIMESTAMP)', bind: bindTimestampAdd, impl: timestampAddImpl },
  { names: ['TIMESTAMPDIFF'], signature: 'TIMESTAMPDIFF(unit, start, end)', bind: bindTimestampDiff, impl: timestampDiffImpl },
  clock(['CURRENT_TIMESTAMP', 'NOW', 'CURRENT_ROW_TIMESTAMP'], T.timestampLtz(3, false), 'Date.now()', Date.now),
  clock(['LOCALTIMESTAMP'], T.timestamp(3, false), 'Date.now()', Date.now),
  clock(['CURRENT_DATE'], T.date(false), 'Math.floor(Date.now() / 86400000)', () => Math.floor(Date.now() / MS_PER_DAY)),
  // TIME(0) in the session time zone (always UTC in Weir), read on every row as Flink does in streaming.
  clock(['LOCALTIME', 'CURRENT_TIME'], T.time(0, false), 'Math.floor(Date.now() % 86400000 / 1000) * 1000',
    () => Math.floor((Date.now() % MS_PER_DAY) / 1000) * 1000),
  clock(['PROCTIME'], T.timestampLtz(3, false, 'proctime'), 'Date.now()', Date.now),
]
