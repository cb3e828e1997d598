// ListState.addChunk (a list of row chunks, read as their concatenation): on RocksDB the last element
// takes a chunk's items while no write batch has encoded it, so chunks added between two writes are
// stored as one entry; an element already written never changes (its rows would be lost once the
// list is read back from disk), and with TTL every chunk stays its own element with its own time.
import { afterEach, describe, expect, it } from 'vitest'
import { listState, type StateTtlConfig } from '../../../core/keyed-state.js'
import { HeapKeyedStateBackend } from '../../../state/heap/heap-backend.js'
import { makeKey } from '../../../state/key-encoding.js'
import type { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { cleanup, openRocks, restore, snapshot } from './harness.js'

afterEach(cleanup)

const KEY = makeKey(['auction-1'])

/** The list of KEY as stored: its key groups copied into a backend with no cache, which reads it from disk. */
async function readBack(b: RocksDbKeyedStateBackend, ttl?: StateTtlConfig, now?: number): Promise<number[][]> {
  const snap = await snapshot(b, b.keyGroupRange)
  const fresh = await openRocks({ cacheBytes: 0 })
  await restore(fresh, snap)
  if (now !== undefined) fresh.setTtlTime(now)
  await fresh.prefetch([{ key: KEY, namespace: '' }])
  fresh.setCurrentKey(KEY)
  return fresh.getListState(listState<number[]>('rows', ttl)).get().map(c => [...c])
}

async function addChunks(b: RocksDbKeyedStateBackend, chunks: readonly number[][], ttl?: StateTtlConfig): Promise<void> {
  const l = b.getListState(listState<number[]>('rows', ttl))
  await b.prefetch([{ key: KEY, namespace: '' }])
  b.setCurrentKey(KEY)
  for (const c of chunks) l.addChunk([...c])
  await b.flush()
}

describe('ListState.addChunk', () => {
  it('on RocksDB stores the chunks added between two writes as one element, across deferred flushes', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    await addChunks(b, [[1, 2], [3]])
    // A deferred flush holds the change: the next batch's chunk still joins the same element.
    await addChunks(b, [[4]])
    expect(await readBack(b)).toEqual([[1, 2, 3, 4]])
    expect(await b.countEntries({ stored: true })).toBe(1)
  })

  it('on RocksDB never changes an element already written: later chunks start a new one', async () => {
    const b = await openRocks()
    await addChunks(b, [[1, 2]])
    await b.sync()
    expect(await b.countEntries({ stored: true })).toBe(1)
    // Resident and written: taking [3] into [1, 2] would show here but be lost on disk.
    await addChunks(b, [[3], [4]])
    expect(await readBack(b)).toEqual([[1, 2], [3, 4]])
    await addChunks(b, [[5]])
    expect(await readBack(b)).toEqual([[1, 2], [3, 4], [5]])
  })

  it('on RocksDB with TTL keeps each chunk its own element, so a later chunk does not expire with an earlier one', async () => {
    const ttl: StateTtlConfig = { ttlMs: 1_000, updateType: 'OnCreateAndWrite' }
    const b = await openRocks({ writeBack: 'deferred' })
    b.setTtlTime(0)
    await addChunks(b, [[1]], ttl)
    b.setTtlTime(600)
    await addChunks(b, [[2]], ttl)
    expect(await readBack(b, ttl, 1_200)).toEqual([[2]])
  })

  it('on heap adds a new element, so a snapshot that shares the last one does not change', async () => {
    const b = new HeapKeyedStateBackend()
    const l = b.getListState(listState<number[]>('rows'))
    b.setCurrentKey(KEY)
    l.addChunk([1])
    // Shares the live elements (a checkpoint serializes it later, while the job goes on).
    const snap = b.snapshot(false)
    l.addChunk([2])
    expect(l.get().map(c => [...c])).toEqual([[1], [2]])
    const restored = new HeapKeyedStateBackend()
    restored.restore(structuredClone(snap))
    restored.setCurrentKey(KEY)
    expect(restored.getListState(listState<number[]>('rows')).get()).toEqual([[1]])
  })

  it('on RocksDB with deferred write-back holds chunks at what a chunk added measures written, not at the last list written', async () => {
    // A join's appended side (Nexmark q20): 100 keys take a ~1 KB row each bundle, into one element
    // per key until written; one more key, touched last, takes a few bytes. A 16 MB cache holds
    // list elements up to 2 MB. Measured at the last list written (the rare key's element, a few
    // hundred bytes for an addChunk that measures ~1 KB), 5.3 MB of rows were held before a write.
    const b = await openRocks({ writeBack: 'deferred', cacheBytes: 16 * 2 ** 20 })
    const l = b.getListState(listState<string[]>('rows'))
    const keys = Array.from({ length: 101 }, (_, i) => makeKey([i]))
    const row = (key: number, n: number): string => key === 100 ? `r${n}` : `${key}/${n}/`.padEnd(1000, String.fromCharCode(97 + (n % 26)))
    let added = 0
    const bundle = async (n: number): Promise<void> => {
      await b.prefetch(keys.map(key => ({ key, namespace: '' })))
      for (const key of keys) {
        b.setCurrentKey(key)
        const r = row(key.values[0] as number, n)
        l.addChunk([r])
        added += r.length
      }
      await b.flush()
    }
    let n = 0
    while (b.stats().bytesWritten === 0) await bundle(n++)
    let writes = 0
    for (let stop = n + 100; n < stop; n++) {
      const before = b.stats().bytesWritten!
      await bundle(n)
      if (b.stats().bytesWritten! > before) writes++
      // Row bytes added and not yet written: within the share and a bundle.
      expect(added - b.stats().bytesWritten!).toBeLessThan(2.5 * 2 ** 20)
    }
    // ~10 MB added: a write every ~2 MB.
    expect(writes).toBeGreaterThanOrEqual(4)
    await b.sync()
    const fresh = await openRocks({ cacheBytes: 1024 })
    await restore(fresh, await snapshot(b, b.keyGroupRange))
    const fl = fresh.getListState(listState<string[]>('rows'))
    await fresh.prefetch(keys.map(key => ({ key, namespace: '' })))
    for (const key of keys) {
      fresh.setCurrentKey(key)
      expect(fl.get().flat()).toEqual(Array.from({ length: n }, (_, i) => row(key.values[0] as number, i)))
    }
  })
})
