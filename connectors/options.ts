// Shared option checking for connectors: unknown keys with "did you mean", required keys, and typed
// parsing of option values (integers, booleans, enums, durations) with errors that name the option.
import { WeirError } from '../common/errors.js'
import { parseDuration } from '../common/durations.js'
import type { ConnectorOptions } from './api.js'

export { closest, editDistance } from '../common/names.js'
import { closest } from '../common/names.js'

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
    const guess = closest(key, known)
    throw WeirError.connector(`unsupported option '${key}' for connector '${connector}'`, {
      help: guess !== undefined
        ? `did you mean '${guess}'?`
        : known.length === 0
          ? `connector '${connector}' takes no options besides 'connector'`
          : `the supported options are ${quoteList([...known].sort())}`,
    })
  }
}

/** Throws naming every required option that is missing. */
export function checkRequiredOptions(connector: string, options: ConnectorOptions, required: readonly string[]): void {
  const missing = required.filter(k => options[k] === undefined)
  if (missing.length === 0) return
  const what = missing.length === 1 ? `option ${quoteList(missing)} is` : `options ${quoteList(missing)} are`
  throw WeirError.connector(`required ${what} missing for connector '${connector}'`, {
    help: `add ${missing.map(k => `'${k}' = '…'`).join(', ')} to the table's WITH clause`,
  })
}

function badValue(key: string, value: string, expected: string): WeirError {
  return WeirError.connector(`invalid value '${value}' for option '${key}': expected ${expected}`)
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
  throw WeirError.connector(`invalid value '${text}' for option '${key}': expected one of ${quoteList(choices)}`, {
    help: guess !== undefined ? `did you mean '${guess}'?` : undefined,
  })
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
