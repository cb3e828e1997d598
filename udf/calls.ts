// Running a user function's code on engine values: what it returns checked against its declared
// type and put in the engine's form, and what it throws turned into an error naming the function
// and its arguments — or, under 'weir.udf.on-error' = 'skip', counted.
import { WeirError } from '../common/errors.js'
import { INT64_MAX, INT64_MIN, int64 } from '../common/int64.js'
import type { SqlType } from './api.js'
import { noteSkippedCall } from '../common/skipped-calls.js'

/** Calls that failed and were skipped, by function name, on this thread. */
const skipped = new Map<string, number>()

/** How many failing calls of each function this thread skipped under 'weir.udf.on-error' = 'skip'. */
export function skippedUserCalls(): ReadonlyMap<string, number> {
  return skipped
}

/** Counts a skipped call; the first one of each function on a thread is written to stderr, so a skip is never silent. */
export function countSkip(name: string, error: WeirError): void {
  const n = (skipped.get(name) ?? 0) + 1
  skipped.set(name, n)
  noteSkippedCall()
  if (n === 1) process.emitWarning(`${error.message} (skipped under 'weir.udf.on-error' = 'skip'; further failures of '${name}' are counted)`)
}

const show = (
  v: unknown,
): string => (v === null || v === undefined ? 'NULL' : typeof v === 'string' ? `'${v}'` : typeof v === 'bigint' ? `${v}` : JSON.stringify(v) ?? String(v))

/** The call as SQL would write it, with its argument values: `count_char('abc', 'c')`. */
export function describeCall(name: string, args: readonly unknown[]): string {
  return `${name}(${args.map(show).join(', ')})`
}

/** The error for a call that threw `e`. */
export function callFailed(name: string, what: string, args: readonly unknown[], e: unknown): WeirError {
  const message = e instanceof Error ? e.message : String(e)
  return WeirError.execution(`user function '${name}' failed in ${what} on ${describeCall(name, args)}: ${message}`, {
    cause: e,
    help: `fix the function, or SET 'weir.udf.on-error' = 'skip' to ${what === 'eval' ? 'give NULL for' : 'leave out the rows of'} the calls that fail`,
  })
}

/** A returned value in the engine's form for `type`, or an error saying what came back instead. */
export function engineValue(v: unknown, type: SqlType, name: string, args: readonly unknown[]): unknown {
  if (v === null || v === undefined) return null
  const bad = (): WeirError =>
    WeirError.execution(`user function '${name}' returned ${show(v)} (${typeof v}) for its declared type ${type}, on ${describeCall(name, args)}`, {
      help: `return a ${jsTypeOf(type)} or null, or declare another 'returns' type`,
    })
  switch (type) {
    case 'STRING':
      if (typeof v !== 'string') throw bad()
      return v
    case 'BOOLEAN':
      if (typeof v !== 'boolean') throw bad()
      return v
    case 'INT':
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw bad()
      return v === 0 ? 0 : v
    case 'BIGINT':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v === 0 ? 0 : v
      if (typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX) return int64(v)
      throw bad()
    case 'DOUBLE':
      if (typeof v !== 'number') throw bad()
      return v
    case 'FLOAT':
      // 32-bit, as the engine holds a FLOAT (a double beyond its range becomes ±Infinity, as Java's (float) cast).
      if (typeof v !== 'number') throw bad()
      return Math.fround(v)
    case 'TIMESTAMP(3)':
      if (v instanceof Date && !Number.isNaN(v.getTime())) return v.getTime()
      if (typeof v !== 'number' || !Number.isFinite(v)) throw bad()
      return Math.floor(v)
  }
}

function jsTypeOf(type: SqlType): string {
  switch (type) {
    case 'STRING':
      return 'string'
    case 'BOOLEAN':
      return 'boolean'
    case 'INT':
      return 'integer number in the 32-bit range'
    case 'BIGINT':
      return 'safe integer number or a bigint'
    case 'DOUBLE':
    case 'FLOAT':
      return 'number'
    case 'TIMESTAMP(3)':
      return 'number of epoch milliseconds or a Date'
  }
}
