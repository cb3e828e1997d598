// Window semi and anti joins three ways over the same input — straight through; checkpointed and
// cancelled midway; restored from the latest checkpoint at another parallelism — on heap and RocksDB:
// the rows the exactly-once sink committed must be the same every time (insert-only: each left row
// once, when its window closed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { debeziumRows, hasCommittedRows } from '../support/debezium-files.js'

const ROWS = 5000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-wsemi-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: ROWS, keys: 30, seed: 7 })
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

const W = "(SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)))"
const SAME = 'a.window_start = b.window_start AND a.window_end = b.window_end'
const CASES: readonly { name: string; query: string }[] = [
  { name: 'window IN', query: `SELECT k, v FROM ${W} a WHERE a.k IN (SELECT k FROM ${W} b WHERE b.v > 80 AND ${SAME})` },
  { name: 'window NOT EXISTS', query: `SELECT k, v FROM ${W} a WHERE NOT EXISTS (SELECT * FROM ${W} b WHERE b.k = a.k AND b.v < 20 AND ${SAME})` },
  { name: 'window NOT IN', query: `SELECT k, v FROM ${W} a WHERE a.v NOT IN (SELECT v * 2 FROM ${W} b WHERE ${SAME})` },
]

function sql(query: string, out: string): string {
  return `
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${query};`
}

async function run(query: string, out: string, options: Record<string, string>, signal?: AbortSignal,
  onCheckpoint?: (id: number) => void): Promise<JobMetrics>
{
  const session = new Session({
    println: () => undefined,
    signal,
    options: { 'pipeline.name': 'window-semi-job', ...options },
    onCheckpoint: (_job, id) => onCheckpoint?.(id),
  })
  await session.executeSql(sql(query, out))
  const [metrics] = await session.awaitJobs()
  return metrics!
}

const BACKENDS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({ 'state.backend': 'heap' }) },
  { name: 'rocksdb', options: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '256 kb', 'state.dir': mkdtempSync(join(root, 'state-')) }) },
]

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await run(c.query, out, { 'state.backend': 'heap' })).cancelled).toBe(false)
    expected = debeziumRows(out)
    expect(expected.length).toBeGreaterThan(10)
  }, 120_000)

  it.each(BACKENDS)('$name: checkpointed at p=1, cancelled, restored at p=3', async b => {
    const out = mkdtempSync(join(root, 'out-'))
    const options = { ...b.options(), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')),
      'execution.batch-size': '1' }
    const cancel = new AbortController()
    const first = await run(c.query, out, { ...options, 'parallelism.default': '1' }, cancel.signal, id => {
      if (id >= 1) cancel.abort()
    })
    expect(first.cancelled).toBe(true)
    expect(first.checkpointsCompleted).toBeGreaterThanOrEqual(1)
    const second = await run(c.query, out, { ...options, 'parallelism.default': '3' })
    expect(second.cancelled).toBe(false)
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)
})
