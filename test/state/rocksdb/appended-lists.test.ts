// Lists a batch only appends to (PrefetchRequest.append): on RocksDB their written elements leave
// the cache (ListCell.hidden), and any request that is not an append loads them back. Whatever the
// order of appends, flushes, reads ahead and writes in flight, a read returns every element once, in
// the order added; a checkpoint restored at another parallelism holds the same list.
import { afterEach, describe, expect, it } from 'vitest'
import { listState, type PrefetchRequest } from '../../../core/keyed-state.js'
import { makeKey } from '../../../state/key-encoding.js'
import type { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { cleanup, openRocks, restore, snapshot } from './harness.js'

afterEach(cleanup)

const KEY = makeKey(['auction-1'])
const ROWS = listState<number[]>('rows')
const APPEND: PrefetchRequest = { key: KEY, namespace: '', append: ['rows'] }
const READ: PrefetchRequest = { key: KEY, namespace: '' }

/** One batch that only appends: an append prefetch, the chunks, a flush. */
async function append(b: RocksDbKeyedStateBackend, ...chunks: number[][]): Promise<void> {
  const l = b.getListState(ROWS)
  await b.prefetch([APPEND])
  b.setCurrentKey(KEY)
  for (const c of chunks) l.addChunk([...c])
  await b.flush()
}

/** One batch that reads: a read prefetch, the list as get() returns it, a flush. */
async function read(b: RocksDbKeyedStateBackend): Promise<number[][]> {
  const l = b.getListState(ROWS)
  await b.prefetch([READ])
  b.setCurrentKey(KEY)
  const rows = l.get().map(c => [...c])
  await b.flush()
  return rows
}

/** Whether the list's written elements are out of the cache: a read after an append-only prefetch is refused. */
async function hidden(b: RocksDbKeyedStateBackend): Promise<boolean> {
  const l = b.getListState(ROWS)
  await b.prefetch([APPEND])
  b.setCurrentKey(KEY)
  try {
    l.get()
    return false
  } catch (e) {
    expect(String(e)).toMatch(/only to append/)
    return true
  }
}

describe('a list only appended to, on RocksDB', () => {
  for (const writeBack of ['bundle', 'deferred'] as const) {
    it(`(${writeBack} write-back) lets its written elements go, and a read loads them back once each, in order`, async () => {
      const b = await openRocks({ writeBack })
      await append(b, [1, 2])
      await append(b, [3])
      await append(b, [4], [5])
      expect(await hidden(b)).toBe(true)
      expect(await read(b)).toEqual([[1, 2], [3], [4, 5]])
      // Read back, then appended to again: nothing read twice, nothing lost.
      await append(b, [6])
      await append(b, [7])
      expect(await read(b)).toEqual([[1, 2], [3], [4, 5], [6], [7]])
      // Five stored elements, one list.
      expect(await b.countEntries({ stored: true })).toBe(5)
      expect(await b.countEntries()).toBe(1)
    })
  }

  it('a read ahead that lands while the batch before appends takes the hidden elements only', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    await append(b, [1])
    await append(b, [2])
    expect(await hidden(b)).toBe(true)
    await b.flush()
    // Batch N appends; the read for batch N+1 was started before N ran (a runtime reads one batch ahead).
    await b.prefetch([APPEND])
    const ahead = b.prefetch([READ])
    b.setCurrentKey(KEY)
    b.getListState(ROWS).addChunk([3])
    await ahead
    // N's flush writes [3] but keeps the list whole: N+1 reads it.
    await b.flush()
    b.setCurrentKey(KEY)
    expect(b.getListState(ROWS).get().map(c => [...c])).toEqual([[1], [2], [3]])
    await b.flush()
    await append(b, [4])
    expect(await read(b)).toEqual([[1], [2], [3], [4]])
  })

  it('a read right after the flush that hid the elements waits for their write', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    await append(b, [1])
    await b.prefetch([APPEND])
    b.setCurrentKey(KEY)
    b.getListState(ROWS).addChunk([2])
    // Write-behind: the batch is handed to RocksDB, not yet applied, and the elements are out of the cache.
    await b.flush()
    expect(await read(b)).toEqual([[1], [2]])
  })

  it('clear and update of a list with hidden elements take them too', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    await append(b, [1])
    await append(b, [2])
    await append(b, [3])
    await b.prefetch([APPEND])
    b.setCurrentKey(KEY)
    b.getListState(ROWS).clear()
    await b.flush()
    expect(await b.countEntries()).toBe(0)
    await append(b, [4])
    await append(b, [5])
    expect(await read(b)).toEqual([[4], [5]])
    await b.prefetch([APPEND])
    b.setCurrentKey(KEY)
    b.getListState(ROWS).update([[9]])
    await b.flush()
    expect(await read(b)).toEqual([[9]])
    expect(await b.countEntries({ stored: true })).toBe(1)
  })

  it('a checkpoint of hidden elements restores whole at another parallelism', async () => {
    const b = await openRocks({ writeBack: 'deferred', maxParallelism: 128 })
    await append(b, [1, 2])
    await append(b, [3])
    await append(b, [4])
    expect(await hidden(b)).toBe(true)
    await b.flush()
    const snap = await snapshot(b, b.keyGroupRange)
    // Two subtasks now: the one that owns KEY's key group reads the list from the checkpoint.
    const half = KEY.group < 64 ? { start: 0, end: 63 } : { start: 64, end: 127 }
    const restored = await openRocks({ writeBack: 'deferred', maxParallelism: 128, keyGroupRange: half })
    await restore(restored, snap)
    await append(restored, [5])
    await append(restored, [6])
    expect(await read(restored)).toEqual([[1, 2], [3], [4], [5], [6]])
    // And the original goes on as if no checkpoint had been taken.
    expect(await read(b)).toEqual([[1, 2], [3], [4]])
  })
})
