// SQL LIKE patterns (% and _, optional one-character ESCAPE) and Java-style regular expressions,
// turned into the cheapest JavaScript test: equality, startsWith/endsWith/includes, or a RegExp.
import { WeirError } from '../common/errors.js'

/** How a LIKE pattern is tested. */
export type LikeMatcher =
  | { readonly kind: 'exact' | 'prefix' | 'suffix' | 'contains'; readonly text: string }
  | { readonly kind: 'regex'; readonly regex: RegExp }

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/]/g

/**
 * Compiles a LIKE pattern; throws a WeirError (execution kind; the binder rethrows it as a plan
 * error for literals) when the escape is not one character or escapes something other than %, _ or itself.
 *
 * @example likeMatcher('abc%') // { kind: 'prefix', text: 'abc' }
 */
export function likeMatcher(pattern: string, escape?: string | null): LikeMatcher {
  if (escape !== undefined && escape !== null && escape.length !== 1) {
    throw WeirError.execution(`LIKE escape must be a single character, got '${escape}'`)
  }
  const esc = escape ?? undefined
  // Split into literal runs and wildcards.
  const parts: (string | '%' | '_')[] = []
  let lit = ''
  const wild = (w: '%' | '_'): void => {
    if (lit !== '') parts.push(lit)
    lit = ''
    parts.push(w)
  }
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (esc !== undefined && c === esc) {
      const next = pattern[i + 1]
      if (next === undefined || (next !== '%' && next !== '_' && next !== esc)) {
        throw WeirError.execution(`invalid escape sequence in LIKE pattern '${pattern}'`, { help: `the escape character must be followed by %, _ or itself` })
      }
      lit += next
      i++
    } else if (c === '%' || c === '_') {
      wild(c)
    } else {
      lit += c
    }
  }
  if (lit !== '') parts.push(lit)
  const isText = (p: string | undefined): p is string => p !== undefined && p !== '%' && p !== '_'
  if (parts.length === 0) return { kind: 'exact', text: '' }
  if (parts.length === 1 && isText(parts[0])) return { kind: 'exact', text: parts[0] }
  if (parts.length === 2 && isText(parts[0]) && parts[1] === '%') return { kind: 'prefix', text: parts[0] }
  if (parts.length === 2 && parts[0] === '%' && isText(parts[1])) return { kind: 'suffix', text: parts[1] }
  if (parts.length === 3 && parts[0] === '%' && isText(parts[1]) && parts[2] === '%') return { kind: 'contains', text: parts[1] }
  if (parts.every(p => p === '%')) return { kind: 'prefix', text: '' }
  const source = parts.map(p => (p === '%' ? '.*' : p === '_' ? '.' : p.replace(REGEX_SPECIAL, '\\$&'))).join('')
  return { kind: 'regex', regex: new RegExp(`^${source}$`, 's') }
}

/** Tests a value against a compiled LIKE pattern. */
export function likeTest(m: LikeMatcher, s: string): boolean {
  switch (m.kind) {
    case 'exact':
      return s === m.text
    case 'prefix':
      return s.startsWith(m.text)
    case 'suffix':
      return s.endsWith(m.text)
    case 'contains':
      return s.includes(m.text)
    case 'regex':
      return m.regex.test(s)
  }
}

/** A cache for patterns that are not constants (the pattern is a column). */
export function cached<T>(build: (key: string) => T, size = 64): (key: string) => T {
  const cache = new Map<string, T>()
  return key => {
    let v = cache.get(key)
    if (v === undefined) {
      v = build(key)
      if (cache.size >= size) cache.delete(cache.keys().next().value as string)
      cache.set(key, v)
    }
    return v
  }
}

/**
 * A Java regular expression as a JavaScript RegExp. Leading inline flags such as (?i) become RegExp
 * flags; the rest of the syntax is shared by both for the common cases. Throws a SyntaxError when invalid.
 */
export function javaRegex(pattern: string, global = false): RegExp {
  let flags = global ? 'g' : ''
  let source = pattern
  const m = /^\(\?([imsx]+)\)/.exec(pattern)
  if (m) {
    for (const f of m[1]!) if (f !== 'x' && !flags.includes(f)) flags += f
    source = pattern.slice(m[0].length)
  }
  return new RegExp(source, flags)
}

/** The message of an invalid regular expression, or null when it compiles. */
export function regexError(pattern: string): string | null {
  try {
    javaRegex(pattern)
    return null
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}
