// Two-phase GROUP BY and checkpoints. The local aggregate holds nothing across a barrier (it emits a
// batch's partial rows before the batch is done), so a checkpoint taken mid-stream and restored
// neither loses nor doubles a count; the global aggregate keeps the one-phase aggregate's state under
// the same operator id, so a savepoint taken with two phases restores with one, and the other way,
// at any parallelism. Every restored run must end with the straight run's rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { debeziumRows, hasCommittedRows } from '../support/debezium-files.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { holdsEnd } from '../support/restore-runs.js'

const ROWS = 12_000
const STRATEGY = 'table.optimizer.agg-phase-strategy'
const QUERY = `SELECT k, COUNT(*) AS c, COUNT(v) FILTER (WHERE v > 50) AS big, SUM(v) AS s, MIN(v) AS mn, MAX(v) AS mx, AVG(v) AS a
  FROM t GROUP BY k`

let root: string
let input: string
let expected: string[]

const sql = (out: string): string =>
  `CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
  CREATE TABLE out (k STRING, c BIGINT, big BIGINT, s INT, mn INT, mx INT, a INT, PRIMARY KEY (k) NOT ENFORCED)
    WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  INSERT INTO out ${QUERY};`

/** Mini-batch on, small batches: each key's rows are folded in many batches, and barriers fall between them. */
const BASE = { 'pipeline.name': 'two-phase-job', 'execution.batch-size': '7', 'table.exec.mini-batch.enabled': 'true' }

async function run(out: string, options: Record<string, string>, extra: {
  signal?: AbortSignal
  stop?: AbortSignal
  onCheckpoint?: (id: number) => void
  from?: string
} = {}): Promise<JobMetrics> {
  const session = new Session({
    println: () => undefined,
    signal: extra.signal,
    stopWithSavepoint: extra.stop,
    // The source's end held until the cancel or stop: the job still runs at the checkpoint that triggers it.
    faults: holdsEnd(extra.signal ?? extra.stop),
    options: { ...BASE, ...options },
    onCheckpoint: (_job, id) => extra.onCheckpoint?.(id),
    recovery: extra.from === undefined ? { fresh: false } : { from: extra.from },
  })
  await session.executeSql(sql(out))
  const [metrics] = await session.awaitJobs()
  return metrics!
}

/** The plan of the job under `options` has both phases, or neither. */
async function phases(options: Record<string, string>): Promise<boolean> {
  const results = await new Session({ println: () => undefined, options: { ...BASE, ...options } }).executeSql(
    sql('/tmp/unused').replace('INSERT', 'EXPLAIN INSERT'),
  )
  const text = (results.at(-1) as { text: string }).text
  return text.includes('LocalGroupAggregate(') && text.includes('GlobalGroupAggregate(')
}

const heap = (): Record<string, string> => ({ 'state.backend': 'heap' })
const rocksdb = (): Record<string, string> => ({ 'state.backend': 'rocksdb', 'state.cache.size': '64 kb', 'state.dir': mkdtempSync(join(root, 'state-')) })
const at = (p: number, strategy: string): Record<string, string> => ({ 'parallelism.default': String(p), [STRATEGY]: strategy,
  'execution.worker-threads': 'true' })

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'weir-two-phase-'))
  // Three files: three splits, read in parallel at p = 2 and 3.
  const file = join(root, 'rows.jsonl')
  writeSeededRows(file, { rows: ROWS, keys: 30, seed: 4242 })
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
  input = join(root, 'input')
  mkdirSync(input)
  for (let f = 0; f < 3; f++) writeFileSync(join(input, `part-${f}.jsonl`), lines.slice(f * (ROWS / 3), (f + 1) * (ROWS / 3)).join('\n') + '\n')
  const out = mkdtempSync(join(root, 'straight-'))
  const m = await run(out, { ...heap(), ...at(1, 'ONE_PHASE'), 'execution.worker-threads': 'false' })
  expect(m.cancelled).toBe(false)
  expected = debeziumRows(out)
  expect(expected).toHaveLength(30)
}, 120_000)

afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

describe('two-phase GROUP BY, checkpointed and restored', () => {
  it('plans two phases with TWO_PHASE, one with AUTO and ONE_PHASE', async () => {
    expect(await phases(at(2, 'TWO_PHASE'))).toBe(true)
    expect(await phases(at(2, 'AUTO'))).toBe(false)
    expect(await phases(at(1, 'TWO_PHASE'))).toBe(true)
    expect(await phases(at(3, 'ONE_PHASE'))).toBe(false)
  })

  // A local aggregate that kept partial rows past a barrier would have them counted in the source's
  // checkpointed position but not in the global's state: lost when restored. One that emitted them
  // again after the restore would double them.
  it.each([
    { name: 'heap, p=2 → p=2', b: heap, a: 2, z: 2 },
    { name: 'heap, p=2 → p=3', b: heap, a: 2, z: 3 },
    { name: 'rocksdb, p=3 → p=1', b: rocksdb, a: 3, z: 1 },
  ])('$name: a checkpoint taken mid-stream and restored neither loses nor doubles a count', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    const options = { ...b(), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')) }
    const cancel = new AbortController()
    const first = await run(out, { ...options, ...at(a, 'TWO_PHASE') }, { signal: cancel.signal, onCheckpoint: id => {
      if (id >= 1 && hasCommittedRows(out)) cancel.abort()
    } })
    expect(first.cancelled).toBe(true)
    const second = await run(out, { ...options, ...at(z, 'TWO_PHASE') })
    expect(second.cancelled).toBe(false)
    expect(second.sourceRecordsRead, 'the restored run resumed midway').toBeLessThan(ROWS)
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)

  // The global aggregate's state is the one-phase aggregate's: a savepoint restores across the strategy.
  it.each([
    { name: 'heap: TWO_PHASE p=2 → ONE_PHASE p=1', b: heap, a: at(2, 'TWO_PHASE'), z: at(1, 'ONE_PHASE') },
    { name: 'heap: TWO_PHASE p=2 → AUTO p=2', b: heap, a: at(2, 'TWO_PHASE'), z: at(2, 'AUTO') },
    { name: 'heap: TWO_PHASE p=2 → TWO_PHASE p=3', b: heap, a: at(2, 'TWO_PHASE'), z: at(3, 'TWO_PHASE') },
    { name: 'heap: ONE_PHASE p=3 → TWO_PHASE p=2', b: heap, a: at(3, 'ONE_PHASE'), z: at(2, 'TWO_PHASE') },
    { name: 'rocksdb: TWO_PHASE p=2 → ONE_PHASE p=3', b: rocksdb, a: at(2, 'TWO_PHASE'), z: at(3, 'ONE_PHASE') },
  ])('$name: a savepoint restores across the strategy', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    const backend = b()
    const stop = new AbortController()
    const first = await run(out, { ...backend, ...a, 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')) }, {
      stop: stop.signal,
      onCheckpoint: id => {
        if (id >= 1) stop.abort()
      },
    })
    expect(first.savepoint, `stopped with a savepoint (read ${first.sourceRecordsRead} of ${ROWS} rows)`).toMatch(/savepoint-\d+$/)
    const second = await run(out, { ...backend, ...z, 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')) }, {
      from: first.savepoint!,
    })
    expect(second.cancelled).toBe(false)
    expect(second.sourceRecordsRead, 'the restored run resumed midway').toBeLessThan(ROWS)
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)
})
