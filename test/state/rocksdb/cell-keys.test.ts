// A list or map cell keeps no stored key of its own (cache.ts, CellBase.key): its prefix is built into
// a scratch buffer when the written-keys filter is asked about it, when its first elements are read by
// point gets, and when it is written. Keys of every length, short and past the scratch buffer's first
// size (so it grows in the middle of one prefetch), must find what was written under them, on a cache
// that holds nothing (every read goes to disk), with keys never written in between (the filter answers).
import { afterEach, describe, expect, it } from 'vitest'
import { listState, type MapState, mapState } from '../../../core/keyed-state.js'
import { makeKey } from '../../../state/key-encoding.js'
import type { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { cleanup, openRocks } from './harness.js'

afterEach(cleanup)

/** Short and long keys alternating (a long one encodes to well over 256 bytes), each written or not. */
const KEYS = Array.from({ length: 24 }, (_, i) => makeKey([i % 2 === 0 ? `k${i}` : `${'x'.repeat(150 + i * 20)}${i}`, i]))
const WRITTEN = (i: number): boolean => i % 3 !== 2
/** Key i's list: 1 to 6 elements (read whole by point gets, or scanned). */
const listOf = (i: number): string[] => (WRITTEN(i) ? Array.from({ length: 1 + (i % 6) }, (_, j) => `${i}.${j}`) : [])

async function write(b: RocksDbKeyedStateBackend): Promise<void> {
  const l = b.getListState(listState<string>('l'))
  const m = b.getMapState(mapState<string, number>('m'))
  await b.prefetch(KEYS.map(key => ({ key, namespace: 7 })))
  for (const [i, key] of KEYS.entries()) {
    if (!WRITTEN(i)) continue
    b.setCurrentKey(key)
    l.setNamespace(7)
    m.setNamespace(7)
    for (const v of listOf(i)) l.add(v)
    m.put(`e${i}`, i)
    m.put('same', -i)
  }
  await b.sync()
}

async function read(b: RocksDbKeyedStateBackend): Promise<void> {
  const l = b.getListState(listState<string>('l'))
  const m = b.getMapState(mapState<string, number>('m'))
  await b.prefetch(KEYS.map(key => ({ key, namespace: 7 })))
  for (const [i, key] of KEYS.entries()) {
    b.setCurrentKey(key)
    l.setNamespace(7)
    m.setNamespace(7)
    expect([...l.get()], `list of key ${i}`).toEqual(listOf(i))
    expect([...m.entries()].sort(), `map of key ${i}`).toEqual(WRITTEN(i) ? [[`e${i}`, i], ['same', -i]].sort() : [])
  }
  await b.sync()
}

describe('RocksDB list and map cells without a kept stored key', () => {
  it('reads back what keys of every length wrote, through the filter, point gets and scans', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    await write(b)
    await read(b)
    // Appended to after a read from disk: the next elements follow the stored ones.
    const l = b.getListState(listState<string>('l'))
    await b.prefetch(KEYS.map(key => ({ key, namespace: 7 })))
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(7)
      l.add(`${i}.more`)
    }
    await b.sync()
    await b.prefetch(KEYS.map(key => ({ key, namespace: 7 })))
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(7)
      expect([...l.get()], `list of key ${i}`).toEqual([...listOf(i), `${i}.more`])
    }
  })

  it('clears and removes under long keys: what a clear or a remove deleted stays gone once evicted', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    await write(b)
    const l = b.getListState(listState<string>('l'))
    const m = b.getMapState(mapState<string, number>('m'))
    await b.prefetch(KEYS.map(key => ({ key, namespace: 7 })))
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(7)
      m.setNamespace(7)
      if (i % 2 === 1) {
        l.update(['only'])
        m.clear()
      } else m.remove('same')
    }
    await b.sync()
    await b.prefetch(KEYS.map(key => ({ key, namespace: 7 })))
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(7)
      m.setNamespace(7)
      expect([...l.get()], `list of key ${i}`).toEqual(i % 2 === 1 ? ['only'] : listOf(i))
      expect([...m.entries()], `map of key ${i}`).toEqual(i % 2 === 1 || !WRITTEN(i) ? [] : [[`e${i}`, i]])
    }
  })
})

// A map entry's stored key is written by the flush from its user key (write-back.ts, writeEntryKey)
// and built again when a resident entry is removed (entryKey): number keys (Top-N numbers its rows)
// are encoded at each write rather than kept on the entry, so both ways must give the same bytes, and
// the key must read back as the same value once the cache has dropped it.
describe('RocksDB map entries under non-string user keys', () => {
  const USER_KEYS: readonly unknown[] = [0, 1, 7, 127, 128, 65_535, -1, -300, 2 ** 40 + 3, 0.5, -2.25, 10n ** 20n, true, null, [1, 'a'], ['x', 2.5]]
  const KEY = makeKey(['k'])
  const sorted = (es: [unknown, string][]): [unknown, string][] => es.sort((x, y) => (x[1] < y[1] ? -1 : 1))

  async function session(b: RocksDbKeyedStateBackend): Promise<(f: (m: MapState<unknown, string>) => void) => Promise<void>> {
    const m = b.getMapState(mapState<unknown, string>('m'))
    return async f => {
      await b.prefetch([{ key: KEY, namespace: 3 }])
      b.setCurrentKey(KEY)
      m.setNamespace(3)
      f(m)
      await b.sync()
    }
  }

  it('reads each entry back from disk under the key it was put with', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    const at = await session(b)
    await at(m => USER_KEYS.forEach((k, i) => m.put(k, `v${i}`)))
    await at(m => expect(sorted([...m.entries()])).toEqual(sorted(USER_KEYS.map((k, i) => [k, `v${i}`]))))
  })

  it('a remove of a resident entry deletes the key its put wrote', async () => {
    const b = await openRocks()
    const at = await session(b)
    await at(m => USER_KEYS.forEach((k, i) => m.put(k, `v${i}`)))
    expect(await b.countEntries()).toBe(USER_KEYS.length)
    await at(m => USER_KEYS.forEach((k, i) => i % 2 === 0 && m.remove(k)))
    // Counted on disk: a remove under other bytes than the put's would leave every entry there.
    expect(await b.countEntries()).toBe(USER_KEYS.length / 2)
  })
})
