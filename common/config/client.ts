// Options of the interactive client (weir repl), under Flink's SQL client's keys: how a SELECT's
// result is shown and how many rows it keeps. Jobs do not read them; `weir run` prints a SELECT as
// a table whatever they say.
import { oneOf, positiveInt } from './value-types.js'
import type { ConfigOption } from './options.js'

/** How the REPL shows a running SELECT ('sql-client.execution.result-mode'). */
export type ResultMode = 'table' | 'changelog' | 'tableau'

export const RESULT_MODE: ConfigOption<ResultMode> = Object.freeze({
  key: 'sql-client.execution.result-mode',
  type: oneOf<ResultMode>('table', 'changelog', 'tableau'),
  default: 'table',
  description: "how the REPL shows a SELECT: 'table' (updated in place), 'changelog' (+I/-U/+U/-D as they come) or 'tableau' (rows printed as they come)",
})

export const MAX_ROWS: ConfigOption<number> = Object.freeze({
  key: 'sql-client.display.max-rows',
  type: positiveInt,
  default: 10_000,
  description: 'rows the REPL keeps of a SELECT in table and changelog mode (older ones are dropped beyond it)',
})

/** What the REPL reads of a session's settings. */
export interface ClientSettings {
  readonly resultMode: ResultMode
  readonly maxRows: number
}

/**
 * The client options in `settings` (as SET stored them, so already checked), else their defaults.
 *
 * @example clientSettings({ 'sql-client.execution.result-mode': 'changelog' }) // { resultMode: 'changelog', maxRows: 10000 }
 */
export function clientSettings(settings: Readonly<Record<string, string>>): ClientSettings {
  const read = <T>(o: ConfigOption<T>): T => {
    const text = settings[o.key]
    if (text === undefined) return o.default
    // SET checked the text already; an unset value reads as the default.
    const r = o.type.parse(text)
    return 'problem' in r || r.value === undefined ? o.default : r.value
  }
  return { resultMode: read(RESULT_MODE), maxRows: read(MAX_ROWS) }
}
