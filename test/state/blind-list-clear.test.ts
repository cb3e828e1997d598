// ListState.clear() is blind: it needs no prefetch of the (key, namespace), and on RocksDB deletes the
// stored elements without reading them (point deletes of a resident list's few known elements, a
// range delete otherwise, nothing for a list never written). Checked on both backends: lists of
// every size, resident or evicted, cleared with or without a read in flight and written again in the
// same bundle; and on RocksDB that the deletes hold after a checkpoint restored at the same and at
// another parallelism (incremental SSTs carrying range tombstones) and after key-group transfers.
// ListState.drop() (a list nothing touches again: RocksDB range-deletes an evicted one without a
// cache entry) the same, where it applies.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileCheckpointStorage } from '../../checkpoint/storage/file.js'
import { type KeyedStateBackend, type KeyRef, listState } from '../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../state/key-encoding.js'
import { POINT_DELETES } from '../../state/rocksdb/blind-clear.js'
import { RocksDbKeyedStateBackend } from '../../state/rocksdb/index.js'
import { restoreRocksDbSubtask, takeLocalSnapshot, uploadSnapshot } from '../../state/rocksdb/snapshot.js'
import { cleanup, type Harness, harnesses, liveEntries, openRocks, restore, settle, snapshot, tempDir, written } from './rocksdb/harness.js'

afterEach(cleanup)

/** List sizes around the point-delete limit, and a long one. */
const SIZES = [1, 2, POINT_DELETES - 1, POINT_DELETES, POINT_DELETES + 1, 300]
const KEYS = Array.from({ length: 240 }, (_, i) => makeKey([i % 4 === 0 ? `k\x00${i}` : i]))
const NS = [5, 6]
/** Key i's list in namespace ns: size by key, values that tell lists apart. */
const contents = (i: number, ns: number): number[] => Array.from({ length: SIZES[i % SIZES.length]! }, (_, j) => i * 1000 + ns * 100 + j)
/** Which lists a test clears: every other key, in namespace 5 only (namespace 6 of the same key stays). */
const cleared = (i: number, ns: number): boolean => i % 2 === 0 && ns === 5

type Model = Map<string, number[]>
const id = (key: KeyRef, ns: number): string => `${key.encoded}/${ns}`

/** The keys in the backend's key groups (both backends have a range). */
function mine(b: KeyedStateBackend, keys: readonly KeyRef[]): KeyRef[] {
  const range = (b as KeyedStateBackend & { keyGroupRange: { start: number; end: number } }).keyGroupRange
  return keys.filter(k => k.group >= range.start && k.group <= range.end)
}

/** Writes every key's lists in both namespaces, in two bundles (so the longer ones are partly flushed); returns the model. */
async function fill(b: KeyedStateBackend, keys = KEYS): Promise<Model> {
  const l = b.getListState(listState<number>('l'))
  const model: Model = new Map()
  const own = mine(b, keys)
  for (const half of [0, 1]) {
    if (b.needsPrefetch) await b.prefetch(own.flatMap(key => NS.map(namespace => ({ key, namespace }))))
    for (const key of own) {
      const i = KEYS.indexOf(key)
      b.setCurrentKey(key)
      for (const ns of NS) {
        l.setNamespace(ns)
        const all = contents(i, ns)
        const part = half === 0 ? all.slice(0, Math.ceil(all.length / 2)) : all.slice(Math.ceil(all.length / 2))
        for (const v of part) l.add(v)
        model.set(id(key, ns), all)
      }
    }
    await settle(b)
  }
  return model
}

/** Clears (or drops for good) the chosen lists with no prefetch at all. */
function clearBlind(b: KeyedStateBackend, model: Model, keys = KEYS, how: 'clear' | 'drop' = 'clear'): void {
  const l = b.getListState(listState<number>('l'))
  for (const key of mine(b, keys)) {
    const i = KEYS.indexOf(key)
    b.setCurrentKey(key)
    for (const ns of NS) {
      if (!cleared(i, ns)) continue
      l.setNamespace(ns)
      if (how === 'drop') l.drop()
      else l.clear()
      model.delete(id(key, ns))
    }
  }
}

/** Reads every list back (prefetched) and compares with the model; then the exact entry count. */
async function check(b: KeyedStateBackend, model: Model, keys = KEYS): Promise<void> {
  const l = b.getListState(listState<number>('l'))
  const own = mine(b, keys)
  await settle(b)
  if (b.needsPrefetch) await b.prefetch(own.flatMap(key => NS.map(namespace => ({ key, namespace }))))
  let lists = 0
  for (const key of own) {
    b.setCurrentKey(key)
    for (const ns of NS) {
      l.setNamespace(ns)
      const want = model.get(id(key, ns)) ?? []
      if (want.length > 0) lists++
      expect([...l.get()], `list of ${key.encoded} in ${ns}`).toEqual(want)
    }
  }
  expect(await liveEntries(b)).toBe(lists)
}

/** Lists cleared or dropped, then snapshotted and restored into each third of the key groups: every third holds the model. */
async function restoredInThirds(open: Harness['open'], how: 'clear' | 'drop'): Promise<void> {
  const source = await open()
  const model = await fill(source)
  clearBlind(source, model, KEYS, how)
  await settle(source)
  const snap = await snapshot(source, { start: 0, end: 127 })
  for (let j = 0; j < 3; j++) {
    const target = await open({ keyGroupRange: keyGroupRange(j, 3) })
    await restore(target, snap)
    await check(target, model)
  }
}

describe.each(harnesses)('ListState.clear() without a prefetch on $name', ({ open }) => {
  it('deletes lists of every size, resident or not, and leaves the other namespace and keys alone', async () => {
    const b = await open()
    const model = await fill(b)
    clearBlind(b, model)
    await check(b, model)
    // And again after a restart of the cache: nothing comes back from disk.
    await written(b)
    await check(b, model)
  })

  it('keeps what is added after the clear in the same bundle, and clearing an empty or never-written list is a no-op', async () => {
    const b = await open()
    const l = b.getListState(listState<number>('l'))
    const model = await fill(b)
    clearBlind(b, model)
    const own = mine(b, KEYS)
    if (b.needsPrefetch) await b.prefetch(own.map(key => ({ key, namespace: 5 })))
    for (const key of own) {
      const i = KEYS.indexOf(key)
      if (!cleared(i, 5)) continue
      b.setCurrentKey(key)
      l.setNamespace(5)
      l.add(-i)
      model.set(id(key, 5), [-i])
    }
    // Never written: namespace 9 of every key, cleared blind.
    for (const key of own) {
      b.setCurrentKey(key)
      l.setNamespace(9)
      l.clear()
    }
    await check(b, model)
    // Cleared twice, the second time after the first was written.
    clearBlind(b, model)
    await settle(b)
    clearBlind(b, model)
    await check(b, model)
  })

  it('snapshots and restores the cleared state at another parallelism', () => restoredInThirds(open, 'clear'))
})

describe('ListState.clear() without a prefetch on RocksDB', () => {
  it('drops what a prefetch in flight reads of a list it clears', async () => {
    for (const cacheBytes of [0, 64 << 20]) {
      const b = await openRocks({ cacheBytes })
      const l = b.getListState(listState<number>('l'))
      const model = await fill(b)
      await b.sync()
      // A read-ahead of the next batch is reading the lists when a timer clears them.
      const reading = b.prefetch(KEYS.flatMap(key => NS.map(namespace => ({ key, namespace }))))
      clearBlind(b, model)
      await reading
      for (const key of KEYS) {
        const i = KEYS.indexOf(key)
        b.setCurrentKey(key)
        l.setNamespace(5)
        expect([...l.get()], `list of ${key.encoded}`).toEqual(model.get(id(key, 5)) ?? [])
        expect(cleared(i, 5) || l.get().length > 0).toBe(true)
      }
      await check(b, model)
    }
  })

  it('writes no delete for a list never written, and a range delete only past the point-delete limit', async () => {
    const b = await openRocks()
    const l = b.getListState(listState<number>('l'))
    const key = makeKey(['one'])
    await b.sync() // the state's registration
    const registered = b.stats().bytesWritten
    b.setCurrentKey(key)
    l.setNamespace(1)
    l.clear()
    await b.sync()
    expect(b.stats().bytesWritten).toBe(registered)
    // Resident, a few elements on disk: point deletes of their keys; many: one range delete (two keys' bytes).
    for (const n of [3, POINT_DELETES + 10]) {
      await b.prefetch([{ key, namespace: n }])
      b.setCurrentKey(key)
      l.setNamespace(n)
      for (let j = 0; j < n; j++) l.add(j)
      await b.sync()
      const before = b.stats().bytesWritten!
      l.clear()
      await b.sync()
      const elementKey = before / n // about: the values are small numbers
      const deleted = b.stats().bytesWritten! - before
      if (n === 3) expect(deleted).toBeGreaterThan(2 * elementKey * 0.5)
      else expect(deleted).toBeLessThan(elementKey * 3)
      await b.prefetch([{ key, namespace: n }])
      b.setCurrentKey(key)
      l.setNamespace(n)
      expect(l.get()).toEqual([])
    }
    expect(await b.countEntries()).toBe(0)
  })

  it('holds its range deletes through an incremental checkpoint restored at the same and another parallelism', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weir-blind-chk-'))
    const storage = new FileCheckpointStorage(join(root, 'checkpoints'))
    const opened: RocksDbKeyedStateBackend[] = []
    try {
      const model: Model = new Map()
      const handles = []
      for (let i = 0; i < 2; i++) {
        // Cache 0: every list is evicted, so every clear is blind (range deletes).
        const b = await RocksDbKeyedStateBackend.open({ dir: join(root, `src-${i}`), jobName: 'job', operatorId: 'op', keyGroupRange: keyGroupRange(i, 2),
          cacheBytes: 0 })
        opened.push(b)
        const m = await fill(b)
        // A first checkpoint with every list, then the clears: the second one's new SSTs hold the tombstones.
        let local = await takeLocalSnapshot(b, join(root, 'local', `snap-${i}-1`))
        const stored = new Map()
        await uploadSnapshot(local, storage, { sharedPrefix: 'shared/', ownPrefix: `chk-1/op-${i}/rocksdb/`, selfContained: false }, stored)
        clearBlind(b, m)
        await b.sync()
        local = await takeLocalSnapshot(b, join(root, 'local', `snap-${i}-2`))
        const second = await uploadSnapshot(local, storage, { sharedPrefix: 'shared/', ownPrefix: `chk-2/op-${i}/rocksdb/`, selfContained: false }, stored)
        // Incremental: the first checkpoint's SSTs are referenced, not stored again.
        expect(second.files.some(f => f.shared && f.object.length > 0 && !f.object.includes('chk-2'))).toBe(true)
        handles.push(second)
        for (const [k, v] of m) model.set(k, v)
      }
      for (const p of [2, 3]) {
        for (let j = 0; j < p; j++) {
          const r = await restoreRocksDbSubtask({
            open: { dir: join(root, `restored-${p}-${j}`), jobName: 'job', operatorId: 'op', maxParallelism: 128, cacheBytes: 0 },
            range: keyGroupRange(j, p),
            handles,
            storage,
            tmpDir: join(root, 'tmp'),
          })
          opened.push(r.backend)
          await check(r.backend, model)
        }
      }
    } finally {
      for (const b of opened) await b.destroy().catch(() => undefined)
      await rm(root, { recursive: true, force: true })
    }
  })

  it('holds its range deletes when key groups are copied to a database of another parallelism', async () => {
    const sources = [await openRocks({ keyGroupRange: keyGroupRange(0, 2), cacheBytes: 0 }),
      await openRocks({ keyGroupRange: keyGroupRange(1, 2), cacheBytes: 0 })]
    const model: Model = new Map()
    for (const s of sources) {
      const m = await fill(s)
      clearBlind(s, m)
      await s.sync()
      for (const [k, v] of m) model.set(k, v)
    }
    for (let j = 0; j < 3; j++) {
      const t = await openRocks({ keyGroupRange: keyGroupRange(j, 3), cacheBytes: 0 })
      for (const s of sources) await t.copyKeyGroupsFrom(s, s.keyGroupRange)
      await check(t, model)
    }
    const folder = join(await tempDir('weir-snap-'), 'kg')
    for (const s of sources) await s.snapshotKeyGroups(s.keyGroupRange, folder)
    const t = await openRocks({ cacheBytes: 0 })
    await t.restoreKeyGroups(folder)
    await check(t, model)
  })
})

describe.each(harnesses)('ListState.drop() without a prefetch on $name', ({ open }) => {
  it('deletes lists of every size, resident or not, and leaves the other namespace and keys alone', async () => {
    const b = await open()
    const model = await fill(b)
    clearBlind(b, model, KEYS, 'drop')
    await check(b, model)
    await written(b)
    await check(b, model)
  })

  it('snapshots and restores the dropped state at another parallelism', () => restoredInThirds(open, 'drop'))
})

describe('ListState.drop() without a prefetch on RocksDB', () => {
  it('makes no cache entry for an evicted list, writes nothing for one never written, and its deletes hold', async () => {
    for (const cacheBytes of [0, 64 << 20]) {
      const b = await openRocks({ cacheBytes })
      const model = await fill(b)
      await b.sync()
      const slots = b.cacheStats().slots
      clearBlind(b, model, KEYS, 'drop')
      // Cache 0: nothing was resident, and dropping brought nothing in; a cache that kept every list clears them in place.
      if (cacheBytes === 0) expect(b.cacheStats().slots).toBe(slots)
      await b.sync()
      expect(b.stats().bytesWritten).toBeGreaterThan(0)
      const l = b.getListState(listState<number>('l'))
      const before = b.stats().bytesWritten!
      for (const key of KEYS) {
        b.setCurrentKey(key)
        l.setNamespace(9)
        l.drop()
      }
      await b.sync()
      // Namespace 9 was never written: the written-keys filter spares its deletes (a false positive
      // writes one range delete, two ~40-byte keys; 240 of them would be ~19 KB).
      expect(b.stats().bytesWritten! - before).toBeLessThan(8 * 100)
      await check(b, model)
      expect(await b.countEntries()).toBe(model.size)
    }
  })

  it('holds its range deletes through a checkpoint restored at another parallelism (cache 0: every drop bypasses the cache)', async () => {
    const source = await openRocks({ cacheBytes: 0 })
    const model = await fill(source)
    clearBlind(source, model, KEYS, 'drop')
    await settle(source)
    const snap = await snapshot(source, { start: 0, end: 127 })
    for (let j = 0; j < 2; j++) {
      const target = await openRocks({ keyGroupRange: keyGroupRange(j, 2), cacheBytes: 0 })
      await restore(target, snap)
      await check(target, model)
    }
  })
})
