// An event-time temporal join as a job, three ways over the same two files — straight through; with
// checkpoints, cancelled midway; restored from its latest checkpoint at another parallelism — on
// heap and RocksDB: the exactly-once file sink must hold the same rows as the straight run. The
// checkpoint holds buffered probe rows, versions and their timers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { visibleRows } from '../connectors/helpers.js'
import { writeVersionedData, type VersionedData } from '../oracle/versioned-data.js'
import { holdsEnd } from '../support/restore-runs.js'

let root: string
let data: VersionedData

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-temporal-ckpt-'))
  data = writeVersionedData(root, { seed: 7, steps: 10_000, keys: 30 })
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

async function run(out: string, options: Record<string, string>, extra: { signal?: AbortSignal; onCheckpoint?: (id: number) => void; log?: string[] } = {}) {
  const session = new Session({
    println: () => undefined,
    signal: extra.signal,
    // The source's end held until the cancel: the job still runs at the checkpoint that triggers it.
    faults: holdsEnd(extra.signal),
    options: { 'pipeline.name': 'temporal-job', ...options },
    onCheckpoint: (_job, id) => extra.onCheckpoint?.(id),
    log: m => extra.log?.push(m),
  })
  await session.executeSql(`${data.ddl}
    CREATE TABLE out (id INT, k STRING, ts TIMESTAMP(3), r INT, rts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
    INSERT INTO out SELECT o.id, o.k, o.ts, r.r, r.ts FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k;`)
  const [metrics] = await session.awaitJobs()
  return metrics as JobMetrics
}

const BACKENDS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({ 'state.backend': 'heap' }) },
  { name: 'rocksdb', options: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '256 kb', 'state.dir': mkdtempSync(join(root, 'state-')) }) },
]

describe('temporal join: checkpointed, cancelled, restored', () => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    await run(out, { 'state.backend': 'heap' })
    expected = visibleRows(out)
    expect(expected.length).toBe(data.orders.length)
  })

  it.each(BACKENDS)('$name: checkpointed at p=2, cancelled, restored at p=3', { timeout: 120_000 }, async b => {
    const out = mkdtempSync(join(root, 'out-'))
    const options = { ...b.options(), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')),
      'execution.batch-size': '20' }
    const cancel = new AbortController()
    const first = await run(out, { ...options, 'parallelism.default': '2' }, { signal: cancel.signal, onCheckpoint: id => id >= 2 && cancel.abort() })
    expect(first.cancelled).toBe(true)
    const partial = visibleRows(out).length
    expect(partial).toBeLessThan(expected.length)
    const log: string[] = []
    // Fewer checkpoints in the restored run: it only has to finish with the same rows.
    const second = await run(out, { ...options, 'execution.checkpointing.interval': '200 ms', 'parallelism.default': '3' }, { log })
    expect(log.join('\n')).toMatch(/resuming from checkpoint \d+/)
    expect(second.cancelled).toBe(false)
    expect(visibleRows(out)).toEqual(expected)
  })
})
