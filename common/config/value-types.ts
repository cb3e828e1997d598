// The kinds of value a job option takes — a duration, a size, a positive integer, a boolean, one of
// a few words, a text, a location — each with how its text is read, what is wrong with a text it
// cannot read, how a value is written back (SET's listing of defaults) and how SET stores the text.
import { availableParallelism } from 'node:os'
import { formatDuration, parseDuration, parseSize } from '../durations.js'

/** What reading an option's text gave: its value, or what is wrong with the text. */
export type Parsed<T> = { readonly value: T } | { readonly problem: string }

export interface ValueType<T> {
  /** The value `text` stands for (undefined: the option is unset, its default holds), or what is wrong with it. */
  parse(text: string): Parsed<T | undefined>
  /** A value as an option's text ('64 mb', '10 s', 'true'). */
  format(value: T): string
  /** The text as SET stores it: enumerated values in lower case, as the engine compares them ('HEAP' must not read as "not 'heap'"). */
  normalize?(text: string): string
}

const DURATION_EXAMPLE = `expected a duration such as '10 s', '5 min' or '1 h'`

/** '10 s', '5 min', '1 h' (a bare number is milliseconds) → milliseconds. */
export const duration: ValueType<number> = {
  parse: text => {
    const ms = parseDuration(text)
    return ms === null ? { problem: DURATION_EXAMPLE } : { value: ms }
  },
  format: ms => (ms === 0 ? '0' : formatDuration(ms)),
}

const SIZE_UNITS: readonly (readonly [number, string])[] = [[2 ** 30, 'gb'], [2 ** 20, 'mb'], [2 ** 10, 'kb']]

/** '64 mb', '512 kb' → bytes; `example` is what the error on a text that is not a size suggests. */
export function size(example: string): ValueType<number> {
  return {
    parse: text => {
      const bytes = parseSize(text)
      return bytes === null ? { problem: `expected a size such as '${example}'` } : { value: bytes }
    },
    format: bytes => {
      for (const [unit, name] of SIZE_UNITS) if (bytes >= unit && bytes % unit === 0) return `${bytes / unit} ${name}`
      return `${bytes} b`
    },
  }
}

/** 1, 2, 3 … (no sign, no fraction). */
export const positiveInt: ValueType<number> = {
  parse: text => (/^\d+$/.test(text.trim()) && Number(text) > 0 ? { value: Number(text) } : { problem: 'expected a positive integer' }),
  format: n => String(n),
}

/** 0, 1, 2 … (no sign, no fraction). */
export const wholeNumber: ValueType<number> = {
  parse: text => (/^\d+$/.test(text.trim()) ? { value: Number(text) } : { problem: 'expected a whole number (0, 1, 2 …)' }),
  format: n => String(n),
}

/** One of `values`, in any case; the value is the lower-case word. */
export function oneOf<T extends string>(...values: readonly T[]): ValueType<T> {
  return {
    parse: text => {
      const word = text.trim().toLowerCase()
      return (values as readonly string[]).includes(word) ? { value: word as T } : { problem: `expected one of ${values.map(v => `'${v}'`).join(', ')}` }
    },
    format: v => v,
    normalize: text => text.trim().toLowerCase(),
  }
}

const TRUE_FALSE = oneOf('true', 'false')

/** A positive integer, or 'auto' (any case): this machine's cores as Node counts them (os.availableParallelism()). */
export const parallelismValue: ValueType<number> = {
  parse: text => {
    if (text.trim().toLowerCase() === 'auto') return { value: availableParallelism() }
    const n = positiveInt.parse(text)
    return 'problem' in n ? { problem: "expected a positive integer or 'auto' (the machine's cores)" } : n
  },
  format: n => String(n),
  normalize: text => (text.trim().toLowerCase() === 'auto' ? 'auto' : text),
}

/** 'true' or 'false', in any case. */
export const boolean: ValueType<boolean> = {
  parse: text => {
    const word = TRUE_FALSE.parse(text)
    return 'problem' in word ? word : { value: word.value === 'true' }
  },
  format: b => String(b),
  normalize: TRUE_FALSE.normalize!,
}

/** Any text, as written. */
export const text: ValueType<string> = {
  parse: t => ({ value: t }),
  format: t => t,
}

/** Any text, trimmed; a blank one leaves the option unset (S3 settings: an empty key is no key). */
export const trimmedText: ValueType<string> = {
  parse: t => ({ value: t.trim() === '' ? undefined : t.trim() }),
  format: t => t,
}

/**
 * A folder: a path, file:///… or s3://bucket/prefix, as written; an empty one leaves the option
 * unset. Which schemes work is checkpoint storage's to say when it opens the location (at planning).
 */
export const location: ValueType<string> = {
  parse: t => ({ value: t === '' ? undefined : t }),
  format: t => t,
}
