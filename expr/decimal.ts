// Exact DECIMAL arithmetic on unscaled bigints (see common/types.ts): powers of ten, HALF_UP
// rescaling and division, precision limits, and conversions to and from doubles.

/** The largest DECIMAL precision (as Flink). */
export const MAX_PRECISION = 38

const POW10: bigint[] = []
for (let i = 0, p = 1n; i <= 2 * MAX_PRECISION + 40; i++, p *= 10n) POW10.push(p)

/** 10^n as a bigint (cached for the sizes decimals use). */
export function pow10(n: number): bigint {
  return POW10[n] ?? 10n ** BigInt(n)
}

function abs(v: bigint): bigint {
  return v < 0n ? -v : v
}

/** a / b rounded HALF_UP (ties away from zero). `b` must not be zero. */
export function divideHalfUp(a: bigint, b: bigint): bigint {
  const q = a / b
  const r = a % b
  if (r === 0n) return q
  if (abs(r) * 2n >= abs(b)) return (a < 0n) !== (b < 0n) ? q - 1n : q + 1n
  return q
}

/**
 * Moves an unscaled value from scale `from` to scale `to`, rounding HALF_UP when digits are dropped.
 * @example rescale(12345n, 2, 1) // 1235n (123.45 → 123.5)
 */
export function rescale(v: bigint, from: number, to: number): bigint {
  if (to === from) return v
  if (to > from) return v * pow10(to - from)
  return divideHalfUp(v, pow10(from - to))
}

/** Like `rescale` but truncating toward zero. */
export function rescaleDown(v: bigint, from: number, to: number): bigint {
  if (to >= from) return v * pow10(to - from)
  return v / pow10(from - to)
}

/** True when the unscaled value has at most `precision` digits. */
export function fitsPrecision(v: bigint, precision: number): boolean {
  const limit = pow10(precision)
  return v < limit && v > -limit
}

/** (a at scale sa) ÷ (b at scale sb) as an unscaled value at scale `s`, HALF_UP. `b` must not be zero. */
export function decimalDivide(a: bigint, sa: number, b: bigint, sb: number, s: number): bigint {
  const e = s - sa + sb
  return e >= 0 ? divideHalfUp(a * pow10(e), b) : divideHalfUp(a, b * pow10(-e))
}

const TWO_53 = 2n ** 53n

/** The nearest double to an unscaled decimal (exact when it can be). */
export function decimalToDouble(v: bigint, scale: number): number {
  if (scale <= 22 && v < TWO_53 && v > -TWO_53) return Number(v) / 10 ** scale
  let s = (v < 0n ? -v : v).toString()
  if (scale > 0) s = s.length <= scale ? `0.${'0'.repeat(scale - s.length)}${s}` : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`
  const x = Number(s)
  return v < 0n ? -x : x
}

/**
 * The exact decimal value of a double's shortest printed form, as {unscaled, scale}; null for
 * NaN and infinities. 0.1 → {1n, 1}; 1e21 → {10^21, 0}.
 */
export function doubleToExactDecimal(x: number): { unscaled: bigint; scale: number } | null {
  if (!Number.isFinite(x)) return null
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x))
  if (!m) return null
  const digits = m[2]! + (m[3] ?? '')
  const exp = Number(m[4] ?? 0) - (m[3] ?? '').length
  let unscaled = BigInt(digits)
  let scale = -exp
  if (scale < 0) {
    unscaled *= pow10(-scale)
    scale = 0
  }
  return { unscaled: m[1] === '-' ? -unscaled : unscaled, scale }
}

/** A double as an unscaled decimal at `scale`, HALF_UP (as Java's BigDecimal.valueOf(x).setScale); null for NaN/±Infinity. */
export function doubleToDecimal(x: number, scale: number): bigint | null {
  const d = doubleToExactDecimal(x)
  return d === null ? null : rescale(d.unscaled, d.scale, scale)
}
