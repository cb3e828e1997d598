// The heap keyed-state backend: value/list/map per key and namespace, TTL, cleanup, snapshot/restore, key groups.
import { describe, expect, it } from 'vitest'
import { HeapKeyedStateBackend, type HeapSnapshot } from '../../state/heap/heap-backend.js'
import { listState, mapState, valueState, type StateTtlConfig } from '../../state/api.js'
import { keyGroupRange, makeKey } from '../../state/key-encoding.js'

const alice = makeKey(['alice'])
const bob = makeKey(['bob'])
const ttl = (ttlMs: number, updateType: StateTtlConfig['updateType'] = 'OnCreateAndWrite'): StateTtlConfig => ({ ttlMs, updateType })

describe('HeapKeyedStateBackend', () => {
  it('keeps value state per key and per namespace', () => {
    const b = new HeapKeyedStateBackend()
    const v = b.getValueState(valueState<number>('v'))
    b.setCurrentKey(alice)
    expect(v.value()).toBeUndefined()
    v.update(1)
    v.setNamespace(10)
    v.update(2)
    v.setNamespace('10')
    expect(v.value()).toBeUndefined() // number and string namespaces differ
    b.setCurrentKey(bob)
    v.setNamespace('')
    expect(v.value()).toBeUndefined()
    v.update(3)
    b.setCurrentKey(makeKey(['alice'])) // an equal key, another object
    expect(v.value()).toBe(1)
    v.setNamespace(10)
    expect(v.value()).toBe(2)
    v.clear()
    expect(v.value()).toBeUndefined()
    v.setNamespace('')
    expect(v.value()).toBe(1)
    b.setCurrentKey(bob)
    expect(v.value()).toBe(3)
    expect(b.stats().entries).toBe(2)
  })

  it('returns one handle per state name and rejects a kind change', () => {
    const b = new HeapKeyedStateBackend()
    expect(b.getValueState(valueState('x'))).toBe(b.getValueState(valueState('x')))
    expect(() => b.getMapState(mapState('x'))).toThrow(/already exists as value state/)
  })

  it('keeps list state per key and namespace', () => {
    const b = new HeapKeyedStateBackend()
    const l = b.getListState(listState<string>('l'))
    b.setCurrentKey(alice)
    expect(l.get()).toEqual([])
    l.add('a'); l.add('b')
    l.setNamespace(1)
    l.add('z')
    l.setNamespace('')
    expect(l.get()).toEqual(['a', 'b'])
    b.setCurrentKey(bob)
    expect(l.get()).toEqual([])
    l.update(['x', 'y'])
    expect(l.get()).toEqual(['x', 'y'])
    l.update([])
    expect(l.get()).toEqual([])
    b.setCurrentKey(alice)
    l.setNamespace(1)
    expect(l.get()).toEqual(['z'])
    expect(b.stats().entries).toBe(2)
  })

  it('keeps map state entries with primitive and row keys', () => {
    const b = new HeapKeyedStateBackend()
    const m = b.getMapState(mapState<unknown, number>('m'))
    b.setCurrentKey(alice)
    m.put('a', 1); m.put(2, 2); m.put(3n, 3); m.put(['row', 1], 4)
    expect(m.get('a')).toBe(1)
    expect(m.get(3n)).toBe(3)
    expect(m.get(['row', 1])).toBe(4) // equal content, another array
    expect(m.get('2')).toBeUndefined()
    expect(m.size()).toBe(4)
    m.put('a', 10)
    m.remove(2)
    expect([...m.entries()]).toEqual([['a', 10], [3n, 3], [['row', 1], 4]])
    expect([...m.keys()]).toEqual(['a', 3n, ['row', 1]])
    expect(m.contains(2)).toBe(false)
    m.setNamespace('w')
    expect(m.isEmpty()).toBe(true)
    m.put('a', 1)
    m.setNamespace('')
    b.setCurrentKey(bob)
    expect(m.isEmpty()).toBe(true)
    b.setCurrentKey(alice)
    expect(b.stats().entries).toBe(4)
    m.clear()
    expect(m.size()).toBe(0)
    expect(b.stats().entries).toBe(1)
  })

  it('keeps get-then-put right when the entry went away in between', () => {
    const b = new HeapKeyedStateBackend()
    const m = b.getMapState(mapState<string, number>('m', ttl(100)))
    b.setTtlTime(0)
    b.setCurrentKey(alice)
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
    expect(b.cleanupExpired()).toBe(1)
    m.put('a', 4)
    expect(m.get('a')).toBe(4)
    expect(b.stats().entries).toBe(1)
    b.setCurrentKey(bob)
    m.put('a', 5) // same user key, another key's map
    b.setCurrentKey(alice)
    expect(m.get('a')).toBe(4)
  })

  it('lists the keys that have state', () => {
    const b = new HeapKeyedStateBackend()
    const v = b.getValueState(valueState<number>('v'))
    const m = b.getMapState(mapState<string, number>('m'))
    b.setCurrentKey(alice); v.update(1)
    b.setCurrentKey(bob); v.update(2); m.put('x', 1)
    expect([...b.keys('v')].map(k => k.values)).toEqual([['alice'], ['bob']])
    expect([...b.keys('m')].map(k => k.values)).toEqual([['bob']])
    m.remove('x')
    expect([...b.keys('m')]).toEqual([])
    expect([...b.keys('nope')]).toEqual([])
  })

  it('never returns an expired value (OnCreateAndWrite)', () => {
    const b = new HeapKeyedStateBackend()
    const v = b.getValueState(valueState<string>('v', ttl(100)))
    b.setTtlTime(1000)
    b.setCurrentKey(alice)
    v.update('x')
    b.setTtlTime(1099)
    expect(v.value()).toBe('x') // a read does not extend the TTL
    b.setTtlTime(1100)
    expect(v.value()).toBeUndefined()
    b.setTtlTime(1000) // the entry is gone, not just hidden
    expect(v.value()).toBeUndefined()
    v.update('y')
    b.setTtlTime(1050)
    v.update('z') // a write restarts it
    b.setTtlTime(1149)
    expect(v.value()).toBe('z')
  })

  it('extends TTL on reads with OnReadAndWrite', () => {
    const b = new HeapKeyedStateBackend()
    const v = b.getValueState(valueState<string>('v', ttl(100, 'OnReadAndWrite')))
    b.setCurrentKey(alice)
    b.setTtlTime(0); v.update('x')
    b.setTtlTime(90); expect(v.value()).toBe('x')
    b.setTtlTime(180); expect(v.value()).toBe('x')
    b.setTtlTime(280); expect(v.value()).toBeUndefined()
  })

  it('hides expired map entries and list elements one by one', () => {
    const b = new HeapKeyedStateBackend()
    const m = b.getMapState(mapState<string, number>('m', ttl(100)))
    const l = b.getListState(listState<string>('l', ttl(100)))
    b.setCurrentKey(alice)
    b.setTtlTime(0); m.put('old', 1); l.add('old')
    b.setTtlTime(50); m.put('new', 2); l.add('new')
    b.setTtlTime(120)
    expect(m.get('old')).toBeUndefined()
    expect(m.contains('old')).toBe(false)
    expect([...m.entries()]).toEqual([['new', 2]])
    expect(m.size()).toBe(1)
    expect(l.get()).toEqual(['new'])
    b.setTtlTime(150)
    expect(m.isEmpty()).toBe(true)
    expect(l.get()).toEqual([])
    expect(b.stats().entries).toBe(0)
  })

  it('cleans expired entries up incrementally', () => {
    const b = new HeapKeyedStateBackend()
    const v = b.getValueState(valueState<number>('v', ttl(100)))
    const m = b.getMapState(mapState<string, number>('m', ttl(100)))
    const forever = b.getValueState(valueState<number>('forever'))
    b.setTtlTime(0)
    for (let i = 0; i < 10; i++) {
      b.setCurrentKey(makeKey([i]))
      v.update(i); m.put('a', i); m.put('b', i); forever.update(i)
    }
    b.setTtlTime(50)
    b.setCurrentKey(makeKey([0])); m.put('b', 99) // key 0's 'b' is fresh
    expect(b.stats().entries).toBe(40)
    b.setTtlTime(120)
    expect(b.stats().entries).toBe(11) // forever ×10 + key 0's 'b'
    expect(b.cleanupExpired(5)).toBe(5) // 5 value slots
    expect(b.cleanupExpired(5)).toBe(5)
    expect(b.cleanupExpired()).toBe(19) // 10 map slots: 2 entries each but key 0's fresh 'b'
    expect(b.cleanupExpired()).toBe(0)
    expect([...b.keys('v')]).toEqual([])
    expect([...b.keys('m')].map(k => k.values)).toEqual([[0]])
    expect(b.stats().entries).toBe(11)
    b.setCurrentKey(makeKey([3]))
    expect(forever.value()).toBe(3)
    expect(v.value()).toBeUndefined()
  })

  it('round-trips a snapshot, with deep copies and TTL times', () => {
    const b = new HeapKeyedStateBackend()
    const v = b.getValueState(valueState<unknown[]>('v', ttl(1000)))
    const l = b.getListState(listState<bigint>('l'))
    const m = b.getMapState(mapState<unknown, string>('m'))
    b.setTtlTime(500)
    const acc = [1, 12345n, 'x', null]
    b.setCurrentKey(alice)
    v.update(acc); v.setNamespace(60_000); v.update([2])
    l.add(1n); l.add(2n)
    m.put('k', 'v'); m.put(['a', 1n], 'row')
    b.setCurrentKey(bob)
    m.setNamespace('w'); m.put(7, 'seven')
    const snap = b.snapshot()
    acc[0] = 999 // the snapshot holds a copy
    const json: HeapSnapshot = structuredClone(snap)

    const r = new HeapKeyedStateBackend()
    r.restore(json)
    r.setTtlTime(600)
    const rv = r.getValueState(valueState<unknown[]>('v', ttl(1000)))
    const rl = r.getListState(listState<bigint>('l'))
    const rm = r.getMapState(mapState<unknown, string>('m'))
    r.setCurrentKey(alice)
    expect(rv.value()).toEqual([1, 12345n, 'x', null])
    rv.setNamespace(60_000)
    expect(rv.value()).toEqual([2])
    expect(rl.get()).toEqual([1n, 2n])
    expect([...rm.entries()]).toEqual([['k', 'v'], [['a', 1n], 'row']])
    expect(rm.get(['a', 1n])).toBe('row')
    r.setCurrentKey(bob)
    rm.setNamespace('w')
    expect(rm.get(7)).toBe('seven')
    expect(r.stats().entries).toBe(b.stats().entries)
    expect(r.snapshot()).toEqual(json)
    r.setTtlTime(1500) // written at 500 with a TTL of 1000
    r.setCurrentKey(alice)
    rv.setNamespace('')
    expect(rv.value()).toBeUndefined()
  })

  it('lays snapshots out by key group and restores only owned groups', () => {
    const b = new HeapKeyedStateBackend()
    const v = b.getValueState(valueState<number>('v'))
    const keys = Array.from({ length: 200 }, (_, i) => makeKey([`k${i}`]))
    for (const [i, k] of keys.entries()) { b.setCurrentKey(k); v.update(i) }
    const snap = b.snapshot()
    const groups = snap.keyGroups.map(g => g.group)
    expect(groups).toEqual([...groups].sort((a, c) => a - c))
    for (const g of snap.keyGroups) for (const e of g.entries) expect(makeKey(e.key).group).toBe(g.group)

    const lowRange = keyGroupRange(0, 2), highRange = keyGroupRange(1, 2)
    const low = new HeapKeyedStateBackend({ keyGroupRange: lowRange })
    const high = new HeapKeyedStateBackend({ keyGroupRange: highRange })
    low.restore(snap); high.restore(snap)
    const lowKeys = [...low.keys('v')], highKeys = [...high.keys('v')]
    expect(lowKeys.length + highKeys.length).toBe(200)
    expect(lowKeys.length).toBeGreaterThan(50)
    expect(lowKeys.every(k => k.group <= lowRange.end)).toBe(true)
    expect(highKeys.every(k => k.group >= highRange.start)).toBe(true)
    const hv = high.getValueState(valueState<number>('v'))
    for (const k of highKeys) { high.setCurrentKey(k); expect(hv.value()).toBe(keys.findIndex(x => x.encoded === k.encoded)) }
    const outside = keys.find(k => k.group < highRange.start)!
    expect(() => high.setCurrentKey(outside)).toThrow(/outside this subtask's range/)
  })

  it('refuses a snapshot taken with another max-parallelism', () => {
    const b = new HeapKeyedStateBackend({ maxParallelism: 64 })
    expect(() => b.restore({ format: 'weir-heap/1', maxParallelism: 128, keyGroups: [] })).toThrow(/max-parallelism 128/)
  })

  it('does nothing to prefetch or flush', async () => {
    const b = new HeapKeyedStateBackend()
    expect(b.needsPrefetch).toBe(false)
    await expect(b.prefetch([{ key: alice, namespace: '' }])).resolves.toBeUndefined()
    await expect(b.flush()).resolves.toBeUndefined()
  })
})
