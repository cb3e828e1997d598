// Java DateTimeFormatter-style patterns ('yyyy-MM-dd HH:mm:ss.SSS') for DATE_FORMAT, FROM_UNIXTIME,
// TO_TIMESTAMP and friends: compiled once per pattern into a formatter and a parser (UTC wall clock).
import { MS_PER_DAY, civilOf, dayOfWeek, dayOfYear, daysFromCivil, daysInMonth, isoDayOfWeek, isoWeek, isoYear } from './calendar.js'

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

type Token = { readonly lit: string } | { readonly letter: string; readonly count: number }

const SUPPORTED = 'GyuYMLdDEeaHkKhmsSQwzZXxV'

/** Splits a pattern into literal text and letter runs; throws an Error naming an unsupported letter. */
function tokenize(pattern: string): Token[] {
  const out: Token[] = []
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        out.push({ lit: "'" })
        i += 2
        continue
      }
      let text = ''
      i++
      while (i < pattern.length) {
        if (pattern[i] === "'") {
          if (pattern[i + 1] === "'") {
            text += "'"
            i += 2
            continue
          }
          i++
          break
        }
        text += pattern[i++]
      }
      out.push({ lit: text })
    } else if (/[A-Za-z]/.test(c)) {
      let n = 1
      while (pattern[i + n] === c) n++
      if (!SUPPORTED.includes(c)) throw new Error(`unsupported pattern letter '${c}'`)
      out.push({ letter: c, count: n })
      i += n
    } else {
      out.push({ lit: c })
      i++
    }
  }
  return out
}

function pad(n: number, width: number): string {
  const s = String(Math.abs(n))
  return (n < 0 ? '-' : '') + (s.length >= width ? s : '0'.repeat(width - s.length) + s)
}

/** The error message for an unsupported pattern, or null when it is fine. */
export function dateFormatError(pattern: string): string | null {
  try {
    tokenize(pattern)
    return null
  } catch (e) {
    return (e as Error).message
  }
}

/**
 * The span in milliseconds within which a pattern's output cannot change: its finest field's unit
 * (a day for 'yyyy-MM-dd', a minute for 'HH:mm'), or 1 when it prints milliseconds. The clock is
 * UTC with no offset rules, so every unit divides a day and spans start at multiples of it.
 */
export function formatterSpan(pattern: string): number {
  let span = MS_PER_DAY
  for (const t of tokenize(pattern)) {
    if ('lit' in t) continue
    const unit = 'aHkKh'.includes(t.letter) ? 3_600_000 : t.letter === 'm' ? 60_000 : t.letter === 's' ? 1000 : t.letter === 'S' ? 1 : MS_PER_DAY
    if (unit < span) span = unit
  }
  return span
}

/**
 * Compiles a pattern into a formatter of epoch milliseconds (UTC) that remembers its last result:
 * a stream's timestamps mostly stay within one span of the pattern (q17 groups by the day), so
 * most rows cost one division and a comparison instead of building a new string.
 * @example compileFormatter('yyyy-MM-dd HH:mm')(0) // '1970-01-01 00:00'
 */
export function compileFormatter(pattern: string): (ms: number) => string {
  const span = formatterSpan(pattern)
  const format = compileUncachedFormatter(pattern)
  return span === 1 ? format : memoizeBySpan(format, span)
}

/** `format`, remembering its last result for inputs within the same `span` milliseconds. */
export function memoizeBySpan(format: (ms: number) => string, span: number): (ms: number) => string {
  // NaN never equals itself, so the first call (and a NaN input) always formats.
  let lastSpan = NaN, last = ''
  return ms => {
    const s = Math.floor(ms / span)
    if (s !== lastSpan) {
      last = format(ms)
      lastSpan = s
    }
    return last
  }
}

/**
 * The formatter itself, generated JavaScript: the civil fields are computed once, then concatenated.
 * @example compileUncachedFormatter('yyyy-MM-dd HH:mm')(0) // '1970-01-01 00:00'
 */
export function compileUncachedFormatter(pattern: string): (ms: number) => string {
  // Fields other than years are never negative, so two-digit padding is a comparison.
  const padded = (v: string, n: number): string => (n === 2 ? `(${v} < 10 ? '0' + ${v} : '' + ${v})` : n === 1 ? `('' + ${v})` : `pad(${v}, ${n})`)
  const parts = tokenize(pattern).map((t): string => {
    if ('lit' in t) return JSON.stringify(t.lit)
    const n = t.count
    switch (t.letter) {
      case 'G':
        return `'AD'`
      case 'y':
      case 'u':
        return n === 2 ? `pad(((y % 100) + 100) % 100, 2)` : `pad(y, ${n})`
      case 'Y':
        return n === 2 ? `pad(((H.isoYear(days) % 100) + 100) % 100, 2)` : `pad(H.isoYear(days), ${n})`
      case 'M':
      case 'L':
        return n >= 4 ? 'MONTHS[mo - 1]' : n === 3 ? 'MONTHS[mo - 1].slice(0, 3)' : padded('mo', n)
      case 'd':
        return padded('d', n)
      case 'D':
        return `pad(H.dayOfYear(days), ${n})`
      case 'E':
        return n >= 4 ? 'DAYS[H.dayOfWeek(days) - 1]' : 'DAYS[H.dayOfWeek(days) - 1].slice(0, 3)'
      case 'e':
        return `pad(H.isoDayOfWeek(days), ${n})`
      case 'a':
        return `(hh < 12 ? 'AM' : 'PM')`
      case 'H':
        return padded('hh', n)
      case 'k':
        return padded('(hh || 24)', n)
      case 'K':
        return padded('(hh % 12)', n)
      case 'h':
        return padded('(hh % 12 || 12)', n)
      case 'm':
        return padded('mi', n)
      case 's':
        return padded('ss', n)
      case 'S':
        return n <= 3 ? `pad(milli, 3).slice(0, ${n})` : `(pad(milli, 3) + ${JSON.stringify('0'.repeat(n - 3))})`
      case 'Q':
        return n >= 3 ? `('Q' + (Math.floor((mo - 1) / 3) + 1))` : `pad(Math.floor((mo - 1) / 3) + 1, ${n})`
      case 'w':
        return `pad(H.isoWeek(days), ${n})`
      case 'z':
      case 'V':
        return `'UTC'`
      case 'Z':
        return `'+0000'`
      case 'X':
        return `'Z'`
      case 'x':
        return n === 1 ? `'+00'` : n === 3 || n === 5 ? `'+00:00'` : `'+0000'`
      default:
        throw new Error(`unsupported pattern letter '${t.letter}'`)
    }
  })
  const body = `return function format(ms) {
const days = Math.floor(ms / ${MS_PER_DAY}), c = H.civilOf(days);
const y = Math.floor(c / 10000), mo = Math.floor(c / 100) % 100, d = c % 100;
const tod = ms - days * ${MS_PER_DAY}, hh = Math.floor(tod / 3600000), mi = Math.floor(tod / 60000) % 60, ss = Math.floor(tod / 1000) % 60, milli = tod % 1000;
return ${parts.length === 0 ? "''" : parts.join(' + ')};
}`
  const helpers = { civilOf, dayOfWeek, dayOfYear, isoDayOfWeek, isoWeek, isoYear }
  return new Function('H', 'pad', 'MONTHS', 'DAYS', body)(helpers, pad, MONTHS, DAYS) as (ms: number) => string
}

interface Fields {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  milli: number
  pm: number
  offset: number
  hour12: boolean
}

/**
 * Compiles a pattern into a parser to epoch milliseconds (UTC); the parser returns null when the
 * text does not match the whole pattern or names an impossible date.
 * @example compileParser('dd/MM/yyyy HH:mm')('31/12/2024 23:59') // 1735689540000
 */
export function compileParser(pattern: string): (text: string) => number | null {
  let re = '^'
  const setters: ((f: Fields, s: string) => boolean)[] = []
  const field = (regex: string, set: (f: Fields, s: string) => boolean): void => {
    re += `(${regex})`
    setters.push(set)
  }
  const num = (n: number): string => (n === 1 ? '\\d{1,2}' : `\\d{${n}}`)
  for (const t of tokenize(pattern)) {
    if ('lit' in t) {
      re += t.lit.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')
      continue
    }
    const n = t.count
    switch (t.letter) {
      case 'y':
      case 'u':
      case 'Y':
        if (n === 2) {
          field('\\d{2}', (f, s) => {
            f.year = 2000 + Number(s)
            return true
          })
        } else {field(n === 1 ? '[+-]?\\d{1,9}' : `\\d{${Math.max(4, n)}}`, (f, s) => {
            f.year = Number(s)
            return true
          })}
        break
      case 'M':
      case 'L':
        if (n >= 3) {
          field(MONTHS.map(m => (n === 3 ? m.slice(0, 3) : m)).join('|'), (f, s) => {
            f.month = MONTHS.findIndex(m => m.toLowerCase().startsWith(s.toLowerCase())) + 1
            return f.month > 0
          })
        } else {field(num(n), (f, s) => {
            f.month = Number(s)
            return true
          })}
        break
      case 'd':
        field(num(n), (f, s) => {
          f.day = Number(s)
          return true
        })
        break
      case 'D':
        field(n === 1 ? '\\d{1,3}' : `\\d{${n}}`, (f, s) => {
          f.month = 1
          f.day = Number(s)
          return true
        })
        break
      case 'H':
      case 'k':
        field(num(n), (f, s) => {
          f.hour = Number(s) % 24
          return true
        })
        break
      case 'h':
      case 'K':
        field(num(n), (f, s) => {
          f.hour = Number(s) % 12
          f.hour12 = true
          return true
        })
        break
      case 'm':
        field(num(n), (f, s) => {
          f.minute = Number(s)
          return true
        })
        break
      case 's':
        field(num(n), (f, s) => {
          f.second = Number(s)
          return true
        })
        break
      case 'S':
        field(`\\d{${n}}`, (f, s) => {
          f.milli = Number(s.padEnd(3, '0').slice(0, 3))
          return true
        })
        break
      case 'a':
        field('AM|PM|am|pm', (f, s) => {
          f.pm = s.toUpperCase() === 'PM' ? 1 : 0
          return true
        })
        break
      case 'E':
        field(DAYS.map(d => (n >= 4 ? d : d.slice(0, 3))).join('|'), () => true)
        break
      case 'e':
      case 'w':
      case 'Q':
      case 'G':
        field(t.letter === 'G' ? 'AD|BC' : '\\d{1,2}', () => true)
        break
      case 'z':
      case 'V':
        field('UTC|GMT|Z', () => true)
        break
      case 'Z':
      case 'X':
      case 'x':
        field('Z|[+-]\\d{2}(?::?\\d{2})?', (f, s) => {
          if (s === 'Z') return true
          const sign = s[0] === '-' ? -1 : 1
          const digits = s.slice(1).replace(':', '')
          f.offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * 60_000
          return true
        })
        break
      default:
        throw new Error(`unsupported pattern letter '${t.letter}'`)
    }
  }
  const regex = new RegExp(re + '$', 'i')
  return text => {
    const m = regex.exec(text)
    if (!m) return null
    const f: Fields = { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, milli: 0, pm: -1, offset: 0, hour12: false }
    for (let i = 0; i < setters.length; i++) if (!setters[i]!(f, m[i + 1]!)) return null
    if (f.hour12 && f.pm === 1) f.hour += 12
    if (f.month < 1 || f.month > 12 || f.hour > 23 || f.minute > 59 || f.second > 59) return null
    // A day-of-year pattern sets month 1 and a day up to 366.
    const maxDay = f.day > 31 ? 366 : daysInMonth(f.year, f.month)
    if (f.day < 1 || f.day > maxDay) return null
    const days = daysFromCivil(f.year, f.month, 1) + f.day - 1
    return days * MS_PER_DAY + f.hour * 3_600_000 + f.minute * 60_000 + f.second * 1000 + f.milli - f.offset
  }
}
