// FLOAT-typed user functions: values are 32-bit floats on the way in (an argument) and out (a result).
import { defineAggregateFunction, defineScalarFunction } from 'weir'

/** x * 1.1 as JavaScript computes it (a double): the engine rounds the result to a FLOAT. */
export const scaled = defineScalarFunction({
  args: { x: 'FLOAT' },
  returns: 'FLOAT',
  eval: (x: number): number => x * 1.1,
})

/** The FLOAT argument as it arrives, returned as a DOUBLE: shows the argument already rounded. */
export const seen = defineScalarFunction({
  args: ['FLOAT'],
  returns: 'DOUBLE',
  eval: (x: number): number => x,
})

/** The sum of a FLOAT column, in doubles, returned as a FLOAT. */
export const floatSum = defineAggregateFunction({
  args: ['FLOAT'],
  returns: 'FLOAT',
  create: () => ({ sum: 0 }),
  accumulate: (acc: { sum: number }, x: number) => {
    acc.sum += x
  },
  retract: (acc: { sum: number }, x: number) => {
    acc.sum -= x
  },
  getValue: (acc: { sum: number }) => acc.sum,
})
