// The loop's reads of its sources (runtime/source-runner.ts): handed on in the order they settle,
// each exactly once, and without keeping a chunk alive after it was handed on — in particular while
// another source's read stays pending (an idle Kafka partition beside a file, a paced generator).
// The workers run with --expose-gc (vitest.config.ts), so a test can see what was collected.
import { expect, it } from 'vitest'
import type { SourceChunk } from '../../connectors/api.js'
import type { JobGraph } from '../../core/job-graph.js'
import { SourceRunner, type SourceRuntime } from '../../runtime/source-runner.js'

const gc = (globalThis as { gc?: () => void }).gc

/** A source whose reads the test answers: `next()` returns what `reads` gives for the n-th read. */
function fakeSource(name: string, reads: (n: number) => Promise<SourceChunk | null>): SourceRuntime {
  let n = 0
  const reader = { next: () => reads(n++), close: async () => undefined }
  const task = { index: 0, parallelism: 1, node: { id: name, spec: { kind: 'Values' } }, outputs: [], finished: false }
  return { reader, task, spec: { table: name } } as unknown as SourceRuntime
}

function chunk(rows: number, tag: string): SourceChunk {
  return { rows: Array.from({ length: rows }, (_, i) => [tag, i, 'x'.repeat(64) + String(i)]), split: 0, position: null }
}

function runnerOf(...sources: SourceRuntime[]): SourceRunner {
  const runner = new SourceRunner({} as JobGraph, new AbortController().signal)
  runner.sources.push(...sources)
  runner.requestAll()
  return runner
}

const noWake = (): void => undefined
const turn = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

it('a read that stays pending does not keep the chunks the other source hands on meanwhile alive', async () => {
  expect(gc, 'the test workers run with --expose-gc').toBeDefined()
  let release!: (c: SourceChunk | null) => void
  const slow = fakeSource('slow', () => new Promise(resolve => (release = resolve)))
  const fast = fakeSource('fast', async n => chunk(2_000, `f${n}`))
  const runner = runnerOf(slow, fast)
  const handedOn: WeakRef<object>[] = []
  for (let i = 0; i < 40; i++) {
    const got = await runner.next(false, noWake)
    expect(got?.src).toBe(fast)
    expect(got!.result!.rows[0]![0]).toBe(`f${i}`)
    handedOn.push(new WeakRef(got!.result!.rows))
    runner.request(fast)
  }
  // WeakRefs made in a turn keep their targets until it ends; then collect.
  await turn()
  gc!()
  await turn()
  gc!()
  const alive = handedOn.filter(r => r.deref() !== undefined).length
  // At most the last chunk handed on may still be around somewhere; before the fix all 40 were,
  // reachable from the reactions each turn's race added to the slow source's pending read.
  expect(alive).toBeLessThanOrEqual(1)
  release(chunk(1, 's'))
  // The slow read is handed on once it settles, behind the fast read that was ready before it.
  const first = await runner.next(false, noWake)
  const second = await runner.next(false, noWake)
  expect([first?.src, second?.src]).toEqual([fast, slow])
  expect(second!.result!.rows[0]![0]).toBe('s')
})

it('reads are handed on in the order they settle, each once, so two sources that are always ready take turns', async () => {
  const a = fakeSource('a', async n => (n < 5 ? chunk(1, `a${n}`) : null))
  const b = fakeSource('b', async n => (n < 5 ? chunk(1, `b${n}`) : null))
  const runner = runnerOf(a, b)
  const order: string[] = []
  while (runner.reading) {
    const got = await runner.next(false, noWake)
    expect(got).not.toBeNull()
    if (got!.result === null) {
      runner.ended(got!.src)
      order.push(`${got!.src.spec.table} end`)
      continue
    }
    order.push(got!.result.rows[0]![0] as string)
    runner.request(got!.src)
  }
  expect(order).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4', 'b4', 'a end', 'b end'])
})

it('a wake-up, or with immediate the next turn, ends the wait with null; a read settling later is handed on next', async () => {
  let release!: (c: SourceChunk | null) => void
  const s = fakeSource('s', () => new Promise(resolve => (release = resolve)))
  const runner = runnerOf(s)
  let wake!: () => void
  const waiting = runner.next(false, w => (wake = w))
  wake()
  expect(await waiting).toBeNull()
  expect(await runner.next(true, noWake)).toBeNull()
  release(chunk(3, 'late'))
  const got = await runner.next(false, noWake)
  expect(got?.result?.rows).toHaveLength(3)
  // Nothing more is ready: the next wait ends only with its wake-up.
  expect(await runner.next(true, noWake)).toBeNull()
})

it('a read that fails throws its error, naming the source subtask, from the wait that takes it', async () => {
  const s = fakeSource('broken', () => Promise.reject(new Error('disk on fire')))
  const runner = runnerOf(s)
  await expect(runner.next(false, noWake)).rejects.toThrow(/disk on fire/)
})
