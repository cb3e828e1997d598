// What a statement's error points at: its message and the text its span covers.
import { expect } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'

/** The error of `sql` (which must fail with a WeirError carrying a span) and the text its span covers. */
export async function pointed(sql: string): Promise<{ message: string; at: string }> {
  try {
    await new Session().executeSql(sql)
  } catch (e) {
    expect(e).toBeInstanceOf(WeirError)
    const span = (e as WeirError).span!
    return { message: (e as WeirError).message, at: sql.slice(span.start.offset, span.end.offset) }
  }
  throw new Error('expected an error')
}
