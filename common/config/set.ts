// What SET and RESET do with a key: store a Weir option (a Flink spelling of one under Weir's key),
// warn about a Flink option Weir ignores (flink.ts), or refuse an unknown key with a did-you-mean
// and a bad value with what it expected — at the statement, so the parse at planning cannot fail.
import { WeirError } from '../errors.js'
import type { Span } from '../span.js'
import type { Warning } from '../warnings.js'
import { closest } from '../names.js'
import { FLINK_ALIASES, flinkKeys, ignoredFlinkOption } from './flink.js'
import { ALL_OPTIONS, optionOf, type ConfigOption } from './options.js'
import type { Parsed } from './value-types.js'

/** What a SET does: store `value` under Weir's `key` (absent for an option Weir ignores), and what to warn about. */
export interface OptionSetting {
  readonly key?: string
  readonly value?: string
  readonly warning?: Warning
}

/**
 * What `SET 'key' = 'value'` does, or a plan error for an unknown key or a bad value.
 *
 * @example setOption('state.backend.type', 'hashmap', span)        // { key: 'state.backend', value: 'heap' }
 * @example setOption('table.optimizer.join-reorder-enabled', 'true', span) // { warning: { message: "option … is ignored: …" } }
 */
export function setOption(key: string, value: string, span?: Span): OptionSetting {
  const alias = FLINK_ALIASES[key]
  if (alias !== undefined) {
    if (alias.values !== undefined && !alias.values.includes(value.trim().toLowerCase())) {
      throw WeirError.plan(`invalid value '${value}' for option '${key}': expected one of ${alias.values.map(v => `'${v}'`).join(', ')}`, { span })
    }
    const converted = alias.convert === undefined ? value : alias.convert(value)
    if (converted === undefined) return {}
    checkedValue(alias.to, converted, span, key)
    return { key: alias.to.key, value: alias.to.type.normalize?.(converted) ?? converted }
  }
  const option = optionOf(key)
  const why = option === undefined ? ignoredFlinkOption(key) : undefined
  if (why !== undefined) return { warning: { message: `option '${key}' is ignored: ${why}`, span } }
  if (option === undefined) throw unknownOption(key, span)
  const parsed = checkedValue(option, value, span)
  const note = parsed == null ? undefined : option.warn?.(parsed)
  const warning = note === undefined ? undefined : { message: `option '${key}' = '${value}' changes nothing: ${note}`, span }
  return { key, value: option.type.normalize?.(value) ?? value, ...(warning !== undefined ? { warning } : {}) }
}

/** The Weir option `RESET 'key'` resets (undefined for a Flink option Weir ignores); throws for an unknown key. */
export function resetOption(key: string, span?: Span): string | undefined {
  const alias = FLINK_ALIASES[key]
  if (alias !== undefined) return alias.to.key
  const option = optionOf(key)
  if (option === undefined && ignoredFlinkOption(key) !== undefined) return undefined
  if (option === undefined) throw unknownOption(key, span)
  return key
}

/**
 * The value `text` gives `option` (its default when the text leaves it unset), or what is wrong
 * with the text: the one reading of an option's text, for SET and for planning alike.
 */
export function readOption<T>(option: ConfigOption<T>, text: string): Parsed<T> {
  const parsed = option.type.parse(text)
  if ('problem' in parsed) return parsed
  if (parsed.value === undefined) return { value: option.default }
  const problem = option.check?.(parsed.value)
  return problem === undefined ? { value: parsed.value } : { problem }
}

/** The error for a value `option` refuses, as SET gives it; `asWritten` is the key as the user spelled it. */
export function invalidValue(option: ConfigOption<unknown>, text: string, problem: string, span?: Span, asWritten = option.key): WeirError {
  return WeirError.plan(`invalid value '${text}' for option '${asWritten}': ${problem}`, { span, ...(option.help !== undefined ? { help: option.help } : {}) })
}

function checkedValue<T>(option: ConfigOption<T>, text: string, span: Span | undefined, asWritten = option.key): T {
  const read = readOption(option, text)
  if ('problem' in read) throw invalidValue(option, text, read.problem, span, asWritten)
  return read.value
}

function unknownOption(key: string, span: Span | undefined): WeirError {
  const keys = ALL_OPTIONS.map(o => o.key)
  const guess = closest(key, [...keys, ...flinkKeys()])
  return WeirError.plan(`unknown option '${key}'`, { span, help: guess ? `did you mean '${guess}'?` : `known options: ${keys.join(', ')}` })
}

/** What `SET;` shows: every option, its value in `settings` (else its default), its default and what it means. */
export function listOptions(settings: Readonly<Record<string, string>>): { columns: string[]; rows: string[][] } {
  const rows = [...ALL_OPTIONS].sort((a, b) => a.key.localeCompare(b.key)).map(o => {
    const byDefault = o.default == null ? '' : o.type.format(o.default)
    const ofRun = o.runDefault === undefined ? '' : `${byDefault === '' ? '' : `${byDefault} `}(weir run: ${o.type.format(o.runDefault)})`
    return [o.key, settings[o.key] ?? byDefault, ofRun || byDefault, o.description]
  })
  return { columns: ['key', 'value', 'default', 'description'], rows }
}
