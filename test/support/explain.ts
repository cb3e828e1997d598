// EXPLAIN's text in a fresh session: the planner tests' one way to get it.
import { Session } from '../../engine/session.js'

/**
 * Runs `setup` (DDL, SETs) and then `sql` in a new session; the text of the last statement's EXPLAIN.
 *
 * @example await explainAfter(`CREATE TABLE t (k INT) WITH ('connector' = 'datagen')`, 'EXPLAIN SELECT k FROM t')
 */
export async function explainAfter(setup: string, sql: string): Promise<string> {
  const session = new Session({ println: () => undefined })
  await session.executeSql(setup)
  const r = (await session.executeSql(sql)).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}
