// CURRENT_DATABASE(): the session's current database (USE …), fixed when the query is planned, as
// Flink fills it in from its catalog manager. The planner makes the name known while it binds.
import { T } from '../../common/types.js'
import { literal } from '../../core/rex.js'
import { checkArity, type FunctionDef } from '../registry.js'

let currentDatabase: string | undefined

/** Binds with `database` as CURRENT_DATABASE() (planner/functions.ts withSessionFunctions). */
export function withCurrentDatabase<R>(database: string, bind: () => R): R {
  const outer = currentDatabase
  currentDatabase = database
  try {
    return bind()
  } finally {
    currentDatabase = outer
  }
}

export const CURRENT_DATABASE: FunctionDef = {
  names: ['CURRENT_DATABASE'],
  signature: 'CURRENT_DATABASE()',
  bind: (args, ctx) => {
    checkArity(args, 0, 0, ctx, 'CURRENT_DATABASE()')
    if (currentDatabase === undefined) {
      throw ctx.error('CURRENT_DATABASE() is only known in a query', 'use it in a SELECT, INSERT or view, not in a table definition')
    }
    return literal(currentDatabase, T.string(false))
  },
}
