// ListState.dropAll(): every list of one state, of every key and namespace, goes at once and blind (an
// interval join's buckets at the final watermark). On RocksDB one range delete per key group of the
// subtask, whether the lists are resident, evicted, partly written, being read, or never written. Checked
// on both backends: the state is empty afterwards and after a restart of the cache, another state of the
// same keys is untouched, the exact entry count agrees, and a snapshot restored into each third of the
// key groups holds the same; on RocksDB also what it writes and the entry count it keeps.
import { afterEach, describe, expect, it } from 'vitest'
import { type KeyedStateBackend, type KeyRef, listState } from '../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../state/key-encoding.js'
import { RocksDbKeyedStateBackend } from '../../state/rocksdb/index.js'
import { cleanup, harnesses, liveEntries, openRocks, restore, settle, snapshot, written } from './rocksdb/harness.js'

afterEach(cleanup)

const KEYS = Array.from({ length: 200 }, (_, i) => makeKey([i % 5 === 0 ? `k${i}` : i]))
const NS = [5, 6]
/** Key i's list of 'l' in namespace ns (1 to 40 elements), and its one list of 'keep'. */
const contents = (i: number, ns: number): number[] => Array.from({ length: 1 + ((i * 7 + ns) % 40) }, (_, j) => i * 1000 + ns * 100 + j)
const kept = (i: number): number[] => [i, -i]

function mine(b: KeyedStateBackend, keys: readonly KeyRef[] = KEYS): KeyRef[] {
  const range = (b as KeyedStateBackend & { keyGroupRange: { start: number; end: number } }).keyGroupRange
  return keys.filter(k => k.group >= range.start && k.group <= range.end)
}

/** Every key's lists of 'l' in both namespaces (in two bundles, so longer ones are partly written) and of 'keep' in namespace 5. */
async function fill(b: KeyedStateBackend, withKeep = true): Promise<void> {
  const l = b.getListState(listState<number>('l'))
  const keep = withKeep ? b.getListState(listState<number>('keep')) : null
  for (const half of [0, 1]) {
    if (b.needsPrefetch) await b.prefetch(mine(b).flatMap(key => NS.map(namespace => ({ key, namespace }))))
    for (const key of mine(b)) {
      const i = KEYS.indexOf(key)
      b.setCurrentKey(key)
      for (const ns of NS) {
        l.setNamespace(ns)
        const all = contents(i, ns)
        const at = Math.ceil(all.length / 2)
        for (const v of half === 0 ? all.slice(0, at) : all.slice(at)) l.add(v)
      }
      if (keep !== null && half === 1) {
        keep.setNamespace(5)
        for (const v of kept(i)) keep.add(v)
      }
    }
    await settle(b)
  }
}

/** Every list of 'l' is empty and every one of 'keep' whole, and the exact entry count is the lists of 'keep'. */
async function check(b: KeyedStateBackend, keys = mine(b)): Promise<void> {
  const l = b.getListState(listState<number>('l'))
  const keep = b.getListState(listState<number>('keep'))
  await written(b)
  if (b.needsPrefetch) await b.prefetch(keys.flatMap(key => NS.map(namespace => ({ key, namespace }))))
  for (const key of keys) {
    b.setCurrentKey(key)
    for (const ns of NS) {
      l.setNamespace(ns)
      expect([...l.get()], `list of ${key.encoded} in ${ns}`).toEqual([])
    }
    keep.setNamespace(5)
    expect([...keep.get()], `kept list of ${key.encoded}`).toEqual(kept(KEYS.indexOf(key)))
  }
  expect(await liveEntries(b)).toBe(keys.length)
}

/** Half the keys made resident again (the others stay wherever the cache left them), then 'l' dropped whole with no prefetch. */
async function dropAll(b: KeyedStateBackend): Promise<void> {
  if (b.needsPrefetch) await b.prefetch(mine(b).filter((_, i) => i % 2 === 0).map(key => ({ key, namespace: 5 })))
  b.getListState(listState<number>('l')).dropAll()
}

describe.each(harnesses)('ListState.dropAll() on $name', ({ open }) => {
  it('drops every list of the state, resident or not, and leaves another state of the same keys alone', async () => {
    const b = await open()
    await fill(b)
    await dropAll(b)
    await check(b)
    // And again after a restart of the cache: nothing comes back from disk.
    await written(b)
    await check(b)
  })

  it('snapshots and restores the dropped state at another parallelism', async () => {
    const source = await open()
    await fill(source)
    await dropAll(source)
    await settle(source)
    const snap = await snapshot(source, { start: 0, end: 127 })
    for (let j = 0; j < 3; j++) {
      const target = await open({ keyGroupRange: keyGroupRange(j, 3) })
      await restore(target, snap)
      await check(target)
    }
  })

  it('drops every list at a subtask of parallelism 2', async () => {
    const source = await open({ keyGroupRange: keyGroupRange(1, 2) })
    await fill(source)
    await dropAll(source)
    await check(source)
    expect(mine(source).length).toBeGreaterThan(0)
  })
})

describe('ListState.dropAll() on RocksDB', () => {
  it('writes one range delete per key group, nothing for elements never written, and counts the lists out', async () => {
    for (const cacheBytes of [0, 64 << 20]) {
      const b = await openRocks({ cacheBytes, writeBack: 'deferred' })
      await fill(b, false)
      await b.sync()
      // Elements added since the last write, held by deferred write-back: dropped with no write of theirs.
      const l = b.getListState(listState<number>('l'))
      await b.prefetch(KEYS.map(key => ({ key, namespace: 7 })))
      for (const key of KEYS) {
        b.setCurrentKey(key)
        l.setNamespace(7)
        for (let j = 0; j < 50; j++) l.add(j)
      }
      await b.flush()
      const before = b.stats().bytesWritten!
      l.dropAll()
      // The state is the backend's only one: its lists were every entry.
      expect(b.stats().entries).toBe(0)
      await b.sync()
      // 128 range deletes of two 4-byte keys each, where 200 keys' lists written would be kilobytes.
      expect(b.stats().bytesWritten! - before).toBeLessThanOrEqual(128 * 8)
      expect(await b.countEntries({ stored: true })).toBe(0)
      expect(b.stats().entries).toBe(0)
    }
  })

  it('drops what a prefetch in flight reads of the lists', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    await fill(b)
    await b.sync()
    const reading = b.prefetch(KEYS.flatMap(key => NS.map(namespace => ({ key, namespace }))))
    b.getListState(listState<number>('l')).dropAll()
    await reading
    const l = b.getListState(listState<number>('l'))
    for (const key of KEYS) {
      b.setCurrentKey(key)
      for (const ns of NS) {
        l.setNamespace(ns)
        expect([...l.get()], `list of ${key.encoded} in ${ns}`).toEqual([])
      }
    }
    await check(b)
  })

  it('keeps the drop through key groups copied to a database of another parallelism', async () => {
    const source = await openRocks({ cacheBytes: 0 })
    await fill(source)
    await dropAll(source)
    await source.sync()
    expect(source).toBeInstanceOf(RocksDbKeyedStateBackend)
    for (let j = 0; j < 2; j++) {
      const t = await openRocks({ keyGroupRange: keyGroupRange(j, 2), cacheBytes: 0 })
      await t.copyKeyGroupsFrom(source, keyGroupRange(j, 2))
      await check(t)
    }
  })
})
