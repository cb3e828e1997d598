// A table's own parallelism option — 'scan.parallelism' of a source, 'sink.parallelism' of a sink that
// splits (subtasks.ts, sink-parallelism.ts) — read when the job is planned: a whole number from 1 to
// the job's 'parallelism.default', or absent.
import { WeirError } from '../common/errors.js'

/** The value of `key` in the options of table `table`, undefined when absent; refused outside 1..p. */
export function parallelismOption(table: string, options: Readonly<Record<string, string>>, key: 'scan.parallelism' | 'sink.parallelism', p: number):
  | number
  | undefined
{
  const text = options[key]
  if (text === undefined) return undefined
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN
  if (!(n >= 1 && n <= p)) {
    throw WeirError.plan(`table '${table}': '${key}' = '${text}' is not a whole number from 1 to 'parallelism.default' = ${p}`, {
      help: `set '${key}' between 1 and ${p}, or raise 'parallelism.default'`,
    })
  }
  return n
}
