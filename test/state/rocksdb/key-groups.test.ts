// Key groups on disk: snapshot a range into files, restore them into backends of another
// parallelism (each keeps only its own groups), clear one key group, and refuse damaged files.
import { readdir, stat, truncate } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { listState, mapState, valueState, type KeyRef } from '../../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../../state/key-encoding.js'
import type { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { cleanup, openRocks, tempDir } from './harness.js'

afterEach(cleanup)

const keys = Array.from({ length: 1000 }, (_, i) => makeKey([i % 2 === 0 ? `user-${i}` : i]))

/** Three states, two namespaces each, for every key. */
function statesOf(b: RocksDbKeyedStateBackend) {
  return {
    v: b.getValueState(valueState<unknown[]>('v')),
    l: b.getListState(listState<number>('l')),
    m: b.getMapState(mapState<string, bigint>('m')),
  }
}

async function fill(b: RocksDbKeyedStateBackend): Promise<void> {
  const s = statesOf(b)
  await b.prefetch(keys.map(key => ({ key })))
  for (const [i, key] of keys.entries()) {
    b.setCurrentKey(key)
    for (const ns of ['', 7]) {
      s.v.setNamespace(ns)
      s.l.setNamespace(ns)
      s.m.setNamespace(ns)
      s.v.update([i, ns, `${i}`])
      s.l.add(i)
      s.l.add(i + 1)
      s.m.put(`p${i % 10}`, BigInt(i))
    }
  }
}

async function read(b: RocksDbKeyedStateBackend, key: KeyRef): Promise<unknown> {
  const s = statesOf(b)
  await b.prefetch([{ key }])
  b.setCurrentKey(key)
  const out: unknown[] = []
  for (const ns of ['', 7]) {
    s.v.setNamespace(ns)
    s.l.setNamespace(ns)
    s.m.setNamespace(ns)
    out.push(s.v.value(), s.l.get(), [...s.m.entries()])
  }
  return out
}

describe('RocksDB backend key groups', () => {
  it('snapshots in ranges and restores into another parallelism', async () => {
    const source = await openRocks({ cacheBytes: 1 << 20 })
    await fill(source) // not flushed: the snapshot flushes first
    const folder = join(await tempDir('weir-snap-'), 'chk-1')
    let written = 0
    for (let i = 0; i < 4; i++) {
      const { files, entries } = await source.snapshotKeyGroups(keyGroupRange(i, 4), folder)
      expect(files).toHaveLength(1)
      expect((await stat(files[0]!)).size).toBeGreaterThan(0)
      written += entries
    }
    expect(written).toBe(await source.countEntries({ stored: true }))
    expect(await readdir(folder)).toHaveLength(4)

    const targets = [await openRocks({ keyGroupRange: keyGroupRange(0, 2) }), await openRocks({ keyGroupRange: keyGroupRange(1, 2) })]
    let restored = 0
    for (const t of targets) restored += await t.restoreKeyGroups(folder)
    expect(restored).toBe(written)
    expect(await targets[0]!.countEntries() + await targets[1]!.countEntries()).toBe(await source.countEntries())
    for (const key of keys) {
      const t = targets[key.group <= targets[0]!.keyGroupRange.end ? 0 : 1]!
      expect(await read(t, key)).toEqual(await read(source, key))
    }
  })

  it('clears one key group, on disk and in the cache', async () => {
    const b = await openRocks()
    await fill(b)
    await b.flush()
    const group = keys[0]!.group
    const inGroup = keys.filter(k => k.group === group)
    const before = await b.countEntries()
    await b.prefetch(keys.map(key => ({ key }))) // all resident
    await b.clearKeyGroup(group)
    expect(await b.countEntries()).toBe(before - inGroup.length * 6)
    expect(b.stats().entries).toBe(before - inGroup.length * 6)
    expect(await read(b, keys[0]!)).toEqual([undefined, [], [], undefined, [], []])
    const other = keys.find(k => k.group !== group)!
    expect(await read(b, other)).not.toEqual([undefined, [], [], undefined, [], []])
  })

  it('refuses a damaged snapshot file', async () => {
    const b = await openRocks()
    await fill(b)
    const folder = join(await tempDir('weir-snap-'), 'chk')
    const { files } = await b.snapshotKeyGroups({ start: 0, end: 127 }, folder)
    await truncate(files[0]!, (await stat(files[0]!)).size - 10)
    const r = await openRocks()
    await expect(r.restoreKeyGroups(folder)).rejects.toThrow(/cannot restore state from '.*key-groups-0-127\.wkg': (truncated|record count)/)
  })
})
