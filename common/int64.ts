// Exact integers as the engine holds them (see common/types.ts): a BIGINT is a JS number while it
// is a safe integer and a bigint only beyond ±(2^53 − 1), so each value has one form and `===`,
// Map keys, hashing and key encoding agree. Arithmetic wraps as Java's long and int do (as Flink).

/** A BIGINT value: a safe-integer number, or a bigint in [-2^63, -2^53] or [2^53, 2^63 - 1]. */
export type Int64 = number | bigint

export const INT64_MIN = -(2n ** 63n)
export const INT64_MAX = 2n ** 63n - 1n
const SAFE = Number.MAX_SAFE_INTEGER
const SAFE_N = BigInt(SAFE)

/**
 * The one form of an integer wrapped to 64 bits as Java's long: a number when it is safe, else a bigint.
 * @example int64(2n ** 63n) // -9223372036854775808n
 */
export function int64(b: bigint): Int64 {
  const w = BigInt.asIntN(64, b)
  return w >= -SAFE_N && w <= SAFE_N ? Number(w) : w
}

/** True for a value in the canonical BIGINT form (what sources and operators must produce). */
export function isInt64(v: unknown): v is Int64 {
  if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0)
  return typeof v === 'bigint' && (v > SAFE_N || v < -SAFE_N) && v >= INT64_MIN && v <= INT64_MAX
}

// Each operation tries doubles first: for safe integers a result within ±(2^53 − 1) is exact (a
// rounded result beyond it is never pulled back inside, rounding being monotonic), so only results
// that leave the safe range are redone with bigints.

export function add64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a + b
    if (r <= SAFE && r >= -SAFE) return r
  }
  return int64(BigInt(a) + BigInt(b))
}

export function sub64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a - b
    if (r <= SAFE && r >= -SAFE) return r
  }
  return int64(BigInt(a) - BigInt(b))
}

export function mul64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const r = a * b
    if (r <= SAFE && r >= -SAFE) return r + 0 // no -0
  }
  return int64(BigInt(a) * BigInt(b))
}

/**
 * Java's long division: truncates toward zero; MIN / -1 wraps to MIN. `b` must not be 0.
 * For safe integers the double quotient never rounds across an integer, so Math.trunc is exact.
 */
export function div64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') return Math.trunc(a / b) + 0
  return int64(BigInt(a) / BigInt(b))
}

/** Java's long remainder: the sign of the dividend. `b` must not be 0. */
export function mod64(a: Int64, b: Int64): Int64 {
  if (typeof a === 'number' && typeof b === 'number') return (a % b) + 0
  return int64(BigInt(a) % BigInt(b))
}

/** -a, wrapping: -MIN is MIN. */
export function neg64(a: Int64): Int64 {
  return typeof a === 'number' ? 0 - a : int64(-a)
}

/** Java's Math.abs(long): ABS(MIN) is MIN. */
export function abs64(a: Int64): Int64 {
  return typeof a === 'number' ? Math.abs(a) : a < 0n ? int64(-a) : a
}

/** The nearest double, as Java's (double) of a long. */
export function int64ToDouble(a: Int64): number {
  return typeof a === 'number' ? a : Number(a)
}

/** An integer of any size as a 64-bit value, then narrowed to `bits` as Java's primitive casts do. */
export function wrapInt(a: Int64 | bigint, bits: 8 | 16 | 32 | 64): Int64 {
  if (bits === 64) return typeof a === 'number' ? a : int64(a)
  // ToInt32 is exact on any integral double, and the shifts sign-extend the low bits.
  const i = typeof a === 'number' ? a | 0 : Number(BigInt.asIntN(32, a))
  return bits === 32 ? i : bits === 16 ? (i << 16) >> 16 : (i << 24) >> 24
}

/** Java's (long) of a double: truncates toward zero, saturates at the ends, NaN is 0; then narrowed as (int)/(short)/(byte) of that int. */
export function doubleToInt(v: number, bits: 8 | 16 | 32 | 64): Int64 {
  if (Number.isNaN(v)) return 0
  const t = Math.trunc(v) + 0
  if (bits === 64) {
    if (t <= SAFE && t >= -SAFE) return t
    return t >= 9223372036854775807 ? INT64_MAX : t <= -9223372036854775808 ? INT64_MIN : BigInt(t)
  }
  // (byte) and (short) of a double go through (int) first.
  const i = t > 2147483647 ? 2147483647 : t < -2147483648 ? -2147483648 : t
  return bits === 32 ? i : bits === 16 ? (i << 16) >> 16 : (i << 24) >> 24
}

/** The range of an integral type of `bits` bits, as bigints. */
export function intRange(bits: 8 | 16 | 32 | 64): { min: bigint; max: bigint } {
  const max = (1n << BigInt(bits - 1)) - 1n
  return { min: -max - 1n, max }
}

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/

/**
 * The exact integer a text spells ('  -42 ', '+9223372036854775807'), or null when it is not a
 * whole number or does not fit `bits`.
 *
 * @example parseInt64('9007199254740993') // 9007199254740993n
 */
export function parseInt64(text: string, bits: 8 | 16 | 32 | 64 = 64): Int64 | null {
  if (!INTEGER_TEXT.test(text)) return null
  const t = text.trim()
  // Up to 15 digits a double holds the value exactly.
  if (t.length <= 15) {
    const n = Number(t) + 0
    if (bits === 64) return n
    const { min, max } = intRange(bits)
    return n >= Number(min) && n <= Number(max) ? n : null
  }
  const b = BigInt(t)
  const { min, max } = intRange(bits)
  return b < min || b > max ? null : int64(b)
}

const NUMBER_TEXT = /^\s*([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/

/**
 * A JSON number's text truncated toward zero to an integer, exactly ('12.9' → 12n, '1e3' → 1000n),
 * or null when it is not a number. For values JSON.parse cannot hold exactly.
 */
export function truncateNumberText(text: string): bigint | null {
  const m = NUMBER_TEXT.exec(text)
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null
  const exp = m[4] === undefined ? 0 : Number(m[4])
  if (exp > 400) return null // beyond any integer type; not worth a huge bigint
  const digits = (m[2] ?? '') + (m[3] ?? '')
  const intDigits = (m[2] ?? '').length + exp
  const whole = intDigits <= 0 ? 0n : BigInt(digits.slice(0, intDigits).padEnd(intDigits, '0') || '0')
  return m[1] === '-' ? -whole : whole
}
