// TTL on disk: expired entries are hidden on prefetch and read, and the background sweep deletes
// them from the database (and from the cache), but never an entry the cache rewrote.
import { afterEach, describe, expect, it } from 'vitest'
import { listState, mapState, valueState, type StateTtlConfig } from '../../../core/keyed-state.js'
import { makeKey } from '../../../state/key-encoding.js'
import { cleanup, openRocks } from './harness.js'

afterEach(cleanup)

const ttl: StateTtlConfig = { ttlMs: 100, updateType: 'OnCreateAndWrite' }
const keys = Array.from({ length: 100 }, (_, i) => makeKey([`user-${i}`]))

describe('RocksDB backend TTL', () => {
  it('sweeps expired entries off the disk, keeping rewritten ones', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    const v = b.getValueState(valueState<number>('v', ttl))
    const m = b.getMapState(mapState<string, number>('m', ttl))
    const l = b.getListState(listState<number>('l', ttl))
    const forever = b.getValueState(valueState<number>('forever'))
    b.setTtlTime(0)
    await b.prefetch(keys.map(key => ({ key, namespace: '' })))
    for (const [i, key] of keys.entries()) {
      b.setCurrentKey(key)
      v.update(i)
      m.put('a', i)
      m.put('b', i)
      m.put('c', i)
      l.add(i)
      l.add(i)
      forever.update(i)
    }
    await b.flush()
    b.setTtlTime(50)
    await b.prefetch([{ key: keys[0]!, namespace: '' }])
    b.setCurrentKey(keys[0]!)
    v.update(-1)
    m.put('b', -1)
    l.add(-1) // rewritten or added: these outlive the rest
    await b.flush()
    b.setTtlTime(120)
    expect(await b.countEntries({ stored: true })).toBe(100 * 7 + 1)
    expect(await b.countEntries()).toBe(100 + 3)

    // A rewrite after expiry, still only in the cache when the sweep runs: it must survive.
    await b.prefetch([{ key: keys[1]!, namespace: '' }])
    b.setCurrentKey(keys[1]!)
    expect(v.value()).toBeUndefined()
    v.update(1000)

    let removed = 0
    for (let i = 0; i < 20; i++) removed += await b.cleanupExpired(200) // 700 stored: about 5 passes
    // 701 stored − 100 forever − key 0's 3 rewrites − key 1's value (rewritten in the cache) − key 1's
    // 3 map entries and 2 list elements (hidden by its prefetch, so the flush deleted them).
    expect(removed).toBe(592)
    expect(await b.cleanupExpired(Number.POSITIVE_INFINITY)).toBe(0)
    expect(await b.countEntries({ stored: true })).toBe(100 + 3 + 1)
    expect(await b.countEntries()).toBe(100 + 3 + 1)

    await b.prefetch(keys.slice(0, 3).map(key => ({ key, namespace: '' })))
    b.setCurrentKey(keys[0]!)
    expect(v.value()).toBe(-1)
    expect([...m.entries()]).toEqual([['b', -1]])
    expect(l.get()).toEqual([-1])
    b.setCurrentKey(keys[1]!)
    expect(v.value()).toBe(1000)
    b.setCurrentKey(keys[2]!)
    expect(v.value()).toBeUndefined()
    expect(forever.value()).toBe(2)
  })

  it('takes expired entries out of resident cells too', async () => {
    const b = await openRocks()
    const v = b.getValueState(valueState<number>('v', ttl))
    const m = b.getMapState(mapState<string, number>('m', ttl))
    const l = b.getListState(listState<number>('l', ttl))
    b.setTtlTime(0)
    await b.prefetch([{ key: keys[0]!, namespace: '' }])
    b.setCurrentKey(keys[0]!)
    v.update(1)
    m.put('old', 1)
    l.add(1)
    await b.flush() // on disk before they expire (a value that expires before its flush is never written)
    b.setTtlTime(60)
    m.put('new', 2)
    l.add(2)
    b.setTtlTime(120)
    expect(await b.cleanupExpired(Number.POSITIVE_INFINITY)).toBe(3)
    expect(b.cacheStats().slots).toBeGreaterThan(0) // still resident, minus the expired parts
    b.setCurrentKey(keys[0]!)
    expect(v.value()).toBeUndefined()
    expect([...m.entries()]).toEqual([['new', 2]])
    expect(l.get()).toEqual([2])
    l.add(3)
    await b.flush()
    expect(await b.countEntries({ stored: true })).toBe(3)
  })

  it('hides expired state already when prefetching, and deletes it at the next flush', async () => {
    const b = await openRocks({ cacheBytes: 0 })
    const v = b.getValueState(valueState<number>('v', ttl))
    b.setTtlTime(0)
    await b.prefetch(keys.map(key => ({ key, namespace: '' })))
    for (const key of keys) {
      b.setCurrentKey(key)
      v.update(1)
    }
    await b.sync() // written and evicted
    b.setTtlTime(100)
    await b.prefetch(keys.map(key => ({ key, namespace: '' })))
    await b.flush()
    expect(await b.countEntries({ stored: true })).toBe(0)
    expect(b.stats().entries).toBe(0)
  })

  it('does not write a value that expired while deferred write-back held it', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    const v = b.getValueState(valueState<number>('v', ttl))
    b.setTtlTime(0)
    await b.prefetch(keys.slice(0, 2).map(key => ({ key, namespace: '' })))
    b.setCurrentKey(keys[0]!)
    v.update(1)
    b.setCurrentKey(keys[1]!)
    v.update(2)
    await b.sync()
    b.setTtlTime(50)
    b.setCurrentKey(keys[1]!)
    v.update(3) // held, and expires with key 0's stored value
    await b.flush()
    b.setTtlTime(200)
    const before = b.stats().bytesWritten!
    await b.sync()
    // Key 1's held value is dropped (its stored one deleted); key 0's stored one is left to the sweep.
    expect(b.stats().bytesWritten! - before).toBeLessThan(40)
    expect(await b.countEntries({ stored: true })).toBe(1)
    expect(await b.cleanupExpired(Number.POSITIVE_INFINITY)).toBe(1)
    expect(await b.countEntries({ stored: true })).toBe(0)
    expect(b.stats().entries).toBe(0)
  })

  it('leaves state held by deferred write-back to the read path', async () => {
    const b = await openRocks({ writeBack: 'deferred' })
    const v = b.getValueState(valueState<number>('v', ttl))
    b.setTtlTime(0)
    await b.prefetch([{ key: keys[0]!, namespace: '' }])
    b.setCurrentKey(keys[0]!)
    v.update(1)
    await b.flush() // held in the cache
    b.setTtlTime(200)
    expect(await b.cleanupExpired(Number.POSITIVE_INFINITY)).toBe(0)
    b.setCurrentKey(keys[0]!)
    expect(v.value()).toBeUndefined()
    await b.sync()
    expect(await b.countEntries({ stored: true })).toBe(0)
  })

  it('stops disk use from growing under a steady stream of new keys', async () => {
    const b = await openRocks({ cacheBytes: 1 << 20 })
    const v = b.getValueState(valueState<string>('session', ttl))
    const stored: number[] = []
    for (let round = 0; round < 40; round++) {
      b.setTtlTime(round * 50)
      const batch = Array.from({ length: 500 }, (_, i) => makeKey([round, i]))
      await b.prefetch(batch.map(key => ({ key, namespace: '' })))
      for (const key of batch) {
        b.setCurrentKey(key)
        v.update('payload')
      }
      // Each entry lives two rounds; a sweep of twice the rows keeps the backlog to about as much again.
      await b.cleanupExpired(2 * batch.length)
      await b.flush()
      stored.push(await b.countEntries({ stored: true }))
    }
    expect(Math.max(...stored.slice(20))).toBeLessThan(2500)
    expect(Math.max(...stored.slice(30))).toBeLessThanOrEqual(Math.max(...stored.slice(10, 20)) + 100)
  })
})
