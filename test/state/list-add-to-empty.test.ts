// ListState.addToEmpty(): an element added, with no prefetch, to a list the caller knows holds nothing (an
// interval join's new time bucket). Checked on both backends: lists never written, cleared earlier in
// the same bundle, and dropped whole, read back after the write and after a restart of the cache, with
// the exact entry count; on RocksDB also with a read of the list in flight (a read-ahead asked for it),
// and that a list holding elements is refused.
import { afterEach, describe, expect, it } from 'vitest'
import { type KeyedStateBackend, listState } from '../../core/keyed-state.js'
import { makeKey } from '../../state/key-encoding.js'
import { cleanup, harnesses, liveEntries, openRocks, settle, written } from './rocksdb/harness.js'

afterEach(cleanup)

const KEYS = Array.from({ length: 150 }, (_, i) => makeKey([i % 3 === 0 ? `k${i}` : i]))

/** Every key's list in namespace `ns` equals `want(i)`, after the write and again after a restart of the cache; the exact entry count is theirs. */
async function check(b: KeyedStateBackend, ns: number, want: (i: number) => number[]): Promise<void> {
  const l = b.getListState(listState<number>('l'))
  for (let pass = 0; pass < 2; pass++) {
    await written(b)
    if (b.needsPrefetch) await b.prefetch(KEYS.map(key => ({ key, namespace: ns })))
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(ns)
      expect([...l.get()], `list of ${key.encoded}`).toEqual(want(i))
    }
  }
  expect(await liveEntries(b)).toBe(KEYS.filter((_, i) => want(i).length > 0).length)
}

describe.each(harnesses)('ListState.addToEmpty() on $name', ({ open }) => {
  it('starts lists never written, with no prefetch, and adds after it go to the same lists', async () => {
    const b = await open()
    const l = b.getListState(listState<number>('l'))
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(3)
      l.addToEmpty(i)
      l.add(-i)
    }
    await check(b, 3, i => [i, -i])
  })

  it('starts lists again after a clear in the same bundle and after a drop of the whole state', async () => {
    const b = await open()
    const l = b.getListState(listState<number>('l'))
    if (b.needsPrefetch) await b.prefetch(KEYS.map(key => ({ key, namespace: 3 })))
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(3)
      for (let j = 0; j < 1 + (i % 30); j++) l.add(j)
    }
    await settle(b)
    // Cleared blind (no prefetch), then started again in the same bundle: only the new element stays.
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(3)
      l.clear()
      l.addToEmpty(1000 + i)
    }
    await check(b, 3, i => [1000 + i])
    l.dropAll()
    await written(b)
    await check(b, 3, () => [])
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(3)
      l.addToEmpty(2000 + i)
    }
    await check(b, 3, i => [2000 + i])
  })
})

describe('ListState.addToEmpty() on RocksDB', () => {
  it('starts a list a read in flight is reading: the read brings nothing into it', async () => {
    for (const cacheBytes of [0, 64 << 20]) {
      const b = await openRocks({ cacheBytes })
      const l = b.getListState(listState<number>('l'))
      const reading = b.prefetch(KEYS.map(key => ({ key, namespace: 3 })))
      for (const [i, key] of KEYS.entries()) {
        b.setCurrentKey(key)
        l.setNamespace(3)
        l.addToEmpty(i)
      }
      await reading
      for (const [i, key] of KEYS.entries()) {
        b.setCurrentKey(key)
        l.setNamespace(3)
        expect([...l.get()]).toEqual([i])
      }
      await check(b, 3, i => [i])
    }
  })

  it('refuses a list that holds elements', async () => {
    const b = await openRocks()
    const l = b.getListState(listState<number>('l'))
    const key = KEYS[0]!
    await b.prefetch([{ key, namespace: 3 }])
    b.setCurrentKey(key)
    l.setNamespace(3)
    l.add(1)
    expect(() => l.addToEmpty(2)).toThrow(/added to as empty, but holds elements/)
  })
})
