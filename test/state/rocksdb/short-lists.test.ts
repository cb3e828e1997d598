// Short lists read by point gets (prefetch.ts, SHORT_LIST): a list the backend wrote itself without
// TTL is read by gets of its first elements, and whole when it has fewer; anything else is scanned —
// a longer list, one whose elements no longer start at 0 (cleared by point deletes, then added to),
// lists with TTL, and every list once key groups came in from elsewhere.
import { afterEach, describe, expect, it } from 'vitest'
import { listState, type StateTtlConfig } from '../../../core/keyed-state.js'
import { makeKey } from '../../../state/key-encoding.js'
import { SHORT_LIST } from '../../../state/rocksdb/prefetch.js'
import type { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { cleanup, openRocks } from './harness.js'

afterEach(cleanup)

const KEYS = Array.from({ length: 3 * SHORT_LIST }, (_, i) => makeKey([`k${i}`]))
/** Key i's list has i elements (0 to 3 × SHORT_LIST - 1). */
const want = (i: number): number[] => Array.from({ length: i }, (_, j) => i * 100 + j)

async function write(b: RocksDbKeyedStateBackend, ttl?: StateTtlConfig): Promise<void> {
  const l = b.getListState(listState<number>('l', ttl))
  await b.prefetch(KEYS.map(key => ({ key, namespace: 1 })))
  for (const [i, key] of KEYS.entries()) {
    b.setCurrentKey(key)
    l.setNamespace(1)
    for (const v of want(i)) l.add(v)
  }
  await b.sync()
}

/** Reads every list back from disk (cache 0: nothing stays resident); returns the gets and scans it took. */
async function read(b: RocksDbKeyedStateBackend, ttl?: StateTtlConfig, expected = want): Promise<{ gets: number; scans: number }> {
  const l = b.getListState(listState<number>('l', ttl))
  const before = b.cacheStats()
  await b.prefetch(KEYS.map(key => ({ key, namespace: 1 })))
  const after = b.cacheStats()
  for (const [i, key] of KEYS.entries()) {
    b.setCurrentKey(key)
    l.setNamespace(1)
    expect([...l.get()], `list ${i}`).toEqual(expected(i))
  }
  await b.sync()
  return { gets: after.gets - before.gets, scans: after.scans - before.scans }
}

describe('RocksDB short lists read by point gets', () => {
  it('reads a list shorter than SHORT_LIST by gets and a longer one by a scan', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    await write(b)
    const { gets, scans } = await read(b)
    // Key 0's list was never written (the filter answers); keys 1..SHORT_LIST-1 are read by gets alone.
    expect(gets).toBe((KEYS.length - 1) * SHORT_LIST)
    expect(scans).toBe(KEYS.length - SHORT_LIST)
  })

  it('scans a list cleared by point deletes and added to, whose elements no longer start at 0', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    await write(b)
    const l = b.getListState(listState<number>('l'))
    // Resident when cleared: its few stored elements go by point deletes, and new ones follow their numbers.
    await b.prefetch(KEYS.map(key => ({ key, namespace: 1 })))
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      l.setNamespace(1)
      l.clear()
      l.add(-i)
    }
    await b.sync()
    const { scans } = await read(b, undefined, i => [-i])
    expect(scans).toBeGreaterThan(0)
  })

  it('scans lists with TTL, and every list after key groups were copied in', async () => {
    const ttl: StateTtlConfig = { ttlMs: 60_000, updateType: 'OnCreateAndWrite' }
    const b = await openRocks({ cacheBytes: 0 })
    b.setTtlTime(0)
    await write(b, ttl)
    expect((await read(b, ttl)).gets).toBe(0)
    const source = await openRocks()
    await write(source)
    const t = await openRocks({ cacheBytes: 0 })
    await t.copyKeyGroupsFrom(source, source.keyGroupRange)
    const { gets, scans } = await read(t)
    expect(gets).toBe(0)
    expect(scans).toBe(KEYS.length - 1)
  })
})
