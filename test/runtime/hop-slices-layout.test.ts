// An event-time HOP window aggregate over plain aggregates keeps its slices' accumulators in one entry
// per key (layout 'key-slices'); before, per window, then an entry per (key, slice) (layout 'slices'),
// under state the operator does not read.
// A checkpoint without the layout is refused on restore, naming the operator and the layout, rather
// than restored into state the operator would not find (windows in flight silently lost). EXPLAIN says
// which layout a window aggregate keeps.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { expectOlderLayoutRefused } from '../support/checkpoint-signatures.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { holdSourceEndsUntil } from '../support/restore-runs.js'

let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-hop-slices-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: 20_000, keys: 40, seed: 7 })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const TABLES = () => `
  CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '${
  input.replaceAll('\\', '/')
}', 'format' = 'json');
  CREATE TABLE out (k STRING, c BIGINT, s BIGINT, window_end TIMESTAMP(3)) WITH ('connector' = 'blackhole');`
const QUERY = (aggs: string) =>
  `INSERT INTO out SELECT k, ${aggs}, window_end FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND)) GROUP BY k, window_start, window_end`

async function run(checkpoints: string, cancelAt?: number): Promise<JobMetrics> {
  const cancel = new AbortController()
  const session = new Session({
    println: () => undefined,
    signal: cancel.signal,
    faults: cancelAt === undefined ? undefined : holdSourceEndsUntil(cancel.signal),
    options: { 'pipeline.name': 'hop-slices', 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': checkpoints, 'execution.batch-size': '5' },
    onCheckpoint: (_job, id) => {
      if (cancelAt !== undefined && id >= cancelAt) cancel.abort()
    },
  })
  await session.executeSql(TABLES() + QUERY('COUNT(*), SUM(v)') + ';')
  const [m] = await session.awaitJobs()
  return m!
}

async function explain(aggs: string): Promise<string> {
  const session = new Session({ println: () => undefined })
  await session.executeSql(TABLES())
  const r = (await session.executeSql('EXPLAIN ' + QUERY(aggs))).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

it('a checkpoint of a HOP aggregate kept per window is refused, naming the layout', async () => {
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  // The same checkpoint as the operator before slicing would have written it: no layout field.
  await expectOlderLayoutRefused(checkpoints, run, 'WindowAggregate', signature => {
    expect(signature['layout']).toBe('key-slices')
    delete signature['layout']
  }, /operator \S+ \(WindowAggregate\) changed: layout .* → "?key-slices"?/)
})

it('a checkpoint of a HOP aggregate kept per (key, slice) with a timer per window is refused, naming the layout', async () => {
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  await expectOlderLayoutRefused(checkpoints, run, 'WindowAggregate', signature => {
    signature['layout'] = 'slices'
  }, /operator \S+ \(WindowAggregate\) changed: layout "?slices"? → "?key-slices"?/)
})

it('a checkpoint of a sliced HOP aggregate restores', async () => {
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  const first = await run(checkpoints, 1)
  expect(first.cancelled, 'the job must still run at its first checkpoint').toBe(true)
  const second = await run(checkpoints)
  expect(second.cancelled).toBe(false)
})

it('EXPLAIN says a sliced HOP keeps accumulators per slice, and per window where it cannot slice', async () => {
  expect(await explain('COUNT(*), SUM(v)')).toContain('ValueState<accumulators of its slices> per key')
  const distinct = await explain('COUNT(DISTINCT v), SUM(v)')
  expect(distinct).toContain('per (key, window)')
  expect(distinct).not.toContain('of its slices')
})
