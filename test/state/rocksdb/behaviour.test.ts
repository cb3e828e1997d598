// One behavioural suite for every keyed-state backend (heap, RocksDB, RocksDB with nothing cached):
// value/list/map per key and namespace, TTL that never returns expired state, cleanup, key groups.
import { afterEach, describe, expect, it } from 'vitest'
import { listState, mapState, valueState, type StateTtlConfig } from '../../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../../state/key-encoding.js'
import { at, cleanup, harnesses, liveEntries, resident, restore, snapshot, written } from './harness.js'

const alice = makeKey(['alice'])
const bob = makeKey(['bob'])
const ttl = (ttlMs: number, updateType: StateTtlConfig['updateType'] = 'OnCreateAndWrite'): StateTtlConfig => ({ ttlMs, updateType })
const all = { start: 0, end: 127 }

afterEach(cleanup)

describe.each(harnesses)('keyed state: $name', h => {
  it('keeps value state per key and per namespace', async () => {
    const b = await h.open()
    const v = b.getValueState(valueState<number>('v'))
    await at(b, alice)
    expect(v.value()).toBeUndefined()
    v.update(1)
    v.setNamespace(10)
    v.update(2)
    v.setNamespace('10')
    expect(v.value()).toBeUndefined() // number and string namespaces differ
    await at(b, bob)
    v.setNamespace('')
    expect(v.value()).toBeUndefined()
    v.update(3)
    await at(b, makeKey(['alice'])) // an equal key, another object
    expect(v.value()).toBe(1)
    v.setNamespace(10)
    expect(v.value()).toBe(2)
    v.clear()
    expect(v.value()).toBeUndefined()
    v.setNamespace('')
    expect(v.value()).toBe(1)
    await at(b, bob)
    expect(v.value()).toBe(3)
    expect(await liveEntries(b)).toBe(2)
  })

  it('returns one handle per state name and rejects a kind change', async () => {
    const b = await h.open()
    expect(b.getValueState(valueState('x'))).toBe(b.getValueState(valueState('x')))
    expect(() => b.getMapState(mapState('x'))).toThrow(/already exists as value state/)
  })

  it('keeps list state per key and namespace', async () => {
    const b = await h.open()
    const l = b.getListState(listState<string>('l'))
    await at(b, alice)
    expect(l.get()).toEqual([])
    l.add('a'); l.add('b')
    l.setNamespace(1)
    l.add('z')
    l.setNamespace('')
    expect(l.get()).toEqual(['a', 'b'])
    await at(b, alice)
    l.add('c')
    expect(l.get()).toEqual(['a', 'b', 'c'])
    await at(b, bob)
    expect(l.get()).toEqual([])
    l.update(['x', 'y'])
    expect(l.get()).toEqual(['x', 'y'])
    l.update([])
    expect(l.get()).toEqual([])
    l.update(['p'])
    await at(b, bob)
    l.add('q')
    expect(l.get()).toEqual(['p', 'q'])
    l.clear()
    await at(b, alice)
    l.setNamespace(1)
    expect(l.get()).toEqual(['z'])
    await at(b, bob)
    expect(l.get()).toEqual([])
    expect(await liveEntries(b)).toBe(2)
  })

  it('keeps map state entries with primitive and row keys', async () => {
    const b = await h.open()
    const m = b.getMapState(mapState<unknown, number>('m'))
    await at(b, alice)
    m.put('a', 1); m.put(2, 2); m.put(3n, 3); m.put(['row', 1], 4)
    expect(m.get('a')).toBe(1)
    expect(m.get(3n)).toBe(3)
    expect(m.get(['row', 1])).toBe(4) // equal content, another array
    expect(m.get('2')).toBeUndefined()
    expect(m.size()).toBe(4)
    await at(b, alice)
    m.put('a', 10)
    m.remove(2)
    expect([...m.entries()]).toEqual([['a', 10], [3n, 3], [['row', 1], 4]])
    expect([...m.keys()]).toEqual(['a', 3n, ['row', 1]])
    expect(m.contains(2)).toBe(false)
    m.setNamespace('w')
    expect(m.isEmpty()).toBe(true)
    m.put('a', 1)
    m.setNamespace('')
    await at(b, bob)
    expect(m.isEmpty()).toBe(true)
    expect(await liveEntries(b)).toBe(4)
    await at(b, alice)
    expect(m.get(['row', 1])).toBe(4)
    expect(m.get('row')).toBeUndefined() // a text key is not a one-column row key
    m.clear()
    expect(m.size()).toBe(0)
    m.put('after-clear', 5)
    await at(b, alice)
    expect([...m.entries()]).toEqual([['after-clear', 5]])
    expect(await liveEntries(b)).toBe(2)
  })

  it('keeps user keys of every type apart: null, undefined, booleans, -0, objects, nested rows', async () => {
    const b = await h.open()
    const m = b.getMapState(mapState<unknown, string>('m'))
    const keys: unknown[] = [null, undefined, true, false, 0, 1.5, -2, 'x', '', 'a\x00b', 10n, 2n ** 70n, ['a'], [['nested', 1]], { id: 7 }]
    await at(b, alice)
    keys.forEach((k, i) => m.put(k, `v${i}`))
    await at(b, alice)
    expect(m.size()).toBe(keys.length)
    keys.forEach((k, i) => expect(m.get(k)).toBe(`v${i}`))
    expect(m.get(-0)).toBe('v4') // -0 and 0 are one key, as in a JS Map
    const got = new Map([...m.entries()].map(([k, v]) => [v, k]))
    keys.forEach((k, i) => expect(got.get(`v${i}`)).toEqual(k))
  })

  it('keeps get-then-put right when the entry went away in between', async () => {
    const b = await h.open()
    const m = b.getMapState(mapState<string, number>('m', ttl(100)))
    b.setTtlTime(0)
    await at(b, alice)
    m.put('a', 1)
    expect(m.get('a')).toBe(1)
    m.remove('a')
    m.put('a', 2) // not into the removed entry
    expect(m.get('a')).toBe(2)
    m.clear()
    m.put('a', 3)
    expect([...m.entries()]).toEqual([['a', 3]])
    expect(m.get('a')).toBe(3)
    b.setTtlTime(200)
    await written(b) // deferred write-back would leave the dirty map to the read path
    expect(await b.cleanupExpired(Number.POSITIVE_INFINITY)).toBe(1)
    await at(b, alice)
    m.put('a', 4)
    expect(m.get('a')).toBe(4)
    expect(await liveEntries(b)).toBe(1)
    await at(b, bob)
    m.put('a', 5) // same user key, another key's map
    await at(b, alice)
    expect(m.get('a')).toBe(4)
  })

  it('lists the keys that have state', async () => {
    const b = await h.open()
    const v = b.getValueState(valueState<number>('v'))
    const m = b.getMapState(mapState<string, number>('m'))
    await at(b, alice); v.update(1)
    await at(b, bob); v.update(2); m.put('x', 1)
    await resident(b, [alice, bob])
    expect([...b.keys('v')].map(k => k.values)).toEqual([['alice'], ['bob']])
    expect([...b.keys('m')].map(k => k.values)).toEqual([['bob']])
    b.setCurrentKey(bob)
    m.remove('x')
    expect([...b.keys('m')]).toEqual([])
    expect([...b.keys('nope')]).toEqual([])
  })

  it('never returns an expired value (OnCreateAndWrite)', async () => {
    const b = await h.open()
    const v = b.getValueState(valueState<string>('v', ttl(100)))
    b.setTtlTime(1000)
    await at(b, alice)
    v.update('x')
    b.setTtlTime(1099)
    await at(b, alice)
    expect(v.value()).toBe('x') // a read does not extend the TTL
    b.setTtlTime(1100)
    await at(b, alice)
    expect(v.value()).toBeUndefined()
    b.setTtlTime(1000) // the entry is gone, not just hidden
    await at(b, alice)
    expect(v.value()).toBeUndefined()
    v.update('y')
    b.setTtlTime(1050)
    v.update('z') // a write restarts it
    b.setTtlTime(1149)
    await at(b, alice)
    expect(v.value()).toBe('z')
  })

  it('extends TTL on reads with OnReadAndWrite', async () => {
    const b = await h.open()
    const v = b.getValueState(valueState<string>('v', ttl(100, 'OnReadAndWrite')))
    b.setTtlTime(0); await at(b, alice); v.update('x')
    b.setTtlTime(90); await at(b, alice); expect(v.value()).toBe('x')
    b.setTtlTime(180); await at(b, alice); expect(v.value()).toBe('x')
    b.setTtlTime(280); await at(b, alice); expect(v.value()).toBeUndefined()
  })

  it('hides expired map entries and list elements one by one', async () => {
    const b = await h.open()
    const m = b.getMapState(mapState<string, number>('m', ttl(100)))
    const l = b.getListState(listState<string>('l', ttl(100)))
    await at(b, alice)
    b.setTtlTime(0); m.put('old', 1); l.add('old')
    b.setTtlTime(50); m.put('new', 2); l.add('new')
    await at(b, alice)
    b.setTtlTime(120)
    expect(m.get('old')).toBeUndefined()
    expect(m.contains('old')).toBe(false)
    expect([...m.entries()]).toEqual([['new', 2]])
    expect(m.size()).toBe(1)
    expect(l.get()).toEqual(['new'])
    await at(b, alice)
    expect(l.get()).toEqual(['new'])
    l.add('newest')
    b.setTtlTime(150)
    await at(b, alice)
    expect(m.isEmpty()).toBe(true)
    expect(l.get()).toEqual(['newest'])
    b.setTtlTime(250)
    await at(b, alice)
    expect(l.get()).toEqual([])
    expect(await liveEntries(b)).toBe(0)
  })

  it('cleans expired entries up incrementally', async () => {
    const b = await h.open()
    const v = b.getValueState(valueState<number>('v', ttl(100)))
    const m = b.getMapState(mapState<string, number>('m', ttl(100)))
    const forever = b.getValueState(valueState<number>('forever'))
    b.setTtlTime(0)
    for (let i = 0; i < 10; i++) {
      await at(b, makeKey([i]))
      v.update(i); m.put('a', i); m.put('b', i); forever.update(i)
    }
    b.setTtlTime(50)
    await at(b, makeKey([0])); m.put('b', 99) // key 0's 'b' is fresh
    expect(await liveEntries(b)).toBe(40)
    b.setTtlTime(120)
    expect(await liveEntries(b)).toBe(11) // forever ×10 + key 0's 'b'
    const first = await b.cleanupExpired(5)
    expect(first).toBeLessThanOrEqual(5)
    let removed = first
    for (let pass = 0; pass < 3; pass++) removed += await b.cleanupExpired(Number.POSITIVE_INFINITY)
    expect(removed).toBe(29) // 10 values + 10 maps × 2 entries, but key 0's fresh 'b'
    expect(await b.cleanupExpired(Number.POSITIVE_INFINITY)).toBe(0)
    expect(await liveEntries(b)).toBe(11)
    await at(b, makeKey([3]))
    expect(forever.value()).toBe(3)
    expect(v.value()).toBeUndefined()
    expect(m.isEmpty()).toBe(true)
    await at(b, makeKey([0]))
    expect([...m.entries()]).toEqual([['b', 99]])
  })

  it('round-trips a key-group snapshot, with TTL times', async () => {
    const b = await h.open()
    const v = b.getValueState(valueState<unknown[]>('v', ttl(1000)))
    const l = b.getListState(listState<bigint>('l'))
    const m = b.getMapState(mapState<unknown, string>('m'))
    b.setTtlTime(500)
    const acc = [1, 12345n, 'x', null]
    await at(b, alice)
    v.update(acc); v.setNamespace(60_000); v.update([2])
    l.add(1n); l.add(2n)
    m.put('k', 'v'); m.put(['a', 1n], 'row')
    await at(b, bob)
    m.setNamespace('w'); m.put(7, 'seven')
    const snap = await snapshot(b, all)
    acc[0] = 999 // the snapshot holds a copy

    const r = await h.open()
    const rv = r.getValueState(valueState<unknown[]>('v', ttl(1000)))
    const rl = r.getListState(listState<bigint>('l'))
    const rm = r.getMapState(mapState<unknown, string>('m'))
    await restore(r, snap)
    r.setTtlTime(600)
    await at(r, alice)
    expect(rv.value()).toEqual([1, 12345n, 'x', null])
    rv.setNamespace(60_000)
    expect(rv.value()).toEqual([2])
    expect(rl.get()).toEqual([1n, 2n])
    expect([...rm.entries()]).toEqual([['k', 'v'], [['a', 1n], 'row']])
    expect(rm.get(['a', 1n])).toBe('row')
    await at(r, bob)
    rm.setNamespace('w')
    expect(rm.get(7)).toBe('seven')
    expect(await liveEntries(r)).toBe(await liveEntries(b))
    r.setTtlTime(1500) // written at 500 with a TTL of 1000
    await at(r, alice)
    rv.setNamespace('')
    expect(rv.value()).toBeUndefined()
  })

  it('restores only the key groups a subtask owns', async () => {
    const b = await h.open()
    const v = b.getValueState(valueState<number>('v'))
    const keys = Array.from({ length: 200 }, (_, i) => makeKey([`k${i}`]))
    for (const [i, k] of keys.entries()) { await at(b, k); v.update(i) }
    const snap = await snapshot(b, all)

    const lowRange = keyGroupRange(0, 2), highRange = keyGroupRange(1, 2)
    const low = await h.open({ keyGroupRange: lowRange })
    const high = await h.open({ keyGroupRange: highRange })
    const lv = low.getValueState(valueState<number>('v'))
    const hv = high.getValueState(valueState<number>('v'))
    await restore(low, snap); await restore(high, snap)
    expect(await liveEntries(low) + await liveEntries(high)).toBe(200)
    expect(await liveEntries(low)).toBeGreaterThan(50)
    for (const [i, k] of keys.entries()) {
      const owner = k.group <= lowRange.end ? low : high
      await at(owner, k)
      expect((owner === low ? lv : hv).value()).toBe(i)
    }
    const outside = keys.find(k => k.group < highRange.start)!
    expect(() => high.setCurrentKey(outside)).toThrow(/outside this subtask's range/)
  })

  it('refuses a snapshot taken with another max-parallelism', async () => {
    const b = await h.open({ maxParallelism: 128 })
    const v = b.getValueState(valueState<number>('v'))
    await at(b, alice); v.update(1)
    const snap = await snapshot(b, all)
    const other = await h.open({ maxParallelism: 64 })
    await expect(restore(other, snap)).rejects.toThrow(/max-parallelism 128/)
  })
})
