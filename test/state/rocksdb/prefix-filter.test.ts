// The written-keys filter over list and map prefixes: a prefetch skips the prefix scan of a (state,
// key, namespace) never written, and never skips one that was: after eviction, deletes, clears and
// TTL expiry (stale positives only), after key groups come in from files or another database (a
// restore at another parallelism), and after a restore from a checkpoint in a new backend.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FileCheckpointStorage } from '../../../checkpoint/storage/file.js'
import { listState, mapState, type KeyRef, type Namespace, type StateTtlConfig } from '../../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../../state/key-encoding.js'
import { cellKey, cellPrefixLength, encodeUserKey, listElementKey, mapEntryKey, namespaceBytes, stringEntryKey } from '../../../state/rocksdb/codec.js'
import { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { SHORT_LIST } from '../../../state/rocksdb/prefetch.js'
import { restoreRocksDbSubtask, takeLocalSnapshot, uploadSnapshot } from '../../../state/rocksdb/snapshot.js'
import { cleanup, openRocks, tempDir } from './harness.js'

afterEach(cleanup)

const NAMESPACES: readonly Namespace[] = ['', 7, 'w|1\x00x']
/** Keys of two columns, strings with NULs and numbers among them; even ones get state, odd ones never do. */
const KEYS = Array.from({ length: 600 }, (_, i) => makeKey([i % 3 === 0 ? `k\x00${i}` : i, i % 5 === 0 ? null : `c${i % 7}`]))
const written = (i: number): boolean => i % 2 === 0
/** User keys of every kind a map takes. */
const userKey = (i: number, j: number): unknown => [`u${j}\x00${i}`, j, BigInt(i) * 10n ** 20n, [`a${j}`, i], null, true, undefined, { o: j }][(i + j) % 8]

interface Expected {
  m: [unknown, number][]
  l: number[]
}

function statesOf(b: RocksDbKeyedStateBackend, ttl?: StateTtlConfig) {
  return { m: b.getMapState(mapState<unknown, number>('m', ttl)), l: b.getListState(listState<number>('l', ttl)) }
}

/** Writes the even keys' maps and lists in every namespace; returns what each (key, namespace) holds. */
async function fill(b: RocksDbKeyedStateBackend, keys = KEYS): Promise<Map<string, Expected>> {
  const s = statesOf(b)
  const model = new Map<string, Expected>()
  const mine = keys.filter(k => k.group >= b.keyGroupRange.start && k.group <= b.keyGroupRange.end)
  await b.prefetch(mine.flatMap(key => NAMESPACES.map(namespace => ({ key, namespace }))))
  for (const key of mine) {
    const i = KEYS.indexOf(key)
    if (!written(i)) continue
    b.setCurrentKey(key)
    for (const [n, ns] of NAMESPACES.entries()) {
      s.m.setNamespace(ns)
      s.l.setNamespace(ns)
      const e: Expected = { m: [], l: [] }
      for (let j = 0; j <= n; j++) {
        s.m.put(userKey(i, j), i * 10 + j)
        e.m.push([userKey(i, j), i * 10 + j])
        s.l.add(i + j)
        e.l.push(i + j)
      }
      model.set(`${key.encoded}/${ns}`, e)
    }
  }
  await b.sync()
  return model
}

/** Every key's maps and lists, prefetched per (key, namespace) — the path the filter serves — and compared with `model`. */
async function check(b: RocksDbKeyedStateBackend, model: Map<string, Expected>, keys = KEYS): Promise<void> {
  const s = statesOf(b)
  const mine = keys.filter(k => k.group >= b.keyGroupRange.start && k.group <= b.keyGroupRange.end)
  for (let at = 0; at < mine.length; at += 100) {
    const batch = mine.slice(at, at + 100)
    await b.prefetch(batch.flatMap(key => NAMESPACES.map(namespace => ({ key, namespace }))))
    for (const key of batch) {
      b.setCurrentKey(key)
      for (const ns of NAMESPACES) {
        s.m.setNamespace(ns)
        s.l.setNamespace(ns)
        const e = model.get(`${key.encoded}/${ns}`) ?? { m: [], l: [] }
        expect(sortEntries([...s.m.entries()]), `map of ${key.encoded} in ${String(ns)}`).toEqual(sortEntries(e.m))
        expect([...s.l.get()], `list of ${key.encoded} in ${String(ns)}`).toEqual(e.l)
      }
    }
    await b.sync()
  }
}

const sortEntries = (es: [unknown, number][]) => [...es].sort((a, b) => a[1] - b[1])

/** Scans read and scans the filter spared so far. */
const scans = (b: RocksDbKeyedStateBackend) => ({ scans: b.cacheStats().scans, skipped: b.cacheStats().skippedScans })

describe('RocksDB written-keys filter over list and map prefixes', () => {
  it('finds the prefix of every kind of stored list element and map entry', () => {
    for (const [i, key] of KEYS.slice(0, 40).entries()) {
      for (const ns of NAMESPACES) {
        const prefix = cellKey(key.group, 3, key.encoded, namespaceBytes(ns))
        for (let j = 0; j < 8; j++) expect(cellPrefixLength(mapEntryKey(prefix, encodeUserKey(userKey(i, j))), 'map')).toBe(prefix.length)
        expect(cellPrefixLength(listElementKey(prefix, i), 'list')).toBe(prefix.length)
      }
    }
    // Bytes that are no stored map key: not parsed (the state is then scanned always).
    expect(cellPrefixLength(Buffer.from([0, 1, 0, 2, 0, 9, 0, 0]), 'map')).toBe(-1)
    expect(cellPrefixLength(Buffer.from([0, 1, 0, 2, 0, 4, 0, 65]), 'map')).toBe(-1)
  })

  it('writes a string user key as its general encoding does', () => {
    const prefix = cellKey(5, 2, makeKey(['k', 1]).encoded, namespaceBytes(''))
    for (const k of ['', 'a', '\x00', 'a\x00\x00b\x00', '\xff\x00\xff', 'ü€😀', KEYS[3]!.encoded, 'x'.repeat(300)]) {
      expect(stringEntryKey(prefix, k)).toEqual(mapEntryKey(prefix, encodeUserKey(k)))
    }
  })

  it('skips scans of never-written prefixes and reads every written one back from disk', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    const model = await fill(b)
    const before = scans(b)
    const gets = b.cacheStats().gets
    await check(b, model)
    const after = scans(b)
    // Two states, three namespaces: the odd keys' 1,800 cells are skipped, the even keys' 1,800 read:
    // their 900 maps by scans, their 900 lists (1 to 3 elements) by point gets of their first SHORT_LIST.
    expect(after.skipped - before.skipped).toBe(KEYS.length * 3)
    expect(after.scans - before.scans).toBe(KEYS.length * 3 / 2)
    expect(b.cacheStats().gets - gets).toBe(KEYS.length * 3 / 2 * SHORT_LIST)
  })

  it('keeps finding a prefix after its entries were removed, cleared, expired and written again', async () => {
    const ttl: StateTtlConfig = { ttlMs: 1000, updateType: 'OnCreateAndWrite' }
    const b = await openRocks({ cacheBytes: 0 })
    const s = statesOf(b, ttl)
    const key = makeKey(['k'])
    const at = async (): Promise<void> => {
      await b.sync()
      await b.prefetch([{ key, namespace: '' }])
      b.setCurrentKey(key)
    }
    b.setTtlTime(0)
    await at()
    s.m.put('a', 1)
    s.l.add(1)
    await at()
    s.m.remove('a')
    s.l.update([])
    await at()
    expect([...s.m.entries()]).toEqual([])
    s.m.put('b', 2)
    s.l.add(2)
    await at()
    expect([...s.m.entries()]).toEqual([['b', 2]])
    s.m.clear()
    s.l.clear()
    await at()
    s.m.put('c', 3)
    s.l.add(3)
    await at()
    expect([...s.m.entries()]).toEqual([['c', 3]])
    expect(s.l.get()).toEqual([3])
    b.setTtlTime(5000) // expired: hidden, then swept from disk
    await at()
    expect([...s.m.entries()]).toEqual([])
    await b.sync()
    await b.cleanupExpired(1000)
    await at()
    s.m.put('d', 4)
    s.l.add(4)
    await at()
    expect([...s.m.entries()]).toEqual([['d', 4]])
    expect(s.l.get()).toEqual([4])
  })

  it('reads lists and maps restored from key-group files at another parallelism', async () => {
    const source = await openRocks()
    const model = await fill(source)
    const folder = join(await tempDir('weir-snap-'), 'chk')
    for (let i = 0; i < 2; i++) await source.snapshotKeyGroups(keyGroupRange(i, 2), folder)
    for (let j = 0; j < 3; j++) {
      // A fresh backend whose filter is on: the restored entries must be in it, prefixes included.
      const t = await openRocks({ keyGroupRange: keyGroupRange(j, 3), cacheBytes: 0 })
      await t.restoreKeyGroups(folder)
      await check(t, model)
      expect(scans(t).skipped).toBeGreaterThan(0)
    }
  })

  it('reads lists and maps copied in from another database', async () => {
    const sources = [await openRocks({ keyGroupRange: keyGroupRange(0, 2) }), await openRocks({ keyGroupRange: keyGroupRange(1, 2) })]
    const model = new Map<string, Expected>()
    for (const s of sources) for (const [k, v] of await fill(s)) model.set(k, v)
    const t = await openRocks({ cacheBytes: 0 })
    for (const s of sources) await t.copyKeyGroupsFrom(s, s.keyGroupRange)
    await check(t, model)
    expect(scans(t).skipped).toBeGreaterThan(0)
  })

  it('reads a map written, checkpointed and restored into a new backend, at the same and another parallelism', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weir-prefix-chk-'))
    const storage = new FileCheckpointStorage(join(root, 'checkpoints'))
    const opened: RocksDbKeyedStateBackend[] = []
    try {
      const model = new Map<string, Expected>()
      const handles = []
      for (let i = 0; i < 2; i++) {
        const b = await RocksDbKeyedStateBackend.open({ dir: join(root, `src-${i}`), jobName: 'job', operatorId: 'op', keyGroupRange: keyGroupRange(i, 2) })
        opened.push(b)
        for (const [k, v] of await fill(b)) model.set(k, v)
        const local = await takeLocalSnapshot(b, join(root, 'local', `snap-${i}`))
        handles.push(await uploadSnapshot(local, storage, { sharedPrefix: 'shared/', ownPrefix: `chk-1/op-${i}/rocksdb/`, selfContained: false }, new Map()))
      }
      for (const p of [2, 3]) {
        for (let j = 0; j < p; j++) {
          const range = keyGroupRange(j, p)
          const r = await restoreRocksDbSubtask({
            open: { dir: join(root, `restored-${p}-${j}`), jobName: 'job', operatorId: 'op', maxParallelism: 128, cacheBytes: 0 },
            range,
            handles,
            storage,
            tmpDir: join(root, 'tmp'),
          })
          opened.push(r.backend)
          await check(r.backend, model)
          // Then more state, written after the restore, is found as well.
          const extra: KeyRef[] = KEYS.filter((_, i) => !written(i)).slice(0, 60)
          const s = statesOf(r.backend)
          const mine = extra.filter(k => k.group >= range.start && k.group <= range.end)
          await r.backend.prefetch(mine.map(key => ({ key, namespace: '' })))
          for (const key of mine) {
            r.backend.setCurrentKey(key)
            s.m.setNamespace('')
            s.m.put('late', 1)
            model.set(`${key.encoded}/`, { m: [['late', 1]], l: [] })
          }
          await r.backend.sync()
          await check(r.backend, model)
          for (const key of mine) model.delete(`${key.encoded}/`)
        }
      }
    } finally {
      for (const b of opened) await b.destroy().catch(() => undefined)
      await rm(root, { recursive: true, force: true })
    }
  })
})
