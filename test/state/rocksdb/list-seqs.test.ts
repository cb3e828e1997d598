// A RocksDB list cell numbers its elements implicitly (nextSeq − length … nextSeq − 1) until an element
// goes from the middle or the end, and keeps TTL times only for a state with TTL (cache.ts, ListCell).
// Whatever the numbering, an element added later must not overwrite or revive a stored one, and a
// dropped one must be the one deleted: checked resident, evicted and read back, through the TTL sweep,
// and across a snapshot restored at another parallelism. Row-clock TTL makes a middle element expire
// first (rows arrive out of order); here the TTL clock is set back to do the same.
import { afterEach, describe, expect, it } from 'vitest'
import { type KeyedStateBackend, type KeyRef, listState, type StateTtlConfig } from '../../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../../state/key-encoding.js'
import type { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { at, cleanup, openRocks, restore, snapshot, written } from './harness.js'

afterEach(cleanup)

const TTL: StateTtlConfig = { ttlMs: 100, updateType: 'OnCreateAndWrite' }
const KEYS = Array.from({ length: 16 }, (_, i) => makeKey([`k${i}`]))
const NS = 3

function rows(b: KeyedStateBackend, ttl: StateTtlConfig | undefined = TTL) {
  const l = b.getListState(listState<string>('rows', ttl))
  l.setNamespace(NS)
  return l
}

/** Adds `values` to `key`'s list at TTL clock `time`, one access batch. */
async function add(b: KeyedStateBackend, key: KeyRef, time: number, ...values: string[]): Promise<void> {
  b.setTtlTime(time)
  await at(b, key, NS)
  const l = rows(b)
  for (const v of values) l.add(v)
}

/** `key`'s list as get() returns it at TTL clock `time`. */
async function read(b: KeyedStateBackend, key: KeyRef, time: number, ttl: StateTtlConfig | undefined = TTL): Promise<string[]> {
  b.setTtlTime(time)
  await at(b, key, NS)
  return [...rows(b, ttl).get()]
}

/**
 * Every key: 'a' at 80, 'b' at 0 (the middle one, expired first), 'c' at 80; then, at 150 ('b'
 * expired, the others not), 'b' goes (by a read, or by the sweep) and 'd' is added; 'e' is added at
 * 150 after 'c' was dropped too, by a clock set forward and back, for a gap at the end.
 */
async function middleDropped(b: RocksDbKeyedStateBackend, by: 'read' | 'sweep'): Promise<void> {
  for (const [i, k] of KEYS.entries()) {
    await add(b, k, 80, `a${i}`)
    await add(b, k, 0, `b${i}`)
    await add(b, k, 80, `c${i}`)
  }
  await written(b)
  if (by === 'read') {
    for (const [i, k] of KEYS.entries()) expect(await read(b, k, 150)).toEqual([`a${i}`, `c${i}`])
  } else {
    b.setTtlTime(150)
    await b.cleanupExpired(Number.POSITIVE_INFINITY)
  }
  for (const [i, k] of KEYS.entries()) await add(b, k, 150, `d${i}`)
  await written(b)
}

describe.each([
  { cache: 'a cache that keeps them', cacheBytes: undefined },
  { cache: 'nothing cached', cacheBytes: 0 },
])('list sequence numbers on RocksDB, $cache', ({ cacheBytes }) => {
  it.each(['read', 'sweep'] as const)('a middle element dropped (by a %s), then an add: resident, read back, restored at parallelism 2', async by => {
    const b = await openRocks({ cacheBytes })
    rows(b)
    await middleDropped(b, by)
    for (const [i, k] of KEYS.entries()) expect(await read(b, k, 150)).toEqual([`a${i}`, `c${i}`, `d${i}`])
    expect(await b.countEntries({ stored: true })).toBe(KEYS.length * 3)

    const snap = await snapshot(b, { start: 0, end: 127 })
    const low = await openRocks({ cacheBytes, keyGroupRange: keyGroupRange(0, 2) })
    const high = await openRocks({ cacheBytes, keyGroupRange: keyGroupRange(1, 2) })
    for (const r of [low, high]) {
      rows(r)
      await restore(r, snap)
    }
    const owner = (k: KeyRef) => (k.group <= low.keyGroupRange.end ? low : high)
    // Read back and appended to again after the restore: 'e' after 'd', nothing overwritten.
    for (const [i, k] of KEYS.entries()) {
      expect(await read(owner(k), k, 160)).toEqual([`a${i}`, `c${i}`, `d${i}`])
      await add(owner(k), k, 160, `e${i}`)
    }
    for (const r of [low, high]) await written(r)
    for (const [i, k] of KEYS.entries()) expect(await read(owner(k), k, 170)).toEqual([`a${i}`, `c${i}`, `d${i}`, `e${i}`])
    expect(await low.countEntries({ stored: true }) + await high.countEntries({ stored: true })).toBe(KEYS.length * 4)
    // 'a' and 'c' expire at 180, 'd' and 'e' at 250 and 260: the elements deleted are theirs.
    for (const [i, k] of KEYS.entries()) expect(await read(owner(k), k, 200)).toEqual([`d${i}`, `e${i}`])
    for (const r of [low, high]) await written(r)
    expect(await low.countEntries({ stored: true }) + await high.countEntries({ stored: true })).toBe(KEYS.length * 2)
    for (const [i, k] of KEYS.entries()) expect(await read(owner(k), k, 255)).toEqual([`e${i}`])
    // The original backend, its cells numbered as the drop left them: 'a' and 'c' go, and only they.
    for (const [i, k] of KEYS.entries()) expect(await read(b, k, 200)).toEqual([`d${i}`])
    await written(b)
    expect(await b.countEntries({ stored: true })).toBe(KEYS.length)
    for (const [i, k] of KEYS.entries()) expect(await read(b, k, 200)).toEqual([`d${i}`])
  })

  it('the last element dropped, then an add: a gap at the end is not reused', async () => {
    const b = await openRocks({ cacheBytes })
    rows(b)
    for (const [i, k] of KEYS.entries()) {
      await add(b, k, 80, `a${i}`)
      await add(b, k, 0, `b${i}`)
    }
    await written(b)
    for (const [i, k] of KEYS.entries()) {
      expect(await read(b, k, 150)).toEqual([`a${i}`])
      await add(b, k, 150, `c${i}`)
    }
    await written(b)
    for (const [i, k] of KEYS.entries()) expect(await read(b, k, 150)).toEqual([`a${i}`, `c${i}`])
    expect(await b.countEntries({ stored: true })).toBe(KEYS.length * 2)
    for (const [i, k] of KEYS.entries()) expect(await read(b, k, 200)).toEqual([`c${i}`])
    await written(b)
    expect(await b.countEntries({ stored: true })).toBe(KEYS.length)
  })

  it('a list kept without TTL times, then registered with a TTL: its elements count from when first read with it', async () => {
    const b = await openRocks({ cacheBytes })
    b.getListState(listState<string>('rows'))
    for (const [i, k] of KEYS.entries()) {
      b.setTtlTime(0)
      await at(b, k, NS)
      const l = b.getListState(listState<string>('rows'))
      l.setNamespace(NS)
      l.add(`a${i}`)
      l.add(`b${i}`)
    }
    await written(b)
    for (const [i, k] of KEYS.entries()) expect(await read(b, k, 1000, undefined)).toEqual([`a${i}`, `b${i}`])
    // Registered again with a TTL (the latest descriptor counts): elements that have no time, stored or
    // resident, count as written when read with it, as a stored element without a time always has.
    rows(b)
    for (const [i, k] of KEYS.entries()) {
      expect(await read(b, k, 1000)).toEqual([`a${i}`, `b${i}`])
      await add(b, k, 1050, `c${i}`)
    }
    await written(b)
    for (const [i, k] of KEYS.entries()) expect(await read(b, k, 1060)).toEqual([`a${i}`, `b${i}`, `c${i}`])
    expect(await b.countEntries({ stored: true })).toBe(KEYS.length * 3)
  })
})
