// Regular joins three ways over the same input — straight through; checkpointed and cancelled
// midway; restored from the latest checkpoint at the same or another parallelism, on heap and on
// RocksDB — and the exactly-once sink's committed output must materialize to the same result.
// Both join inputs read one file, so barriers are aligned across two inputs of every join.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { visibleRows } from '../connectors/helpers.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { holdSourceEndsUntil } from '../support/restore-runs.js'

const ROWS = 8000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-join-ckpt-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: ROWS, keys: 40, seed: 7 })
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

interface Case {
  readonly name: string
  readonly sink: string
  readonly format: 'json' | 'debezium-json'
  readonly query: string
}

const CASES: readonly Case[] = [
  { name: 'INNER (insert-only)', sink: 'k STRING, a INT, b INT', format: 'json', query: 'SELECT a.k, a.v, b.v FROM t a JOIN t b ON a.k = b.k AND a.ts = b.ts' },
  { name: 'LEFT (padded rows retracted)', sink: 'k STRING, a INT, b INT', format: 'debezium-json',
    query: 'SELECT a.k, a.v, b.v FROM t a LEFT JOIN (SELECT k, ts, v FROM t WHERE v < 50) b ON a.k = b.k AND a.ts = b.ts' },
  { name: 'FULL with an updating GROUP BY side', sink: 'k STRING, m INT, v INT', format: 'debezium-json',
    query: 'SELECT g.k, g.m, a.v FROM (SELECT k, MAX(v) AS m FROM t GROUP BY k) g FULL JOIN (SELECT k, v FROM t WHERE v > 90) a ON a.k = g.k AND a.v = g.m' },
]

function sql(c: Case, out: string): string {
  return `
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (${c.sink}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = '${c.format}');
    INSERT INTO out ${c.query};`
}

/** The committed output as a multiset of rows: JSON lines as they are, debezium changes applied (+1 per create, -1 per delete). */
function result(c: Case, out: string): string[] {
  const lines = visibleRows(out)
  if (c.format === 'json') return lines
  const counts = new Map<string, number>()
  for (const line of lines) {
    const change = JSON.parse(line) as { before: unknown; after: unknown; op: string }
    const row = JSON.stringify(change.op === 'c' ? change.after : change.before)
    counts.set(row, (counts.get(row) ?? 0) + (change.op === 'c' ? 1 : -1))
  }
  const rows: string[] = []
  for (const [row, n] of counts) {
    expect(n, `row ${row} retracted more often than added`).toBeGreaterThanOrEqual(0)
    for (let i = 0; i < n; i++) rows.push(row)
  }
  return rows.sort()
}

async function run(c: Case, out: string, options: Record<string, string>, signal?: AbortSignal, onCheckpoint?: (id: number) => void,
  log?: string[]): Promise<JobMetrics>
{
  const session = new Session({
    println: () => undefined,
    signal,
    faults: signal === undefined ? undefined : holdSourceEndsUntil(signal),
    log: m => log?.push(m),
    options: { 'pipeline.name': 'join-ckpt-job', ...options },
    onCheckpoint: (_job, id) => onCheckpoint?.(id),
  })
  await session.executeSql(sql(c, out))
  const [metrics] = await session.awaitJobs()
  return metrics!
}

const BACKENDS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({ 'state.backend': 'heap' }) },
  { name: 'rocksdb', options: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '256 kb', 'state.dir': mkdtempSync(join(root, 'state-')) }) },
]
const PARALLELISM: readonly [number, number][] = [[1, 1], [2, 3]]

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    const m = await run(c, out, { 'state.backend': 'heap' })
    expect(m.cancelled).toBe(false)
    expected = result(c, out)
    expect(expected.length).toBeGreaterThan(100)
  })

  it.each(BACKENDS.flatMap(b => PARALLELISM.map(([a, z]) => ({ b, a, z }))))('$b.name: checkpointed at p=$a, cancelled, restored at p=$z',
    async ({ b, a, z }) => {
      const out = mkdtempSync(join(root, 'out-'))
      const checkpoints = mkdtempSync(join(root, 'chk-'))
      const options = { ...b.options(), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': checkpoints, 'execution.batch-size': '5' }
      const cancel = new AbortController()
      const first = await run(c, out, { ...options, 'parallelism.default': String(a), 'execution.worker-threads': 'true' }, cancel.signal, id => {
        if (id >= 1) cancel.abort()
      })
      expect(first.cancelled, 'the job must still run at its first checkpoint').toBe(true)
      const log: string[] = []
      const second = await run(c, out, { ...options, 'parallelism.default': String(z), 'execution.worker-threads': 'true' }, undefined, undefined, log)
      expect(second.cancelled).toBe(false)
      // Restored state and source positions, not a rerun.
      expect(log.join('\n')).toMatch(/resuming from checkpoint \d+/)
      expect(result(c, out)).toEqual(expected)
    })
})
