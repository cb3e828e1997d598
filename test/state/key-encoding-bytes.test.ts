// Keys holding BYTES values (Uint8Array): they encode apart from strings and arrays that look like
// them, order as Flink orders BINARY values (unsigned, a prefix first), decode to the same bytes (a
// RocksDB key's values are read back from its bytes), and a map entry under such a key still splits
// into its prefix and its user key; stored values keep bytes exactly.
import { describe, expect, it } from 'vitest'
import { encodeKey } from '../../state/key-encoding.js'
import { cellPrefixLength, decodeEntry, decodeKey, encodeEntry, encodeUserKey, mapEntryKey, namespaceBytes, slotPrefix } from '../../state/rocksdb/codec.js'

const b = (...xs: number[]): Uint8Array => Uint8Array.from(xs)
const VALUES: readonly Uint8Array[] = [b(), b(0), b(0, 0), b(1), b(0x0a, 0xff), b(0x7f), b(0x80), b(0xff), b(0xff, 0)]

describe('BYTES in keys', () => {
  it('encode apart (also from look-alike strings and arrays) and decode to themselves', () => {
    const keys = VALUES.map(v => [v, 'after'])
    const encoded = keys.map(k => encodeKey(k))
    expect(new Set(encoded).size).toBe(VALUES.length)
    expect(encodeKey([b(1, 2)])).not.toBe(encodeKey([[1, 2]]))
    expect(encodeKey([b(0x61)])).not.toBe(encodeKey(['a']))
    encoded.forEach((e, i) => {
      const back = decodeKey(e)
      expect(back[0]).toBeInstanceOf(Uint8Array)
      expect(back).toEqual(keys[i])
    })
  })

  it('order unsigned, byte by byte, a prefix first', () => {
    const sorted = [...VALUES].sort((x, y) => (encodeKey([x]) < encodeKey([y]) ? -1 : 1))
    expect(sorted.map(v => Buffer.from(v).toString('hex'))).toEqual(['', '00', '0000', '01', '0aff', '7f', '80', 'ff', 'ff00'])
  })

  it('a map entry keyed under a BYTES key splits into its prefix; stored values keep bytes', () => {
    for (const v of VALUES) {
      const prefix = Buffer.concat([slotPrefix(7, 3, encodeKey([v, 42])), namespaceBytes(5)])
      const key = mapEntryKey(prefix, encodeUserKey('u'))
      expect(cellPrefixLength(key, 'map')).toBe(prefix.length)
    }
    const row = [1, b(0, 0xff, 3), null]
    expect(decodeEntry(encodeEntry(null, row))).toEqual(row)
  })
})
