// UpsertMaterialize: the live rows per sink key, and one change per key for an upsert sink (which
// drops -U rows) — the newest live row, or a delete when none is left.
import { describe, expect, it } from 'vitest'
import { UpsertMaterializeOperator } from '../../operators/upsert-materialize.js'
import { harness } from './harness.js'

// Rows [sinkKey, upstreamKey, value]; the sink's key is column 0.
const spec = { kind: 'UpsertMaterialize' as const, keys: [0], ttlMs: 0 }

describe('UpsertMaterialize', () => {
  it('a row that moves to another sink key deletes it from the old key', async () => {
    const h = await harness(new UpsertMaterializeOperator(spec), { keys: [0] })
    h.process([['few', 'a', 1]])
    expect(h.take()).toEqual([['+I', 'few', 'a', 1]])
    // The upstream group 'a' moves from sink key 'few' to 'many': its -U must delete 'few'.
    h.process([['few', 'a', 1], ['many', 'a', 2]], ['-U', '+U'])
    expect(h.take().sort()).toEqual([['+I', 'many', 'a', 2], ['-D', 'few', 'a', 1]])
  })

  it("rows colliding on a key: the newest live row is the key's; retracting an older one says nothing", async () => {
    const h = await harness(new UpsertMaterializeOperator(spec), { keys: [0] })
    h.process([['x', 'a', 1]])
    h.process([['x', 'b', 2]])
    expect(h.take()).toEqual([['+I', 'x', 'a', 1], ['+U', 'x', 'b', 2]])
    h.process([['x', 'a', 1]], ['-D'])
    expect(h.take()).toEqual([])
    // The newest goes: the one before it is the key's again.
    h.process([['x', 'c', 3]])
    h.process([['x', 'c', 3]], ['-U'])
    expect(h.take()).toEqual([['+U', 'x', 'c', 3], ['+U', 'x', 'b', 2]])
    h.process([['x', 'b', 2]], ['-D'])
    expect(h.take()).toEqual([['-D', 'x', 'b', 2]])
  })

  it('duplicates: each retraction takes one copy', async () => {
    const h = await harness(new UpsertMaterializeOperator(spec), { keys: [0] })
    h.process([['x', 'a', 1], ['x', 'a', 1]])
    expect(h.take()).toEqual([['+I', 'x', 'a', 1]])
    h.process([['x', 'a', 1]], ['-D'])
    expect(h.take()).toEqual([])
    h.process([['x', 'a', 1]], ['-D'])
    expect(h.take()).toEqual([['-D', 'x', 'a', 1]])
  })

  it('a retraction of a row it never held changes nothing', async () => {
    const h = await harness(new UpsertMaterializeOperator(spec), { keys: [0] })
    h.process([['x', 'a', 1]])
    h.take()
    h.process([['x', 'a', 9], ['y', 'q', 1]], ['-U', '-D'])
    expect(h.take()).toEqual([])
  })

  it("survives a checkpoint: the restored operator knows each key's live rows", async () => {
    const h = await harness(new UpsertMaterializeOperator(spec), { keys: [0] })
    h.process([['x', 'a', 1], ['x', 'b', 2], ['y', 'c', 3]])
    const restored = await harness(new UpsertMaterializeOperator(spec), { keys: [0], restore: h.checkpoint() })
    restored.process([['x', 'b', 2], ['y', 'c', 3]], ['-U', '-D'])
    expect(restored.take().sort()).toEqual([['+U', 'x', 'a', 1], ['-D', 'y', 'c', 3]])
  })
})
