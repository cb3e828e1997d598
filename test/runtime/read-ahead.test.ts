// Reading ahead on RocksDB: a keyed subtask prefetches the next queued batch while it processes the
// current one. datagen's chunks are ready at once, so every batch here is read ahead (a runtime
// that threw on reading ahead fails this file); a 64 KB cache evicts constantly, barriers every
// 5 ms interrupt the pipeline, and two subtasks split the keys. At one subtask the changelog must
// equal the heap backend's, change for change; at two, datagen's two source subtasks interleave a
// key's rows in an order that depends on the threads, so the intermediate sums differ: there each
// change must retract exactly a row emitted before, and what is left must be the heap backend's result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { holdSourceEndsUntil } from '../support/restore-runs.js'

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-read-ahead-'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

const ROWS = 40_000

/** Runs the job into a fresh folder and returns its changelog lines, sorted. */
async function changelog(options: Record<string, string>): Promise<{ lines: string[]; metrics: JobMetrics }> {
  const out = mkdtempSync(join(root, 'out-'))
  // Checkpointed, the source's end is held until a checkpoint has completed while the job runs.
  const checkpointed = new AbortController()
  const session = new Session({
    println: () => undefined,
    options: { 'table.exec.mini-batch.enabled': 'false', ...options },
    onCheckpoint: () => checkpointed.abort(),
    faults: 'execution.checkpointing.interval' in options ? holdSourceEndsUntil(checkpointed.signal) : undefined,
  })
  await session.executeSql(`
    CREATE TABLE ev (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', 'number-of-rows' = '${ROWS}',
      'fields.k.kind' = 'random', 'fields.k.min' = '1', 'fields.k.max' = '5000', 'fields.v.kind' = 'random', 'fields.v.min' = '1', 'fields.v.max' = '100', 'seed' = '7');
    CREATE TABLE out (k BIGINT, c BIGINT, s BIGINT, m BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out SELECT k, COUNT(*), SUM(v), MAX(v) FROM ev GROUP BY k;`)
  const [metrics] = await session.awaitJobs()
  const lines: string[] = []
  if (existsSync(out)) {
    for (const f of readdirSync(out)) {
      if (f.startsWith('.') || f.startsWith('_')) continue
      lines.push(...readFileSync(join(out, f), 'utf8').split('\n').filter(l => l !== ''))
    }
  }
  return { lines: lines.sort(), metrics: metrics! }
}

/**
 * What a changelog leaves, checking that it is one: every retracted row (a 'before') was emitted (an
 * 'after') and not retracted yet. Sorted rows as JSON.
 */
function netResult(lines: readonly string[]): string[] {
  const live = new Map<string, number>()
  const change = (row: unknown, by: number): void => {
    if (row === null || row === undefined) return
    const key = JSON.stringify(row)
    live.set(key, (live.get(key) ?? 0) + by)
  }
  for (const line of lines) change((JSON.parse(line) as { after?: unknown }).after, 1)
  for (const line of lines) change((JSON.parse(line) as { before?: unknown }).before, -1)
  for (const [row, n] of live) expect(n, `row ${row} emitted and retracted`).toBeGreaterThanOrEqual(0)
  return [...live].flatMap(([row, n]) => Array.from({ length: n }, () => row)).sort()
}

const rocksdb = (): Record<string, string> => ({ 'state.backend': 'rocksdb', 'state.cache.size': '64 kb', 'state.dir': mkdtempSync(join(root, 'state-')) })

describe('reading ahead on RocksDB', () => {
  let reference: string[]
  beforeAll(async () => {
    reference = (await changelog({ 'state.backend': 'heap', 'execution.batch-size': '256' })).lines
  })

  it("gives the heap backend's changelog: one change per row, 5,000 keys", () => {
    expect(reference.length).toBeGreaterThan(ROWS) // +I per new key, -U/+U per later row
    expect(reference.filter(l => l.includes('"op":"c"')).length).toBeGreaterThan(4900)
  })

  it.each([
    ['one subtask', { 'parallelism.default': '1' }],
    ['two subtasks', { 'parallelism.default': '2' }],
    ['two subtasks, a checkpoint every 5 ms', { 'parallelism.default': '2', 'execution.checkpointing.interval': '5 ms' }],
  ] as const)('%s', async (_name, extra) => {
    const checkpoints: Record<string, string> = 'execution.checkpointing.interval' in extra ? { 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')) } : {}
    const { lines, metrics } = await changelog({ ...rocksdb(), 'execution.batch-size': '256', ...extra, ...checkpoints })
    if (extra['parallelism.default'] === '1') expect(lines).toEqual(reference)
    else {
      expect(lines.length).toBe(reference.length)
      expect(netResult(lines)).toEqual(netResult(reference))
    }
    if ('execution.checkpointing.interval' in extra) expect(metrics.checkpointsCompleted).toBeGreaterThan(1)
  })
})
