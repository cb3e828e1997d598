// The written-keys filter: a key that was added, one at a time or in a batch, is never reported
// absent (that would skip the read of stored state and lose it), whether asked one at a time or in
// batches of any size; keys never added are mostly reported absent (otherwise it saves no reads).
import { describe, expect, it } from 'vitest'
import { KeyBloom } from '../../../state/rocksdb/key-bloom.js'

/** A stored-key-like byte string for number k, of a length that varies with k. */
function keyOf(k: number): Buffer {
  const b = Buffer.alloc(10 + (k % 7))
  b.writeUInt32BE(k >>> 0, 2)
  b.writeUInt16BE(k % 128, 0)
  return b
}

describe('KeyBloom', () => {
  const bloom = new KeyBloom(1 << 20)
  for (let k = 0; k < 50_000; k += 2) bloom.add(keyOf(k))

  it('reports every added key as possibly present, one at a time and in batches larger than its first arrays', () => {
    const keys = Array.from({ length: 5_000 }, (_, i) => 2 * i)
    const out = new Uint8Array(keys.length)
    keys.forEach((k, i) => {
      const key = keyOf(k)
      bloom.locateBatch(i, key, key.length)
    })
    bloom.testBatch(keys.length, out)
    for (let i = 0; i < keys.length; i++) {
      expect(out[i], `key ${keys[i]}`).toBe(1)
      expect(bloom.mayContain(keyOf(keys[i]!))).toBe(true)
    }
  })

  it('answers a batch as it answers each key alone, and rejects most keys never added', () => {
    const keys = Array.from({ length: 3_000 }, (_, i) => 1 + 2 * i)
    const out = new Uint8Array(keys.length)
    // Garbage past `count` from an earlier batch must not matter, nor keys located beyond it.
    out.fill(7)
    keys.forEach((k, i) => {
      const key = keyOf(k)
      bloom.locateBatch(i, key, key.length)
    })
    bloom.testBatch(keys.length, out)
    let absent = 0
    for (let i = 0; i < keys.length; i++) {
      expect(out[i]).toBe(bloom.mayContain(keyOf(keys[i]!)) ? 1 : 0)
      if (out[i] === 0) absent++
    }
    // 2 Mbit for 25K keys: false positives are rare.
    expect(absent).toBeGreaterThan(keys.length * 0.99)
  })

  it('adds a located batch: every key of it is then reported possibly present', () => {
    const fresh = new KeyBloom(1 << 20)
    const keys = Array.from({ length: 4_000 }, (_, i) => 1_000_000 + 3 * i)
    keys.forEach((k, i) => {
      const key = keyOf(k)
      fresh.locateBatch(i, key, key.length)
    })
    // Only the first half is added: the rest stays absent (nearly all of it).
    fresh.addBatch(2_000)
    for (const k of keys.slice(0, 2_000)) expect(fresh.mayContain(keyOf(k)), `key ${k}`).toBe(true)
    expect(keys.slice(2_000).filter(k => fresh.mayContain(keyOf(k))).length).toBeLessThan(20)
  })

  it('tests only the first length bytes of a located key', () => {
    const added = keyOf(4)
    const longer = Buffer.concat([added, Buffer.from([1, 2, 3])])
    const out = new Uint8Array(1)
    bloom.locateBatch(0, longer, added.length)
    bloom.testBatch(1, out)
    expect(out[0]).toBe(1)
  })
})
