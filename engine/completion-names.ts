// The names a REPL completes, from their one source each: the grammar's words, the functions SHOW
// FUNCTIONS lists, the options SET takes (Weir's and the Flink spellings it stores), and the
// session's tables and views with their columns.
import { FLINK_ALIASES } from '../common/config/flink.js'
import { ALL_OPTIONS, jobConfigOf } from '../common/config/index.js'
import { sqlWords } from '../grammar/index.js'
import { describeObject, showFunctions } from '../planner/index.js'
import type { Session } from './session.js'

/** A table or view of the session, with its column names. */
export interface NamedObject {
  readonly name: string
  readonly kind: 'table' | 'view'
  readonly columns: readonly string[]
}

/** Everything completion may offer (names as defined; keywords and functions upper case). */
export interface CompletionNames {
  readonly keywords: readonly string[]
  readonly functions: readonly string[]
  readonly options: readonly string[]
  readonly objects: readonly NamedObject[]
}

let fixed: Omit<CompletionNames, 'objects'> | undefined

/**
 * What a session knows by name now.
 *
 * @example completionNames(session).objects // [{ name: 'bid', kind: 'table', columns: ['auction', 'price'] }]
 */
export function completionNames(session: Session): CompletionNames {
  fixed ??= {
    keywords: sqlWords(),
    functions: showFunctions().rows.map(r => r[0]!),
    options: [...new Set([...ALL_OPTIONS.map(o => o.key), ...Object.keys(FLINK_ALIASES)])].sort(),
  }
  const config = jobConfigOf(session.currentOptions)
  const objects = session.catalog.list().map(obj => ({ name: obj.name, kind: obj.kind,
    columns: columnsOf(() => describeObject(obj, session.catalog, config).rows) })
  )
  return { ...fixed, objects }
}

/** A view whose query no longer binds (a table it reads was dropped) offers no columns. */
function columnsOf(rows: () => readonly (readonly string[])[]): string[] {
  try {
    return rows().map(r => r[0]!)
  } catch {
    return []
  }
}
