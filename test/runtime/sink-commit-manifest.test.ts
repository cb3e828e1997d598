// Every completed checkpoint of a job with an exactly-once sink records what the sink sealed for it:
// the manifest promises the sink's parts (a restore publishes them), and the checkpoint completes only
// after the sink's prepareCommit has returned. At parallelism 2 on worker threads, with the job
// thread's split held, the sink (on the job's thread) takes each barrier last, from the worker's
// split; it used to acknowledge before its prepareCommit ran, the manifest was written without it,
// and a restore from such a checkpoint deleted the part it had sealed — rows the sources' positions
// had already passed were lost.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { runInsertJob } from '../support/restore-runs.js'
import { holdSourceAfter } from '../support/source-holds.js'

const root = mkdtempSync(join(tmpdir(), 'weir-sink-manifest-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

it.each([1, 2])('at parallelism %i every checkpoint promises what the sink sealed for it', async p => {
  const out = mkdtempSync(join(root, 'out-'))
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  const promised: { id: number; sinks: Record<string, unknown> }[] = []
  // The job thread's source (split 0 at p = 2) is held after 1,000 rows until four checkpoints have
  // completed since; the worker's split reads on meanwhile.
  const release = new AbortController()
  const hold = holdSourceAfter(1000, release.signal)
  let heldAt: number | undefined
  void hold.reached.then(() => (heldAt = promised.length))
  const sql = `
    CREATE TABLE bid (auction BIGINT, price BIGINT) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid',
      'nexmark.events.num' = '200000', 'nexmark.seed' = '5');
    CREATE TABLE out (auction BIGINT, price BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
    INSERT INTO out SELECT auction, price FROM bid;`
  const m = await runInsertJob(sql, {
    'pipeline.name': 'sink-manifest',
    'parallelism.default': String(p),
    'execution.worker-threads': 'true',
    'execution.checkpointing.interval': '5 ms',
    'state.checkpoints.dir': checkpoints,
    'execution.batch-size': '16',
  }, undefined, id => {
    // Read when the checkpoint completes, before retention drops it.
    const manifest = JSON.parse(readFileSync(join(checkpoints, 'sink-manifest', `chk-${id}`, '_metadata'), 'utf8'))
    promised.push({ id, sinks: manifest.sinks })
    if (heldAt !== undefined && promised.length >= heldAt + 4) release.abort()
  }, hold)
  expect(m.cancelled).toBe(false)
  expect(heldAt, 'the source was held').toBeDefined()
  expect(promised.length).toBeGreaterThanOrEqual(4)
  for (const { id, sinks } of promised) expect(Object.keys(sinks), `checkpoint ${id} records the sink's commit`).toEqual(['2-sink'])
})
