// Part file names sort in the order they were written (connectors/filesystem/part-names.ts): Weir's
// filesystem source reads a folder in name order, so a changelog the sink wrote replays in order.
import { describe, expect, it } from 'vitest'
import { partSeq, timeOrderedUuid } from '../../connectors/filesystem/part-names.js'

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('timeOrderedUuid', () => {
  it('is a UUID version 7 whose text sorts by its time', () => {
    const times = [0, 1, 255, 256, 65_535, 1_764_633_600_000, 1_764_633_600_001, 1_764_633_601_000, 2 ** 48 - 1]
    const ids = times.map(t => timeOrderedUuid(t))
    for (const id of ids) expect(id).toMatch(UUID_V7)
    expect([...ids].reverse().sort()).toEqual(ids)
    expect(timeOrderedUuid(1_764_633_600_000).slice(0, 13)).toBe('019adc5b-e000') // 0x019adc5be000 ms
  })

  it('differs between ids of the same millisecond', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(5)))
    expect(ids.size).toBe(1000)
  })
})

describe('partSeq', () => {
  it('sorts part 10 after part 9', () => {
    const seqs = [0, 1, 2, 9, 10, 11, 99, 100, 123_456_789]
    expect(seqs.map(partSeq).sort()).toEqual(seqs.map(partSeq))
    expect(partSeq(12)).toBe('0000000012')
  })
})
