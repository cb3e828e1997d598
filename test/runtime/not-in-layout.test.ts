// NOT IN (a null-aware anti join) keeps its probe rows by their value since layout 'probe-by-value';
// before, they were one list per key, which it no longer reads. A checkpoint without the layout is
// refused on restore, naming the operator and the layout, rather than restored into state the
// operator would not find (probe rows silently lost).
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
  root = mkdtempSync(join(tmpdir(), 'weir-not-in-layout-'))
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
    options: { 'pipeline.name': 'not-in-layout', 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': checkpoints,
      'execution.batch-size': '5' },
    onCheckpoint: (_job, id) => {
      if (cancelAt !== undefined && id >= cancelAt) cancel.abort()
    },
  })
  await session.executeSql(`
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'blackhole');
    INSERT INTO out SELECT k, v FROM t WHERE MOD(v, 7) NOT IN (SELECT MOD(v, 5) FROM t WHERE k = 'k1');`)
  const [m] = await session.awaitJobs()
  return m!
}

it('a checkpoint of NOT IN without its by-value layout is refused, naming the layout', async () => {
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  // The same checkpoint as the layout before would have written it: no layout in the signature.
  await expectOlderLayoutRefused(checkpoints, run, 'SemiJoin', signature => {
    expect(signature['layout']).toBe('probe-by-value')
    delete signature['layout']
  }, /operator \S+ \(SemiJoin\) changed: .*layout/)
})

it('a checkpoint of NOT IN in its own layout restores', async () => {
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  const first = await run(checkpoints, 1)
  expect(first.cancelled, 'the job must still run at its first checkpoint').toBe(true)
  const second = await run(checkpoints)
  expect(second.cancelled).toBe(false)
})
