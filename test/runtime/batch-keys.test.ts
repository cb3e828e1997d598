import { describe, expect, it } from 'vitest'
import { BatchKeys, keysByColumns } from '../../runtime/batch-keys.js'
import type { Row } from '../../core/batch.js'
import { makeKey } from '../../state/key-encoding.js'
import type { KeyRef } from '../../core/keyed-state.js'

/** Key functions that count their calls: input 0 keys by column 0, input 1 by column 1. */
function counted(): { keys: BatchKeys; calls: number[] } {
  const calls = [0, 0]
  const fn = (col: number) => (row: Row): KeyRef => {
    calls[col]!++
    return makeKey([row[col]])
  }
  const perRow = (f: (row: Row) => KeyRef) => (rows: readonly Row[]): KeyRef[] => rows.map(f)
  return { keys: new BatchKeys([perRow(fn(0)), perRow(fn(1))]), calls }
}

const rowsOf = (...pairs: [string, string][]): Row[] => pairs.map(p => [...p])

describe('BatchKeys', () => {
  it('computes the keys of a batch once and gives every asker the same array', () => {
    const { keys, calls } = counted()
    const rows = rowsOf(['a', 'x'], ['b', 'y'], ['a', 'z'])
    const first = keys.of(rows, 0)
    expect(first.map(k => k.values[0])).toEqual(['a', 'b', 'a'])
    expect(keys.of(rows, 0)).toBe(first)
    expect(calls).toEqual([3, 0])
  })

  it('keys the same rows of another input by that input', () => {
    const { keys, calls } = counted()
    const rows = rowsOf(['a', 'x'], ['b', 'y'])
    expect(keys.of(rows, 0).map(k => k.values[0])).toEqual(['a', 'b'])
    expect(keys.of(rows, 1).map(k => k.values[0])).toEqual(['x', 'y'])
    expect(calls).toEqual([2, 2])
  })

  it('remembers the last eight batches (read ahead, processed, queued with their keys), not a ninth', () => {
    const { keys, calls } = counted()
    const batches = Array.from({ length: 9 }, (_, i) => rowsOf([`k${i}`, 'x']))
    const first = batches.slice(0, 8).map(b => keys.of(b, 0))
    batches.slice(0, 8).forEach((b, i) => expect(keys.of(b, 0)).toBe(first[i]))
    expect(calls[0]).toBe(8)
    keys.of(batches[8]!, 0) // takes the place of the oldest (batches[0] was computed first)
    expect(keys.of(batches[7]!, 0)).toBe(first[7])
    expect(calls[0]).toBe(9)
    const again = keys.of(batches[0]!, 0)
    expect(again).not.toBe(first[0])
    expect(again.map(k => k.encoded)).toEqual(first[0]!.map(k => k.encoded))
    expect(calls[0]).toBe(10)
  })

  it('gives the keys seeded for a batch without computing them', () => {
    const { keys, calls } = counted()
    const rows = rowsOf(['a', 'x'])
    const seeded = keysByColumns([0], 128)(rows)
    keys.seed(rows, 0, seeded)
    expect(keys.of(rows, 0)).toBe(seeded)
    expect(calls[0]).toBe(0)
  })

  it('forgets a released batch', () => {
    const { keys, calls } = counted()
    const rows = rowsOf(['a', 'x'])
    const k = keys.of(rows, 0)
    keys.release(rows)
    expect(keys.of(rows, 0)).not.toBe(k)
    expect(calls[0]).toBe(2)
  })
})

describe('keysByColumns', () => {
  it("gives each row its key's encoding and group, one KeyRef per distinct key of a batch", () => {
    const rows: Row[] = [
      [1, 'a', 'x'],
      [1, 'b', 'y'],
      [2, 'a', 'z'],
      [1, 'a', 'w'],
      [null, 'a', 'v'],
      [null, 'a', 'u'],
      [10n ** 20n, 'a', 't'],
      [10n ** 20n, 'a', 's'],
      ['1', 'a', 'r'],
      [true, null, 'q'],
      [true, null, 'p'],
    ]
    for (const columns of [[0], [0, 1], [1, 0], [2], []]) {
      const keys = keysByColumns(columns, 128)(rows)
      expect(keys.map(k => k.encoded)).toEqual(rows.map(r => makeKey(columns.map(c => r[c]), 128).encoded))
      expect(keys.map(k => k.group)).toEqual(rows.map(r => makeKey(columns.map(c => r[c]), 128).group))
      expect(keys.map(k => k.values)).toEqual(rows.map(r => columns.map(c => r[c])))
      // Rows with equal keys share one KeyRef; rows with different keys never do.
      const byEncoding = new Map<string, KeyRef>()
      for (const k of keys) {
        const first = byEncoding.get(k.encoded) ?? k
        byEncoding.set(k.encoded, first)
        expect(k).toBe(first)
      }
      expect(new Set(keys).size).toBe(byEncoding.size)
    }
  })

  it('keys NaN, -0 and objects row by row, keeping each row its own values', () => {
    const obj = { a: 1 }
    const rows: Row[] = [[NaN], [NaN], [-0], [-0], [0], [obj], [obj]]
    const keys = keysByColumns([0], 128)(rows)
    expect(keys.map(k => k.encoded)).toEqual(rows.map(r => makeKey([r[0]], 128).encoded))
    expect(Object.is(keys[2]!.values[0], -0)).toBe(true)
    expect(Object.is(keys[4]!.values[0], 0)).toBe(true)
    expect(keys[0]).not.toBe(keys[1])
    expect(keys[5]).not.toBe(keys[6])
    // -0 and 0 are one key (one encoding), as before.
    expect(keys[2]!.encoded).toBe(keys[4]!.encoded)
  })

  it('gives a later batch the KeyRefs of earlier ones, and stays right once its lookup is emptied', () => {
    for (const columns of [[0], [0, 1]]) {
      const keysOf = keysByColumns(columns, 128)
      const a = keysOf([['k', 1], ['k', 2]])
      const b = keysOf([['k', 2], ['k', 1], ['k', 3]])
      expect(b[0]).toBe(columns.length === 1 ? a[0] : a[1])
      expect(b[1]).toBe(a[columns.length === 1 ? 0 : 0])
      expect(b.map(k => k.values)).toEqual([['k', 2], ['k', 1], ['k', 3]].map(r => columns.map(c => r[c])))
      // Many distinct keys: the lookup is emptied when full; every key is still its own.
      const many: Row[] = Array.from({ length: 10_000 }, (_, i) => [i % 7000, i % 3])
      for (let round = 0; round < 3; round++) {
        const keys = keysOf(many)
        expect(keys.map(k => k.encoded)).toEqual(many.map(r => makeKey(columns.map(c => r[c]), 128).encoded))
      }
    }
  })

  it('tells apart many keys sharing a first value (looked up by the second), in this batch and later ones', () => {
    for (const columns of [[0, 1], [0, 1, 2]]) {
      const keysOf = keysByColumns(columns, 128)
      // One hot first value with 40 second values, some of those shared by three third values; a
      // cold first value too; 'x' and 1 as second values of one first value are different keys.
      const rows: Row[] = []
      for (let i = 0; i < 120; i++) rows.push(['hot', i % 40, i % 3])
      rows.push(['hot', '1', 0], ['hot', 1, 0], ['cold', 1, 0], ['hot', null, 0], ['hot', true, 0], ['hot', null, 0])
      const check = (keys: readonly KeyRef[], batch: readonly Row[]) => {
        expect(keys.map(k => k.encoded)).toEqual(batch.map(r => makeKey(columns.map(c => r[c]), 128).encoded))
        expect(keys.map(k => k.values)).toEqual(batch.map(r => columns.map(c => r[c])))
      }
      const keys = keysOf(rows)
      check(keys, rows)
      const byEncoding = new Map<string, KeyRef>()
      for (const k of keys) {
        expect(k).toBe(byEncoding.get(k.encoded) ?? k)
        byEncoding.set(k.encoded, k)
      }
      expect(new Set(keys).size).toBe(byEncoding.size)
      // A later batch gets the same KeyRefs, and its new keys are new.
      const later: Row[] = [['hot', 7, 1], ['hot', 41, 0], ['hot', 7, 2], ['hot', '1', 0], ['hot', 41, 0]]
      const again = keysOf(later)
      check(again, later)
      expect(again[0]).toBe(byEncoding.get(again[0]!.encoded))
      expect(again[3]).toBe(byEncoding.get(again[3]!.encoded))
      expect(again[4]).toBe(again[1])
      expect(byEncoding.has(again[1]!.encoded)).toBe(false)
    }
  })

  it('tells keys apart by every column, whatever the first one shares', () => {
    const keysOf = keysByColumns([0, 1, 2], 128)
    const rows: Row[] = [[1, 'a', 1], [1, 'a', 2], [1, 'b', 1], [1, 'a', 1], [1, 'a', '1'], [1, -0, 1], [1, 0, 1], [1, 'b', 1]]
    const keys = keysOf(rows)
    expect(keys.map(k => k.encoded)).toEqual(rows.map(r => makeKey(r, 128).encoded))
    expect(keys[3]).toBe(keys[0])
    expect(keys[7]).toBe(keys[2])
    expect(new Set([keys[0], keys[1], keys[2], keys[4]]).size).toBe(4)
    expect(Object.is(keys[5]!.values[1], -0)).toBe(true)
    const again = keysOf([[1, 'a', 2], [1, 'b', 1]])
    expect(again[0]).toBe(keys[1])
    expect(again[1]).toBe(keys[2])
  })
})
