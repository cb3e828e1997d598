// The interval join keeps a list per (key, time bucket, side) since its layout 'time-bucket-lists';
// before, a bucket's rows were one value ('time-buckets'), which it no longer reads. A checkpoint of
// the old layout is refused on restore, naming the operator and the layout, rather than restored
// into state the operator would not find (rows silently lost).
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
  root = mkdtempSync(join(tmpdir(), 'weir-interval-layout-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: 20_000, keys: 40, seed: 5 })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function run(checkpoints: string, cancelAt?: number): Promise<JobMetrics> {
  const cancel = new AbortController()
  const session = new Session({
    println: () => undefined,
    signal: cancel.signal,
    faults: cancelAt === undefined ? undefined : holdSourceEndsUntil(cancel.signal),
    options: { 'pipeline.name': 'interval-layout', 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': checkpoints,
      'execution.batch-size': '5' },
    onCheckpoint: (_job, id) => {
      if (cancelAt !== undefined && id >= cancelAt) cancel.abort()
    },
  })
  await session.executeSql(`
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (k STRING, a INT, b INT) WITH ('connector' = 'blackhole');
    INSERT INTO out SELECT a.k, a.v, b.v FROM t a JOIN t b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '2' SECOND AND b.ts;`)
  const [m] = await session.awaitJobs()
  return m!
}

it('a checkpoint of the interval join with its rows in one value per bucket is refused, naming the layout', async () => {
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  // The same checkpoint as the layout before lists would have written it.
  await expectOlderLayoutRefused(checkpoints, run, 'IntervalJoin', signature => {
    expect(signature['layout']).toBe('time-bucket-lists')
    signature['layout'] = 'time-buckets'
  }, /operator \S+ \(IntervalJoin\) changed: layout time-buckets → time-bucket-lists/)
})

it('a checkpoint of the interval join in its own layout restores', async () => {
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  const first = await run(checkpoints, 1)
  expect(first.cancelled, 'the job must still run at its first checkpoint').toBe(true)
  const second = await run(checkpoints)
  expect(second.cancelled).toBe(false)
})
