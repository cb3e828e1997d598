// A state entry encoded straight into a write batch's held bytes (encodeEntryAt, HeldBytes.holdEntry,
// NativeWriteBatch.putHeldEntry) is byte for byte the entry encodeEntryInPlace writes into the codec's
// scratch buffer: for every type, non-ASCII and astral text, lone surrogates, empty and long strings,
// with and without a TTL time and a user-key copy, and when the room left runs out anywhere inside
// the entry (it moves to the scratch buffer whole). The bytes before the entry are left alone.
import { afterEach, describe, expect, it } from 'vitest'
import { NativeReadBatch, NativeWriteBatch } from '../../../state/rocksdb/native-batch.js'
import { HeldBytes } from '../../../state/rocksdb/staged-writes.js'
import { decodeEntry, decodeEntryKey, encodeEntry, encodeEntryAt, encodedLength, entryScratch } from '../../../state/rocksdb/value-codec.js'
import { cleanup, openRawDb } from './harness.js'

afterEach(cleanup)

const texts = ['', 'a', 'Google', 'channel-1234', 'x'.repeat(16), 'y'.repeat(17), 'é', 'naïve café', '€uro', '😀', 'a😀b', '\ud800', 'x\udc00y',
  'https://www.nexmark.com/abc/def/item.htm?query=1&channel_id=123', 'ü'.repeat(2000), 'z'.repeat(6000), '中文字符'.repeat(40)]
const values: unknown[] = [
  null,
  undefined,
  true,
  false,
  0,
  -0,
  1,
  -1,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 40,
  -(2 ** 47),
  2 ** 53,
  0.5,
  NaN,
  Infinity,
  1714521600000,
  2n ** 62n,
  -(2n ** 63n),
  2n ** 80n,
  ...texts,
  [],
  [1, 'two', [3, null]],
  { a: 1, 'é': 'ü', n: { d: new Date(0) } },
  new Date(1714521600000),
  [1001, 2002, 3003, 'Google', 'https://www.nexmark.com/x/item.htm', 1714521600000, 'é'.repeat(90)],
  Array.from({ length: 10 }, (_, i) => [1000 + i, 7, 99, texts[i % texts.length], texts[(i + 3) % texts.length], 1714521600000 + i, 'pad'.repeat(i * 11)]),
]
const keyed = { k: ['user', 7, 'ü'] }

describe('encodeEntryAt', () => {
  it('writes the bytes encodeEntryInPlace writes, at an offset, leaving the bytes before it alone', () => {
    const buf = Buffer.alloc(1 << 16)
    for (const v of values) {
      for (const [time, userKey] of [[null, undefined], [1714521600000, undefined], [null, keyed], [5.5, keyed]] as const) {
        const want = encodeEntry(time, v, userKey)
        buf.fill(0xab)
        const end = encodeEntryAt(buf, 100, time, v, userKey)
        expect(end).toBe(100 + want.length)
        expect(buf.subarray(100, end).equals(want)).toBe(true)
        expect(buf.subarray(0, 100).every(b => b === 0xab)).toBe(true)
        const back = Buffer.from(buf.subarray(100, end))
        expect(decodeEntry(back)).toEqual(v)
        if (userKey !== undefined) expect(decodeEntryKey(back, null)).toEqual(keyed.k)
      }
    }
  })

  it('an entry that does not fit moves to the scratch buffer whole, wherever the room runs out', () => {
    for (const v of values) {
      const want = encodeEntry(7, v, keyed)
      // Every cut up to the entry's length (and past it) for short entries; a spread of cuts for long ones.
      const step = want.length > 300 ? 97 : 1
      for (let room = 0; room <= want.length + 8; room += step) {
        const buf = Buffer.alloc(50 + room, 0xcd)
        const end = encodeEntryAt(buf, 50, 7, v, keyed)
        expect(buf.subarray(0, 50).every(b => b === 0xcd)).toBe(true)
        if (end >= 0) {
          expect(buf.subarray(50, end).equals(want)).toBe(true)
        } else {
          expect(encodedLength()).toBe(want.length)
          expect(entryScratch().subarray(0, encodedLength()).equals(want)).toBe(true)
        }
      }
      // The scratch buffer is the codec's own again: the next entry is encoded there as before.
      expect(encodeEntry(null, 'after')).toEqual(encodeEntry(null, 'after'))
      expect(decodeEntry(encodeEntry(null, v))).toEqual(v)
    }
  })

  it('after a value it cannot store, the codec writes into its own scratch buffer again', () => {
    const buf = Buffer.alloc(256, 0)
    expect(() => encodeEntryAt(buf, 0, null, [1, () => 0])).toThrow()
    const before = Buffer.from(buf)
    expect(decodeEntry(encodeEntry(null, ['ok', 1]))).toEqual(['ok', 1])
    expect(buf.equals(before)).toBe(true)
  })
})

describe('HeldBytes.holdEntry', () => {
  it('views decode to their values across slab boundaries and entries larger than a slab, batch after batch', () => {
    const held = new HeldBytes()
    for (let batch = 0; batch < 3; batch++) {
      const views: [Uint8Array, unknown][] = []
      for (let i = 0; i < 20_000; i++) {
        const v = i % 5000 === 17 ? ['big', 'q'.repeat((1 << 20) + i)] : values[(i + batch) % values.length]
        views.push([held.holdEntry(i % 3 === 0 ? i : null, v), v])
      }
      // Read after all are held: a later entry overwrote none of an earlier one's bytes.
      for (const [view, v] of views) expect(decodeEntry(Buffer.from(view))).toEqual(v)
      held.reset()
    }
  })
})

describe('NativeWriteBatch.putHeldEntry', () => {
  it('a batch reused after apply writes exactly its own entries, and each reads back as encodeEntry would write it', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    const r = new NativeReadBatch(db)
    const expected = new Map<string, Buffer>()
    const key = Buffer.alloc(32)
    // Fewer entries each batch: operations and held bytes of the batch before are reused, and none
    // of the earlier batches' entries may be written again under a later batch's keys.
    for (const [batch, count] of [[0, 9000], [1, 5000], [2, 300], [3, 1]] as const) {
      for (let i = 0; i < count; i++) {
        const kn = key.write(`b${batch}:${i}`, 0, 'latin1')
        const v = [batch, i, values[(i * 7 + batch) % values.length], 'é'.repeat(i % 40)]
        const n = w.putHeldEntry(key, kn, batch === 2 ? 1000 + i : null, v)
        key.fill(0)
        const want = encodeEntry(batch === 2 ? 1000 + i : null, v)
        expect(n).toBe(want.length)
        expected.set(`b${batch}:${i}`, want)
      }
      await w.apply()
      expect(w.length).toBe(0)
    }
    const keys = [...expected.keys()]
    for (const k of keys) r.addBytes(Buffer.from(k, 'latin1'), k.length)
    const got = await r.read(false)
    for (let i = 0; i < keys.length; i++) expect(got[i]?.equals(expected.get(keys[i]!)!)).toBe(true)
    const it = db.iterator({})
    let stored = 0
    for await (const _ of it) stored++
    expect(stored).toBe(expected.size)
  })
})

describe('numbers and strings inside arrays', () => {
  it('are written as the same bytes as alone (the array writes small positive integers itself)', () => {
    const numbers = [0, -0, 0.5, -1, NaN, Infinity, 2 ** 53, -(2 ** 31), 2 ** 31 - 1, 2 ** 31, 1714521600000]
    for (const edge of [1, 2 ** 6, 2 ** 7, 2 ** 13, 2 ** 14, 2 ** 20, 2 ** 21]) numbers.push(edge - 1, edge, edge + 1, -edge)
    for (const x of [...numbers, ...texts, true, null, undefined, 5n]) {
      const alone = encodeEntry(null, x).subarray(1)
      const inArray = encodeEntry(null, [x]).subarray(1)
      // Tag 15, a count of 1, then the value as written alone.
      expect(inArray[0]).toBe(15)
      expect(inArray[1]).toBe(1)
      expect(inArray.subarray(2).equals(alone)).toBe(true)
      expect(decodeEntry(encodeEntry(null, [x, [x]]))).toEqual([x, [x]])
    }
  })
})

describe('a write batch after apply', () => {
  it('holds none of the buffers it was given, and the next, smaller batch writes exactly its own entries', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    const given: Uint8Array[] = []
    const key = Buffer.alloc(16)
    const value = Buffer.alloc(64)
    // Batch 1: lanes (putBytes), caller buffers (put), held bytes (putHeld, putHeldEntry) and a range delete.
    for (let i = 0; i < 2000; i++) {
      const kn = key.write(`a${String(i).padStart(5, '0')}`, 0, 'latin1')
      const vn = value.write(`lane ${i}`, 0, 'latin1')
      w.putBytes(key, kn, value, vn)
    }
    for (let i = 0; i < 500; i++) {
      const k = Buffer.from(`c${String(i).padStart(5, '0')}`)
      const v = Buffer.from(`caller ${i}`)
      given.push(k, v)
      w.put(k, v)
    }
    for (let i = 0; i < 500; i++) w.putHeldEntry(key, key.write(`h${i}`, 0, 'latin1'), null, ['held', i])
    const start = Buffer.from('z0'), end = Buffer.from('z9')
    given.push(start, end)
    w.deleteRange(start, end)
    await w.apply()
    const ops = (w as unknown as { r: { ops: { key: Uint8Array; value: Uint8Array; start: Uint8Array; end: Uint8Array }[] } }).r.ops
    for (const op of ops) {
      for (const b of [op.key, op.value, op.start, op.end]) expect(given.includes(b)).toBe(false)
    }
    // Batch 2: a few lane puts over new keys; nothing of batch 1 may be written again or in their place.
    for (let i = 0; i < 3; i++) {
      const kn = key.write(`b${i}`, 0, 'latin1')
      const vn = value.write(`second ${i}`, 0, 'latin1')
      w.putBytes(key, kn, value, vn)
    }
    await w.apply()
    const stored = new Map<string, string>()
    for await (const e of db.iterator({})) stored.set(e.key.toString('latin1'), e.value.toString('latin1'))
    expect(stored.size).toBe(2000 + 500 + 500 + 3)
    expect(stored.get('a00007')).toBe('lane 7')
    expect(stored.get('c00499')).toBe('caller 499')
    expect(decodeEntry(Buffer.from(stored.get('h42')!, 'latin1'))).toEqual(['held', 42])
    for (let i = 0; i < 3; i++) expect(stored.get(`b${i}`)).toBe(`second ${i}`)
  })
})
