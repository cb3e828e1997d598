// Keys and stored values of BIGINTs beyond 2^53: neighbours one apart encode, hash and store apart,
// and come back in the form they went in (a number while safe, a bigint beyond), so a restored key
// is === to the same key read again from a source.
import { describe, expect, it } from 'vitest'
import { encodeKey, keyGroupOf, makeKey } from '../../state/key-encoding.js'
import { decodeEntry, decodeKey, encodeEntry, encodeUserKey, decodeUserKey } from '../../state/rocksdb/codec.js'

const NEIGHBOURS = [2 ** 53 - 1, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n)]

describe('BIGINT keys beyond 2^53', () => {
  it('encode apart and decode to the same form', () => {
    const encoded = NEIGHBOURS.map(v => encodeKey([v, 'x']))
    expect(new Set(encoded).size).toBe(NEIGHBOURS.length)
    encoded.forEach((e, i) => expect(decodeKey(e)).toEqual([NEIGHBOURS[i], 'x']))
    expect(decodeUserKey(encodeUserKey(2n ** 53n + 1n))).toBe(2n ** 53n + 1n)
    expect(decodeUserKey(encodeUserKey(9007199254740991))).toBe(9007199254740991)
  })

  it('hash to key groups from their exact value', () => {
    const a = makeKey([2n ** 53n + 1n]), b = makeKey([2n ** 53n + 1n])
    expect(a.encoded).toBe(b.encoded)
    expect(a.group).toBe(keyGroupOf(encodeKey([2n ** 53n + 1n])))
  })

  it('store in RocksDB values exactly, bigints as bigints and numbers as numbers', () => {
    const acc = [3, 2n ** 53n + 1n, -1, 2n ** 63n - 1n, 9007199254740991, null]
    const back = decodeEntry(encodeEntry(null, acc)) as unknown[]
    expect(back).toEqual(acc)
    expect(back.map(v => typeof v)).toEqual(acc.map(v => typeof v))
  })
})
