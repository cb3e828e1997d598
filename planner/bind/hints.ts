// Which hints Weir acts on, and where: STATE_TTL after SELECT, OPTIONS after a table's name. Any
// other hint is ignored with a warning (as Flink does), naming the hint and its position: a
// misspelt hint must not go unnoticed.
import type { Warning, WarningSink } from '../../common/warnings.js'
import { closest } from '../../common/names.js'
import type * as ast from '../../grammar/ast.js'
import { WeirError } from '../../common/errors.js'
import { formatDuration, parseDuration } from '../../common/durations.js'
import type { JobConfig } from '../../common/config/index.js'

/** Where a hint is written: after SELECT, after a table's name, after a view's or WITH query's name. */
export type HintPlace = 'select' | 'table' | 'view'

const WHERE: Readonly<Record<string, { readonly place: HintPlace; readonly text: string }>> = {
  STATE_TTL: { place: 'select', text: 'right after SELECT' },
  OPTIONS: { place: 'table', text: "after a table's name in FROM (not a view's)" },
}
/** Flink's join strategy hints: known, but Weir's joins have one strategy (both inputs hashed by the join key). */
const JOIN_HINTS = new Set(['BROADCAST', 'SHUFFLE_HASH', 'SHUFFLE_MERGE', 'NEST_LOOP', 'LOOKUP'])
const WHAT_WORKS = "Weir acts on STATE_TTL after SELECT and OPTIONS after a table's name"

/** Warns about every hint of `hints` that Weir does not act on where it is written. */
export function checkHints(hints: readonly ast.Hint[], place: HintPlace, warn: WarningSink): void {
  for (const hint of hints) {
    const warning = ignored(hint, place)
    if (warning !== undefined) warn(warning)
  }
}

function ignored(hint: ast.Hint, place: HintPlace): Warning | undefined {
  const name = hint.name.value.toUpperCase()
  const span = hint.span
  const known = WHERE[name]
  if (known !== undefined) return known.place === place ? undefined : { message: `hint ${name} is ignored here`, span, help: `write it ${known.text}` }
  if (JOIN_HINTS.has(name)) return { message: `join hint ${name} is ignored: Weir joins by hashing both inputs on the join key`, span }
  const guess = closest(name, Object.keys(WHERE))
  return { message: `unknown hint '${hint.name.value}' is ignored`, span, help: guess !== undefined ? `did you mean ${guess}? (${WHAT_WORKS})` : WHAT_WORKS }
}

/** One option of a STATE_TTL hint: the alias it names (lower case), its TTL, and where it came from. */
export interface StateTtlOption {
  readonly alias: string
  readonly ms: number
  readonly source: string
}

/** One option (`'alias' = 'duration'`) of a STATE_TTL hint, checked to name one of `aliases` (lower case) with a valid duration. */
/** The state TTL 'table.exec.state.ttl' gives (no hint), and how EXPLAIN names where it comes from. */
export function configuredTtl(config: JobConfig): { ms: number; source: string } {
  const ms = config.stateTtlMs
  return { ms, source: ms > 0 ? `table.exec.state.ttl = '${formatDuration(ms)}'` : 'none' }
}

export function stateTtlOption(hint: ast.Hint, [key, value]: readonly [string, string], aliases: ReadonlySet<string>): StateTtlOption {
  if (!aliases.has(key.toLowerCase())) {
    throw WeirError.plan(`STATE_TTL names '${key}', which is not a table or alias in this query's FROM`, {
      span: hint.span,
      help: aliases.size ? `use one of: ${[...aliases].join(', ')}` : undefined,
    })
  }
  const ms = parseDuration(value)
  if (ms === null) {
    throw WeirError.plan(`invalid STATE_TTL value '${value}'`, { span: hint.span, help: `write a duration such as '1 d', '12 h' or '30 min'` })
  }
  return { alias: key.toLowerCase(), ms, source: `STATE_TTL hint ('${key}' = '${value}')` }
}
