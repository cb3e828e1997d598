// The RocksDB TTL sweep keeps the live-entry count (stats().entries, the state metric) right for
// lists and maps whose expired entries it deletes from disk while they are not in the cache: a list
// counts once, so it leaves the count only when its last element goes, however the sweep's budget
// cuts the list's elements across calls.
import { afterEach, describe, expect, it } from 'vitest'
import { type KeyedStateBackend, listState, mapState, type StateTtlConfig } from '../../../core/keyed-state.js'
import { makeKey } from '../../../state/key-encoding.js'
import type { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { at, cleanup, openRocks, restore, snapshot, written } from './harness.js'

afterEach(cleanup)

const ttl = (ttlMs: number): StateTtlConfig => ({ ttlMs, updateType: 'OnCreateAndWrite' })
const KEYS = 120

/** Each key gets `old` list elements and map entries at time 0, then `fresh` of each at time 80 (TTL 100), each in its own bundle. */
async function fill(b: KeyedStateBackend, old: number, fresh: number): Promise<void> {
  const l = b.getListState(listState<string>('l', ttl(100)))
  const m = b.getMapState(mapState<string, number>('m', ttl(100)))
  for (const [time, n, tag] of [[0, old, 'old'], [80, fresh, 'fresh']] as const) {
    b.setTtlTime(time)
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < KEYS; k++) {
        await at(b, makeKey([k]))
        l.add(`${tag} ${i} of ${k}`)
        m.put(`${tag} ${i}`, k)
      }
    }
  }
  await written(b)
}

/** Sweeps `budget` entries a call until a full lap of calls deletes nothing. */
async function sweep(b: RocksDbKeyedStateBackend, budget: number): Promise<void> {
  const stored = await b.countEntries({ stored: true })
  const lap = Number.isFinite(budget) ? Math.ceil((stored + 1) / budget) + 1 : 1
  for (let quiet = 0; quiet < lap;) quiet = (await b.cleanupExpired(budget)) === 0 ? quiet + 1 : 0
}

describe.each([
  { cache: 'nothing cached', cacheBytes: 0 },
  { cache: 'a small cache', cacheBytes: 64 * 1024 },
])('TTL sweep of lists and maps on RocksDB, $cache', ({ cacheBytes }) => {
  it.each([1, 5, 7, 64, Number.POSITIVE_INFINITY])('counts a list out once its last element expired and is swept (budget %d)', async budget => {
    const b = await openRocks({ cacheBytes })
    await fill(b, 3, 0)
    // Each key: one list and three map entries.
    expect(b.stats().entries).toBe(KEYS * 4)
    b.setTtlTime(1000)
    await sweep(b, budget)
    expect(await b.countEntries({ stored: true })).toBe(0)
    expect(b.stats().entries).toBe(0)
  })

  it.each([1, 5, 64, Number.POSITIVE_INFINITY])('keeps a list counted while one of its elements lives (budget %d)', async budget => {
    const b = await openRocks({ cacheBytes })
    await fill(b, 3, 1)
    expect(b.stats().entries).toBe(KEYS * 5)
    b.setTtlTime(150)
    await sweep(b, budget)
    // The old elements and entries are gone; each key keeps its list (one fresh element) and one map entry.
    expect(await b.countEntries({ stored: true })).toBe(KEYS * 2)
    expect(b.stats().entries).toBe(KEYS * 2)
    // And once the fresh ones expire too, nothing is left or counted.
    b.setTtlTime(1000)
    await sweep(b, budget)
    expect(await b.countEntries({ stored: true })).toBe(0)
    expect(b.stats().entries).toBe(0)
    expect(await b.countEntries()).toBe(0)
  })
})

describe('TTL sweep after a restore on RocksDB', () => {
  // A restore counts the state it finds; the expired entries among them are still stored, and the sweep
  // counts each out when it deletes it: the restore must have counted them in.
  it.each([1, 7, Number.POSITIVE_INFINITY])('counts restored expired entries once (budget %d)', async budget => {
    const b = await openRocks({ cacheBytes: 0 })
    await fill(b, 3, 1)
    const snap = await snapshot(b, { start: 0, end: 127 })
    const r = await openRocks({ cacheBytes: 0 })
    // The states' TTL comes with their descriptors, as an operator's open() gives them (here before the
    // restore: the restore's count sees the expired entries as such).
    r.getListState(listState<string>('l', ttl(100)))
    r.getMapState(mapState<string, number>('m', ttl(100)))
    r.setTtlTime(150)
    await restore(r, snap)
    await sweep(r, budget)
    expect(await r.countEntries({ stored: true })).toBe(KEYS * 2)
    expect(r.stats().entries).toBe(KEYS * 2)
    r.setTtlTime(1000)
    await sweep(r, budget)
    expect(r.stats().entries).toBe(0)
  })
})
