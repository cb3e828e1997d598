// Nexmark q14's user-defined function, in TypeScript: how many times a character occurs in a string
// (the published suite's com.github.nexmark.flink.udf.CountChar, written in Java there: a long, 0
// for a NULL string; it compares UTF-8 bytes with the character's first byte, this compares UTF-16
// code units with its first code unit — the same count for an ASCII character such as q14's 'c').
import { defineScalarFunction } from 'weir'

export const countChar = defineScalarFunction({
  args: { s: 'STRING', character: 'STRING' },
  returns: 'BIGINT',
  nulls: 'call',
  eval(s: string | null, character: string | null): number | null {
    if (s === null) return 0
    if (character === null || character.length === 0) return null
    const ch = character.charCodeAt(0)
    let n = 0
    for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === ch) n++
    return n
  },
})
