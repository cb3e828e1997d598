// Batches crossing threads as bytes: every value comes back with its JS type and exact value.
import { describe, expect, it } from 'vitest'
import { decodeBatch, decodeBatchKeys, encodeBatch } from '../../runtime/batch-codec.js'
import { keysByColumns } from '../../runtime/batch-keys.js'
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

  it('a lone surrogate stays itself (UTF-8 has none: the column goes as UTF-16), beside ASCII, non-ASCII, pairs and NULLs, in any run', () => {
    const odd = ['\ud800', 'a\udfffb', '\ud83d', '\ude00x']
    for (const at of [0, 1, 17, 2999]) {
      const rows: (string | null)[][] = Array.from({ length: 3000 }, (_, i) => [i % 5 === 0 ? null : i % 3 === 0 ? `é${i}😀` : `a${i}`])
      rows[at] = [odd[at % odd.length]!]
      const out = roundTrip({ rows, kinds: null }).rows
      expect(out).toEqual(rows)
      expect(out[at]![0]).toBe(odd[at % odd.length])
    }
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

describe('batch codec, typed columns', () => {
  it('bigints at the 64-bit limits (DECIMAL unscaled values) as one column, beyond them by the general path', () => {
    const min = -(1n << 63n), max = (1n << 63n) - 1n
    const rows = [[min, 1n << 64n], [max, null], [null, -(1n << 63n) - 1n], [0n, 5n], [-1n, 0n]]
    const out = roundTrip({ rows, kinds: null }).rows
    expect(out).toEqual(rows)
    expect(out.every(r => r[0] === null || typeof r[0] === 'bigint')).toBe(true)
  })

  it('BYTES as plain Uint8Arrays of their own (empty ones and NULLs too); a Buffer keeps being a Buffer', () => {
    const rows = [[Uint8Array.of(1, 2, 255)], [new Uint8Array(0)], [null], [Uint8Array.from({ length: 300 }, (_, i) => i & 0xff)]]
    const out = roundTrip({ rows, kinds: null }).rows
    expect(out).toEqual(rows)
    expect(out[0]![0]!.constructor).toBe(Uint8Array)
    expect((out[0]![0] as Uint8Array).buffer.byteLength).toBe(3)
    const buffers = roundTrip({ rows: [[Buffer.from('ab')], [null]], kinds: null }).rows
    expect(Buffer.isBuffer(buffers[0]![0])).toBe(true)
    expect(buffers[0]![0]).toEqual(Buffer.from('ab'))
  })

  it('strings across the joined runs: long, empty, NULL, and non-ASCII in one run but not the others', () => {
    const long = 'abcdefghij'.repeat(2000)
    const rows: (string | null)[][] = []
    for (let i = 0; i < 40; i++) rows.push([i % 5 === 0 ? null : i % 7 === 0 ? '' : long.slice(i, 3000 + i * 13)])
    rows.push(['ünïcødé ☃ 𝄞 ' + long], ['\u0000 nul \u007f del'], ['tail'])
    for (let i = 0; i < 10; i++) rows.push([long.slice(0, 5000 + i)])
    expect(roundTrip({ rows, kinds: null }).rows).toEqual(rows)
    const latin1 = [['caf\u00e9'], ['\u00ff'.repeat(20000)], ['x']]
    expect(roundTrip({ rows: latin1, kinds: null }).rows).toEqual(latin1)
  })

  it('refuses bytes of an unknown column kind, saying which column', () => {
    const data = encodeBatch({ rows: [[1, 2]], kinds: null })
    const bytes = new Uint8Array(data)
    // The second column's kind byte follows the first column: header 9, kind 1, bitmap 1, padding to 16, 8 bytes.
    expect(bytes[24]).toBe(1)
    bytes[24] = 99
    expect(() => decodeBatch(data)).toThrow(/column 1 of unknown kind 99/)
  })

  it('a repeated string comes back as the same value, and strings of equal length that differ as themselves', () => {
    const rows = [['2015-07-15'], ['2015-07-15'], ['2015-07-16'], [null], ['2015-07-16'], ['ü-ü'], ['ü-ü'], ['ü-v'], [''], [''], ['x'.repeat(40)], [
      'x'.repeat(40),
    ], ['x'.repeat(39) + 'y'], ['2015-07-15']]
    const out = roundTrip({ rows, kinds: null })
    expect(out.rows).toEqual(rows)
    expect(out.rows.map(r => r[0])).toEqual(rows.map(r => r[0]))
  })

  it("carries the rows' keys: the receiver's keys are those it would compute, one KeyRef per distinct key", () => {
    // Keys by columns 2 and 0, of awkward values: NaN, -0 (their encodings hold surrogate code units), non-ASCII, NULL, a bigint.
    const rows = [[1, 'a', 'k𝄞'], [NaN, 'b', 'k𝄞'], [-0, 'c', 'é'], [1, 'd', 'k𝄞'], [null, 'e', 'é'], [7n, 'f', null], [NaN, 'g', 'k𝄞']]
    const route = keysByColumns([2, 0], 128)
    const sent = route(rows)
    const plainWith = (keys: typeof sent): ArrayBuffer => encodeBatch({ rows, kinds: null }, keys)
    const data = plainWith(sent)
    const { batch, keys } = decodeBatchKeys(data, 0, data.byteLength, [2, 0])
    expect(batch.rows).toEqual(rows)
    const computed = keysByColumns([2, 0], 128)(batch.rows)
    expect(keys!.map(k => k.encoded)).toEqual(computed.map(k => k.encoded))
    expect(keys!.map(k => k.group)).toEqual(computed.map(k => k.group))
    expect(keys!.map(k => k.values)).toEqual(computed.map(k => k.values))
    expect(Object.is(keys![2]!.values[1], -0)).toBe(true)
    // Rows 0 and 3 share their key (so did the sender's): one KeyRef.
    expect(keys![3]).toBe(keys![0])
    // Without key columns (a receiver that keys nothing), or sent without keys: no keys.
    expect(decodeBatchKeys(plainWith(sent), 0, plainWith(sent).byteLength, null).keys).toBeNull()
    const plain = encodeBatch({ rows, kinds: null })
    expect(decodeBatchKeys(plain, 0, plain.byteLength, [2, 0]).keys).toBeNull()
  })
})
