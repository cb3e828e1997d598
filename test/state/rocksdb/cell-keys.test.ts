// A list or map cell keeps no stored key of its own (cache.ts, CellBase.key): its prefix is built into
// a scratch buffer when the written-keys filter is asked about it, when its first elements are read by
// point gets, and when it is written. Keys of every length, short and past the scratch buffer's first
// size (so it grows in the middle of one prefetch), must find what was written under them, on a cache
// that holds nothing (every read goes to disk), with keys never written in between (the filter answers).
import { afterEach, describe, expect, it } from 'vitest'
import { listState, mapState } from '../../../core/keyed-state.js'
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
