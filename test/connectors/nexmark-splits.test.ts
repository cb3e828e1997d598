// The nexmark source split across subtasks (connectors/nexmark/splits.ts): at parallelism N the
// subtasks' readers give exactly the rows of one reader (as a multiset, and in event order within a
// split), and positions taken after any chunks re-map onto another parallelism (1 → 2, 2 → 1, 2 → 3,
// 3 → 2, twice in a row) so that the rows before and after the restore are again exactly the rows of
// one reader: none lost, none twice. Positions that cannot be re-mapped are refused, saying why.
import { describe, expect, it } from 'vitest'
import type { SourceReader, SplitPosition } from '../../connectors/api.js'
import { nexmarkConnector } from '../../connectors/nexmark/index.js'
import type { Row } from '../../core/batch.js'
import { AUCTION, BID, errorOf, PERSON } from './helpers.js'
import type { Field } from '../../common/types.js'

const nx = nexmarkConnector.source!
const EVENTS = 23_456

function reader(schema: Field[], table: string, index: number, parallelism: number, restored?: readonly (SplitPosition | null)[],
  batchSize = 97): Promise<SourceReader>
{
  return nx.create({
    table: 't',
    options: { 'nexmark.table': table, 'nexmark.events.num': String(EVENTS), 'nexmark.seed': '5' },
    schema,
    signal: new AbortController().signal,
    batchSize,
    subtask: { index, parallelism },
    ...(restored !== undefined ? { restoredPositions: restored } : {}),
  })
}

/** A subtask's reader, read for `chunks` chunks (Infinity: to its end): its rows and its splits' positions after them. */
async function read(r: SourceReader, chunks = Infinity): Promise<{ rows: Row[]; positions: SplitPosition[] }> {
  const positions = [...r.startPositions!]
  const rows: Row[] = []
  for (let i = 0; i < chunks; i++) {
    const c = await r.next()
    if (c === null) break
    rows.push(...c.rows)
    positions[c.split] = c.position
  }
  await r.close()
  return { rows, positions }
}

const key = (r: Row): string => JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v))
const sorted = (rows: readonly Row[]): string[] => rows.map(key).sort()

/** Reads at each parallelism of `steps` in turn (each run but the last stops after some chunks per subtask), restoring each from the last. */
async function runs(schema: Field[], table: string, steps: readonly number[]): Promise<Row[]> {
  const rows: Row[] = []
  let restored: SplitPosition[] | undefined
  for (const [s, p] of steps.entries()) {
    const last = s === steps.length - 1
    const next: SplitPosition[] = []
    for (let k = 0; k < p; k++) {
      // Subtasks stop after different amounts, so their positions differ.
      const got = await read(await reader(schema, table, k, p, restored), last ? Infinity : 3 + 7 * k + 5 * s)
      rows.push(...got.rows)
      next.push(...got.positions)
    }
    restored = next
  }
  return rows
}

describe('nexmark splits', () => {
  for (const [table, schema] of [['bid', BID], ['auction', AUCTION], ['person', PERSON]] as const) {
    it(`at parallelism 2 and 3 the subtasks give exactly the ${table} rows of one reader, each in event order`, async () => {
      const one = (await read(await reader([...schema], table, 0, 1))).rows
      expect(one.length).toBeGreaterThan(100)
      for (const p of [2, 3]) {
        const parts = await Promise.all(Array.from({ length: p }, async (_, k) => (await read(await reader([...schema], table, k, p))).rows))
        // Every subtask has its share (blocks of 1000 events, dealt round).
        for (const part of parts) expect(part.length).toBeGreaterThan(one.length / p / 2)
        expect(sorted(parts.flat())).toEqual(sorted(one))
        // Within a subtask rows come in the order of one reader (event time rises).
        const order = new Map(one.map((r, i) => [key(r), i]))
        for (const part of parts) {
          const at = part.map(r => order.get(key(r))!)
          expect(at).toEqual([...at].sort((a, b) => a - b))
        }
      }
    })
  }

  for (const steps of [[1, 2], [2, 1], [2, 3], [3, 2], [2, 1, 2], [1, 3, 2, 1]]) {
    it(`positions re-map ${steps.join(' → ')} without losing or repeating a row`, async () => {
      const one = (await read(await reader(BID, 'bid', 0, 1))).rows
      const rows = await runs(BID, 'bid', steps)
      expect(rows.length).toBe(one.length)
      expect(sorted(rows)).toEqual(sorted(one))
    })
  }

  it('a run at parallelism 1 keeps its position as before splits ({ event }); a subtask of 2 names its blocks', async () => {
    expect((await reader(BID, 'bid', 0, 1)).startPositions).toEqual([{ event: 0 }])
    const r = await reader(BID, 'bid', 1, 2)
    expect(r.startPositions).toEqual([{ event: 1000, stride: 2, residue: 1, block: 1000 }])
    // Its first rows are of events 1000 on (the first block is subtask 0's).
    const c = (await r.next())!
    expect((c.position as { event: number }).event).toBeGreaterThan(1000)
    // A checkpoint of 2 splits restored at 1: one reader with both.
    const both = await reader(BID, 'bid', 0, 1, [{ event: 5000, stride: 2, residue: 0, block: 1000 }, { event: 3000, stride: 2, residue: 1, block: 1000 }])
    expect(both.splitCount).toBe(2)
    // The split furthest behind goes first, and every split holds the watermark back from the start.
    expect((await both.next())!.split).toBe(1)
    expect(both.concurrentSplits).toBe(true)
    // Behind in event time, not in position: split 1 at 2000 has its next event at 3000 (block 3), split 0 at 2050.
    const behind = await reader(BID, 'bid', 0, 1, [{ event: 2050, stride: 2, residue: 0, block: 1000 }, { event: 2000, stride: 2, residue: 1, block: 1000 }])
    expect(behind.startPositions).toEqual([{ event: 2050, stride: 2, residue: 0, block: 1000 }, { event: 3000, stride: 2, residue: 1, block: 1000 }])
    expect((await behind.next())!.split).toBe(0)
  })

  it('refuses positions it cannot re-map, saying which and why', async () => {
    const overlap = await errorOf(() => reader(BID, 'bid', 0, 1, [{ event: 5 }, { event: 7, stride: 2, residue: 1, block: 1000 }]))
    expect(overlap.kind).toBe('checkpoint')
    expect(overlap.message).toBe(`the checkpoint's nexmark splits of table 't' overlap: block residue 1 (mod 2) is in two of them`)
    const gap = await errorOf(() =>
      reader(BID, 'bid', 0, 1, [{ event: 5, stride: 3, residue: 0, block: 1000 }, { event: 7, stride: 3, residue: 2, block: 1000 }])
    )
    expect(gap.message).toBe(`the checkpoint's nexmark splits of table 't' leave out part of the event sequence (block residues 1 mod 3)`)
    const block = await errorOf(() =>
      reader(BID, 'bid', 0, 2, [{ event: 5, stride: 2, residue: 0, block: 500 }, { event: 7, stride: 2, residue: 1, block: 1000 }])
    )
    expect(block.message).toBe(`cannot re-map split 1 of 2 of table 't': it interleaves blocks of 500 events, this version 1000`)
    const bad = await errorOf(() => reader(BID, 'bid', 0, 2, [{ event: 5, stride: 2, residue: 2 }, null]))
    expect(bad.message).toBe(`the checkpoint holds an invalid position for split 1 of 2 of table 't': {"event":5,"stride":2,"residue":2}`)
    const far = await errorOf(() => reader(BID, 'bid', 0, 7, Array.from({ length: 4999 }, (_, r) => ({ event: 0, stride: 4999, residue: r, block: 1000 }))))
    expect(far.message).toBe(
      `cannot re-map the 4999 nexmark splits of table 't' (strides 4999) onto parallelism 7: their events would need 34993 splits (at most 5040)`,
    )
    expect(far.help).toMatch(/restore at the parallelism the checkpoint was taken at/)
  })
})
