// More string functions of Flink: STARTSWITH / ENDSWITH, INSTR, REGEXP_COUNT / INSTR / SUBSTR,
// TRANSLATE, base64, CHR, URL encoding and PARSE_URL, ELT. Positions are 1-based UTF-16 indexes,
// as Java's String (Flink's) counts them.
import { WeirError } from '../../common/errors.js'
import { T, isIntegral, type DataType } from '../../common/types.js'
import { commonType, typeName } from '../coercion.js'
import { checkArgs, checkArity, literalValue, mkCall, simple, strict, type CallRex, type FunctionDef } from '../registry.js'
import { regexFunction, regexOf } from './string.js'

const str = () => T.string()
const int = () => T.int()
const utf8 = new TextDecoder('utf-8')

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g')

/**
 * A string as Flink compares it (its UTF-8 bytes, where Java writes '?' for a lone surrogate):
 * on well-formed strings a UTF-16 prefix is a byte prefix, so STARTSWITH('😀', '\uD83D') is false.
 */
function javaUtf8(s: string): string {
  return s.replace(LONE_SURROGATES, '?')
}

const isHigh = (c: number) => c >= 0xd800 && c < 0xdc00
const isLow = (c: number) => c >= 0xdc00 && c < 0xe000
// Where the UTF-16 answer can differ from the UTF-8 one: a prefix holding '?' or half a pair.
const MAYBE_JAVA = /[?\uD800-\uDFFF]/

/**
 * STARTSWITH as Flink compares the UTF-8 bytes: the UTF-16 answer, except that a prefix ending in
 * half of a pair of `s` does not match, and '?' matches a lone surrogate (both are '?' in Java's bytes).
 */
export function startsWith(s: string, p: string): boolean {
  const n = p.length
  if (s.startsWith(p)) return !(n > 0 && isHigh(p.charCodeAt(n - 1)) && isLow(s.charCodeAt(n)))
  return MAYBE_JAVA.test(p) && javaUtf8(s).startsWith(javaUtf8(p))
}

export function endsWith(s: string, p: string): boolean {
  const n = p.length
  if (s.endsWith(p)) return !(n > 0 && isLow(p.charCodeAt(0)) && isHigh(s.charCodeAt(s.length - n - 1)))
  return MAYBE_JAVA.test(p) && javaUtf8(s).endsWith(javaUtf8(p))
}

/** The UTF-8 bytes Flink hashes, hexes and base64-encodes: '?' for a lone surrogate, as Java's encoder. */
export function javaBytes(s: string): Buffer {
  return Buffer.from(LONE_SURROGATE.test(s) ? javaUtf8(s) : s, 'utf8')
}

/**
 * Flink's INSTR(str, sub, start, nth): the position of the nth occurrence searching from `start`
 * (1-based), backwards from the end for a negative `start`; 0 when there is none or `start` is 0.
 * An empty `sub` is found at once (Flink's BinaryStringData.indexOf gives 0 for it).
 */
export function instr(s: string, sub: string, start: number, nth: number, call: CallRex): number {
  if (nth <= 0) throw new WeirError('execution', `INSTR: the occurrence must be positive, got ${nth}`, { span: call.span })
  if (start === 0) return 0
  if (start > 0) {
    let from = start, index = 0
    for (let i = 0; i < nth; i++) {
      index = (sub === '' ? 0 : s.indexOf(sub, from - 1)) + 1
      if (index === 0) return 0
      from = index + 1
    }
    return index
  }
  const reverse = (x: string) => [...x].reverse().join('')
  const pos = instr(reverse(s), reverse(sub), -start, nth, call)
  return pos === 0 ? 0 : s.length + 2 - pos - sub.length
}

/** Java's TRANSLATE: each code point of `from` maps to the one at the same place in `to`, or to nothing. */
function translateMap(from: string, to: string): Map<number, string> {
  const dict = new Map<number, string>()
  const tos = [...to]
  let j = 0
  for (const ch of from) {
    const cp = ch.codePointAt(0)!
    const repl = tos[j++] ?? ''
    if (!dict.has(cp)) dict.set(cp, repl) // the first mapping of a repeated character wins
  }
  return dict
}

export function translate(s: string | null, from: string | null, to: string | null): string | null {
  if (s == null || from == null || s === '' || from === '') return s ?? null
  const dict = translateMap(from, to ?? '')
  let out = ''
  for (const ch of s) out += dict.get(ch.codePointAt(0)!) ?? ch
  return out
}

/** Java's Base64.getDecoder(): the standard alphabet, '=' padding optional, anything else refused. */
function fromBase64(s: string, call: CallRex): string {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1 || (s.includes('=') && s.length % 4 !== 0)) {
    throw new WeirError('execution', `FROM_BASE64: '${s.length > 40 ? `${s.slice(0, 40)}…` : s}' is not valid base64`, {
      span: call.span,
      help: 'the input must use the standard alphabet A-Z a-z 0-9 + / with optional = padding',
    })
  }
  return utf8.decode(Buffer.from(s, 'base64'))
}

/** Flink's CHR: the character of the low 8 bits; '' for a negative code. */
export function chr(code: number | bigint): string {
  if (code < 0) return ''
  return String.fromCharCode(Number(BigInt(code) & 0xffn))
}

/** Java's URLEncoder.encode(s, UTF-8): letters, digits and . - * _ stay, space becomes '+', the rest %XX. */
export function urlEncode(s: string): string {
  let out = ''
  for (const ch of s) {
    if (/[A-Za-z0-9.\-*_]/.test(ch)) out += ch
    else if (ch === ' ') out += '+'
    else {
      // A lone surrogate has no UTF-8 form: Java writes '?' for it.
      const bytes = Buffer.from(ch.length === 1 && ch.charCodeAt(0) >= 0xd800 && ch.charCodeAt(0) < 0xe000 ? '?' : ch, 'utf8')
      for (const b of bytes) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`
    }
  }
  return out
}

/** Java's URLDecoder.decode(s, UTF-8): '+' is a space, runs of %XX are UTF-8 bytes; a bad escape gives NULL (as Flink). */
export function urlDecode(s: string): string | null {
  let out = ''
  for (let i = 0; i < s.length;) {
    const c = s[i]!
    if (c === '+') {
      out += ' '
      i++
    } else if (c === '%') {
      const bytes: number[] = []
      while (i < s.length && s[i] === '%') {
        if (i + 3 > s.length) return null
        const hex = s.slice(i + 1, i + 3)
        // Java parses the two characters with Integer.parseInt(…, 16), which also takes a sign.
        if (!/^[+-]?[0-9A-Fa-f]+$/.test(hex)) return null
        const v = parseInt(hex, 16)
        if (v < 0) return null
        bytes.push(v)
        i += 3
      }
      out += utf8.decode(Uint8Array.from(bytes))
    } else {
      out += c
      i++
    }
  }
  return out
}

interface Url {
  protocol: string
  authority: string | null
  userInfo: string | null
  host: string
  path: string
  query: string | null
  ref: string | null
}

// java.net.URL has handlers for these protocols only; any other is a MalformedURLException (NULL in Flink).
const PROTOCOLS = new Set(['http', 'https', 'ftp', 'file'])

/** The parts java.net.URL gives for a hierarchical URL of a known protocol; null where URL refuses it. */
export function parseUrl(s: string): Url | null {
  const m = /^\s*([A-Za-z][A-Za-z0-9+.\-]*):(.*?)\s*$/s.exec(s)
  if (!m) return null
  const protocol = m[1]!.toLowerCase()
  if (!PROTOCOLS.has(protocol)) return null
  let rest = m[2]!
  let ref: string | null = null
  const hash = rest.indexOf('#')
  if (hash >= 0) {
    ref = rest.slice(hash + 1)
    rest = rest.slice(0, hash)
  }
  let query: string | null = null
  const q = rest.indexOf('?')
  if (q >= 0) {
    query = rest.slice(q + 1)
    rest = rest.slice(0, q)
  }
  let authority: string | null = null, userInfo: string | null = null, host = ''
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2)
    authority = end < 0 ? rest.slice(2) : rest.slice(2, end)
    rest = end < 0 ? '' : rest.slice(end)
    host = authority
    const at = authority.lastIndexOf('@')
    if (at >= 0) {
      userInfo = authority.slice(0, at)
      host = authority.slice(at + 1)
    }
    if (host.startsWith('[')) {
      const close = host.indexOf(']')
      if (close < 0) return null
      host = host.slice(0, close + 1)
    } else {
      const colon = host.indexOf(':')
      if (colon >= 0) {
        const port = host.slice(colon + 1)
        if (port !== '' && !/^\d+$/.test(port)) return null
        host = host.slice(0, colon)
      }
    }
  }
  return { protocol, authority, userInfo, host, path: rest, query, ref }
}

function urlPart(u: Url, part: string): string | null {
  switch (part) {
    case 'HOST':
      return u.host
    case 'PATH':
      return u.path
    case 'QUERY':
      return u.query
    case 'REF':
      return u.ref
    case 'PROTOCOL':
      return u.protocol
    case 'FILE':
      return u.query === null ? u.path : `${u.path}?${u.query}`
    case 'AUTHORITY':
      return u.authority
    case 'USERINFO':
      return u.userInfo
    default:
      return null // Flink: an unknown part name gives NULL (names are case-sensitive)
  }
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

export function parseUrlPart(url: string, part: string, key?: string): string | null {
  if (key !== undefined && part !== 'QUERY') return null
  const u = parseUrl(url)
  if (u === null) return null
  const value = urlPart(u, part)
  if (key === undefined || value === null) return value
  const m = new RegExp(`(&|^)${escapeRegex(key)}=([^&]*)`).exec(value)
  return m === null ? null : m[2]!
}

function bindElt(args: Parameters<FunctionDef['bind']>[0], ctx: Parameters<FunctionDef['bind']>[1]) {
  const signature = 'ELT(index, expr, expr, …)'
  checkArity(args, 2, Infinity, ctx, signature)
  const index = args[0]!
  if (index.type.kind !== 'NULL' && !isIntegral(index.type)) throw ctx.error(`'ELT' needs an integer index, got ${typeName(index.type)}`, signature)
  const values = args.slice(1)
  const t = commonType(values.map(v => v.type))
  if (t === null) {
    throw ctx.error(`ELT expressions have incompatible types ${[...new Set(values.map(v => typeName(v.type)))].join(' and ')}`, 'CAST them to one type')
  }
  const at = literalValue(index)
  if ((typeof at === 'number' || typeof at === 'bigint') && at < 0) {
    throw ctx.error(`ELT index must be an integer starting from 0, but was ${at}`, 'an index outside 1..n gives NULL')
  }
  const typed = [index.type.kind === 'NULL' ? ctx.cast(index, T.int()) : index, ...values.map(v => (t.kind === 'NULL' ? v : ctx.cast(v, t)))]
  // NULL when the index is NULL or outside 1..n.
  return mkCall('ELT', typed, (t.kind === 'NULL' ? T.string() : { ...t, nullable: true }) as DataType, ctx.span)
}

export const TEXT: readonly FunctionDef[] = [
  simple(['STARTSWITH'], 'STARTSWITH(STRING, prefix)', ['STRING', 'STRING'], 2, () => T.boolean(), strict(startsWith)),
  simple(['ENDSWITH'], 'ENDSWITH(STRING, suffix)', ['STRING', 'STRING'], 2, () => T.boolean(), strict(endsWith)),
  simple(['INSTR'], 'INSTR(STRING, substring[, start[, occurrence]])', ['STRING', 'STRING', 'INTEGER', 'INTEGER'], 2, int,
    call => ({ fn: (s: string, sub: string, start = 1, nth = 1) => instr(s, sub, start, nth, call), nulls: 'strict' }), false,
    (a, call) => (call.args.length === 2 ? `(${a[0]}.indexOf(${a[1]}) + 1)` : '')),
  // An invalid pattern given as a column value gives NULL, as Flink's PatternSyntaxException does.
  regexFunction(['REGEXP_COUNT'], 'REGEXP_COUNT(STRING, regex)', ['STRING', 'STRING'], 2, int, call => {
    const re = regexOf(call, 1, true)
    return { nulls: 'strict', fn: (s: string, p: string) => {
      const r = re(p)
      if (r === null) return null
      let n = 0
      for (const _ of s.matchAll(r)) n++
      return n
    } }
  }),
  regexFunction(['REGEXP_INSTR'], 'REGEXP_INSTR(STRING, regex)', ['STRING', 'STRING'], 2, int, call => {
    const re = regexOf(call, 1, false)
    return { nulls: 'strict', fn: (s: string, p: string) => {
      const r = re(p)
      return r === null ? null : s.search(r) + 1
    } }
  }),
  regexFunction(['REGEXP_SUBSTR'], 'REGEXP_SUBSTR(STRING, regex)', ['STRING', 'STRING'], 2, str, call => {
    const re = regexOf(call, 1, false)
    return { nulls: 'strict', fn: (s: string, p: string) => re(p)?.exec(s)?.[0] ?? null }
  }),
  {
    // Not strict: a NULL fromStr gives the input unchanged, a NULL toStr removes the characters.
    names: ['TRANSLATE'],
    signature: 'TRANSLATE(STRING, fromStr, toStr)',
    bind: (args, ctx) => {
      const typed = checkArgs(args, ['STRING', 'STRING', 'STRING'], 3, ctx, 'TRANSLATE(STRING, fromStr, toStr)')
      return mkCall('TRANSLATE', typed, T.string(typed[0]!.type.nullable), ctx.span)
    },
    impl: () => ({ fn: translate, nulls: 'lenient' }),
  },
  simple(['TO_BASE64'], 'TO_BASE64(STRING)', ['STRING'], 1, str, strict((s: string) => javaBytes(s).toString('base64'))),
  simple(['FROM_BASE64'], 'FROM_BASE64(STRING)', ['STRING'], 1, str, call => ({ fn: (s: string) => fromBase64(s, call), nulls: 'strict' })),
  {
    // Not `simple`: that reads a BIGINT as a (rounded) number, and CHR needs its exact low bits.
    names: ['CHR'],
    signature: 'CHR(INT)',
    bind: (args, ctx) => {
      const typed = checkArgs(args, ['INTEGER'], 1, ctx, 'CHR(INT)')
      return mkCall('CHR', typed, T.string(typed[0]!.type.nullable), ctx.span)
    },
    impl: strict(chr),
  },
  simple(['URL_ENCODE'], 'URL_ENCODE(STRING)', ['STRING'], 1, str, strict(urlEncode)),
  simple(['URL_DECODE'], 'URL_DECODE(STRING)', ['STRING'], 1, str, strict(urlDecode), true),
  simple(['PARSE_URL'], "PARSE_URL(url, 'HOST' | 'PATH' | 'QUERY' | 'REF' | 'PROTOCOL' | 'FILE' | 'AUTHORITY' | 'USERINFO'[, key])", ['STRING', 'STRING',
    'STRING'], 2, str, strict(parseUrlPart), true),
  {
    names: ['ELT'],
    signature: 'ELT(index, expr, expr, …)',
    bind: bindElt,
    impl: () => ({ fn: (i: number | bigint | null, ...xs: unknown[]) => (i == null || i < 1 || i > xs.length ? null : xs[Number(i) - 1] ?? null),
      nulls: 'lenient' }),
  },
]
