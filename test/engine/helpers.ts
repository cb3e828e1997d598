// Shared by the engine tests: run statements that must fail, and get the error.
import { expect } from 'vitest'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'

/** Runs `sql` (and waits for its jobs) and returns the WeirError it fails with; fails the test if it does not fail. */
export async function fails(sql: string, session = new Session({ println: () => undefined })): Promise<WeirError> {
  try {
    await session.executeSql(sql)
    await session.awaitJobs()
  } catch (e) {
    expect(e).toBeInstanceOf(WeirError)
    return e as WeirError
  }
  throw new Error('expected the statements to fail')
}
