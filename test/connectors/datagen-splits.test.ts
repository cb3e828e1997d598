// datagen split at parallelism N (datagen-splits.ts): the subtasks' readers together make each row of
// 'number-of-rows' once (a sequence's values disjoint and complete), paced at their share of the
// rate, random fields the same as at p = 1; stopped after any chunk at p = a and restored at p = z,
// the rest, once, random fields exactly as an uninterrupted run (splits are dealt whole on a restore).
import { describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import type { SourceReader, SplitPosition } from '../../connectors/api.js'
import { datagenConnector } from '../../connectors/datagen.js'
import type { Row } from '../../core/batch.js'
import { drain, errorOf, sourceCtx } from './helpers.js'

const SCHEMA: Field[] = [{ name: 'id', type: T.bigint() }, { name: 'r', type: T.int() }]
const OPTIONS = {
  connector: 'datagen',
  'number-of-rows': '997',
  'rows-per-second': '1000000',
  'seed': '7',
  'fields.id.kind': 'sequence',
  'fields.id.start': '10',
  'fields.id.end': '5000',
}
const ALL = Array.from({ length: 997 }, (_, i) => 10 + i)

// Rows of a varying number of draws: a NULL takes none for its value, a string one per two characters.
const VARYING_SCHEMA: Field[] = [...SCHEMA, { name: 's', type: T.string() }]
const VARYING = { ...OPTIONS, 'fields.r.null-rate': '0.3', 'fields.s.length': '9', 'fields.s.var-len': 'true' }

function open(index: number, parallelism: number, restored?: readonly (SplitPosition | null)[], batch = 1024, varying = false): Promise<SourceReader> {
  const ctx = varying ? sourceCtx(VARYING, VARYING_SCHEMA, batch, undefined, restored) : sourceCtx(OPTIONS, SCHEMA, batch, undefined, restored)
  return datagenConnector.source!.create({ ...ctx, subtask: { index, parallelism } })
}
const ids = (rows: readonly Row[]): number[] => rows.map(r => r[0] as number).sort((a, b) => a - b)

describe('datagen splits', () => {
  it('p subtasks make every row once: the sequence complete and disjoint, random fields those of p = 1', async () => {
    const key = (rows: Row[]): string[] => rows.map(r => JSON.stringify(r)).sort()
    for (const varying of [false, true]) {
      const one = (await drain(await open(0, 1, undefined, 1024, varying))).flatMap(c => c.rows)
      expect(ids(one)).toEqual(ALL)
      if (varying) expect(one.filter(r => r[1] === null).length).toBeGreaterThan(200)
      for (const p of [2, 3]) {
        const parts = await Promise.all(
          Array.from({ length: p }, async (_, k) => (await drain(await open(k, p, undefined, 1024, varying))).flatMap(c => c.rows)),
        )
        expect(ids(parts.flat()), `p = ${p}`).toEqual(ALL)
        for (const part of parts) expect(part.length).toBeGreaterThanOrEqual(Math.floor(997 / p))
        // Row i has the values it has at p = 1: a seeded table is the same table at any parallelism.
        expect(key(parts.flat()), `p = ${p}${varying ? ', rows of varying draws' : ''}`).toEqual(key(one))
      }
    }
  })

  it('stopped after any chunk at p = a and restored at p = z gives exactly the rest', async () => {
    for (const [a, z] of [[1, 2], [2, 1], [2, 3], [3, 2], [2, 2]] as const) {
      for (const stop of [0, 1, 4, 9]) {
        const before: Row[] = []
        const positions: (SplitPosition | null)[] = []
        for (let k = 0; k < a; k++) {
          const reader = await open(k, a, undefined, 50)
          const own = [...reader.startPositions!]
          for (let i = 0; i < stop; i++) {
            const chunk = await reader.next()
            if (chunk === null) break
            before.push(...chunk.rows)
            own[chunk.split] = chunk.position
          }
          await reader.close()
          positions.push(...own)
        }
        // A split that has made no rows yet has no clock (NaN): a checkpoint's manifest keeps NaN as NaN
        // (structuredClone does too); plain JSON would make it null.
        for (const [how, restored] of [['as a manifest keeps them', structuredClone(positions)], ['through JSON',
          JSON.parse(JSON.stringify(positions))]] as const)
        {
          const rest: Row[] = []
          for (let k = 0; k < z; k++) rest.push(...(await drain(await open(k, z, restored as SplitPosition[], 50))).flatMap(c => c.rows))
          expect(ids([...before, ...rest]), `${a} → ${z} after ${stop} chunks, positions ${how}`).toEqual(ALL)
        }
        const after: Row[] = []
        for (let k = 0; k < z; k++) after.push(...(await drain(await open(k, z, structuredClone(positions), 50))).flatMap(c => c.rows))
        {
          // Splits are dealt whole, never cut: the random values are those of an uninterrupted run.
          const straight = (await Promise.all(Array.from({ length: a }, async (_, k) => (await drain(await open(k, a, undefined, 50))).flatMap(c => c.rows))))
            .flat()
          const key = (rows: Row[]): string[] => rows.map(r => `${String(r[0])}:${String(r[1])}`).sort()
          expect(key([...before, ...after])).toEqual(key(straight))
        }
      }
    }
  })

  it('refuses positions that overlap', async () => {
    const p = { rows: 4, rng: 1, clock: 0, stride: 2, residue: 0 }
    const e = await errorOf(() => open(0, 1, [p, p]))
    expect(e.message).toContain(`datagen splits of table 't' overlap`)
  })
})
