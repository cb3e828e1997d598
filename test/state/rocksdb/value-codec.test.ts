// RocksDB's value serializer with plain objects (a process function's state, a user aggregate's
// accumulator): they come back equal, with their keys in order and undefined values kept, nested in
// arrays and objects; what a plain object cannot say (a Date, a class, a null prototype, an own
// '__proto__' key) goes through v8 as before and comes back as v8 gives it. Values written by v8
// before (tag 10) still read.
import v8 from 'node:v8'
import { describe, expect, it } from 'vitest'
import { decodeEntry, encodeEntry } from '../../../state/rocksdb/codec.js'

const roundTrip = (v: unknown): unknown => decodeEntry(Buffer.from(encodeEntry(null, v)))

describe('plain objects in RocksDB values', () => {
  it('come back equal: keys in order, undefined kept, nested values, numbers and strings of every kind', () => {
    const v = { count: 3, last: 1714521600000.5, name: 'grocer', 'é ü': 'ü'.repeat(60), flags: [1, { a: null, b: undefined }], big: 2n ** 60n,
      nested: { deeper: { ok: true, '2': 'two', '1': 'one' } }, empty: {} }
    const back = roundTrip(v) as typeof v
    expect(back).toEqual(v)
    expect(Object.keys(back)).toEqual(Object.keys(v))
    expect(Object.keys(back.nested.deeper)).toEqual(['1', '2', 'ok'])
    expect('b' in (back.flags[1] as object)).toBe(true)
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype)
  })

  it('strings of every length around the hand-copied/native boundary come back equal, ASCII or not', () => {
    // Up to 16 UTF-16 units ASCII text is copied by hand, longer text natively; non-ASCII anywhere
    // (first, middle, last unit), two-byte and astral characters take the native path at any length.
    const units = ['a', 'é', '€', '😀']
    for (let n = 0; n <= 60; n++) {
      for (const u of units) {
        for (const at of [0, n >> 1, n - 1]) {
          const chars = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26)))
          if (n > 0) chars[at] = u
          const s = chars.join('')
          expect(roundTrip(s)).toBe(s)
          expect(roundTrip([s, n, s + s])).toEqual([s, n, s + s])
        }
      }
    }
  })

  it('take the fast path, not v8 (tag 11 after the one-byte header; v8 is tag 10)', () => {
    expect(encodeEntry(null, { count: 5, merchant: 'grocer' })[1]).toBe(11)
    expect(encodeEntry(null, { when: new Date(0) })[1]).toBe(11) // the object is plain; its Date inside goes through v8
    expect(encodeEntry(null, new Date(0))[1]).toBe(10)
  })

  it('written by v8 before (tag 10) still read', () => {
    const bytes = v8.serialize({ count: 5, merchant: 'grocer' })
    const old = Buffer.alloc(1 + 5 + bytes.length)
    old[0] = encodeEntry(null, 1)[0]!
    old[1] = 10
    old.writeUInt32LE(bytes.length, 2)
    old.set(bytes, 6)
    expect(decodeEntry(old)).toEqual({ count: 5, merchant: 'grocer' })
  })

  it('what a plain object cannot say goes through v8', () => {
    const when = new Date(1714521600000)
    class Point {
      constructor(readonly x: number) {}
    }
    const bare = Object.assign(Object.create(null) as object, { a: 1 })
    const proto = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as object
    expect(roundTrip({ when })).toEqual({ when })
    expect((roundTrip({ when }) as { when: unknown }).when).toBeInstanceOf(Date)
    expect(roundTrip(new Point(3))).toEqual({ x: 3 }) // as v8 keeps a class instance: its own fields
    expect(Object.keys(roundTrip(bare) as object)).toEqual(['a'])
    const back = roundTrip(proto) as Record<string, unknown>
    expect(Object.keys(back)).toEqual(['__proto__', 'y'])
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype)
  })
})

describe('varint tags in RocksDB values', () => {
  // Tag of the value right after the one-byte header (no TTL clock, no user key).
  const tagOf = (v: unknown): number => encodeEntry(null, v)[1]!

  it('integers around every width boundary come back equal, -0 and fractions included', () => {
    const edges = [0, 1, 63, 64, 127, 128, 8191, 8192, 2 ** 20 - 1, 2 ** 20, 2 ** 21, 2 ** 27, 2 ** 28, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 35 + 3,
      1714521600000, 2 ** 48 - 1, 2 ** 48, 2 ** 53 - 1, 2 ** 53]
    for (const e of edges) {
      for (const v of [e, -e, e + 0.5, -e - 0.5]) {
        expect(Object.is(roundTrip(v), v)).toBe(true)
        expect(roundTrip([v, 'x', v])).toEqual([v, 'x', v])
      }
    }
    for (const v of [-0, NaN, Infinity, -Infinity, 2 ** -1074, Number.MAX_VALUE]) expect(Object.is(roundTrip(v), v)).toBe(true)
    expect(Object.is((roundTrip([-0]) as number[])[0], -0)).toBe(true)
  })

  it('take the shortest tag: small int32 12, wide integers 13, f64 only for fractions and -0', () => {
    expect(tagOf(5)).toBe(12)
    expect(encodeEntry(null, 5).length).toBe(3)
    expect(tagOf(-(2 ** 20))).toBe(12)
    expect(tagOf(2 ** 20)).toBe(4) // zigzag 2^21 would take 4 varint bytes: no shorter than tag 4's
    expect(tagOf(1714521600000)).toBe(13)
    expect(encodeEntry(null, 1714521600000).length).toBe(1 + 1 + 6)
    expect(tagOf(2 ** 48)).toBe(5)
    expect(tagOf(-0)).toBe(5)
    expect(tagOf(0.5)).toBe(5)
  })

  it('strings of every length around the one- and two-byte length boundaries come back equal', () => {
    for (const n of [0, 1, 15, 16, 17, 42, 43, 127, 128, 5460, 5461, 5462, 20000]) {
      for (const u of ['a', 'é', '€', '😀']) {
        const s = 'b'.repeat(Math.max(0, n - u.length)) + (n >= u.length ? u : '')
        expect(roundTrip(s)).toBe(s)
        expect(roundTrip([s, 1, s])).toEqual([s, 1, s])
      }
    }
    expect(tagOf('short')).toBe(14)
    expect(tagOf('x'.repeat(5461))).toBe(14)
    expect(tagOf('x'.repeat(5462))).toBe(6) // 3 bytes a unit might not fit a two-byte length
  })

  it('a lone surrogate stays itself (UTF-8 has none: such a string is stored as UTF-16, tag 16), at every length', () => {
    for (const n of [1, 2, 16, 17, 5461, 5462, 20000]) {
      for (const odd of ['\ud800', '\udfff', '😀'.slice(0, 1), '😀'.slice(1)]) {
        for (const s of [odd + 'é'.repeat(n - 1), 'a'.repeat(n - 1) + odd]) {
          expect(roundTrip(s)).toBe(s)
          expect(roundTrip([s, 'é', s])).toEqual([s, 'é', s])
          expect(tagOf(s)).toBe(16)
        }
      }
    }
    // Well-formed text keeps UTF-8, pairs included.
    expect(tagOf('😀é')).toBe(14)
  })

  it('arrays of every count around the varint boundaries come back equal', () => {
    for (const n of [0, 1, 127, 128, 16383, 16384, 70000]) {
      const a = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? i : i % 3 === 1 ? `v${i}` : null))
      expect(roundTrip(a)).toEqual(a)
      expect(roundTrip([a, [a]])).toEqual([a, [a]])
    }
    expect(tagOf([])).toBe(15)
  })

  it('a Nexmark bid row takes ~15 bytes less than with the fixed-width tags', () => {
    const row = [1042, 2017, 5_000_000, 'channel-1234', 'https://www.nexmark.com/qozz/jys/_jrm/item.htm?query=1&channel_id=1610612736', 1714521600123,
      'x'.repeat(68)]
    expect(roundTrip(row)).toEqual(row)
    // Fixed-width: array 5, three int32 5 each, f64 9, strings 5 + text each.
    const fixed = 1 + 5 + 15 + 9 + 3 * 5 + 12 + 78 + 68
    expect(encodeEntry(null, row).length).toBeLessThanOrEqual(fixed - 15)
  })

  it('values written with the fixed-width tags before (4 int32, 5 f64, 6 string, 9 array) still read', () => {
    const header = encodeEntry(null, 1)[0]!
    const old = Buffer.alloc(64)
    let p = 0
    old[p++] = header
    old[p++] = 9
    old.writeUInt32LE(4, p)
    p += 4
    old[p++] = 4
    old.writeInt32LE(-7, p)
    p += 4
    old[p++] = 5
    old.writeDoubleLE(1714521600123, p)
    p += 8
    old[p++] = 6
    old.writeUInt32LE(Buffer.byteLength('grocé'), p)
    p += 4
    p += old.write('grocé', p, 'utf8')
    old[p++] = 6
    old.writeUInt32LE(20, p)
    p += 4
    p += old.write('y'.repeat(20), p, 'latin1')
    expect(decodeEntry(old.subarray(0, p))).toEqual([-7, 1714521600123, 'grocé', 'y'.repeat(20)])
  })
})
