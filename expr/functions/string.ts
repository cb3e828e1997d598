// String functions and operators: ||, CONCAT, CONCAT_WS, UPPER/LOWER, TRIM, SUBSTRING, POSITION,
// LIKE, REGEXP_*, padding and splitting. Positions are 1-based; lengths count UTF-16 code units.
import { randomUUID } from 'node:crypto'
import { WeirError } from '../../common/errors.js'
import { T } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { cached, javaRegex, likeMatcher, likeTest, regexError } from '../like.js'
import { anyNullable, badArgs, checkArgs, checkArity, literalValue, mkCall, simple, strict, type BindContext, type CallRex, type FunctionDef,
  type Impl } from '../registry.js'

const str = () => T.string()

function toStrings(args: readonly Rex[], ctx: BindContext): Rex[] {
  return args.map(a => (a.type.kind === 'STRING' ? a : ctx.cast(a, T.string())))
}

/** SQL TRIM: removes spaces (or the given characters) from the ends. */
function trimChars(s: string, chars: string, leading: boolean, trailing: boolean): string {
  let start = 0, end = s.length
  if (leading) { while (start < end && chars.includes(s[start]!)) start++ }
  if (trailing) { while (end > start && chars.includes(s[end - 1]!)) end-- }
  return s.slice(start, end)
}

/**
 * Flink's SUBSTRING: 1-based; a start of 0 acts as 1, a negative start counts from the end (before
 * the beginning gives ''); a negative length gives NULL.
 */
export function substring(s: string, pos: number, len?: number): string | null {
  if (len !== undefined && len < 0) return null
  const start = pos > 0 ? pos - 1 : pos < 0 ? s.length + pos : 0
  if (start < 0) return ''
  return len === undefined ? s.slice(start) : s.slice(start, start + len)
}

/** SUBSTRING is nullable when an argument is, or when its length may be negative. */
function bindSubstring(base: FunctionDef): FunctionDef['bind'] {
  return (args, ctx) => {
    const r = base.bind(args, ctx)
    if (r.kind !== 'Call' || r.type.nullable || r.args.length < 3) return r
    const len = literalValue(r.args[2])
    return typeof len === 'number' && len >= 0 ? r : { ...r, type: T.string(true) }
  }
}

const SUBSTRING = simple(['SUBSTRING', 'SUBSTR'], 'SUBSTRING(STRING, INT[, INT])', ['STRING', 'INTEGER', 'INTEGER'], 2, () => T.string(), strict(substring))

/** Calcite's INITCAP: words are runs of [A-Za-z0-9]; their first letter is upper-cased, the rest lower-cased. */
export function initcap(s: string): string {
  let out = ''
  let start = true
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i)
    const digit = c > 47 && c < 58, upper = c > 64 && c < 91, lower = c > 96 && c < 123
    if (start) {
      if (digit || upper) start = false
      else if (lower) {
        start = false
        c -= 32
      }
    } else if (upper) c += 32
    else if (!digit && !lower) start = true
    out += String.fromCharCode(c)
  }
  return out
}

function pad(left: boolean): (s: string, len: number, p: string) => string | null {
  return (s, len, p) => {
    if (len < 0 || p === '') return null
    if (s.length >= len) return s.slice(0, len)
    const need = len - s.length
    const fill = p.repeat(Math.ceil(need / p.length)).slice(0, need)
    return left ? fill + s : s + fill
  }
}

/** A compiled Java replacement string ($1, ${name}, \$ escapes) applied to one match. */
function javaReplacement(rep: string): (match: string, groups: unknown[]) => string {
  const parts: (string | number)[] = []
  let lit = ''
  for (let i = 0; i < rep.length; i++) {
    const c = rep[i]!
    if (c === '\\' && i + 1 < rep.length) {
      lit += rep[++i]
      continue
    }
    if (c === '$') {
      const m = /^\d+/.exec(rep.slice(i + 1))
      if (m) {
        if (lit) parts.push(lit)
        lit = ''
        parts.push(Number(m[0]))
        i += m[0].length
        continue
      }
    }
    lit += c
  }
  if (lit) parts.push(lit)
  return (match, groups) => parts.map(p => (typeof p === 'string' ? p : p === 0 ? match : String(groups[p - 1] ?? ''))).join('')
}

/** A regex argument: precompiled when it is a literal, else compiled once per distinct value. Invalid → null. */
export function regexOf(call: CallRex, index: number, global: boolean): (pattern: string) => RegExp | null {
  const safe = (p: string): RegExp | null => {
    try {
      return javaRegex(p, global)
    } catch {
      return null
    }
  }
  const lit = literalValue(call.args[index])
  if (typeof lit === 'string') {
    const r = safe(lit)
    return () => r
  }
  return cached(safe)
}

export function checkRegexLiteral(rex: Rex | undefined, ctx: BindContext): void {
  const v = literalValue(rex)
  if (typeof v !== 'string') return
  const err = regexError(v)
  if (err !== null) throw ctx.error(`invalid regular expression '${v}': ${err}`, 'the pattern uses Java regular expression syntax')
}

export function regexFunction(
  names: string[],
  signature: string,
  params: Parameters<typeof checkArgs>[1],
  min: number,
  result: () => ReturnType<typeof T.string>,
  build: (call: CallRex) => Impl,
): FunctionDef {
  const base = simple(names, signature, params, min, result, build, true)
  return { ...base, bind: (args, ctx) => {
    const r = base.bind(args, ctx)
    checkRegexLiteral(args[1], ctx)
    return r
  } }
}

/**
 * `x op pattern [ESCAPE c]` (LIKE, SIMILAR TO): `compile` turns a pattern and its escape into a
 * matcher, throwing a WeirError for one that cannot be; a literal pattern is compiled (and refused)
 * when the call is bound, one from a column once per distinct (escape, pattern) and kept.
 */
export function patternPredicate<M>(op: string, compile: (pattern: string, escape?: string | null) => M, test: (m: M, s: string) => boolean): Pick<
  FunctionDef,
  'bind' | 'impl'
> {
  const signature = `x ${op.replace('_', ' ')} pattern [ESCAPE c]`
  return {
    bind: (args, ctx) => {
      const typed = checkArgs(args, ['STRING', 'STRING', 'STRING'], 2, ctx, signature)
      const pattern = literalValue(typed[1]), escape = typed.length > 2 ? literalValue(typed[2]) : null
      if (typeof pattern === 'string' && (escape === null || typeof escape === 'string')) {
        try {
          compile(pattern, escape)
        } catch (e) {
          if (e instanceof WeirError) throw ctx.error(e.message, e.help)
          throw e
        }
      }
      return mkCall(op, typed, T.boolean(anyNullable(typed)), ctx.span)
    },
    impl: call => {
      const pattern = literalValue(call.args[1]), escape = call.args.length > 2 ? literalValue(call.args[2]) : null
      if (typeof pattern === 'string' && (escape === null || typeof escape === 'string')) {
        const m = compile(pattern, escape)
        return { fn: (s: string) => test(m, s), nulls: 'strict' }
      }
      const matchers = cached((key: string): M => {
        const sep = key.indexOf('\u0000')
        return compile(key.slice(sep + 1), sep === 0 ? undefined : key.slice(0, sep))
      })
      return { fn: (s: string, p: string, e?: string) => test(matchers(`${e ?? ''}\u0000${p}`), s), nulls: 'strict' }
    },
  }
}

function bindConcat(op: string, min: number, max: number, signature: string): FunctionDef['bind'] {
  return (args, ctx) => {
    checkArity(args, min, max, ctx, signature)
    for (const a of args) if (a.type.kind === 'INTERVAL') throw badArgs(args, ctx, signature)
    const typed = toStrings(args, ctx)
    // `||` of CHARs is the CHAR of their summed length (Calcite's rule, which Flink keeps); CONCAT
    // and anything with a STRING give a STRING.
    const chars = typed.map(a => (a.type.kind === 'STRING' ? a.type.char : undefined))
    const type = op === '||' && chars.every(n => n !== undefined)
      ? T.char(chars.reduce((x, y) => x! + y!, 0)!, anyNullable(typed))
      : T.string(anyNullable(typed))
    return mkCall(op, typed, type, ctx.span)
  }
}

export const STRING: readonly FunctionDef[] = [
  { names: ['||'], signature: 'x || y', bind: bindConcat('||', 2, 2, 'x || y'), impl: strict((a: string, b: string) => a + b),
    inline: a => `(${a[0]} + ${a[1]})` },
  { names: ['CONCAT'], signature: 'CONCAT(x, y, …)', bind: bindConcat('CONCAT', 1, Infinity, 'CONCAT(x, y, …)'), impl: strict((...xs: string[]) => xs.join('')),
    inline: a => `(${a.join(' + ')})` },
  {
    names: ['CONCAT_WS'],
    signature: 'CONCAT_WS(separator, x, y, …)',
    bind: (args, ctx) => {
      checkArity(args, 2, Infinity, ctx, 'CONCAT_WS(separator, x, y, …)')
      const typed = toStrings(args, ctx)
      return mkCall('CONCAT_WS', typed, T.string(typed[0]!.type.nullable), ctx.span)
    },
    // NULL arguments are skipped; only a NULL separator gives NULL.
    impl: () => ({ fn: (sep: string | null, ...xs: (string | null)[]) => (sep === null ? null : xs.filter(x => x !== null && x !== undefined).join(sep)),
      nulls: 'lenient' }),
  },
  simple(['UPPER', 'UCASE'], 'UPPER(STRING)', ['STRING'], 1, str, strict((s: string) => s.toUpperCase()), false, a => `${a[0]}.toUpperCase()`),
  simple(['LOWER', 'LCASE'], 'LOWER(STRING)', ['STRING'], 1, str, strict((s: string) => s.toLowerCase()), false, a => `${a[0]}.toLowerCase()`),
  // The string comes first and the characters to remove second, as in Flink's BTRIM(str, trimStr);
  // the parser turns TRIM([BOTH | LEADING | TRAILING] [chars] FROM s) into TRIM / LTRIM / RTRIM(s, chars).
  simple(['TRIM', 'BTRIM'], 'BTRIM(STRING[, characters]) or TRIM([BOTH] [characters] FROM STRING)', ['STRING', 'STRING'], 1, str,
    strict((s: string, chars = ' ') => trimChars(s, chars, true, true))),
  simple(['LTRIM'], 'LTRIM(STRING[, characters]) or TRIM(LEADING [characters] FROM STRING)', ['STRING', 'STRING'], 1, str,
    strict((s: string, chars = ' ') => trimChars(s, chars, true, false))),
  simple(['RTRIM'], 'RTRIM(STRING[, characters]) or TRIM(TRAILING [characters] FROM STRING)', ['STRING', 'STRING'], 1, str,
    strict((s: string, chars = ' ') => trimChars(s, chars, false, true))),
  { ...SUBSTRING, bind: bindSubstring(SUBSTRING) },
  simple(['CHAR_LENGTH', 'CHARACTER_LENGTH', 'LENGTH'], 'CHAR_LENGTH(STRING)', ['STRING'], 1, () => T.int(), strict((s: string) => s.length), false,
    a => `${a[0]}.length`),
  simple(['REPLACE'], 'REPLACE(STRING, search, replacement)', ['STRING', 'STRING', 'STRING'], 3, str,
    strict((s: string, search: string, rep: string) => (search === '' ? s : s.split(search).join(rep)))),
  simple(['POSITION'], 'POSITION(needle IN haystack)', ['STRING', 'STRING'], 2, () => T.int(),
    strict((needle: string, hay: string) => hay.indexOf(needle) + 1)),
  simple(['LOCATE'], 'LOCATE(needle, haystack[, start])', ['STRING', 'STRING', 'INTEGER'], 2, () => T.int(),
    strict((needle: string, hay: string,
      start?: number) => (start === undefined ? hay.indexOf(needle) + 1 : start < 1 ? 0 : hay.indexOf(needle, start - 1) + 1)
    )),
  simple(['INITCAP'], 'INITCAP(STRING)', ['STRING'], 1, str, strict(initcap)),
  simple(['LEFT'], 'LEFT(STRING, INT)', ['STRING', 'INTEGER'], 2, str, strict((s: string, n: number) => (n <= 0 ? '' : s.slice(0, n)))),
  simple(['RIGHT'], 'RIGHT(STRING, INT)', ['STRING', 'INTEGER'], 2, str, strict((s: string, n: number) => (n <= 0 ? '' : s.slice(Math.max(0, s.length - n))))),
  simple(['LPAD'], 'LPAD(STRING, length, padding)', ['STRING', 'INTEGER', 'STRING'], 3, str, strict(pad(true)), true),
  simple(['RPAD'], 'RPAD(STRING, length, padding)', ['STRING', 'INTEGER', 'STRING'], 3, str, strict(pad(false)), true),
  simple(['REVERSE'], 'REVERSE(STRING)', ['STRING'], 1, str, strict((s: string) => [...s].reverse().join(''))),
  simple(['REPEAT'], 'REPEAT(STRING, INT)', ['STRING', 'INTEGER'], 2, str, strict((s: string, n: number) => (n <= 0 ? '' : s.repeat(n)))),
  simple(['ASCII'], 'ASCII(STRING)', ['STRING'], 1, () => T.int(), strict((s: string) => (s === '' ? 0 : s.charCodeAt(0)))),
  simple(['SPLIT_INDEX'], 'SPLIT_INDEX(STRING, delimiter, INT)', ['STRING', 'STRING', 'INTEGER'], 3, str,
    strict((s: string, sep: string, i: number) => (i < 0 ? null : (sep === '' ? [s] : s.split(sep))[i] ?? null)), true),
  regexFunction(['REGEXP_EXTRACT'], 'REGEXP_EXTRACT(STRING, regex[, group])', ['STRING', 'STRING', 'INTEGER'], 2, str, call => {
    const re = regexOf(call, 1, false)
    return {
      nulls: 'strict',
      fn: (s: string, p: string, group = 0) => {
        const m = re(p)?.exec(s)
        return m === null || m === undefined || group < 0 || group >= m.length ? null : m[group] ?? null
      },
    }
  }),
  regexFunction(['REGEXP_REPLACE'], 'REGEXP_REPLACE(STRING, regex, replacement)', ['STRING', 'STRING', 'STRING'], 3, str, call => {
    const re = regexOf(call, 1, true)
    const lit = literalValue(call.args[2])
    const fixed = typeof lit === 'string' ? javaReplacement(lit) : undefined
    const reps = cached(javaReplacement)
    return {
      nulls: 'strict',
      fn: (s: string, p: string, rep: string) => {
        const r = re(p)
        if (r === null) return null
        const f = fixed ?? reps(rep)
        // The replacer gets the groups, then the offset (the first number), the input, maybe named groups.
        return s.replace(r, (match: string, ...rest: unknown[]) => f(match, rest.slice(0, rest.findIndex(x => typeof x === 'number'))))
      },
    }
  }),
  regexFunction(['REGEXP'], 'REGEXP(STRING, regex)', ['STRING', 'STRING'], 2, () => T.boolean(), call => {
    const re = regexOf(call, 1, false)
    return { nulls: 'strict', fn: (s: string, p: string) => {
      const r = re(p)
      return r === null ? null : r.test(s)
    } }
  }),
  { names: ['LIKE'], signature: 'x LIKE pattern [ESCAPE c]', ...patternPredicate('LIKE', likeMatcher, likeTest) },
  { names: ['NOT_LIKE'], signature: 'x NOT LIKE pattern [ESCAPE c]', bind: (args, ctx) => ctx.call('NOT', [ctx.call('LIKE', args)]) },
  {
    names: ['UUID'],
    signature: 'UUID()',
    bind: (args, ctx) => {
      checkArity(args, 0, 0, ctx, 'UUID()')
      return mkCall('UUID', [], T.string(false), ctx.span)
    },
    impl: strict(() => randomUUID()),
  },
]
