// Aggregate functions for the UDF tests: a retractable weighted average with merge (an object
// accumulator), a spread (max - min) without retract, and one that throws on some rows.
import { defineAggregateFunction } from 'weir'

interface Avg {
  sum: number
  weight: number
}

export const weightedAvg = defineAggregateFunction({
  args: { value: 'INT', weight: 'DOUBLE' },
  returns: 'DOUBLE',
  create: (): Avg => ({ sum: 0, weight: 0 }),
  accumulate(acc: Avg, v: number, w: number) {
    acc.sum += v * w
    acc.weight += w
  },
  retract(acc: Avg, v: number, w: number) {
    acc.sum -= v * w
    acc.weight -= w
  },
  merge: (a: Avg, b: Avg): Avg => ({ sum: a.sum + b.sum, weight: a.weight + b.weight }),
  getValue: (acc: Avg) => (acc.weight === 0 ? null : acc.sum / acc.weight),
})

/** max - min of the values; an array accumulator [min, max], returned anew (not changed in place). */
export const spread = defineAggregateFunction({
  args: ['INT'],
  returns: 'BIGINT',
  create: (): [number, number] | null => null,
  accumulate: (acc: [number, number] | null, v: number): [number, number] => (acc === null ? [v, v] : [Math.min(acc[0], v), Math.max(acc[1], v)]),
  getValue: (acc: [number, number] | null) => (acc === null ? null : acc[1] - acc[0]),
})

/** Counts rows; throws on a value of 13. */
export const unlucky = defineAggregateFunction({
  args: { v: 'INT' },
  returns: 'BIGINT',
  create: () => ({ n: 0 }),
  accumulate(acc: { n: number }, v: number) {
    if (v === 13) throw new Error('thirteen')
    acc.n++
  },
  retract(acc: { n: number }) {
    acc.n--
  },
  getValue: (acc: { n: number }) => acc.n,
})

/** The sum of the values, retractable (a number accumulator, returned anew): SUM's equal, for DISTINCT. */
export const total = defineAggregateFunction({
  args: ['INT'],
  returns: 'BIGINT',
  create: () => 0,
  accumulate: (acc: number, v: number) => acc + v,
  retract: (acc: number, v: number) => acc - v,
  merge: (a: number, b: number) => a + b,
  getValue: (acc: number) => acc,
})
