// An inner join side whose input is insert-only and has no unique key keeps its rows as appended
// chunks (operators/join/appended-side.ts), one list element per join key per batch. Its changelog
// is the one the per-row map layout gives (the same operator told its inputs may retract), through
// duplicates, keys repeated within a batch, a checkpoint restored midway, and TTL.
import { describe, expect, it } from 'vitest'
import type { Row } from '../../core/batch.js'
import type { JoinSideSpec, JoinSpec } from '../../core/job-graph.js'
import { keepsAppendedRows } from '../../core/join-layout.js'
import { RegularJoinOperator } from '../../operators/join/regular-join.js'
import { harness, type Harness } from './harness.js'

const side = (keys: number[], width: number, updating: boolean, ttlMs = 0): JoinSideSpec => ({ keys, outer: false, updating, ttlMs, width })
/** updating: false gives the appended layout; true, the map of row → count (the reference). */
const spec = (updating: boolean, ttlMs = 0): JoinSpec => ({
  kind: 'Join',
  joinType: 'INNER',
  left: side([0], 2, updating, ttlMs),
  right: side([1], 3, updating, ttlMs),
})

/** Batches of inserts on both sides: three join keys, repeated keys and identical rows within a batch. */
function steps(): { input: number; rows: Row[] }[] {
  const out: { input: number; rows: Row[] }[] = []
  let seed = 11
  // High bits: the low bits of this generator cycle too briefly.
  const rnd = (n: number) => Math.floor((seed = (seed * 1103515245 + 12345) % 2147483648) / 65536) % n
  for (let s = 0; s < 40; s++) {
    const input = rnd(2)
    const rows: Row[] = []
    for (let i = 0; i < 1 + rnd(6); i++) {
      const k = rnd(3)
      rows.push(input === 0 ? [k, `l${rnd(2)}`] : [`r${rnd(2)}`, k, rnd(2)])
    }
    out.push({ input, rows })
  }
  return out
}

const sorted = (rows: unknown[][]) => rows.map(r => JSON.stringify(r)).sort()

async function run(updating: boolean, restoreAt = -1): Promise<string[][]> {
  const opts = { keys: [0], inputKeys: [[0], [1]] }
  let h: Harness = await harness(new RegularJoinOperator(spec(updating)), opts)
  const out: string[][] = []
  for (const [i, s] of steps().entries()) {
    if (i === restoreAt) h = await harness(new RegularJoinOperator(spec(updating)), { ...opts, restore: h.checkpoint() })
    h.process(s.rows, undefined, s.input)
    // Within a step the order of pairs follows the stored order, which the layouts keep differently.
    out.push(sorted(h.take()))
  }
  return out
}

describe('regular join: an insert-only inner side keeps appended rows', () => {
  it('is chosen for inner, insert-only sides without a unique key only', () => {
    expect(keepsAppendedRows(side([0], 2, false))).toBe(true)
    expect(keepsAppendedRows(side([0], 2, true))).toBe(false)
    expect(keepsAppendedRows({ ...side([0], 2, false), outer: true })).toBe(false)
    expect(keepsAppendedRows({ ...side([0], 2, false), uniqueKey: [0] })).toBe(false)
  })

  it('gives the changelog of the per-row map, straight and restored midway', async () => {
    const expected = await run(true)
    expect(expected.flat().length).toBeGreaterThan(40)
    expect(await run(false)).toEqual(expected)
    expect(await run(false, 13)).toEqual(expected)
    expect(await run(false, 29)).toEqual(expected)
  })

  it('stores one list per join key: rows of one key in one batch, and duplicates, each pair once per copy', async () => {
    const h = await harness(new RegularJoinOperator(spec(false)), { keys: [0], inputKeys: [[0], [1]] })
    h.process([[1, 'a'], [2, 'b'], [1, 'a'], [1, 'c']])
    h.process([[1, 'd']])
    expect(h.take()).toEqual([])
    // Entries: one list per (side, join key), however many rows or batches.
    expect(h.state.stats().entries).toBe(2)
    h.process([[10, 1, 5]], undefined, 1)
    expect(sorted(h.take())).toEqual(sorted([['+I', 1, 'a', 10, 1, 5], ['+I', 1, 'a', 10, 1, 5], ['+I', 1, 'c', 10, 1, 5], ['+I', 1, 'd', 10, 1, 5]]))
  })

  it('a retraction on a side planned insert-only is an internal error, not a silent wrong result', async () => {
    const h = await harness(new RegularJoinOperator(spec(false)), { keys: [0], inputKeys: [[0], [1]] })
    h.process([[1, 'a']])
    expect(() => h.process([[1, 'a']], ['-D'])).toThrow(/planned insert-only, but a retraction reached it/)
  })

  it('state TTL: appended rows idle longer than the TTL no longer match', async () => {
    const h = await harness(new RegularJoinOperator(spec(false, 1000)), { keys: [0], inputKeys: [[0], [1]] })
    h.process([[1, 'a']])
    h.processingTime(600)
    h.process([[1, 'b']])
    h.process([[10, 1, 5]], undefined, 1)
    expect(sorted(h.take())).toEqual(sorted([['+I', 1, 'a', 10, 1, 5], ['+I', 1, 'b', 10, 1, 5]]))
    h.processingTime(1300)
    h.process([[11, 1, 5]], undefined, 1)
    expect(h.take()).toEqual([['+I', 1, 'b', 11, 1, 5]])
    h.processingTime(2000)
    h.process([[12, 1, 5]], undefined, 1)
    expect(h.take()).toEqual([])
  })
})
