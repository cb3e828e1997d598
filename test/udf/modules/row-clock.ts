// `tick(k)` for the row clock (test/support/row-clock.ts), in a module of its own: CREATE FUNCTION compiles it apart
// from the test, so it imports only the public API and meets the clock on the global object.
import { defineScalarFunction } from 'weir'

interface Clock {
  now: number
  msPerRow: number
}

/** k, once the row clock has moved on by one row. */
export const tick = defineScalarFunction({
  args: ['BIGINT'],
  returns: 'BIGINT',
  eval: (k: number): number => {
    const c = (globalThis as { [key: symbol]: Clock | undefined })[Symbol.for('weir.test.row-clock')]
    if (c !== undefined) c.now += c.msPerRow
    return k
  },
})
