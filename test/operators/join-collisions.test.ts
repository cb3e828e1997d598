// A join side without a unique key stores rows under their hash (operators/join/row-hash.ts): rows
// whose hashes collide share one state entry. With a hash under which every row collides, the join's
// changelog is the same as with the real one, through inserts, duplicates, retractions, outer padding
// and its retraction, and a checkpoint restored midway.
import { describe, expect, it } from 'vitest'
import type { Row } from '../../core/batch.js'
import type { JoinSideSpec, JoinSpec } from '../../core/job-graph.js'
import { RegularJoinOperator } from '../../operators/join/regular-join.js'
import { rowHash, rowsEqual } from '../../operators/join/row-hash.js'
import { harness } from './harness.js'

const side = (keys: number[], width: number, outer: boolean): JoinSideSpec => ({ keys, outer, updating: true, ttlMs: 0, width })
const spec = (joinType: JoinSpec['joinType']): JoinSpec => ({
  kind: 'Join',
  joinType,
  left: side([0], 3, joinType === 'LEFT' || joinType === 'FULL'),
  right: side([1], 3, joinType === 'RIGHT' || joinType === 'FULL'),
})

/** A deterministic mix of inserts and retractions of repeated rows on both sides, three join keys. */
function steps(): { input: number; rows: Row[]; kinds: string[] }[] {
  const out: { input: number; rows: Row[]; kinds: string[] }[] = []
  const live: Row[][] = [[], []]
  let seed = 7
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n
  for (let s = 0; s < 60; s++) {
    const input = rnd(2)
    const rows: Row[] = []
    const kinds: string[] = []
    for (let i = 0; i < 1 + rnd(4); i++) {
      const mine = live[input]!
      if (mine.length > 0 && rnd(3) === 0) {
        rows.push(mine.splice(rnd(mine.length), 1)[0]!)
        kinds.push(rnd(2) === 0 ? '-D' : '-U')
      } else {
        const k = rnd(3)
        const row: Row = input === 0 ? [k, `l${rnd(3)}`, rnd(2) === 0 ? null : -0] : [`r${rnd(3)}`, k, BigInt(rnd(2))]
        mine.push(row)
        rows.push(row)
        kinds.push('+I')
      }
    }
    out.push({ input, rows, kinds })
  }
  return out
}

async function run(joinType: JoinSpec['joinType'], hash: ((row: Row) => number) | undefined, restoreAt = -1): Promise<unknown[][]> {
  const all = steps()
  let h = await harness(new RegularJoinOperator(spec(joinType), hash), { keys: [0], inputKeys: [[0], [1]] })
  const out: unknown[][] = []
  for (const [i, s] of all.entries()) {
    if (i === restoreAt) {
      const chk = await h.checkpoint()
      h = await harness(new RegularJoinOperator(spec(joinType), hash), { keys: [0], inputKeys: [[0], [1]], restore: chk })
    }
    h.process(s.rows, s.kinds, s.input)
    out.push(...h.take())
  }
  return out
}

describe('regular join: rows whose hashes collide', () => {
  it.each(['INNER', 'LEFT', 'RIGHT', 'FULL'] as const)('%s: the same changelog when every row collides', async joinType => {
    const expected = await run(joinType, undefined)
    expect(expected.length).toBeGreaterThan(5)
    expect(expected.some(r => r[0] === '-D' || r[0] === '-U')).toBe(true)
    expect(await run(joinType, () => 42)).toEqual(expected)
    expect(await run(joinType, () => 42, 30)).toEqual(expected)
    expect(await run(joinType, row => rowHash(row) % 3, 17)).toEqual(expected)
  })

  it('hashes and compares rows as their key encoding does', () => {
    const same: [Row, Row][] = [[[null, 1], [undefined, 1]], [[0, 'a'], [-0, 'a']], [[NaN], [NaN]], [[5n, true], [5n, true]], [[{ a: [1] }], [{ a: [1] }]]]
    for (const [x, y] of same) {
      expect(rowsEqual(x, y)).toBe(true)
      expect(rowHash(x)).toBe(rowHash(y))
    }
    const apart: [Row, Row][] = [[[5], [5n]], [['a', 'b'], ['ab', '']], [[1, 2], [2, 1]], [[null], ['']], [[true], [1]], [['x'], ['x', null]]]
    for (const [x, y] of apart) {
      expect(rowsEqual(x, y)).toBe(false)
      expect(rowHash(x)).not.toBe(rowHash(y))
    }
    expect(Number.isSafeInteger(rowHash(['a', 1, null]))).toBe(true)
  })
})
