// String keys: a NUL inside a string is escaped (\x00\xff) so that the \x00\x00 terminator stays
// unambiguous; strings without one are copied as they are. Both must stay byte-identical, since
// encoded keys are stored in checkpoints and hashed to key groups.
import { describe, expect, it } from 'vitest'
import { encodeKey, keyGroupOf } from '../../state/key-encoding.js'
import { decodeKey } from '../../state/rocksdb/codec.js'

describe('string keys', () => {
  it('encode with and without NULs, byte for byte', () => {
    expect(encodeKey(['ab'])).toBe('\x04ab\x00\x00')
    expect(encodeKey([''])).toBe('\x04\x00\x00')
    expect(encodeKey(['a\x00b'])).toBe('\x04a\x00\xffb\x00\x00')
    expect(encodeKey(['\x00\x00'])).toBe('\x04\x00\xff\x00\xff\x00\x00')
    expect(encodeKey(['x', 2024])).toBe('\x04x\x00\x00' + encodeKey([2024]))
    // The key groups of stored keys must not move.
    expect(keyGroupOf(encodeKey(['2024-03-15']))).toBe(keyGroupOf('\x042024-03-15\x00\x00'))
  })

  it('keep keys with NULs apart and decode them back', () => {
    const keys = [['a\x00', 'b'], ['a', '\x00b'], ['a\x00b'], ['a', 'b'], ['\x00'], [''], ['', '']]
    const encoded = keys.map(k => encodeKey(k))
    expect(new Set(encoded).size).toBe(keys.length)
    encoded.forEach((e, i) => expect(decodeKey(e)).toEqual(keys[i]))
  })
})
