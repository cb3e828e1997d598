// A GROUP BY keyed by BIGINTs beyond 2^53 (keys a double could not tell apart), summing values that
// overflow, run three ways on heap and RocksDB state — straight, checkpointed and cancelled, and
// restored (at another parallelism) — must write the same exact output: keys hash, encode, snapshot
// and restore as the same values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { mulberry32 } from '../../common/random.js'
import { holdsEnd } from '../support/restore-runs.js'

const ROWS = 12000
const KEYS = 60
let root: string
let input: string

/** Keys 2^53 + j (j < 40) and −2^53 − j, plus a few small ones; values near ±2^62, so sums wrap. */
function writeInput(path: string): void {
  const rand = mulberry32(7)
  const lines = Array.from({ length: ROWS }, (_, i) => {
    const j = rand() % KEYS
    const k = j < 40 ? 2n ** 53n + BigInt(j) : j < 55 ? -(2n ** 53n) - BigInt(j) : BigInt(j)
    const v = BigInt((rand() % 1000) - 500) * 2n ** 52n + BigInt(i)
    return `{"k": ${k}, "v": ${v}}`
  })
  writeFileSync(path, lines.join('\n') + '\n')
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-bigint-state-'))
  input = join(root, 'input.jsonl')
  writeInput(input)
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

const QUERY = 'SELECT k, COUNT(*), SUM(v), MAX(v), MIN(k + 1) FROM t GROUP BY k'

function sql(out: string): string {
  return `
    CREATE TABLE t (k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (k BIGINT, c BIGINT, s BIGINT, m BIGINT, k1 BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${QUERY};`
}

/** Visible output lines, sorted. */
function visible(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).filter(f => !f.startsWith('.') && !f.startsWith('_'))
    .flatMap(f => readFileSync(join(dir, f), 'utf8').split('\n').filter(l => l !== '')).sort()
}

async function run(out: string, options: Record<string, string>,
  extra: { signal?: AbortSignal; onCheckpoint?: (id: number) => void } = {}): Promise<JobMetrics>
{
  const session = new Session({
    println: () => undefined,
    signal: extra.signal,
    faults: holdsEnd(extra.signal),
    onCheckpoint: (_job, id) => extra.onCheckpoint?.(id),
    options: { 'pipeline.name': 'bigint-job', 'table.exec.mini-batch.enabled': 'false', ...options },
  })
  await session.executeSql(sql(out))
  const [metrics] = await session.awaitJobs()
  return metrics!
}

/** The final row per key of a debezium-json changelog (in any order): rows added minus rows retracted. */
function finalRows(lines: readonly string[]): Map<string, string> {
  const counts = new Map<string, number>()
  for (const line of lines) {
    const m = /^\{"before":(null|\{[^}]*\}),"after":(null|\{[^}]*\}),"op":"[cd]"\}$/.exec(line)!
    const [row, delta] = m[2] !== 'null' ? [m[2]!, 1] : [m[1]!, -1]
    counts.set(row, (counts.get(row) ?? 0) + delta)
  }
  const live = new Map<string, string>()
  for (const [row, n] of counts) {
    expect(n, row).toBeGreaterThanOrEqual(0)
    if (n > 0) live.set(/"k":(-?\d+)/.exec(row)![1]!, row)
  }
  return live
}

const BACKENDS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({ 'state.backend': 'heap' }) },
  { name: 'rocksdb', options: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '1 mb', 'state.dir': mkdtempSync(join(root, 'state-')) }) },
]

describe('GROUP BY a BIGINT beyond 2^53', () => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    await run(out, { 'state.backend': 'heap' })
    expected = visible(out)
  })

  it('keeps every key apart and sums exactly, wrapping as Java long does', () => {
    expectExact(expected)
  })

  it.each(BACKENDS.flatMap(b => [[1, 1], [2, 3]].map(([a, z]) => ({ b, a: a!, z: z! }))))(
    '$b.name: checkpointed at p=$a, cancelled, restored at p=$z: the same output',
    async ({ b, a, z }) => {
      const out = mkdtempSync(join(root, 'out-'))
      const checkpoints = mkdtempSync(join(root, 'chk-'))
      const options = { ...b.options(), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': checkpoints, 'execution.batch-size': '20' }
      const cancel = new AbortController()
      // Cancelled after the first checkpoint that committed rows: one taken before the source's first
      // chunk holds no position, and a restore from it rightly reads everything again.
      const first = await run(out, { ...options, 'parallelism.default': String(a) }, { signal: cancel.signal, onCheckpoint: id => {
        if (id >= 1 && visible(out).length > 0) cancel.abort()
      } })
      expect(first.cancelled).toBe(true)
      expect(first.checkpointsCompleted).toBeGreaterThanOrEqual(1)
      const second = await run(out, { ...options, 'parallelism.default': String(z) })
      expect(second.cancelled).toBe(false)
      expect(second.sourceRecordsRead).toBeLessThan(ROWS)
      expect(visible(out)).toEqual(expected)
      expectExact(visible(out))
    },
  )
})

/** The output's final rows hold every key apart, with its exact sum (a bigint reference, wrapped to 64 bits). */
function expectExact(lines: readonly string[]): void {
  const finals = finalRows(lines)
  expect(finals.size).toBe(KEYS)
  const sums = new Map<string, bigint>()
  for (const line of readFileSync(input, 'utf8').split('\n').filter(l => l !== '')) {
    const [, k, v] = /"k": (-?\d+), "v": (-?\d+)/.exec(line)!
    sums.set(k!, BigInt.asIntN(64, (sums.get(k!) ?? 0n) + BigInt(v!)))
  }
  for (const [k, s] of sums) expect(finals.get(k), `key ${k}`).toMatch(new RegExp(`"s":${s},`))
  expect(finals.get('9007199254740993')).toMatch(/"k1":9007199254740994\}/)
}
