// A ValueState value in namespace '' lives in its key's cache slot (state/rocksdb/cache.ts, ValueSlot),
// not in a cell of its own: it must be held dirty, written, evicted, expired, cleared, snapshotted and
// read back exactly as a cell is, beside values of the same key in other namespaces.
import { afterEach, describe, expect, it } from 'vitest'
import { valueState, type KeyRef, type StateTtlConfig } from '../../../core/keyed-state.js'
import { makeKey } from '../../../state/key-encoding.js'
import { cleanup, openRocks, restore, snapshot } from './harness.js'

afterEach(cleanup)

const keys = Array.from({ length: 2000 }, (_, i) => makeKey([`key-${i}`]))
/** What round `r` leaves in namespace '' of key i: every third key cleared, the rest rewritten. */
const plain = (r: number, i: number): number | undefined => (i % 3 === r % 3 ? undefined : r * 10_000 + i)
/** What round `r` leaves in namespace 7 of key i (only even keys have one). */
const windowed = (r: number, i: number): number | undefined => (i % 2 === 0 ? -(r * 10_000 + i) : undefined)

describe('RocksDB value held in its slot', () => {
  it.each(['bundle', 'deferred'] as const)(
    'is written before its slot is evicted and reads back, with values of other namespaces of its key (%s write-back)',
    async writeBack => {
      // A cache of one batch of keys and its changes (~600 bytes a key with both values): the next batch
      // evicts the slots of the one before, whose changes deferred write-back still holds; a dirty slot
      // evicted unwritten then reads back its older value from disk.
      const b = await openRocks({ writeBack, cacheBytes: 256 << 10 })
      const v = b.getValueState(valueState<number>('v'))
      const check = (r: number, key: KeyRef, i: number): void => {
        b.setCurrentKey(key)
        v.setNamespace('')
        expect(v.value()).toBe(r < 0 ? undefined : plain(r, i))
        v.setNamespace(7)
        expect(v.value()).toBe(r < 0 ? undefined : windowed(r, i))
      }
      for (let r = 0; r < 4; r++) {
        for (let s = 0; s < keys.length; s += 250) {
          const batch = keys.slice(s, s + 250)
          await b.prefetch(batch.flatMap(key => [{ key, namespace: '' }, { key, namespace: 7 }]))
          batch.forEach((key, j) => {
            const i = s + j
            check(r - 1, key, i)
            v.setNamespace('')
            const p = plain(r, i)
            if (p === undefined) v.clear()
            else v.update(p)
            v.setNamespace(7)
            const w = windowed(r, i)
            if (w !== undefined) v.update(w)
          })
          await b.flush()
          if (s === 0) continue
          // The batch before, evicted by this one's flush (with deferred write-back, its changes still
          // held): read back at once, before a later write could hide a held change evicted unwritten.
          const before = keys.slice(s - 250, s)
          await b.prefetch(before.flatMap(key => [{ key, namespace: '' }, { key, namespace: 7 }]))
          before.forEach((key, j) => check(r, key, s - 250 + j))
          await b.flush()
        }
      }
      await b.sync()
      expect(await b.countEntries()).toBe(keys.filter((_, i) => plain(3, i) !== undefined).length + keys.length / 2)
      for (let s = 0; s < keys.length; s += 250) {
        const batch = keys.slice(s, s + 250)
        await b.prefetch(batch.map(key => ({ key, namespace: undefined })))
        batch.forEach((key, j) => check(3, key, s + j))
      }
    },
  )

  it('expires, is deleted from disk once cleared, and survives a snapshot and restore', async () => {
    const ttl: StateTtlConfig = { ttlMs: 100, updateType: 'OnCreateAndWrite' }
    const b = await openRocks({ writeBack: 'deferred', cacheBytes: 32 << 10 })
    const v = b.getValueState(valueState<string>('v', ttl))
    const some = keys.slice(0, 600)
    b.setTtlTime(0)
    await b.prefetch(some.map(key => ({ key, namespace: '' })))
    some.forEach((key, i) => {
      b.setCurrentKey(key)
      v.update(`at 0: ${i}`)
    })
    await b.sync()
    // Half rewritten at 60, so they outlive the rest; every fifth of those cleared.
    b.setTtlTime(60)
    for (let s = 0; s < some.length; s += 100) {
      const batch = some.slice(s, s + 100)
      await b.prefetch(batch.map(key => ({ key, namespace: '' })))
      batch.forEach((key, j) => {
        const i = s + j
        b.setCurrentKey(key)
        expect(v.value()).toBe(`at 0: ${i}`)
        if (i % 2 === 0) v.update(`at 60: ${i}`)
        if (i % 10 === 0) v.clear()
      })
      await b.flush()
    }
    await b.sync()
    b.setTtlTime(120)
    const expected = (i: number): string | undefined => (i % 2 === 0 && i % 10 !== 0 ? `at 60: ${i}` : undefined)
    expect(await b.countEntries()).toBe(some.filter((_, i) => expected(i) !== undefined).length)
    const snap = await snapshot(b, { start: 0, end: 127 })
    const restored = await openRocks({ cacheBytes: 32 << 10 })
    await restore(restored, snap)
    const rv = restored.getValueState(valueState<string>('v', ttl))
    restored.setTtlTime(120)
    for (const [backend, state] of [[b, v], [restored, rv]] as const) {
      for (let s = 0; s < some.length; s += 100) {
        const batch = some.slice(s, s + 100)
        await backend.prefetch(batch.map(key => ({ key, namespace: '' })))
        batch.forEach((key, j) => {
          backend.setCurrentKey(key)
          expect(state.value()).toBe(expected(s + j))
        })
        await backend.flush()
      }
    }
    await b.sync()
    // Expired values read at 120 are deleted by the next write; cleared ones were at 60.
    expect(await b.countEntries({ stored: true })).toBe(some.filter((_, i) => expected(i) !== undefined).length)
  })
})
