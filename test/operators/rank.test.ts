// Deduplicate, Top-N and window Top-N operators: their exact changelogs, state bounded by N over an
// insert-only input, state freed at the window end, late rows, and TTL expiry.
import { describe, expect, it } from 'vitest'
import type { DeduplicateSpec, RankSpec } from '../../core/rank.js'
import { DeduplicateOperator } from '../../operators/rank/deduplicate.js'
import { TopNOperator } from '../../operators/rank/top-n.js'
import { PACK_MAX_END, PACKED_KEY, ROWS_STATE } from '../../operators/rank/ranker.js'
import { mapState } from '../../core/keyed-state.js'
import { makeKey } from '../../state/key-encoding.js'
import { WindowTopNOperator } from '../../operators/rank/window-top-n.js'
import { harness } from './harness.js'

/** Rows [k, v]: top `end` by v DESC per k. */
function topN(extra: Partial<RankSpec> = {}): RankSpec {
  return { kind: 'Rank', fn: 'ROW_NUMBER', partitionKeys: [0], orderKeys: [{ index: 1, descending: true, nullsFirst: false }], start: 1, end: 2,
    outputRank: true, width: 2, inputUpdating: false, ttlMs: 0, ...extra }
}

describe('TopNOperator', () => {
  it('emits rank changes as -U/+U pairs and the row pushed out as -D, keeping only N rows per partition', async () => {
    const h = await harness(new TopNOperator(topN()), { keys: [0] })
    h.process([['a', 5]])
    h.process([['a', 3]])
    expect(h.take()).toEqual([['+I', 'a', 5, 1], ['+I', 'a', 3, 2]])
    h.process([['a', 9]])
    expect(h.take()).toEqual([['-U', 'a', 5, 1], ['+U', 'a', 9, 1], ['-U', 'a', 3, 2], ['+U', 'a', 5, 2]])
    h.process([['a', 1], ['a', 2], ['b', 4]])
    expect(h.take()).toEqual([['+I', 'b', 4, 1]])
    for (let i = 0; i < 100; i++) h.process([['a', i % 7]])
    // Two rows of a, one of b: rows that can no longer rank are not kept. A partition of a Top-N this
    // small is one entry: its rows, in order.
    expect(h.state.stats().entries).toBe(2)
    h.state.setCurrentKey(makeKey(['a']))
    const stored = new Map(h.state.getMapState(mapState<number, unknown>(ROWS_STATE)).entries())
    expect([...stored]).toEqual([[PACKED_KEY, [['a', 9], ['a', 6]]]])
  })

  it('over an insert-only input drops a row on arrival only once N rows rank before it, within a batch and across batches', async () => {
    // ROW_NUMBER <= 2: 3 and 4 come while fewer than two rows rank before them (kept, then 3 trimmed); 1 comes after two.
    const h = await harness(new TopNOperator(topN()), { keys: [0] })
    h.process([['a', 5], ['a', 3], ['a', 4], ['a', 1]])
    expect(h.take()).toEqual([['+I', 'a', 5, 1], ['+I', 'a', 4, 2]])
    h.process([['a', 2], ['a', 6], ['a', 0]])
    expect(h.take()).toEqual([['-U', 'a', 5, 1], ['+U', 'a', 6, 1], ['-U', 'a', 4, 2], ['+U', 'a', 5, 2]])
    // Equal rows are one entry holding two: the entry before 4 holds two rows, so 4 ranks third.
    const dup = await harness(new TopNOperator(topN({ end: 3 })), { keys: [0] })
    dup.process([['a', 5], ['a', 5], ['a', 3], ['a', 4]])
    expect(dup.take()).toEqual([['+I', 'a', 5, 1], ['+I', 'a', 5, 2], ['+I', 'a', 4, 3]])
    // rn BETWEEN 2 AND 3: what follows the third row is dropped, the first is kept but not emitted.
    const mid = await harness(new TopNOperator(topN({ start: 2, end: 3 })), { keys: [0] })
    mid.process([['a', 9], ['a', 1], ['a', 8], ['a', 7], ['a', 2]])
    expect(mid.take()).toEqual([['+I', 'a', 8, 2], ['+I', 'a', 7, 3]])
    mid.process([['a', 10]])
    expect(mid.take()).toEqual([['-U', 'a', 8, 2], ['+U', 'a', 9, 2], ['-U', 'a', 7, 3], ['+U', 'a', 8, 3]])
  })

  it('past a small N, stores each row under a small integer of its partition: a row that enters takes the key of the one it pushes out', async () => {
    const end = PACK_MAX_END + 1
    const h = await harness(new TopNOperator(topN({ end, outputRank: false })), { keys: [0] })
    for (let i = 0; i < 50; i++) h.process([['a', i]])
    h.process([['a', 100], ['a', 101], ['a', 102]])
    expect(h.take().slice(-6)).toEqual([['-U', 'a', 35], ['+U', 'a', 102], ['-U', 'a', 34], ['+U', 'a', 101], ['-U', 'a', 33], ['+U', 'a', 100]])
    h.state.setCurrentKey(makeKey(['a']))
    const stored = new Map(h.state.getMapState(mapState<number, unknown>(ROWS_STATE)).entries())
    expect([...stored.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: end }, (_, i) => i))
    expect([...stored.values()]).toEqual(expect.arrayContaining([[['a', 102], 1], [['a', 101], 1], [['a', 100], 1], [['a', 36], 1]]))
    expect([...stored.values()]).not.toContainEqual([['a', 35], 1])
  })

  it('reads a partition stored in either layout, and rewrites it in its own at its next change', async () => {
    // State of a Top-N that stored an entry per row (as Weir did before packing, or as a Top-N with a TTL does) ...
    const h = await harness(new TopNOperator(topN({ end: 3 })), { keys: [0] })
    h.state.setCurrentKey(makeKey(['a']))
    const rows = h.state.getMapState(mapState<number, unknown>(ROWS_STATE))
    rows.put(0, [['a', 4], 1])
    rows.put(3, [['a', 7], 2])
    h.process([['a', 5], ['a', 1]])
    // ... ranks as it did (7 twice, then 4), and is packed once the partition changes.
    expect(h.take()).toEqual([['-U', 'a', 4, 3], ['+U', 'a', 5, 3]])
    h.state.setCurrentKey(makeKey(['a']))
    expect([...rows.entries()]).toEqual([[PACKED_KEY, [['a', 7], ['a', 7], ['a', 5]]]])
    h.process([['a', 6]])
    expect(h.take()).toEqual([['-U', 'a', 5, 3], ['+U', 'a', 6, 3]])

    // A packed partition read by a Top-N that stores an entry per row (an updating input: every row is kept).
    const u = await harness(new TopNOperator(topN({ end: 3, inputUpdating: true, outputRank: false })), { keys: [0] })
    u.state.setCurrentKey(makeKey(['a']))
    const urows = u.state.getMapState(mapState<number, unknown>(ROWS_STATE))
    urows.put(PACKED_KEY, [['a', 9], ['a', 8], ['a', 8], ['a', 7]])
    u.process([['a', 9]], ['-D'])
    expect(u.take()).toEqual([['-U', 'a', 9], ['+U', 'a', 7]])
    u.state.setCurrentKey(makeKey(['a']))
    expect([...urows.entries()].sort(([x], [y]) => x - y)).toEqual([[0, [['a', 8], 2]], [1, [['a', 7], 1]]])
    u.process([['a', 8]], ['-D'])
    expect(u.take()).toEqual([['-D', 'a', 8]])
  })

  it('drops a row past a full partition only when it follows the last row in the total order: peers of the last row and its copies still count, also after a restore', async () => {
    // Rows [k, v, tag] by v DESC, then every column: (3, 'c') comes before (3, 'm').
    const spec = topN({ width: 3 })
    const h = await harness(new TopNOperator(spec), { keys: [0] })
    h.process([['a', 5, 'x'], ['a', 3, 'm']])
    expect(h.take()).toEqual([['+I', 'a', 5, 'x', 1], ['+I', 'a', 3, 'm', 2]])
    // A peer of the last row that follows it is dropped; one that precedes it takes its place.
    h.process([['a', 3, 'z'], ['a', 2, 'q'], ['a', 3, 'c']])
    expect(h.take()).toEqual([['-U', 'a', 3, 'm', 2], ['+U', 'a', 3, 'c', 2]])
    const cp = h.checkpoint()
    h.process([['a', 3, 'd'], ['a', 3, 'c']])
    expect(h.take()).toEqual([])
    // Restored into a new operator: the same rows rank as before. A copy of the first row pushes the last out.
    const r = await harness(new TopNOperator(spec), { keys: [0], restore: cp })
    r.process([['a', 3, 'd'], ['a', 5, 'x']])
    expect(r.take()).toEqual([['-U', 'a', 3, 'c', 2], ['+U', 'a', 5, 'x', 2]])
    r.process([['a', 4, 'b'], ['a', 5, 'x']])
    expect(r.take()).toEqual([])
    r.process([['a', 6, 'b']])
    // The copies are told apart by place: the first copy moves to rank 2, the second leaves.
    expect(r.take()).toEqual([['-U', 'a', 5, 'x', 1], ['+U', 'a', 6, 'b', 1], ['-U', 'a', 5, 'x', 2], ['+U', 'a', 5, 'x', 2]])
    // A partition one row short of full keeps a row after its last.
    const three = await harness(new TopNOperator(topN({ end: 3 })), { keys: [0] })
    three.process([['b', 5], ['b', 4]])
    three.process([['b', 1]])
    expect(three.take()).toEqual([['+I', 'b', 5, 1], ['+I', 'b', 4, 2], ['+I', 'b', 1, 3]])
  })

  it('gives each of more than 31 rows of a partition a key of its own', async () => {
    const h = await harness(new TopNOperator(topN({ end: 40, outputRank: false })), { keys: [0] })
    for (let i = 0; i < 36; i++) h.process([['a', i]])
    h.process([['a', 100], ['a', 101]])
    h.state.setCurrentKey(makeKey(['a']))
    const stored = new Map(h.state.getMapState(mapState<number, readonly [unknown[], number]>(ROWS_STATE)).entries())
    expect([...stored.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: 38 }, (_, i) => i))
    expect([...stored.values()].map(([row]) => row[1]).sort((x, y) => (x as number) - (y as number))).toEqual([...Array.from({ length: 36 }, (_, i) => i), 100,
      101])
  })

  it('refuses Top-N state stored in the older format (rows as map keys) with a message', async () => {
    const h = await harness(new TopNOperator(topN()), { keys: [0] })
    h.state.setCurrentKey(makeKey(['a']))
    h.state.getMapState(mapState<unknown, number>(ROWS_STATE)).put(['a', 5], 1)
    expect(() => h.process([['a', 3]])).toThrow(/older format/)
  })

  it('without the rank in the output, only rows entering and leaving the top change', async () => {
    const h = await harness(new TopNOperator(topN({ outputRank: false })), { keys: [0] })
    h.process([['a', 5], ['a', 3]])
    h.process([['a', 9]])
    expect(h.take()).toEqual([['+I', 'a', 5], ['+I', 'a', 3], ['-U', 'a', 3], ['+U', 'a', 9]])
  })

  it('over an updating input keeps every row: a retraction promotes the next one', async () => {
    const h = await harness(new TopNOperator(topN({ inputUpdating: true, outputRank: false })), { keys: [0] })
    h.process([['a', 5], ['a', 3], ['a', 1]])
    expect(h.take()).toEqual([['+I', 'a', 5], ['+I', 'a', 3]])
    h.process([['a', 5]], ['-D'])
    expect(h.take()).toEqual([['-U', 'a', 5], ['+U', 'a', 1]])
    h.process([['a', 3], ['a', 1]], ['-D', '-D'])
    expect(h.take()).toEqual([['-D', 'a', 3], ['-D', 'a', 1]])
    expect(h.state.stats().entries).toBe(0)
  })

  it('RANK gives peers one rank and keeps every peer tied at the last rank', async () => {
    const h = await harness(new TopNOperator(topN({ fn: 'RANK', width: 3 })), { keys: [0] })
    h.process([['a', 5, 'x'], ['a', 5, 'y'], ['a', 5, 'z'], ['a', 4, 'w']])
    expect(h.take()).toEqual([['+I', 'a', 5, 'x', 1], ['+I', 'a', 5, 'y', 1], ['+I', 'a', 5, 'z', 1]])
    expect(h.state.stats().entries).toBe(3)
  })

  it('expires idle partitions under a TTL', async () => {
    const h = await harness(new TopNOperator(topN({ ttlMs: 100 })), { keys: [0], now: 0 })
    h.process([['a', 5]])
    h.processingTime(500)
    h.process([['a', 3]])
    // The expired 5 is gone: 3 is the new first.
    expect(h.take()).toEqual([['+I', 'a', 5, 1], ['+I', 'a', 3, 1]])
  })
})

describe('WindowTopNOperator', () => {
  // Rows [k, v, window_end]: top 2 by v per window.
  const spec = topN({ partitionKeys: [2], width: 3, window: { endIndex: 2, timeDomain: 'event' } })

  it('emits each window once when the watermark passes its end, frees its state, and drops late rows', async () => {
    const h = await harness(new WindowTopNOperator(spec), { keys: [2] })
    h.process([['a', 1, 1000], ['b', 7, 1000], ['c', 4, 1000], ['d', 2, 2000]])
    h.watermark(998)
    expect(h.take()).toEqual([])
    h.watermark(999)
    expect(h.take()).toEqual([['+I', 'b', 7, 1000, 1], ['+I', 'c', 4, 1000, 2]])
    expect(h.state.stats().entries).toBe(1) // window 2000's row
    h.process([['e', 9, 1000]])
    expect(h.metrics.lateRecordsDropped).toBe(1)
    h.end()
    expect(h.take()).toEqual([['+I', 'd', 2, 2000, 1]])
    expect(h.state.stats().entries).toBe(0)
  })
})

describe('DeduplicateOperator', () => {
  const spec = (extra: Partial<DeduplicateSpec>): DeduplicateSpec => ({ kind: 'Deduplicate', keys: [0], timeIndex: 1, timeDomain: 'event', keepLast: false,
    ttlMs: 0, ...extra })

  it('keep-first on processing time is insert-only and stores a marker', async () => {
    const h = await harness(new DeduplicateOperator(spec({ timeDomain: 'processing' })), { keys: [0] })
    h.process([['a', 5], ['a', 1], ['b', 2]])
    h.process([['a', 0]])
    expect(h.take()).toEqual([['+I', 'a', 5], ['+I', 'b', 2]])
  })

  it('keep-first on event time: an earlier row that arrives later replaces the kept one', async () => {
    const h = await harness(new DeduplicateOperator(spec({})), { keys: [0] })
    h.process([['a', 5], ['a', 7]])
    h.process([['a', 5]])
    h.process([['a', 3]])
    expect(h.take()).toEqual([['+I', 'a', 5], ['-U', 'a', 5], ['+U', 'a', 3]])
  })

  it('keep-last on event time: a row at the same time or later wins, an older one does not', async () => {
    const h = await harness(new DeduplicateOperator(spec({ keepLast: true })), { keys: [0] })
    h.process([['a', 5]])
    h.process([['a', 4]])
    h.process([['a', 6], ['a', 9], ['a', 8]])
    expect(h.take()).toEqual([['+I', 'a', 5], ['-U', 'a', 5], ['+U', 'a', 9]])
  })
})
