// Keys holding ROW, ARRAY and MAP values (nested JS arrays, common/types.ts): they encode apart from
// each other and from strings that look like them, decode to the same nested values (a RocksDB key's
// values are read back from its bytes), and a stored map entry whose key holds a nested value still
// splits into its (key, namespace) prefix and its user key.
import { describe, expect, it } from 'vitest'
import { encodeKey } from '../../state/key-encoding.js'
import { cellPrefixLength, decodeEntry, decodeKey, decodeUserKey, encodeEntry, encodeUserKey, mapEntryKey, namespaceBytes,
  slotPrefix } from '../../state/rocksdb/codec.js'

const VALUES: readonly unknown[] = [
  [1, 'a'],
  [1, 'a', null],
  [[1, 'a']],
  [],
  [[]],
  [null],
  ['[1,"a"]'],
  [2n ** 63n - 1n, [true, [false, 'x\x00y']]],
  [['k1', 1], ['k2', null]],
  [[1, 2], [3]],
  [[1], [2, 3]],
]

describe('nested values in keys', () => {
  it('encode apart (also from look-alike strings) and decode to themselves', () => {
    const keys = VALUES.map(v => [v, 'after'])
    const encoded = keys.map(k => encodeKey(k))
    expect(new Set(encoded).size).toBe(VALUES.length)
    expect(encodeKey(['[1,"a"]'])).not.toBe(encodeKey([[1, 'a']]))
    encoded.forEach((e, i) => expect(decodeKey(e)).toEqual(keys[i]))
  })

  it('a map entry keyed under a nested key splits into its prefix and its user key', () => {
    for (const v of VALUES) {
      const prefix = Buffer.concat([slotPrefix(7, 3, encodeKey([v, 42])), namespaceBytes(5)])
      for (const user of ['u', 17, [1, [2, 'x']]]) {
        const key = mapEntryKey(prefix, encodeUserKey(user))
        expect(cellPrefixLength(key, 'map')).toBe(prefix.length)
        if (!Array.isArray(user) || user.every(e => !Array.isArray(e))) expect(decodeUserKey(encodeUserKey(user))).toEqual(user)
      }
    }
  })

  it('stored values keep nested values exactly', () => {
    const row = [1, [2n ** 60n, 'a', null, [[['k', 1.5]]]], null]
    expect(decodeEntry(encodeEntry(null, row))).toEqual(row)
  })
})
