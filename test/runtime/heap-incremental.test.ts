// Jobs on the heap backend checkpointed many times while few keys change between checkpoints:
// later checkpoints store a small part of the state and name the objects of earlier ones, retention
// keeps exactly the objects retained checkpoints name, and a job cancelled after many checkpoints
// resumes (at the same or another parallelism) to the straight run's output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import type { FaultInjector } from '../../runtime/faults.js'
import type { HeapChainedHandle } from '../../state/heap/factory.js'
import { visibleRows } from '../connectors/helpers.js'
import { holdSourceEndsUntil } from '../support/restore-runs.js'
import { writeSeededRows } from '../support/seeded-rows.js'

const ROWS = 40000
const KEYS = 3000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-heap-incr-job-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: ROWS, keys: KEYS, seed: 7 })
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

const CASES = [
  // Updates and deletes: MAX over a key's values retracts when v < 50 rows come and go through the HAVING.
  { name: 'GROUP BY (updating, with deletes)', sink: 'k STRING, c BIGINT, s BIGINT, m INT', format: 'debezium-json',
    query: `SELECT k, COUNT(*), SUM(v), MAX(v) FROM t GROUP BY k HAVING MOD(COUNT(*), 3) <> 0`, options: { 'table.exec.mini-batch.enabled': 'false' },
    growing: true },
  { name: 'TUMBLE (timers)', sink: 'k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT', format: 'json',
    query:
      `SELECT k, window_start, window_end, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '60' SECOND)) GROUP BY k, window_start, window_end`,
    options: {}, growing: false },
] as const

type Case = (typeof CASES)[number]

function sql(c: Case, out: string): string {
  return `
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (${c.sink}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = '${c.format}');
    INSERT INTO out ${c.query};`
}

async function run(c: Case, out: string, options: Record<string, string>,
  extra: { signal?: AbortSignal; onCheckpoint?: (id: number) => void; faults?: FaultInjector } = {})
{
  const session = new Session({
    println: () => undefined,
    signal: extra.signal,
    options: { 'pipeline.name': 'incr-job', 'state.backend': 'heap', ...c.options, ...options },
    onCheckpoint: (_job, id) => extra.onCheckpoint?.(id),
    faults: extra.faults,
  })
  await session.executeSql(sql(c, out))
  const [metrics] = await session.awaitJobs()
  return metrics! as JobMetrics
}

interface Manifest {
  readonly operators: Record<string, { subtasks: { data: { path: string }; state: HeapChainedHandle }[] }>
}

function manifests(job: string): Map<number, Manifest> {
  const found = new Map<number, Manifest>()
  for (const f of readdirSync(job)) {
    if (/^chk-\d+$/.test(f) && existsSync(join(job, f, '_metadata'))) found.set(Number(f.slice(4)), JSON.parse(readFileSync(join(job, f, '_metadata'), 'utf8')))
  }
  return found
}

function handlesOf(m: Manifest): HeapChainedHandle[] {
  return Object.values(m.operators).flatMap(op => op.subtasks.map(s => s.state))
}

function filesUnder(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter(d => d.isFile()).map(d => relative(dir, join(d.parentPath, d.name)))
    : []
}

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    await run(c, out, {})
    expected = visibleRows(out)
    expect(expected.length).toBeGreaterThan(100)
  })

  it.each([[1, 1], [2, 3]])("checkpointed many times at p=%i, cancelled, restored at p=%i: the straight run's output; retention keeps exactly what is named",
    async (a, z) => {
      const out = mkdtempSync(join(root, 'out-'))
      const checkpoints = mkdtempSync(join(root, 'chk-'))
      const options = { 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': checkpoints, 'execution.batch-size': '5',
        'state.checkpoints.num-retained': '2' }
      const cancel = new AbortController()
      const job = join(checkpoints, 'incr-job')
      // Every checkpoint's heap handles, read as it completes (retention removes most of them later).
      const taken: { id: number; handles: HeapChainedHandle[] }[] = []
      // The source's end is held until the cancel (held 40 s at most, so a checkpoint that never completes fails the
      // test rather than hanging it): however slow the host, the job still runs at its 8th checkpoint.
      const first = await run(c, out, { ...options, 'parallelism.default': String(a) }, { signal: cancel.signal, onCheckpoint: id => {
        const m = manifests(job).get(id)
        if (m !== undefined) taken.push({ id, handles: handlesOf(m) })
        if (id >= 8) cancel.abort()
      }, faults: holdSourceEndsUntil(cancel.signal, 40_000) })
      expect(first.cancelled, 'the job must still run at its 8th checkpoint').toBe(true)
      expect(taken.length).toBeGreaterThanOrEqual(8)
      // Some checkpoints stored a part of the state only, naming objects of earlier checkpoints for the rest.
      // (Window state turns over with every window: there, most groups may be stored whole again anyway.)
      const stateBytes = (hs: HeapChainedHandle[]): number =>
        hs.reduce((n, h) => n + h.groups.reduce((m, g) => m + g.sections.reduce((k, [, b]) => k + b, 0), 0), 0)
      const partial = taken.filter(t => t.handles.reduce((n, h) => n + h.uploaded.raw, 0) < stateBytes(t.handles))
      const naming = taken.filter(t => t.handles.some(h => h.objects.some(o => o.checkpointId < t.id)))
      if (c.growing) {
        expect(partial.length).toBeGreaterThan(0)
        expect(naming.length).toBeGreaterThan(0)
      }
      const handles = handlesOf(manifests(job).get(Math.max(...manifests(job).keys()))!)
      const present = new Set(filesUnder(job))
      for (const o of handles.flatMap(h => h.objects)) expect(present.has(o.path), o.path).toBe(true)

      const restoredFrom = Math.max(...manifests(job).keys())
      const after: HeapChainedHandle[][] = []
      // Its source's end held until it has taken a checkpoint of its own: the first run may have read all of its input
      // before the cancel, and the resumed job would then end at once (its final checkpoint stores no state).
      const checkpointed = new AbortController()
      const second = await run(c, out, { ...options, 'parallelism.default': String(z) }, { onCheckpoint: id => {
        const m = manifests(job).get(id)
        if (m !== undefined) after.push(handlesOf(m))
        checkpointed.abort()
      }, faults: holdSourceEndsUntil(checkpointed.signal, 40_000) })
      expect(second.cancelled).toBe(false)
      expect(after.length, 'the resumed job took a checkpoint').toBeGreaterThan(0)
      // The resumed job builds on the restored chains: its checkpoints name objects of the first run's.
      if (c.growing) expect(after.some(hs => hs.some(h => h.objects.some(o => o.checkpointId <= restoredFrom)))).toBe(true)
      expect(visibleRows(out)).toEqual(expected)
      // Retention after the job's last checkpoint: the shared objects are exactly those the retained checkpoints name.
      const retained = manifests(job)
      expect(retained.size).toBe(2)
      const named = new Set([...retained.values()].flatMap(m => handlesOf(m).flatMap(h => h.objects.map(o => o.path))))
      expect(filesUnder(join(job, 'shared')).map(p => `shared/${p}`).sort()).toEqual([...named].sort())
    })
})
