// The plan error of a script, as the planner tests check it: its kind, message and help, and the
// SQL text its caret covers.
import { expect } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'

export interface Refusal {
  readonly kind: string
  readonly message: string
  /** The text of `sql` under the error's span. */
  readonly at: string
  readonly help: string
}

/** Plans `sql` (EXPLAIN only, nothing runs) and returns its error; fails when there is none. */
export async function refusal(sql: string): Promise<Refusal> {
  try {
    await new Session({ println: () => undefined, explainOnly: true }).executeSql(sql)
  } catch (e) {
    expect(e).toBeInstanceOf(WeirError)
    const err = e as WeirError
    return { kind: err.kind, message: err.message, at: sql.slice(err.span!.start.offset, err.span!.end.offset), help: err.help ?? '' }
  }
  throw new Error('expected an error')
}
