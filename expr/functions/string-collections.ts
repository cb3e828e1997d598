// String functions of Flink that return collections: SPLIT (ARRAY<STRING>), REGEXP_EXTRACT_ALL
// (ARRAY<STRING>) and STR_TO_MAP (MAP<STRING, STRING>). Regular expressions are Java's, run as
// JavaScript ones (like.ts javaRegex); a literal one that does not compile is refused when planned.
import { WeirError } from '../../common/errors.js'
import { T } from '../../common/types.js'
import { cached, javaRegex } from '../like.js'
import { checkArgs, literalValue, mkCall, type CallRex, type FunctionDef } from '../registry.js'
import { checkRegexLiteral } from './string.js'

const strings = (nullable: boolean) => T.array(T.string(), nullable)

/**
 * Flink's SPLIT (BinaryStringDataUtil.splitByWholeSeparatorPreserveAllTokens): every occurrence of
 * the whole delimiter splits, empty strings kept at either end and between adjacent delimiters; an
 * empty string gives no element; an empty delimiter splits into characters (code points).
 */
export function split(s: string, delimiter: string): string[] {
  if (s === '') return []
  if (delimiter === '') return [...s]
  return s.split(delimiter)
}

/**
 * Java's String.split(regex, limit): a zero-width match at the start makes no leading empty string;
 * with limit 0 trailing empty strings are removed; no match gives the whole string.
 */
export function javaSplit(s: string, re: RegExp, limit = 0): string[] {
  const out: string[] = []
  let index = 0
  re.lastIndex = 0
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const end = m.index + m[0].length
    if (m[0].length === 0) re.lastIndex++
    if (limit > 0 && out.length === limit - 1) break
    if (m.index === 0 && end === 0) continue
    if (m[0].length === 0 && m.index >= s.length) break
    out.push(s.slice(index, m.index))
    index = end
  }
  if (index === 0 && out.length === 0) return [s]
  out.push(s.slice(index))
  if (limit === 0) { while (out.length > 0 && out[out.length - 1] === '') out.pop() }
  return out
}

/** A regex argument compiled once when it is a literal, else once per distinct text; an invalid one fails the job. */
function regexArg(call: CallRex, index: number): (p: string) => RegExp {
  const compile = (p: string): RegExp => {
    try {
      return javaRegex(p, true)
    } catch (e) {
      throw WeirError.execution(`invalid regular expression '${p}' in ${call.op}: ${(e as Error).message}`, { span: call.span })
    }
  }
  const lit = literalValue(call.args[index])
  if (typeof lit === 'string') {
    const r = compile(lit)
    return () => r
  }
  return cached(compile)
}

/** The number of capture groups of a pattern. */
function groupCount(re: RegExp): number {
  return new RegExp(`${re.source}|`, re.flags.replace('g', '')).exec('')!.length - 1
}

const SPLIT: FunctionDef = {
  names: ['SPLIT'],
  signature: 'SPLIT(STRING, delimiter)',
  bind: (args, ctx) => {
    const typed = checkArgs(args, ['STRING', 'STRING'], 2, ctx, 'SPLIT(STRING, delimiter)')
    return mkCall('SPLIT', typed, strings(typed.some(a => a.type.nullable)), ctx.span)
  },
  impl: () => ({ fn: split, nulls: 'strict' }),
}

const REGEXP_EXTRACT_ALL: FunctionDef = {
  names: ['REGEXP_EXTRACT_ALL'],
  signature: 'REGEXP_EXTRACT_ALL(STRING, regex[, group])',
  bind: (args, ctx) => {
    const signature = 'REGEXP_EXTRACT_ALL(STRING, regex[, group])'
    const typed = checkArgs(args, ['STRING', 'STRING', 'INTEGER'], 2, ctx, signature)
    checkRegexLiteral(typed[1], ctx)
    const pattern = literalValue(typed[1]), group = literalValue(typed[2])
    if (typeof pattern === 'string' && typeof group === 'number') {
      const count = groupCount(javaRegex(pattern))
      if (group < 0 || group > count) {
        throw ctx.error(`group ${group} of '${pattern}' does not exist: it has ${count} group${count === 1 ? '' : 's'}`,
          'groups count from 1; 0 is the whole match')
      }
    }
    return mkCall('REGEXP_EXTRACT_ALL', typed, strings(typed.some(a => a.type.nullable)), ctx.span)
  },
  // Flink's RegexpExtractAllFunction: every match in turn (group 1 by default), a group that took no
  // part in a match is a NULL element, a group index beyond the pattern's fails the job.
  impl: call => {
    const regex = regexArg(call, 1)
    return {
      fn: (s: string, p: string, group: number | bigint = 1) => {
        const re = regex(p)
        const g = Number(group)
        const count = groupCount(re)
        if (g < 0 || g > count) {
          throw WeirError.execution(`REGEXP_EXTRACT_ALL: group ${g} is out of range [0, ${count}] for '${p}'`, { span: call.span,
            help: 'groups count from 1; 0 is the whole match' })
        }
        const out: (string | null)[] = []
        for (const m of s.matchAll(re)) out.push(m[g] ?? null)
        return out
      },
      nulls: 'strict',
    }
  },
}

const STR_TO_MAP: FunctionDef = {
  names: ['STR_TO_MAP'],
  signature: 'STR_TO_MAP(STRING[, listDelimiter, keyValueDelimiter])',
  bind: (args, ctx) => {
    const signature = 'STR_TO_MAP(STRING[, listDelimiter, keyValueDelimiter])'
    if (args.length === 2) throw ctx.error(`'STR_TO_MAP' takes 1 or 3 arguments but was given 2`, signature)
    const typed = checkArgs(args, ['STRING', 'STRING', 'STRING'], 1, ctx, signature)
    for (const d of typed.slice(1)) checkRegexLiteral(d, ctx)
    return mkCall('STR_TO_MAP', typed, T.map(T.string(), T.string(), typed.some(a => a.type.nullable)), ctx.span)
  },
  // Flink's SqlFunctionUtils.strToMap: both delimiters are regular expressions; text.split(list), then
  // each pair split(keyValue, 2); a pair without the delimiter is a key with a NULL value; a later key
  // replaces an earlier one; an empty text is an empty map.
  impl: call => {
    const list = call.args.length > 1 ? regexArg(call, 1) : () => /,/g
    const kv = call.args.length > 2 ? regexArg(call, 2) : () => /=/g
    return {
      fn: (text: string, listDelimiter = ',', keyValueDelimiter = '=') => {
        if (text === '') return []
        const out: [string, string | null][] = []
        const kvRe = kv(keyValueDelimiter)
        for (const pair of javaSplit(text, list(listDelimiter))) {
          const parts = javaSplit(pair, kvRe, 2)
          const entry: [string, string | null] = parts.length < 2 ? [pair, null] : [parts[0]!, parts[1]!]
          const at = out.findIndex(e => e[0] === entry[0])
          if (at >= 0) out[at] = entry
          else out.push(entry)
        }
        return out
      },
      nulls: 'strict',
    }
  },
}

export const STRING_COLLECTIONS: readonly FunctionDef[] = [SPLIT, REGEXP_EXTRACT_ALL, STR_TO_MAP]
