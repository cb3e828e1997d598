// Flink's JSON_QUOTE(string) and JSON_UNQUOTE(string).
// JSON_QUOTE wraps a string in double quotes, escaping '"', '\', '/', and \b \f \n \r \t by name and
// every UTF-16 unit above U+007F as \uXXXX (lower-case hex, a pair as two escapes); other control
// characters are left as they are (as Flink's JsonQuoteFunction).
// JSON_UNQUOTE undoes a valid JSON string literal; anything else (no surrounding quotes, or not a
// valid literal) comes back unchanged, as Flink documents it.
import { T } from '../../common/types.js'
import { simple, strict, type FunctionDef } from '../registry.js'

const NAMED: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' }

export function jsonQuote(s: string): string {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!
    const code = s.charCodeAt(i)
    out += NAMED[ch] ?? (code > 0x7f ? `\\u${code.toString(16).padStart(4, '0')}` : ch)
  }
  return out + '"'
}

export function jsonUnquote(s: string): string {
  if (s.length < 2 || !s.startsWith('"') || !s.endsWith('"')) return s
  try {
    const v: unknown = JSON.parse(s)
    return typeof v === 'string' ? v : s
  } catch {
    return s
  }
}

export const JSON_QUOTE_FUNCTIONS: readonly FunctionDef[] = [
  simple(['JSON_QUOTE'], 'JSON_QUOTE(STRING)', ['STRING'], 1, () => T.string(), strict(jsonQuote)),
  simple(['JSON_UNQUOTE'], 'JSON_UNQUOTE(STRING)', ['STRING'], 1, () => T.string(), strict(jsonUnquote)),
]
