// Scalar functions for the UDF tests: a character count (Nexmark q14's count_char), one of several
// arguments that sees NULLs, one that throws on some rows, and one that returns the wrong type.
import { defineScalarFunction } from 'weir'

export const countChar = defineScalarFunction({
  args: { s: 'STRING', c: 'STRING' },
  returns: 'INT',
  eval: (s: string, c: string): number => s.split(c).length - 1,
})

/** v * w + 0.5, or -1 when v is NULL (it sees NULLs: nulls 'call'). */
export const weighted = defineScalarFunction({
  args: ['INT', 'DOUBLE'],
  returns: 'DOUBLE',
  nulls: 'call',
  eval: (v: number | null, w: number | null): number | null => (v === null ? -1 : w === null ? null : v * w + 0.5),
})

/** Throws for a value over 90. */
export const picky = defineScalarFunction({
  args: { v: 'INT' },
  returns: 'BIGINT',
  eval(v: number): number {
    if (v > 90) throw new Error(`too big: ${v}`)
    return v * 1000
  },
})

/** Declares INT, returns a string. */
export const liar = defineScalarFunction({
  args: { v: 'INT' },
  returns: 'INT',
  eval: (v: number) => `${v}` as unknown as number,
})
