// DATE_FORMAT's formatter remembers its last result for the span in which the pattern's output
// cannot change: over random timestamps (before 1970, around midnight, leap days, in order and out
// of order) it returns exactly what formatting every row afresh returns.
import { describe, expect, it } from 'vitest'
import { compileFormatter, compileUncachedFormatter, formatterSpan, memoizeBySpan } from '../../expr/date-format.js'

const DAY = 86_400_000
// 0000-01-01 and 9999-12-31 23:59:59.999
const MIN = -62_167_219_200_000, MAX = 253_402_300_799_999
const PATTERNS = [
  'yyyy-MM-dd',
  'yyyyMMdd',
  "EEE, d MMM yy 'day' D",
  'YYYY-ww-e QQQ',
  'yyyy-MM-dd HH',
  'hh a',
  'k K',
  'yyyy-MM-dd HH:mm',
  'yyyy-MM-dd HH:mm:ss',
  "yyyy-MM-dd'T'HH:mm:ssXXX",
  'yyyy-MM-dd HH:mm:ss.SSS',
  'ss.S',
]

/** A seeded generator (mulberry32): the same timestamps on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

function timestamps(): number[] {
  const r = random(17)
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1))
  const out: number[] = []
  // Years 0 to 9999 (TIMESTAMP's range, as Flink's).
  for (let i = 0; i < 3000; i++) out.push(int(MIN, MAX))
  // Within a few days of the epoch, both sides.
  for (let i = 0; i < 3000; i++) out.push(int(-5 * DAY, 5 * DAY))
  // Around midnights and hour, minute and second edges, before and after 1970.
  for (let i = 0; i < 500; i++) {
    const base = int(MIN / DAY, Math.floor(MAX / DAY)) * DAY + [0, 3_600_000, 60_000, 1000][int(0, 3)]! * int(0, 23)
    for (const d of [-1001, -1000, -999, -1, 0, 1, 999, 1000]) out.push(base + d)
  }
  // Leap days (Feb 28, 29 and Mar 1; 1900 and 2100 have none), at random times of day.
  for (const y of [0, 4, 1600, 1900, 1972, 2000, 2023, 2024, 2100, 2400]) {
    for (const [m, d] of [[1, 28], [1, 29], [2, 1], [11, 31]]) {
      const midnight = new Date(0).setUTCFullYear(y, m!, d!)
      for (let i = 0; i < 20; i++) out.push(midnight + int(-DAY, DAY))
    }
  }
  return out
}

/** The indexes where `format` and the uncached formatter disagree, over the inputs in three orders. */
function mismatches(pattern: string, format: (ms: number) => string): number[] {
  const plain = compileUncachedFormatter(pattern)
  const ts = timestamps()
  // Sorted runs stay in one span for many rows (the cache hits); the others alternate spans.
  const orders = [ts, [...ts].sort((a, b) => a - b), [...ts].sort((a, b) => b - a)]
  const bad: number[] = []
  orders.flat().forEach((ms, i) => {
    if (format(ms) !== plain(ms)) bad.push(i)
  })
  return bad
}

describe('DATE_FORMAT remembers its last result', () => {
  it("takes the span from the pattern's finest field", () => {
    expect(PATTERNS.map(formatterSpan)).toEqual([DAY, DAY, DAY, DAY, 3_600_000, 3_600_000, 3_600_000, 60_000, 1000, 1000, 1, 1])
    expect(formatterSpan("'HH:mm' yyyy")).toBe(DAY)
  })

  for (const pattern of PATTERNS) {
    it(`formats as afresh for '${pattern}'`, () => {
      expect(mismatches(pattern, compileFormatter(pattern))).toEqual([])
    })
  }

  it('would show a span too coarse for the pattern', () => {
    // The check above can fail: a day-long span for an hour pattern repeats stale hours.
    expect(mismatches('yyyy-MM-dd HH', memoizeBySpan(compileUncachedFormatter('yyyy-MM-dd HH'), DAY)).length).toBeGreaterThan(100)
  })

  it('agrees with the JavaScript clock for years 0 to 9999', () => {
    const format = compileFormatter("yyyy-MM-dd'T'HH:mm:ss")
    const r = random(5)
    for (let i = 0; i < 5000; i++) {
      const ms = Math.floor(MIN + r() * (MAX - MIN))
      expect(format(ms)).toBe(new Date(ms).toISOString().slice(0, 19))
    }
  })
})
