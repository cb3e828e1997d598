// The heap keyed-state backend's own behaviour: snapshot/restore by key group and its no-op prefetch (shared behaviour: test/state/rocksdb/behaviour.test.ts).
import { describe, expect, it } from 'vitest'
import { HeapKeyedStateBackend, type HeapSnapshot } from '../../state/heap/heap-backend.js'
import { listState, mapState, valueState, type StateTtlConfig } from '../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../state/key-encoding.js'

const alice = makeKey(['alice'])
const bob = makeKey(['bob'])
const ttl = (ttlMs: number, updateType: StateTtlConfig['updateType'] = 'OnCreateAndWrite'): StateTtlConfig => ({ ttlMs, updateType })

describe('HeapKeyedStateBackend', () => {
  // The behaviour every backend shares (value/list/map state, TTL, cleanup) is tested once for all
  // backends in test/state/rocksdb/behaviour.test.ts; what follows is the heap backend's own.

  it('round-trips a snapshot, with deep copies and TTL times', () => {
    const b = new HeapKeyedStateBackend()
    const v = b.getValueState(valueState<unknown[]>('v', ttl(1000)))
    const l = b.getListState(listState<bigint>('l'))
    const m = b.getMapState(mapState<unknown, string>('m'))
    b.setTtlTime(500)
    const acc = [1, 12345n, 'x', null]
    b.setCurrentKey(alice)
    v.update(acc)
    v.setNamespace(60_000)
    v.update([2])
    l.add(1n)
    l.add(2n)
    m.put('k', 'v')
    m.put(['a', 1n], 'row')
    b.setCurrentKey(bob)
    m.setNamespace('w')
    m.put(7, 'seven')
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

  it("restores a TTL list before its descriptor is declared with each element's own time", () => {
    // A job restores its backend before its operators declare their states.
    const b = new HeapKeyedStateBackend()
    const l = b.getListState(listState<string>('l', ttl(1000)))
    const plain = b.getListState(listState<string>('plain'))
    b.setCurrentKey(alice)
    b.setTtlTime(100)
    l.add('early')
    plain.add('x')
    b.setTtlTime(900)
    l.add('late')
    plain.add('y')
    const snap: HeapSnapshot = structuredClone(b.snapshot())

    const r = new HeapKeyedStateBackend()
    r.restore(snap)
    const rl = r.getListState(listState<string>('l', ttl(1000)))
    const rplain = r.getListState(listState<string>('plain'))
    r.setCurrentKey(alice)
    r.setTtlTime(1000)
    expect(rl.get()).toEqual(['early', 'late'])
    expect(rplain.get()).toEqual(['x', 'y'])
    r.setTtlTime(1500) // 'early' expired at 1100, 'late' lives until 1900
    expect(rl.get()).toEqual(['late'])
    r.setTtlTime(2000)
    expect(rl.get() ?? []).toEqual([])
    expect(rplain.get()).toEqual(['x', 'y'])
  })

  it('lays snapshots out by key group and restores only owned groups', () => {
    const b = new HeapKeyedStateBackend()
    const v = b.getValueState(valueState<number>('v'))
    const keys = Array.from({ length: 200 }, (_, i) => makeKey([`k${i}`]))
    for (const [i, k] of keys.entries()) {
      b.setCurrentKey(k)
      v.update(i)
    }
    const snap = b.snapshot()
    const groups = snap.keyGroups.map(g => g.group)
    expect(groups).toEqual([...groups].sort((a, c) => a - c))
    for (const g of snap.keyGroups) for (const e of g.entries) expect(makeKey(e.key).group).toBe(g.group)

    const lowRange = keyGroupRange(0, 2), highRange = keyGroupRange(1, 2)
    const low = new HeapKeyedStateBackend({ keyGroupRange: lowRange })
    const high = new HeapKeyedStateBackend({ keyGroupRange: highRange })
    low.restore(snap)
    high.restore(snap)
    const lowKeys = [...low.keys('v')], highKeys = [...high.keys('v')]
    expect(lowKeys.length + highKeys.length).toBe(200)
    expect(lowKeys.length).toBeGreaterThan(50)
    expect(lowKeys.every(k => k.group <= lowRange.end)).toBe(true)
    expect(highKeys.every(k => k.group >= highRange.start)).toBe(true)
    const hv = high.getValueState(valueState<number>('v'))
    for (const k of highKeys) {
      high.setCurrentKey(k)
      expect(hv.value()).toBe(keys.findIndex(x => x.encoded === k.encoded))
    }
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
