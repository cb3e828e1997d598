// Batches crossing threads as bytes: every value comes back with its JS type and exact value.
import { describe, expect, it } from 'vitest'
import { decodeBatch, encodeBatch } from '../../runtime/batch-codec.js'
import type { Batch } from '../../core/batch.js'

const roundTrip = (b: Batch): Batch => decodeBatch(encodeBatch(b))

describe('batch codec', () => {
  it('keeps numbers, strings, NULLs and every other value exactly', () => {
    const rows = [
      [1, 'abc', null, true, 9223372036854775807n, [1, [2, 'x']], [['k', 1]], -0, 'héllo ☃ 𝄞', ''],
      [null, null, 2.5, false, -12345n, null, [], NaN, null, 'x'],
      [-1e300, 'z'.repeat(1000), null, null, 0n, [null], [['a', null]], Infinity, 'ascii', null],
    ]
    const out = roundTrip({ rows, kinds: null })
    expect(out.kinds).toBeNull()
    expect(out.rows.length).toBe(3)
    expect(out.rows).toEqual(rows)
    expect(Object.is(out.rows[0]![7], -0)).toBe(true)
    expect(Number.isNaN(out.rows[1]![7])).toBe(true)
    expect(typeof out.rows[0]![4]).toBe('bigint')
  })

  it('a column of numbers mixed with another type keeps each value its own type', () => {
    const rows = [[1], ['1'], [1n], [null], [true]]
    expect(roundTrip({ rows, kinds: null }).rows).toEqual(rows)
  })

  it('keeps row kinds, and an empty batch', () => {
    const kinds = Uint8Array.from([0, 1, 2, 3])
    const out = roundTrip({ rows: [['a'], ['b'], ['c'], ['d']], kinds })
    expect([...out.kinds!]).toEqual([0, 1, 2, 3])
    expect(out.rows.map(r => r[0])).toEqual(['a', 'b', 'c', 'd'])
    expect(roundTrip({ rows: [], kinds: null }).rows).toEqual([])
  })

  it('a large batch: 5,000 rows of mixed columns', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => [i, `s${i}`, i % 7 === 0 ? null : i * 0.5, i % 3 === 0 ? 'ü' + i : 'a' + i, BigInt(i) * 10n ** 20n])
    expect(roundTrip({ rows, kinds: null }).rows).toEqual(rows)
  })
})

describe('batch codec, booleans', () => {
  it('a column of booleans and NULLs', () => {
    const rows = [[true, 1], [false, 2], [null, 3], [true, null]]
    expect(decodeBatch(encodeBatch({ rows, kinds: null })).rows).toEqual(rows)
  })
})
