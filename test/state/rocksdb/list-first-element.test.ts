// ListState.add on RocksDB gives a list's first element arrays of one (not the 17 slots a first push
// reserves): the elements after it, an add after the list was cleared or all expired, and what a
// backend with no cache reads back from disk must be the same as with pushes.
import { afterEach, describe, expect, it } from 'vitest'
import { listState, type StateTtlConfig } from '../../../core/keyed-state.js'
import { makeKey } from '../../../state/key-encoding.js'
import type { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { cleanup, openRocks, restore, snapshot } from './harness.js'

afterEach(cleanup)

const KEY = makeKey([7])

async function readBack(b: RocksDbKeyedStateBackend, ttl?: StateTtlConfig, now?: number): Promise<string[]> {
  const snap = await snapshot(b, b.keyGroupRange)
  const fresh = await openRocks({ cacheBytes: 0 })
  await restore(fresh, snap)
  if (now !== undefined) fresh.setTtlTime(now)
  await fresh.prefetch([{ key: KEY, namespace: 5 }])
  fresh.setCurrentKey(KEY)
  const l = fresh.getListState(listState<string>('rows', ttl))
  l.setNamespace(5)
  return [...l.get()]
}

async function adding(b: RocksDbKeyedStateBackend, values: readonly string[], ttl?: StateTtlConfig): Promise<string[]> {
  const l = b.getListState(listState<string>('rows', ttl))
  await b.prefetch([{ key: KEY, namespace: 5 }])
  b.setCurrentKey(KEY)
  l.setNamespace(5)
  for (const v of values) l.add(v)
  const resident = [...l.get()]
  await b.flush()
  return resident
}

describe('ListState.add, first element', () => {
  it('keeps every element of a new list, resident and read back from disk', async () => {
    const b = await openRocks()
    expect(await adding(b, ['a'])).toEqual(['a'])
    expect(await adding(b, ['b', 'c'])).toEqual(['a', 'b', 'c'])
    await b.sync()
    expect(await readBack(b)).toEqual(['a', 'b', 'c'])
    expect(await b.countEntries({ stored: true })).toBe(3)
  })

  it('after a clear, starts again without overwriting or reviving what was cleared', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    await adding(b, ['a', 'b'])
    await b.sync()
    const l = b.getListState(listState<string>('rows'))
    await b.prefetch([{ key: KEY, namespace: 5 }])
    b.setCurrentKey(KEY)
    l.setNamespace(5)
    l.clear()
    await b.flush()
    expect(await adding(b, ['x'])).toEqual(['x'])
    expect(await adding(b, ['y'])).toEqual(['x', 'y'])
    await b.sync()
    expect(await readBack(b)).toEqual(['x', 'y'])
    expect(await b.countEntries({ stored: true })).toBe(2)
  })

  it('after every element expired, a new first element is kept, read back, and expires in its turn', async () => {
    const ttl: StateTtlConfig = { ttlMs: 1_000, updateType: 'OnCreateAndWrite' }
    const b = await openRocks()
    b.setTtlTime(0)
    await adding(b, ['old'], ttl)
    await b.sync()
    b.setTtlTime(1_500)
    // 'old' has expired: the list reads empty, and the next add is its first element again.
    expect(await adding(b, ['new'], ttl)).toEqual(['new'])
    await b.sync()
    expect(await readBack(b, ttl, 2_000)).toEqual(['new'])
    expect(await readBack(b, ttl, 2_600)).toEqual([])
  })
})
