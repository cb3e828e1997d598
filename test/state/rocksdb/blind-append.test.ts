// ListState.add on RocksDB without reading the list (a prefetch's appendOnly request): a list that is
// not resident is appended to blind, numbered from the store's listSeq on, and read back whole and in
// order later — after eviction, with the read started while the tail is still being appended to, after
// a checkpoint restored at another parallelism (two old subtasks into one, then more blind appends),
// and after a key-group copy. A clear or update of a blind tail loses its unread head too.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileCheckpointStorage } from '../../../checkpoint/storage/file.js'
import { type KeyRef, listState } from '../../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../../state/key-encoding.js'
import { cellKey, elementPrefixLength, listElementKey, namespaceBytes, listPrefixLength, readSeq, WIDE_SEQ, writeSeq } from '../../../state/rocksdb/codec.js'
import { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { restoreRocksDbSubtask, takeLocalSnapshot, uploadSnapshot } from '../../../state/rocksdb/snapshot.js'
import { FIRST_BLIND_SEQ } from '../../../state/rocksdb/tables.js'
import { cleanup, openRocks } from './harness.js'

afterEach(cleanup)

const KEYS = Array.from({ length: 60 }, (_, i) => makeKey([i % 3 === 0 ? `k${i}` : i]))
const NS = [4, 'b|7']
type Model = Map<string, number[]>
const id = (key: KeyRef, ns: number | string): string => `${key.encoded}/${ns}`
const mine = (b: RocksDbKeyedStateBackend, keys: readonly KeyRef[]): KeyRef[] =>
  keys.filter(k => k.group >= b.keyGroupRange.start && k.group <= b.keyGroupRange.end)

/** One access batch: every list of `keys` gets `n` more elements, prefetched append-only (blind) or read first. */
async function append(b: RocksDbKeyedStateBackend, model: Model, keys: readonly KeyRef[], n: number, blind: boolean, tag: number): Promise<void> {
  const l = b.getListState(listState<number>('l'))
  const own = mine(b, keys)
  await b.prefetch(own.flatMap(key => NS.map(namespace => blind ? { key, namespace, appendOnly: true } : { key, namespace })))
  for (const key of own) {
    b.setCurrentKey(key)
    for (const ns of NS) {
      l.setNamespace(ns)
      const list = model.get(id(key, ns)) ?? []
      for (let j = 0; j < n; j++) {
        const v = tag * 100_000 + list.length
        l.add(v)
        list.push(v)
      }
      model.set(id(key, ns), list)
    }
  }
  await b.flush()
}

/** Reads every list of `keys` back (one prefetch) and compares it with the model. */
async function check(b: RocksDbKeyedStateBackend, model: Model, keys = KEYS): Promise<void> {
  const l = b.getListState(listState<number>('l'))
  const own = mine(b, keys)
  await b.prefetch(own.flatMap(key => NS.map(namespace => ({ key, namespace }))))
  for (const key of own) {
    b.setCurrentKey(key)
    for (const ns of NS) {
      l.setNamespace(ns)
      expect([...l.get()], `${key.encoded} ${ns}`).toEqual(model.get(id(key, ns)) ?? [])
    }
  }
  await b.flush()
}

describe('sequence numbers in list element keys', () => {
  it('keep numeric order as bytes across the short and the wide form, and read back', () => {
    for (const [key, ns] of [[makeKey([7]), 4], [makeKey(['a', 2]), 'w|9'], [makeKey([-1.5]), -0.25]] as const) {
      const prefix = cellKey(key.group, 3, key.encoded, namespaceBytes(ns))
      orderedSeqs(prefix)
    }
  })
})

function orderedSeqs(prefix: Buffer): void {
  const seqs = [0, 1, 255, 65_536, WIDE_SEQ - 1, WIDE_SEQ, 2 ** 32 - 1, FIRST_BLIND_SEQ, FIRST_BLIND_SEQ + 1, 2 ** 40 + 3, 2 ** 53 - 1]
  const keys = seqs.map(s => listElementKey(prefix, s))
  for (let i = 0; i < seqs.length; i++) {
    expect(readSeq(keys[i]!, prefix.length)).toBe(seqs[i])
    expect(listPrefixLength(keys[i]!)).toBe(prefix.length)
    expect(elementPrefixLength(keys[i]!)).toBe(prefix.length)
    if (i > 0) expect(Buffer.compare(keys[i - 1]!, keys[i]!)).toBe(-1)
  }
  // Below 2^31 the u32 of older formats, byte for byte.
  const old = Buffer.alloc(4)
  old.writeUInt32BE(70_000)
  expect(listElementKey(prefix, 70_000).subarray(prefix.length)).toEqual(old)
  const buf = Buffer.alloc(8)
  expect(writeSeq(buf, 0, FIRST_BLIND_SEQ)).toBe(8)
}

describe('ListState.add without a read (appendOnly prefetch) on RocksDB', () => {
  it('appends blind to evicted lists and reads them back whole and in order, reading nothing for the appends', async () => {
    for (const writeBack of ['bundle', 'deferred'] as const) {
      const b = await openRocks({ cacheBytes: 0, writeBack })
      const model: Model = new Map()
      // A head numbered from 0 (read first), then blind tails, a read between them, and blind again.
      await append(b, model, KEYS, 3, false, 1)
      await b.sync()
      const before = b.cacheStats()
      await append(b, model, KEYS, 2, true, 2)
      await b.sync()
      await append(b, model, KEYS.slice(0, 30), 1, true, 3)
      await b.sync()
      const after = b.cacheStats()
      expect(after.gets + after.scans + after.skippedScans).toBe(before.gets + before.scans + before.skippedScans)
      await check(b, model)
      await append(b, model, KEYS, 1, true, 4)
      // New lists appended blind (the filter knows they were never written) and lists read after.
      await append(b, model, [makeKey(['fresh-1']), makeKey(['fresh-2'])], 2, true, 5)
      await b.sync()
      await check(b, model, [...KEYS, makeKey(['fresh-1']), makeKey(['fresh-2'])])
      await append(b, model, KEYS, 1, false, 6)
      await b.sync()
      await check(b, model)
      expect(await b.countEntries()).toBe(model.size)
    }
  })

  it('reads a tail that is still being appended to: its head goes in front of every element appended meanwhile', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    const l = b.getListState(listState<number>('l'))
    const model: Model = new Map()
    await append(b, model, KEYS, 4, false, 1)
    await b.sync()
    // Batch N only appends (prefetched); batch N+1, read ahead before N runs, reads the same lists.
    await b.prefetch(KEYS.map(key => ({ key, namespace: 4, appendOnly: true })))
    const reading = b.prefetch(KEYS.map(key => ({ key, namespace: 4 })))
    for (const key of KEYS) {
      b.setCurrentKey(key)
      l.setNamespace(4)
      l.add(-1)
      l.addChunk(-2)
      model.get(id(key, 4))!.push(-1, -2)
    }
    await b.flush()
    await reading
    for (const key of KEYS) {
      b.setCurrentKey(key)
      l.setNamespace(4)
      expect([...l.get()]).toEqual(model.get(id(key, 4)))
      l.add(-3)
      model.get(id(key, 4))!.push(-3)
    }
    await b.sync()
    await check(b, model)
  })

  it('refuses to read a list made resident only to append to', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    const model: Model = new Map()
    await append(b, model, KEYS.slice(0, 1), 2, false, 1)
    await b.sync()
    await b.prefetch([{ key: KEYS[0]!, namespace: 4, appendOnly: true }])
    b.setCurrentKey(KEYS[0]!)
    const l = b.getListState(listState<number>('l'))
    l.setNamespace(4)
    expect(() => l.get()).toThrow(/without a prefetch/)
  })

  it('clears and updates a blind tail with its unread head, also while a read of the head is in flight', async () => {
    for (const inFlight of [false, true]) {
      const b = await openRocks({ cacheBytes: 0 })
      const l = b.getListState(listState<number>('l'))
      const model: Model = new Map()
      await append(b, model, KEYS, 20, false, 1)
      await b.sync()
      await append(b, model, KEYS, 1, true, 2)
      await b.sync()
      await b.prefetch(KEYS.map(key => ({ key, namespace: 4, appendOnly: true })))
      const reading = inFlight ? b.prefetch(KEYS.map(key => ({ key, namespace: 4 }))) : null
      for (const [i, key] of KEYS.entries()) {
        b.setCurrentKey(key)
        l.setNamespace(4)
        l.add(7)
        if (i % 3 === 0) {
          l.clear()
          model.set(id(key, 4), [])
        } else if (i % 3 === 1) {
          l.update([8, 9])
          model.set(id(key, 4), [8, 9])
        } else {
          model.get(id(key, 4))!.push(7)
        }
        if (i % 3 !== 2) {
          l.add(10)
          model.get(id(key, 4))!.push(10)
        }
      }
      await b.flush()
      if (reading !== null) {
        await reading
        for (const key of KEYS) {
          b.setCurrentKey(key)
          l.setNamespace(4)
          expect([...l.get()]).toEqual(model.get(id(key, 4)))
        }
      }
      await b.sync()
      await check(b, model)
      await append(b, model, KEYS, 1, true, 3)
      await b.sync()
      await check(b, model)
      expect(await b.countEntries()).toBe(model.size)
    }
  })

  it('drops every list with its blind tails (dropAll)', async () => {
    const b = await openRocks({ cacheBytes: 0, writeBack: 'deferred' })
    const model: Model = new Map()
    await append(b, model, KEYS, 2, false, 1)
    await b.sync()
    await append(b, model, KEYS, 2, true, 2)
    b.getListState(listState<number>('l')).dropAll()
    await b.sync()
    await check(b, new Map())
    expect(await b.countEntries()).toBe(0)
  })

  it('keeps appending blind above every element after a checkpoint restored at another parallelism and a key-group copy', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weir-blind-append-'))
    const storage = new FileCheckpointStorage(join(root, 'checkpoints'))
    const opened: RocksDbKeyedStateBackend[] = []
    try {
      const model: Model = new Map()
      const handles = []
      const sources: RocksDbKeyedStateBackend[] = []
      for (let i = 0; i < 2; i++) {
        const b = await RocksDbKeyedStateBackend.open({ dir: join(root, `src-${i}`), jobName: 'job', operatorId: 'op', keyGroupRange: keyGroupRange(i, 2),
          cacheBytes: 0 })
        opened.push(b)
        sources.push(b)
        await append(b, model, KEYS, 2, false, 1)
        await b.sync()
        // The second subtask numbers many more elements blind: restored into the first one's database
        // (the base of the restore), its counter must come along, or new blind elements land on old numbers.
        for (let r = 0; r < (i === 0 ? 1 : 40); r++) {
          await append(b, model, KEYS, 3, true, 2 + r)
          // Written and evicted: the next round appends blind again.
          await b.sync()
        }
        await b.sync()
        const local = await takeLocalSnapshot(b, join(root, 'local', `snap-${i}`))
        handles.push(await uploadSnapshot(local, storage, { sharedPrefix: 'shared/', ownPrefix: `chk-1/op-${i}/rocksdb/`, selfContained: false }, new Map()))
      }
      for (const [p, j] of [[1, 0], [2, 1], [3, 1]] as const) {
        const r = await restoreRocksDbSubtask({
          open: { dir: join(root, `restored-${p}-${j}`), jobName: 'job', operatorId: 'op', maxParallelism: 128, cacheBytes: 0 },
          range: keyGroupRange(j, p),
          handles,
          storage,
          tmpDir: join(root, 'tmp'),
        })
        opened.push(r.backend)
        const m = new Map([...model].map(([k, v]) => [k, [...v]]))
        await append(r.backend, m, KEYS, 2, true, 50)
        await r.backend.sync()
        await check(r.backend, m)
        await append(r.backend, m, KEYS, 1, true, 51)
        await r.backend.sync()
        await check(r.backend, m)
      }
      // A key-group copy (no checkpoint) into a fresh database, and a key-group file restore.
      const t = await openRocks({ cacheBytes: 0 })
      for (const s of sources) await t.copyKeyGroupsFrom(s, s.keyGroupRange)
      const m = new Map([...model].map(([k, v]) => [k, [...v]]))
      await append(t, m, KEYS, 2, true, 60)
      await t.sync()
      await check(t, m)
      const folder = join(root, 'kg')
      for (const s of sources) await s.snapshotKeyGroups(s.keyGroupRange, folder)
      const u = await openRocks({ cacheBytes: 0 })
      await u.restoreKeyGroups(folder)
      const m2 = new Map([...model].map(([k, v]) => [k, [...v]]))
      await append(u, m2, KEYS, 2, true, 70)
      await u.sync()
      await check(u, m2)
    } finally {
      for (const b of opened) await b.destroy().catch(() => undefined)
      await rm(root, { recursive: true, force: true })
    }
  })

  it('appends blind to lists of a database of the older format (no counter stored) restored from a checkpoint', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weir-blind-old-'))
    const storage = new FileCheckpointStorage(join(root, 'checkpoints'))
    try {
      // Resident adds only: elements numbered from 0 in 4-byte keys and no counter entry, as an older version wrote them.
      const b = await RocksDbKeyedStateBackend.open({ dir: join(root, 'src'), jobName: 'job', operatorId: 'op', cacheBytes: 0 })
      const model: Model = new Map()
      await append(b, model, KEYS, 3, false, 1)
      await b.sync()
      const stored: string[] = []
      for await (const { key } of b.store.db.iterator({ gte: Buffer.from([0xff, 0xff]), lt: Buffer.from([0xff, 0xff, 0xff]) })) stored.push(key.toString('hex'))
      expect(stored.every(k => k.startsWith('ffff0001'))).toBe(true)
      const local = await takeLocalSnapshot(b, join(root, 'local'))
      const written = await uploadSnapshot(local, storage, { sharedPrefix: 'shared/', ownPrefix: 'chk-1/op/rocksdb/', selfContained: false }, new Map())
      expect(written.format).toBe('weir-rocksdb/2')
      // What an older version wrote: the same database under format 1.
      const handle = { ...written, format: 'weir-rocksdb/1' as const }
      // Its key-group file too (same header length: the format's last digit changes).
      const folder = join(root, 'kg')
      const file = (await b.snapshotKeyGroups(b.keyGroupRange, folder)).files[0]!
      const bytes = await readFile(file)
      const at = bytes.indexOf('weir-rocksdb-keygroups/2')
      expect(at).toBeGreaterThan(0)
      bytes.write('weir-rocksdb-keygroups/1', at, 'latin1')
      await writeFile(file, bytes)
      await b.destroy()
      const u = await openRocks({ cacheBytes: 0 })
      await u.restoreKeyGroups(folder)
      const m = new Map([...model].map(([k, v]) => [k, [...v]]))
      await append(u, m, KEYS, 2, true, 3)
      await u.sync()
      await check(u, m)
      const r = await restoreRocksDbSubtask({
        open: { dir: join(root, 'restored'), jobName: 'job', operatorId: 'op', maxParallelism: 128, cacheBytes: 0 },
        range: keyGroupRange(0, 1),
        handles: [handle],
        storage,
        tmpDir: join(root, 'tmp'),
      })
      try {
        await append(r.backend, model, KEYS, 2, true, 2)
        await r.backend.sync()
        await check(r.backend, model)
      } finally {
        await r.backend.destroy()
      }
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
