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
