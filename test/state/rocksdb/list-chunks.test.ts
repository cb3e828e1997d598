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
})
