// Chunks of rows kept encoded on RocksDB (state/rocksdb/encoded-rows.ts): read back as they were
// added (before their write, after it, from disk), a list that a read decoded keeps its rows, and
// a list appended to blind (appendOnlyStates) lets its written elements go and reads them back from
// disk when asked for.
import { afterEach, describe, expect, it } from 'vitest'
import { listState } from '../../../core/keyed-state.js'
import { makeKey } from '../../../state/key-encoding.js'
import type { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { cleanup, openRocks, restore, snapshot } from './harness.js'

afterEach(cleanup)

const KEYS = Array.from({ length: 30 }, (_, i) => makeKey([`auction-${i}`]))
const ROWS = listState<unknown[][]>('left-rows')

/** Rows of every kind the value codec has a tag for, and text a UTF-8 encoder would lose. */
function row(n: number): unknown[] {
  return [n, -n, n * 1.5, 2 ** 40 + n, BigInt(n) * 10n ** 20n, `r${n}`, 'é😀'.repeat(n % 3), '\ud800' + n, null, undefined, n % 2 === 0, [n, [`${n}`]]]
}

/** One bundle: every key takes `per` rows (its own batches append blind when `blind`), then the flush. */
async function bundle(b: RocksDbKeyedStateBackend, model: Map<string, unknown[]>, start: number, per: number, blind: boolean): Promise<number> {
  const l = b.getListState(ROWS)
  await b.prefetch(KEYS.map(key => blind ? { key, namespace: '', appendOnlyStates: ['left-rows'] } : { key, namespace: '' }))
  let n = start
  for (const key of KEYS) {
    b.setCurrentKey(key)
    const chunk: unknown[][] = []
    for (let i = 0; i < per; i++) chunk.push(row(n++))
    l.addChunk(chunk)
    model.get(key.encoded)!.push(...chunk.map(r => structuredClone(r)))
  }
  await b.flush()
  return n
}

/** Every key's list as a read gives it (a prefetch that reads, as the other side's rows do). */
async function read(b: RocksDbKeyedStateBackend): Promise<Map<string, unknown[]>> {
  const l = b.getListState(ROWS)
  await b.prefetch(KEYS.map(key => ({ key, namespace: '' })))
  const out = new Map<string, unknown[]>()
  for (const key of KEYS) {
    b.setCurrentKey(key)
    out.set(key.encoded, l.get().flat())
  }
  return out
}

/** Every key's list as stored: written, its key groups copied into a backend with no cache, and read there. */
async function readFromDisk(b: RocksDbKeyedStateBackend): Promise<Map<string, unknown[]>> {
  await b.sync()
  const fresh = await openRocks({ cacheBytes: 0 })
  await restore(fresh, await snapshot(b, b.keyGroupRange))
  return read(fresh)
}

function emptyModel(): Map<string, unknown[]> {
  return new Map(KEYS.map(k => [k.encoded, []]))
}

describe('chunks of rows kept encoded on RocksDB', () => {
  it('reads back what was added, before its write, after it, and from disk', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    const model = emptyModel()
    let n = 0
    for (let i = 0; i < 3; i++) n = await bundle(b, model, n, 2, false)
    // Pending and encoded in the cache, none written yet.
    expect(b.stats().bytesWritten).toBe(0)
    expect(await read(b)).toEqual(model)
    n = await bundle(b, model, n, 3, false)
    await b.sync()
    n = await bundle(b, model, n, 1, false)
    expect(await read(b)).toEqual(model)
    expect(await readFromDisk(b)).toEqual(model)
  })

  it('reads an element whose rows are part encoded, part added this bundle, in the order added', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    const model = emptyModel()
    const n = await bundle(b, model, 0, 3, false)
    // This bundle's chunks are not encoded until its flush: the read finds both kinds.
    const l = b.getListState(ROWS)
    await b.prefetch(KEYS.map(key => ({ key, namespace: '' })))
    for (const [i, key] of KEYS.entries()) {
      b.setCurrentKey(key)
      const chunk = [row(n + i), row(n + i + 1000)]
      l.addChunk(chunk)
      model.get(key.encoded)!.push(...chunk.map(r => structuredClone(r)))
      expect(l.get().flat()).toEqual(model.get(key.encoded))
    }
    await b.sync()
    expect(await read(b)).toEqual(model)
  })

  it('keeps the rows a read decoded, and reads on as chunks come', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    const model = emptyModel()
    let n = 0
    for (let i = 0; i < 4; i++) {
      n = await bundle(b, model, n, 2, false)
      await b.flush()
      // Flushed but held: the next bundle encodes its chunks into the same element, or takes rows.
      expect(await read(b)).toEqual(model)
    }
    await b.sync()
    expect(await read(b)).toEqual(model)
  })

  it('lets a blind-appended list go once written, and reads it back from disk in order', async () => {
    const b = await openRocks({ writeBack: 'bundle' })
    const model = emptyModel()
    let n = await bundle(b, model, 0, 5, true)
    const resident = b.cacheStats().bytes
    // The next write lets the elements of the one before go (it is applied by then).
    n = await bundle(b, model, n, 5, true)
    n = await bundle(b, model, n, 5, true)
    expect(b.cacheStats().bytes).toBeLessThan(resident * 2)
    // A read (the other side's rows) puts the disk's elements in front of what came since.
    expect(await read(b)).toEqual(model)
    // Read once: the list is resident whole again, and takes more.
    n = await bundle(b, model, n, 1, true)
    expect(await read(b)).toEqual(model)
    expect(await readFromDisk(b)).toEqual(model)
  })

  it('keeps a list resident that a prefetch asked to read before the flush that would let it go', async () => {
    const b = await openRocks({ writeBack: 'bundle' })
    const model = emptyModel()
    let n = await bundle(b, model, 0, 5, true)
    // Batch N+1 (the other side's rows: it reads the lists) is read ahead before batch N flushes,
    // the flush that would let the elements written before go.
    const l = b.getListState(ROWS)
    await b.prefetch(KEYS.map(key => ({ key, namespace: '' })))
    n = await bundle(b, model, n, 5, true)
    for (const key of KEYS) {
      b.setCurrentKey(key)
      expect(l.get().flat()).toEqual(model.get(key.encoded))
    }
    await b.flush()
    expect(await read(b)).toEqual(model)
  })

  it('holds fewer bytes for a blind-appended list than for one that is read', async () => {
    const sizes: number[] = []
    for (const blind of [false, true]) {
      const b = await openRocks({ writeBack: 'bundle' })
      const model = emptyModel()
      let n = 0
      for (let i = 0; i < 10; i++) n = await bundle(b, model, n, 4, blind)
      sizes.push(b.cacheStats().bytes)
      expect(await read(b)).toEqual(model)
    }
    // 10 bundles' rows resident against what the last two wrote.
    expect(sizes[1]!).toBeLessThan(sizes[0]! / 2)
  })
})
