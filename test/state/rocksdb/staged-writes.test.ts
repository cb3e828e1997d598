// A write batch goes to RocksDB in key order, and still means what its calls meant in the order
// they were made: entries of one key keep their order, and a batch with a range delete is not
// reordered.
import { afterEach, describe, expect, it } from 'vitest'
import { NativeReadBatch, NativeWriteBatch } from '../../../state/rocksdb/native-batch.js'
import { StagedWrites } from '../../../state/rocksdb/staged-writes.js'
import { cleanup, openRawDb } from './harness.js'

const PUT = 1, DELETE = 2
afterEach(cleanup)

/** Deterministic pseudo-random bytes. */
function rng(seed: number): () => number {
  let x = seed
  return () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8 & 0xff
}

/** The staged entries' keys in the order order() gives, with the index each was added at. */
function ordered(s: StagedWrites, keys: Buffer[]): { key: Buffer; i: number }[] {
  const order = s.order()
  return Array.from({ length: s.n }, (_, k) => ({ key: keys[order[k]!]!, i: order[k]! }))
}

/** The first 16 bytes, a shorter key padded with zero bytes: what the order compares. */
function head(key: Buffer): Buffer {
  const out = Buffer.alloc(16)
  key.copy(out, 0, 0, 16)
  return out
}

function expectSortedAndStable(out: { key: Buffer; i: number }[]): void {
  for (let k = 1; k < out.length; k++) {
    const a = out[k - 1]!, b = out[k]!
    const c = Buffer.compare(head(a.key), head(b.key))
    if (c > 0 || (c === 0 && a.i > b.i)) {
      throw new Error(`entries ${k - 1} and ${k} out of order: ${a.key.toString('hex')}#${a.i} before ${b.key.toString('hex')}#${b.i}`)
    }
  }
}

describe('StagedWrites.order', () => {
  it('orders keys of mixed lengths and bytes by their first 16 bytes (zero-padded), entries of equal ones in the order added', () => {
    for (const n of [300, 20_000]) { // one byte a pass, and two
      const s = new StagedWrites()
      const next = rng(n)
      const keys: Buffer[] = []
      for (let i = 0; i < n; i++) {
        // Short keys, keys that are prefixes of others, every byte value including 0x00 and 0xff,
        // many exact repeats (a third of the keys are one of 8), and keys equal in their first 16 bytes.
        const len = [1, 3, 16, 17, 20, 40][next() % 6]!
        const key = Buffer.alloc(len)
        if (next() % 3 === 0) key.fill(next() % 8)
        else for (let b = 0; b < len; b++) key[b] = next() % 4 === 0 ? 0xff : next()
        keys.push(key)
        if (i % 2 === 0) s.copy(PUT, key, len, Buffer.from([i & 0xff]), 1)
        else s.ref(DELETE, key, Buffer.alloc(0))
      }
      const out = ordered(s, keys)
      expect(out).toHaveLength(n)
      expect(new Set(out.map(e => e.i)).size).toBe(n)
      expectSortedAndStable(out)
    }
  })

  it('takes a batch added in key order as it is, and sorts one that descends only at its last entry', () => {
    const s = new StagedWrites()
    const keys: Buffer[] = []
    for (let i = 0; i < 2000; i++) {
      const k = Buffer.alloc(20)
      k.writeUInt32BE(1000 + (i >> 1), 2)
      keys.push(k)
    } // each key twice
    for (const k of keys) s.ref(PUT, k, k)
    expect(ordered(s, keys).map(e => e.i)).toEqual(keys.map((_, i) => i))
    s.reset()
    keys.push(Buffer.alloc(20)) // smaller than every other
    for (const k of keys) s.ref(PUT, k, k)
    const out = ordered(s, keys)
    expect(out[0]!.i).toBe(2000)
    expectSortedAndStable(out)
  })

  it('keeps the order added when the batch has a range delete, or is small', () => {
    const s = new StagedWrites()
    const keys: Buffer[] = []
    for (let i = 0; i < 1000; i++) {
      const k = Buffer.from([255 - (i & 0xff), i >> 8])
      keys.push(k)
      s.copy(PUT, k, 2, k, 2)
    }
    s.ref(3, Buffer.from([0]), Buffer.from([1]), true)
    keys.push(Buffer.from([0]))
    expect(ordered(s, keys).map(e => e.i)).toEqual(keys.map((_, i) => i))
    s.reset()
    const few = keys.slice(0, 10)
    for (const k of few) s.copy(PUT, k, k.length, k, k.length)
    expect(ordered(s, few).map(e => e.i)).toEqual(few.map((_, i) => i))
    // After reset, a large batch is ordered again.
    s.reset()
    for (const k of keys.slice(0, 1000)) s.copy(PUT, k, k.length, k, k.length)
    expectSortedAndStable(ordered(s, keys.slice(0, 1000)))
  })
})

describe('NativeWriteBatch in key order', () => {
  it('puts, deletes and puts again of one key in one large batch leave the last of them', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    const key = Buffer.alloc(20)
    const value = Buffer.alloc(8)
    const expected = new Map<string, string | null>()
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 30_000; i++) {
        const k = (i * 7919) % 10_000 // every key three times a round, in scattered order
        key.fill(0)
        key.writeUInt32BE(k * 2654435761 >>> 0, 2) // keys spread over the first bytes
        key.writeUInt32BE(k, 12)
        const name = key.toString('hex')
        if ((i + round) % 5 === 0) {
          w.delete(Buffer.from(key))
          expected.set(name, null)
        } else {
          value.writeUInt32BE(i, 0)
          value.writeUInt32BE(round, 4)
          w.putBytes(key, 20, value, 8)
          expected.set(name, value.toString('hex'))
        }
      }
      await w.apply()
      const r = new NativeReadBatch(db)
      const names = [...expected.keys()]
      for (const name of names) r.addBytes(Buffer.from(name, 'hex'), 20)
      const got = await r.read(false)
      for (let j = 0; j < names.length; j++) expect(got[j]?.toString('hex') ?? null).toBe(expected.get(names[j]!))
    }
  })
})
