// The comparison and string forms that only special syntax reaches: x [NOT] BETWEEN SYMMETRIC a AND b,
// s [NOT] SIMILAR TO pattern [ESCAPE c] (SQL regular expressions, as Flink/Calcite read them) and
// OVERLAY(s PLACING r FROM pos [FOR len]) (Flink's runtime function, edge cases included).
import { WeirError } from '../../common/errors.js'
import { T } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { patternPredicate } from './string.js'
import { checkArity, simple, strict, type BindContext, type FunctionDef } from '../registry.js'

// ---------------------------------------------------------------- BETWEEN SYMMETRIC

/**
 * Calcite's expansion: (x >= a AND x <= b) OR (x >= b AND x <= a), so NULL bounds follow SQL's
 * three-valued logic exactly as Flink's (12 BETWEEN SYMMETRIC NULL AND 12 is NULL).
 */
function symmetric(args: readonly Rex[], ctx: BindContext, signature: string): Rex {
  checkArity(args, 3, 3, ctx, signature)
  const [x, a, b] = args as [Rex, Rex, Rex]
  const within = (lo: Rex, hi: Rex) => ctx.call('AND', [ctx.call('>=', [x, lo]), ctx.call('<=', [x, hi])])
  return ctx.call('OR', [within(a, b), within(b, a)])
}

// ---------------------------------------------------------------- SIMILAR TO

/** The characters SIMILAR TO gives a meaning to: only these (and the escape itself) may be escaped. */
const SIMILAR_SPECIALS = '[]()|^-+*_%?{}'
/** Characters that are syntax in a JavaScript RegExp with the u flag, so written literally they need a backslash. */
const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|/]/g
/** Java's `.` without DOTALL: any character but a line terminator (JavaScript's `.` lacks U+0085). */
const ANY_BUT_LINE_END = '[^\\n\\r\\u0085\\u2028\\u2029]'
/** The POSIX classes Calcite accepts inside brackets (`[[:DIGIT:]]`, upper or lower case), as Java reads them. */
const CHAR_CLASSES: Record<string, string> = {
  ALPHA: 'a-zA-Z',
  UPPER: 'A-Z',
  LOWER: 'a-z',
  DIGIT: '0-9',
  ALNUM: 'a-zA-Z0-9',
  SPACE: ' ',
  WHITESPACE: ' \\t\\n\\x0B\\f\\r',
}

function invalid(pattern: string, why: string): WeirError {
  return WeirError.execution(`invalid SIMILAR TO pattern '${pattern}': ${why}`, {
    help: "SIMILAR TO takes % and _ as LIKE does and | * + ? {m,n} ( ) [ ] as regular expressions; escape a special character with ESCAPE '…'",
  })
}

/**
 * Translates a SQL regular expression to a RegExp matching the whole string, as Flink does (Calcite's
 * Like.sqlToRegexSimilar, matched by Java's Pattern): `%` is any sequence (line breaks included) and
 * `_` any one character but a line break; `| * + ? {m,n} ( ) [ ]` keep their regex meaning, and so do
 * `.` (any character but a line break) and `^`, which Calcite passes to Java as they are; `\` and `$`
 * are literal. Inside brackets `^` negates, `-` makes a range, `[:DIGIT:]` and friends are classes,
 * and the other special characters must be escaped. Groups do not capture, so `(?…)` is refused
 * rather than read as a lookahead or a flag. Throws a WeirError (execution kind; the binder rethrows
 * it as a plan error for literals).
 *
 * @example similarRegex('%(b|d)%').test('abc') // true
 */
export function similarRegex(pattern: string, escape?: string | null): RegExp {
  if (escape !== undefined && escape !== null && escape.length !== 1) {
    throw WeirError.execution(`SIMILAR TO escape must be a single character, got '${escape}'`)
  }
  let out = ''
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (escape !== undefined && escape !== null && c === escape) {
      const next = pattern[i + 1]
      if (next === undefined || (!SIMILAR_SPECIALS.includes(next) && next !== escape)) {
        throw invalid(pattern, `the escape '${escape}' at position ${i + 1} must be followed by one of ${SIMILAR_SPECIALS} or itself`)
      }
      out += inClass ? next.replace(/[\\\][^-]/, '\\$&') : next.replace(REGEX_SYNTAX, '\\$&')
      i++
    } else if (inClass) {
      if (c === ']') {
        inClass = false
        out += ']'
      } else if (c === '^' || c === '-') {
        out += c
      } else if (c === '[' && pattern[i + 1] === ':') {
        const end = pattern.indexOf(':]', i + 2)
        const name = end < 0 ? '' : pattern.slice(i + 2, end)
        const cls = name === name.toUpperCase() || name === name.toLowerCase() ? CHAR_CLASSES[name.toUpperCase()] : undefined
        if (cls === undefined) throw invalid(pattern, `unknown character class at position ${i + 1} (known: ${Object.keys(CHAR_CLASSES).join(', ')})`)
        out += cls
        i = end + 1
      } else if (SIMILAR_SPECIALS.includes(c)) {
        throw invalid(pattern, `'${c}' at position ${i + 1} must be escaped inside [ ]`)
      } else {
        out += c === '\\' ? '\\\\' : c
      }
    } else if (c === '%') {
      out += '(?:[^]*)'
    } else if (c === '_' || c === '.') {
      out += ANY_BUT_LINE_END
    } else if (c === '[') {
      inClass = true
      out += '['
    } else if (c === ']') {
      throw invalid(pattern, `']' at position ${i + 1} closes no '['`)
    } else if (c === '(') {
      out += '(?:'
    } else if (c === ')' || c === '|' || c === '*' || c === '+' || c === '?' || c === '{' || c === '}' || c === '^') {
      out += c
    } else {
      out += c.replace(REGEX_SYNTAX, '\\$&')
    }
  }
  if (inClass) throw invalid(pattern, "a '[' is not closed")
  try {
    return new RegExp(`^(?:${out})$`, 'u')
  } catch (e) {
    throw invalid(pattern, e instanceof Error ? e.message.replace(/^Invalid regular expression: \/.*\/u?: /, '') : String(e))
  }
}

// ---------------------------------------------------------------- OVERLAY

/**
 * Flink's OVERLAY (SqlFunctionUtils.overlay), quirks included so that results match Flink's: the part
 * of s before pos, then r, then what follows the len replaced characters (len defaults to r's length).
 * Where it departs from the SQL standard (and DuckDB/PostgreSQL): a position below 1 or past the end
 * returns s unchanged, and a length of 0 or less drops the rest of s instead of inserting r.
 *
 * @example overlay('This is an old string', ' new', 10, 5) // 'This is a new string'
 */
function overlay(s: string, r: string, pos: number, len?: number): string {
  if (pos <= 0 || pos > s.length) return s
  const n = len ?? r.length
  const rest = n > 0 ? s.slice(pos - 1 + n) : ''
  return s.slice(0, pos - 1) + r + rest
}

export const SIMILAR: readonly FunctionDef[] = [
  { names: ['BETWEEN_SYMMETRIC'], signature: 'x BETWEEN SYMMETRIC a AND b', bind: (args, ctx) => symmetric(args, ctx, 'x BETWEEN SYMMETRIC a AND b') },
  {
    names: ['NOT_BETWEEN_SYMMETRIC'],
    signature: 'x NOT BETWEEN SYMMETRIC a AND b',
    bind: (args, ctx) => ctx.call('NOT', [symmetric(args, ctx, 'x NOT BETWEEN SYMMETRIC a AND b')]),
  },
  { names: ['SIMILAR_TO'], signature: 'x SIMILAR TO pattern [ESCAPE c]', ...patternPredicate('SIMILAR_TO', similarRegex, (r, s) => r.test(s)) },
  { names: ['NOT_SIMILAR_TO'], signature: 'x NOT SIMILAR TO pattern [ESCAPE c]', bind: (args, ctx) => ctx.call('NOT', [ctx.call('SIMILAR_TO', args)]) },
  simple(['OVERLAY'], 'OVERLAY(s PLACING r FROM pos [FOR len])', ['STRING', 'STRING', 'INTEGER', 'INTEGER'], 3, () => T.string(), strict(overlay)),
]
