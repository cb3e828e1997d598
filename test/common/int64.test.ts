// Exact 64-bit integers: every operation against a bigint reference wrapped as Java's long, on the
// edges (±2^53, ±2^63) and on random values of every size; one canonical form per value.
import { describe, expect, it } from 'vitest'
import { INT64_MAX, INT64_MIN, abs64, add64, div64, doubleToInt, int64, isInt64, mod64, mul64, neg64, parseInt64, sub64, truncateNumberText, wrapInt,
  type Int64 } from '../../common/int64.js'
import { mulberry32 } from '../../common/random.js'

const SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const EDGES: bigint[] = [
  0n,
  1n,
  -1n,
  2n,
  -2n,
  7n,
  -7n,
  SAFE - 1n,
  SAFE,
  SAFE + 1n,
  SAFE + 2n,
  -SAFE,
  -SAFE - 1n,
  -SAFE - 2n,
  2n ** 31n,
  -(2n ** 31n),
  2n ** 32n + 5n,
  2n ** 62n,
  -(2n ** 62n),
  INT64_MAX,
  INT64_MAX - 1n,
  INT64_MIN,
  INT64_MIN + 1n,
  3037000499n,
  3037000500n,
  -3037000500n, // around √2^63
]

/** Random int64 values of every magnitude, as bigints. */
function randomValues(n: number): bigint[] {
  const rand = mulberry32(64)
  const out: bigint[] = []
  for (let i = 0; i < n; i++) {
    const bits = 1 + (rand() % 64)
    const raw = (BigInt(rand()) << 32n) | BigInt(rand())
    out.push(BigInt.asIntN(64, raw & ((1n << BigInt(bits)) - 1n)) * (rand() % 2 === 0 ? 1n : -1n))
  }
  return out.map(v => BigInt.asIntN(64, v))
}

/** The engine's form of an int64 given as a bigint. */
const form = (b: bigint): Int64 => (b >= -SAFE && b <= SAFE ? Number(b) : b)
const java = (b: bigint): Int64 => form(BigInt.asIntN(64, b))

const VALUES = [...EDGES, ...randomValues(200)]

describe('int64 arithmetic', () => {
  it('adds, subtracts and multiplies exactly, wrapping as Java long does', () => {
    for (const a of VALUES) {
      for (const b of EDGES) {
        expect(add64(form(a), form(b)), `${a} + ${b}`).toBe(java(a + b))
        expect(sub64(form(a), form(b)), `${a} - ${b}`).toBe(java(a - b))
        expect(mul64(form(a), form(b)), `${a} * ${b}`).toBe(java(a * b))
      }
    }
  })

  it("divides truncating toward zero, with remainders of the dividend's sign; MIN / -1 wraps to MIN", () => {
    for (const a of VALUES) {
      for (const b of [...EDGES, ...randomValues(20)]) {
        if (b === 0n) continue
        expect(div64(form(a), form(b)), `${a} / ${b}`).toBe(java(a / b))
        expect(mod64(form(a), form(b)), `${a} % ${b}`).toBe(java(a % b))
      }
    }
    expect(div64(INT64_MIN, -1)).toBe(INT64_MIN)
    expect(mod64(INT64_MIN, -1)).toBe(0)
    expect(Object.is(mod64(-4, 2), 0)).toBe(true) // never -0
    expect(Object.is(div64(0, -3), 0)).toBe(true)
  })

  it('negates and takes absolute values as Java does: -MIN and ABS(MIN) are MIN', () => {
    for (const a of VALUES) {
      expect(neg64(form(a))).toBe(java(-a))
      expect(abs64(form(a))).toBe(java(a < 0n ? -a : a))
    }
    expect(neg64(INT64_MIN)).toBe(INT64_MIN)
    expect(abs64(INT64_MIN)).toBe(INT64_MIN)
  })

  it('keeps one form per value: numbers while safe, bigints beyond', () => {
    for (const a of VALUES) {
      for (const b of EDGES) {
        for (const r of [add64(form(a), form(b)), sub64(form(a), form(b)), mul64(form(a), form(b))]) {
          expect(isInt64(r), `${String(r)} (${typeof r})`).toBe(true)
        }
      }
    }
    expect(int64(SAFE)).toBe(Number.MAX_SAFE_INTEGER)
    expect(int64(SAFE + 1n)).toBe(SAFE + 1n)
    expect(int64(2n ** 63n)).toBe(INT64_MIN)
    expect(isInt64(2n ** 53n)).toBe(true)
    expect(isInt64(5n)).toBe(false) // a small bigint is not the canonical form
    expect(isInt64(2 ** 53)).toBe(false)
    expect(isInt64(-0)).toBe(false)
    expect(Object.is(mul64(0, -5), 0)).toBe(true)
  })
})

describe('int64 conversions', () => {
  it('narrows as Java casts do', () => {
    expect(wrapInt(2147483648, 32)).toBe(-2147483648)
    expect(wrapInt(INT64_MAX, 32)).toBe(-1)
    expect(wrapInt(INT64_MAX, 64)).toBe(INT64_MAX)
    expect(wrapInt(2n ** 64n + 3n, 64)).toBe(3)
    expect(wrapInt(128, 8)).toBe(-128)
    expect(wrapInt(-129, 8)).toBe(127)
    expect(wrapInt(32768, 16)).toBe(-32768)
    expect(wrapInt(65536 + 7, 16)).toBe(7)
    for (const a of VALUES) {
      for (const bits of [8, 16, 32] as const) expect(wrapInt(form(a), bits)).toBe(Number(BigInt.asIntN(bits, a)))
    }
  })

  it('casts doubles as Java (long) and (int) do: truncating, saturating, NaN to 0, (byte) through (int)', () => {
    expect(doubleToInt(1e30, 64)).toBe(INT64_MAX)
    expect(doubleToInt(-1e30, 64)).toBe(INT64_MIN)
    expect(doubleToInt(2 ** 60, 64)).toBe(2n ** 60n)
    expect(doubleToInt(-7.9, 64)).toBe(-7)
    expect(doubleToInt(NaN, 32)).toBe(0)
    expect(doubleToInt(3e9, 32)).toBe(2147483647)
    expect(doubleToInt(3e9, 8)).toBe(-1) // (byte) 2147483647
    expect(doubleToInt(200.5, 8)).toBe(-56)
    expect(Object.is(doubleToInt(-0.5, 64), 0)).toBe(true)
  })

  it('parses integer text exactly, within the range of the type', () => {
    expect(parseInt64('9007199254740993')).toBe(9007199254740993n)
    expect(parseInt64(' -9223372036854775808 ')).toBe(INT64_MIN)
    expect(parseInt64('+9223372036854775807')).toBe(INT64_MAX)
    expect(parseInt64('9223372036854775808')).toBeNull()
    expect(parseInt64('000000000000000000042')).toBe(42)
    expect(parseInt64('-0')).toBe(0)
    expect(Object.is(parseInt64('-0'), 0)).toBe(true)
    expect(parseInt64('2147483648', 32)).toBeNull()
    expect(parseInt64('-2147483648', 32)).toBe(-2147483648)
    expect(parseInt64('128', 8)).toBeNull()
    expect(parseInt64('-32768', 16)).toBe(-32768)
    for (const bad of ['', '1.5', '1e3', '0x10', 'abc', '1 2']) expect(parseInt64(bad)).toBeNull()
  })

  it('truncates a JSON number text exactly', () => {
    expect(truncateNumberText('9007199254740993')).toBe(9007199254740993n)
    expect(truncateNumberText('-9007199254740993.99')).toBe(-9007199254740993n)
    expect(truncateNumberText('1.2345e3')).toBe(1234n)
    expect(truncateNumberText('9.223372036854775807E18')).toBe(INT64_MAX)
    expect(truncateNumberText('12e-5')).toBe(0n)
    expect(truncateNumberText('x')).toBeNull()
  })
})
