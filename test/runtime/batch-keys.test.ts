import { describe, expect, it } from 'vitest'
import { BatchKeys } from '../../runtime/batch-keys.js'
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
  return { keys: new BatchKeys([fn(0), fn(1)]), calls }
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

  it('remembers the batch read ahead and the one processed, not a third', () => {
    const { keys, calls } = counted()
    const b1 = rowsOf(['a', 'x']), b2 = rowsOf(['b', 'y']), b3 = rowsOf(['c', 'z'])
    const k1 = keys.of(b1, 0)
    const k2 = keys.of(b2, 0)
    expect(keys.of(b1, 0)).toBe(k1)
    expect(keys.of(b2, 0)).toBe(k2)
    expect(calls[0]).toBe(2)
    keys.of(b3, 0) // takes the place of the older of the two (b1 was computed first)
    expect(keys.of(b2, 0)).toBe(k2)
    expect(calls[0]).toBe(3)
    const again = keys.of(b1, 0)
    expect(again).not.toBe(k1)
    expect(again.map(k => k.encoded)).toEqual(k1.map(k => k.encoded))
    expect(calls[0]).toBe(4)
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
