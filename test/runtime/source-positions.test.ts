// A source's positions in a checkpoint are per split; a subtask of a later run starts from all of
// them, with its own splits' event-time maxima and watermark only when the subtasks did not change.
import { describe, expect, it } from 'vitest'
import { ownPositions, sourceManifest, subtaskStart } from '../../runtime/source-positions.js'

const p = (partition: number, offset: number) => ({ topic: 't', partition, offset, stop: null })

describe('source positions across parallelism', () => {
  const manifest = sourceManifest('t', [
    { positions: [p(1, 10), p(3, 30)], splitMax: [1000, 3000], watermark: 900 },
    { positions: [p(0, 5), p(2, 20)], splitMax: [500, 2000], watermark: 400 },
  ])

  it('are stored per split, subtask after subtask, with the lowest watermark', () => {
    expect(manifest.positions).toEqual([p(1, 10), p(3, 30), p(0, 5), p(2, 20)])
    expect(manifest.splitMax).toEqual([1000, 3000, 500, 2000])
    expect(manifest.watermark).toBe(400)
    expect(ownPositions(manifest, 1)).toEqual([p(0, 5), p(2, 20)])
  })

  it('at the same parallelism a subtask resumes its own splits and watermark', () => {
    expect(subtaskStart(manifest, 0, 2)).toEqual({
      restoredPositions: manifest.positions,
      own: { positions: [p(1, 10), p(3, 30)], splitMax: [1000, 3000] },
      watermark: 900,
    })
  })

  it('at another parallelism every subtask gets every split, and the lowest watermark (a split it takes over may be behind)', () => {
    for (const [index, parallelism] of [[0, 1], [2, 3]] as const) {
      expect(subtaskStart(manifest, index, parallelism)).toEqual({ restoredPositions: manifest.positions, own: null, watermark: 400 })
    }
  })

  it('a checkpoint of a source that ran as one subtask, before positions were per subtask, is that subtask', () => {
    const old = { table: 't', positions: [p(0, 1)], splitMax: [7], watermark: 5 }
    expect(subtaskStart(old, 0, 1)).toEqual({ restoredPositions: old.positions, own: { positions: old.positions, splitMax: [7] }, watermark: 5 })
    expect(subtaskStart(old, 1, 2).own).toBeNull()
  })
})
