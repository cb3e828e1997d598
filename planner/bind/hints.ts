// Which hints Weir acts on, and where: STATE_TTL after SELECT, OPTIONS after a table's name. Any
// other hint is ignored with a warning (as Flink does), naming the hint and its position: a
// misspelt hint must not go unnoticed.
import type { Warning, WarningSink } from '../../common/warnings.js'
import { closest } from '../../common/names.js'
import type * as ast from '../../grammar/ast.js'

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
