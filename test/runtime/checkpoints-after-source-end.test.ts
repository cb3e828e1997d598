// A job whose sources end at different times: once the short one (a two-line file) has ended, the
// job still takes checkpoints while the long one (a throttled datagen) runs, and a restore from one
// of them neither reads the ended source again nor loses its rows — the counts equal a straight
// run's. At parallelism 1 and at 2 on worker threads, on heap and RocksDB.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { debeziumRows } from '../support/debezium-files.js'
import { RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const LONG = 3000
let root: string
let small: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-ckpt-after-end-'))
  small = join(root, 'small.json')
  writeFileSync(small, '{"a":1}\n{"a":7}\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

// The straight run goes as fast as it can; the checkpointed one at 1,000 rows/s (3 s), so that three
// checkpoints complete before the generator ends even when a loaded host makes them slow.
const SQL = (out: string, rate = 100_000): string => `
  CREATE TABLE f (a BIGINT) WITH ('connector' = 'filesystem', 'path' = '${small}', 'format' = 'json');
  CREATE TABLE g (x BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '${rate}', 'number-of-rows' = '${LONG}',
    'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '${LONG}');
  CREATE TABLE out (a BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  INSERT INTO out SELECT a, COUNT(*) FROM (SELECT a FROM f UNION ALL SELECT MOD(x, 10) FROM g) GROUP BY a;`

describe.each(RESTORE_BACKENDS)('checkpoints after a source ended ($name)', b => {
  it.each([1, 2])('at parallelism %i: taken while the other source runs, and restored exactly', async p => {
    const dir = mkdtempSync(join(root, 'run-'))
    const options = { ...b.options(dir), 'execution.checkpointing.interval': '50 ms', 'state.checkpoints.dir': mkdtempSync(join(dir, 'chk-')),
      'parallelism.default': String(p), 'execution.worker-threads': 'true' }
    const straight = mkdtempSync(join(dir, 'straight-'))
    await runInsertJob(SQL(straight), { ...b.options(dir), 'parallelism.default': String(p), 'execution.worker-threads': 'true' })
    const expected = debeziumRows(straight)
    // MOD(x, 10) counts 300 each; the file adds one to 1 and to 7.
    expect(expected).toContain(JSON.stringify({ a: 1, n: 301 }))
    expect(expected).toContain(JSON.stringify({ a: 7, n: 301 }))

    const out = mkdtempSync(join(dir, 'out-'))
    const cancel = new AbortController()
    const first = await runInsertJob(SQL(out, 1000), options, cancel.signal, id => {
      if (id >= 3) cancel.abort()
    })
    expect(first.cancelled).toBe(true)
    expect(first.checkpointsCompleted, 'checkpoints after the file source ended').toBeGreaterThanOrEqual(3)
    const second = await runInsertJob(SQL(out), options)
    expect(second.cancelled).toBe(false)
    expect(second.sourceRecordsRead, 'resumed: neither the file again nor all of the generator').toBeLessThan(LONG)
    expect(debeziumRows(out)).toEqual(expected)
  }, 60_000)
})
