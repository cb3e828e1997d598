// The Unnest operator on its own: each element's row with its input row's kind, in order; NULL and
// empty collections; NULL elements and NULL ROW elements; map entries; ordinality; the LEFT form.
import { describe, expect, it } from 'vitest'
import { UnnestOperator } from '../../operators/unnest.js'
import type { UnnestSpec } from '../../core/unnest.js'
import { inputRef } from '../../core/rex.js'
import { T } from '../../common/types.js'
import { harness } from './harness.js'

const spec = (over: Partial<UnnestSpec>): UnnestSpec => ({
  kind: 'Unnest',
  collection: inputRef(1, T.array(T.string())),
  shape: 'scalar',
  width: 1,
  ordinality: false,
  outer: false,
  ...over,
})

describe('Unnest operator', () => {
  it('gives each element its input row kind, the elements in order', async () => {
    const h = await harness(new UnnestOperator(spec({ ordinality: true })), { keys: [] })
    h.process([[1, ['a', 'b']], [1, ['a', 'b']], [1, ['c']], [2, null], [3, []], [4, ['d', null]]], ['+I', '-U', '+U', '+I', '+I', '-D'])
    expect(h.take()).toEqual([
      ['+I', 1, ['a', 'b'], 'a', 1],
      ['+I', 1, ['a', 'b'], 'b', 2],
      ['-U', 1, ['a', 'b'], 'a', 1],
      ['-U', 1, ['a', 'b'], 'b', 2],
      ['+U', 1, ['c'], 'c', 1],
      ['-D', 4, ['d', null], 'd', 1],
      ['-D', 4, ['d', null], null, 2],
    ])
  })

  it('LEFT: a NULL or empty collection keeps its row once, padded with NULLs, with its kind', async () => {
    const h = await harness(new UnnestOperator(spec({ outer: true, ordinality: true })), { keys: [] })
    h.process([[1, null], [2, []], [3, ['x']]], ['+I', '-D', '+I'])
    expect(h.take()).toEqual([['+I', 1, null, null, null], ['-D', 2, [], null, null], ['+I', 3, ['x'], 'x', 1]])
  })

  it('ROW elements give their fields (NULL fields for a NULL element); map entries give key and value', async () => {
    const rows = await harness(new UnnestOperator(spec({ shape: 'row', width: 2, collection: inputRef(0, T.array(T.row([]))) })), { keys: [] })
    rows.process([[[['p', 1], null, ['q', null]]]])
    expect(rows.take().map(r => r.slice(2))).toEqual([['p', 1], [null, null], ['q', null]])
    const maps = await harness(new UnnestOperator(spec({ shape: 'map', width: 2, ordinality: true, collection: inputRef(0, T.map(T.string(), T.int())) })), {
      keys: [],
    })
    maps.process([[[['k1', 1], ['k2', null]]], [[]]])
    expect(maps.take().map(r => r.slice(2))).toEqual([['k1', 1, 1], ['k2', null, 2]])
  })

  it('emits nothing for a batch whose collections are all empty, and never changes its input rows', async () => {
    const h = await harness(new UnnestOperator(spec({})), { keys: [] })
    const input = [[1, []], [2, null]]
    h.process(input)
    expect(h.take()).toEqual([])
    const row = [3, ['a', 'b']]
    h.process([row])
    expect(row).toEqual([3, ['a', 'b']])
    expect(h.take()).toEqual([['+I', 3, ['a', 'b'], 'a'], ['+I', 3, ['a', 'b'], 'b']])
  })
})
