// Shared option checking for connectors: unknown keys with "did you mean", required keys, and typed
// parsing of option values (integers, booleans, enums, durations) with errors that name the option.
import { WeirError } from '../common/errors.js'
import { parseDuration } from '../common/durations.js'
import type { ConnectorOptions } from './api.js'

export { closest, editDistance } from '../common/names.js'
import { closest } from '../common/names.js'

/**
 * What a validation error is about: an option's key (unknown, misplaced) or value (malformed), or
 * a declared column. The planner points the error's caret there.
 */
export type ErrorSubject = { readonly option: string; readonly part: 'key' | 'value' } | { readonly column: string }

const SUBJECTS = new WeakMap<WeirError, ErrorSubject>()

/**
 * Marks `e` as being about `subject` and returns it.
 *
 * @example throw about(WeirError.connector(`invalid value 'x' for option 'seed'`), { option: 'seed', part: 'value' })
 */
export function about(e: WeirError, subject: ErrorSubject): WeirError {
  SUBJECTS.set(e, subject)
  return e
}

/** What `e` was marked as being about, if anything. */
export function subjectOf(e: WeirError): ErrorSubject | undefined {
  return SUBJECTS.get(e)
}

/** Marks an error about option `key`'s key. */
export function aboutKey(e: WeirError, key: string): WeirError {
  return about(e, { option: key, part: 'key' })
}

/** Marks an error about option `key`'s value. */
export function aboutValue(e: WeirError, key: string): WeirError {
  return about(e, { option: key, part: 'value' })
}

function quoteList(names: Iterable<string>): string {
  return [...names].map(n => `'${n}'`).join(', ')
}

/**
 * Throws for keys that are neither known nor 'connector'. `isKnown` may accept families of keys
 * (e.g. datagen's 'fields.<col>.<x>'), which are then checked by the caller.
 *
 * @example checkKnownOptions('filesystem', options, ['path', 'format'])
 */
export function checkKnownOptions(
  connector: string,
  options: ConnectorOptions,
  known: readonly string[],
  isKnown: (key: string) => boolean = () => false,
): void {
  for (const key of Object.keys(options)) {
    if (key === 'connector' || known.includes(key) || isKnown(key)) continue
    if (key === 'sink.parallelism') {
      throw aboutKey(WeirError.connector(`connector '${connector}' writes with one subtask: it does not take 'sink.parallelism'`, {
        help: `remove 'sink.parallelism'; of Weir's sinks only 'blackhole' runs as several subtasks`,
      }), key)
    }
    const guess = closest(key, known)
    throw aboutKey(WeirError.connector(`unsupported option '${key}' for connector '${connector}'`, {
      help: guess !== undefined
        ? `did you mean '${guess}'?`
        : known.length === 0
        ? `connector '${connector}' takes no options besides 'connector'`
        : `the supported options are ${quoteList([...known].sort())}`,
    }), key)
  }
}

/** Throws naming every required option that is missing. */
export function checkRequiredOptions(connector: string, options: ConnectorOptions, required: readonly string[]): void {
  const missing = required.filter(k => options[k] === undefined)
  if (missing.length === 0) return
  const what = missing.length === 1 ? `option ${quoteList(missing)} is` : `options ${quoteList(missing)} are`
  // Nothing to point at but the connector that needs them.
  throw aboutValue(WeirError.connector(`required ${what} missing for connector '${connector}'`, {
    help: `add ${missing.map(k => `'${k}' = '…'`).join(', ')} to the table's WITH clause`,
  }), 'connector')
}

/** An error about option `key`'s value, which is not what it should be. */
export function badValue(key: string, value: string, expected: string, help?: string): WeirError {
  return aboutValue(WeirError.connector(`invalid value '${value}' for option '${key}': expected ${expected}`, help === undefined ? {} : { help }), key)
}

/** A whole number option within [min, max], or `fallback` when absent. */
export function intOption(options: ConnectorOptions, key: string, fallback: number, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  const text = options[key]
  if (text === undefined) return fallback
  const t = text.trim().replace(/_/g, '')
  if (!/^[+-]?\d+$/.test(t)) throw badValue(key, text, min >= 0 ? 'a non-negative whole number' : 'a whole number')
  const v = Number(t)
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw badValue(key, text, `a whole number between ${min} and ${max}`)
  }
  return v
}

/** 'sink.parallelism' of a sink that splits (SinkFactory.parallel): a whole number from 1, or absent. */
export function checkSinkParallelism(options: ConnectorOptions): void {
  const text = options['sink.parallelism']
  if (text !== undefined && !(/^\s*\d+\s*$/.test(text) && Number(text) >= 1)) {
    throw badValue('sink.parallelism', text, 'a whole number from 1 (how many subtasks write the table)')
  }
}

/** A whole number option within [min, max], exact at any size (for BIGINT values beyond 2^53). */
export function bigintOption(options: ConnectorOptions, key: string, fallback: bigint, min: bigint, max: bigint): bigint {
  const text = options[key]
  if (text === undefined) return fallback
  const t = text.trim().replace(/_/g, '')
  if (!/^[+-]?\d+$/.test(t)) throw badValue(key, text, 'a whole number')
  const v = BigInt(t)
  if (v < min || v > max) throw badValue(key, text, `a whole number between ${min} and ${max}`)
  return v
}

/** A number option (decimals allowed) within [min, max]. */
export function numberOption(options: ConnectorOptions, key: string, fallback: number, min = -Infinity, max = Infinity): number {
  const text = options[key]
  if (text === undefined) return fallback
  const t = text.trim()
  const v = t === '' ? NaN : Number(t)
  if (!Number.isFinite(v)) throw badValue(key, text, min > 0 ? 'a positive number' : min === 0 ? 'a non-negative number' : 'a number')
  if (v < min || v > max) throw badValue(key, text, `a number between ${min} and ${max}`)
  return v
}

/** 'true' / 'false' (any case). */
export function boolOption(options: ConnectorOptions, key: string, fallback: boolean): boolean {
  const text = options[key]
  if (text === undefined) return fallback
  const t = text.trim().toLowerCase()
  if (t === 'true') return true
  if (t === 'false') return false
  throw badValue(key, text, `'true' or 'false'`)
}

/** One of `choices` (exact, then case-insensitive). */
export function enumOption<T extends string>(options: ConnectorOptions, key: string, choices: readonly T[], fallback: T): T {
  const text = options[key]
  if (text === undefined) return fallback
  const exact = choices.find(c => c === text) ?? choices.find(c => c.toLowerCase() === text.trim().toLowerCase())
  if (exact !== undefined) return exact
  const guess = closest(text, choices)
  throw badValue(key, text, `one of ${quoteList(choices)}`, guess !== undefined ? `did you mean '${guess}'?` : undefined)
}

/** A duration such as '10 s', '1 min', '500' (ms). */
export function durationOption(options: ConnectorOptions, key: string, fallback: number): number {
  const text = options[key]
  if (text === undefined) return fallback
  const v = parseDuration(text)
  if (v === null) throw badValue(key, text, `a duration such as '10 s', '5 min' or '500 ms'`)
  return v
}

/** A single character (e.g. a CSV delimiter); '\t' is accepted for a tab. */
export function charOption(options: ConnectorOptions, key: string, fallback: string): string {
  const text = options[key]
  if (text === undefined) return fallback
  if (text === '\\t') return '\t'
  if (text.length !== 1) throw badValue(key, text, 'a single character')
  return text
}
