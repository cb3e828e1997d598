// The fault-injection hook (ExecutionEnv.faults, through SessionOptions): called at a checkpoint's
// worst points in the order a checkpoint passes them, with what each point knows; a hold before a
// source's read keeps the source there while checkpoints go on; and the shipped
// `weir` command reads no fault-injection variable of its own.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import type { FaultInjector, FaultPoint } from '../../runtime/faults.js'
import { holdSourceAfter } from '../support/source-holds.js'

function fresh(): string {
  return mkdtempSync(join(tmpdir(), 'weir-faults-'))
}

describe('the fault-injection hook', () => {
  it('is told each point of a checkpoint in order: subtask uploads, then before the manifest, then before the commit', async () => {
    const dir = fresh()
    try {
      const seen: { point: FaultPoint; detail: Record<string, unknown> }[] = []
      const stop = new AbortController()
      const faults: FaultInjector = {
        at(point, detail) {
          // The first checkpoint's points only (one more may start before the job has stopped).
          if (stop.signal.aborted || point === 'source-rows' || point === 'source-end') return
          seen.push({ point, detail: { ...detail } })
          if (point === 'before-commit') stop.abort()
        },
      }
      const session = new Session({
        println: () => undefined,
        signal: stop.signal,
        faults,
        options: { 'pipeline.name': 'faults', 'state.checkpoints.dir': join(dir, 'checkpoints'), 'execution.checkpointing.interval': '50 ms',
          'parallelism.default': '2', 'execution.worker-threads': 'true' },
      })
      await session.executeSql(`
        CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000');
        CREATE TABLE out (k BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO out SELECT id % 10, COUNT(*) FROM gen GROUP BY id % 10`)
      const [metrics] = await session.awaitJobs()
      expect(metrics!.cancelled).toBe(true)
      const id = seen[0]!.detail['checkpointId']
      // Both subtasks of the aggregate stored their files, then the manifest, then the commit.
      expect(seen.map(s => s.point)).toEqual(['upload', 'upload', 'before-manifest', 'before-commit'])
      expect(seen.filter(s => s.point === 'upload').map(s => s.detail['subtask']).sort()).toEqual([0, 1])
      expect(seen.every(s => s.detail['checkpointId'] === id)).toBe(true)
      expect(seen[0]!.detail['operatorId']).toMatch(/group-aggregate/)
      expect(seen[2]!.detail).toEqual({ checkpointId: id, savepoint: false })
      expect(seen[3]!.detail).toEqual({ checkpointId: id, final: false })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it('a bounded job ends with a final checkpoint: its source before each read, its end, then before its commit the hook is told so', async () => {
    const dir = fresh()
    try {
      const seen: { point: FaultPoint; detail: unknown }[] = []
      const session = new Session({
        println: () => undefined,
        faults: { at: (point, detail) => {
          seen.push({ point, detail })
        } },
        options: { 'pipeline.name': 'final', 'state.checkpoints.dir': join(dir, 'checkpoints'), 'execution.checkpointing.interval': '1 h',
          'execution.batch-size': '4' },
      })
      await session.executeSql(`
        CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');
        CREATE TABLE out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');
        INSERT INTO out SELECT id FROM gen`)
      await session.awaitJobs()
      // Before each read the rows read so far (chunks of 4), the source's end (not a cancel), then the final checkpoint's commit.
      expect(seen).toEqual([
        ...[0, 4, 8, 10].map(rows => ({ point: 'source-rows', detail: { table: 'gen', scan: '1-source', subtask: 0, rows, cancelled: false } })),
        { point: 'source-end', detail: { table: 'gen', subtask: 0, cancelled: false } },
        { point: 'before-commit', detail: { checkpointId: 1, final: true } },
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("the point 'source-rows'", () => {
  it('holds a source where it is while the job goes on: a checkpoint taken meanwhile commits exactly the rows read; released, it reads on', async () => {
    const dir = fresh()
    try {
      const out = join(dir, 'out')
      const ids = (): number[] =>
        (existsSync(out) ? readdirSync(out) : []).filter(f => !f.startsWith('.')).flatMap(f => readFileSync(join(out, f), 'utf8').split('\n'))
          .filter(l => l !== '').map(l => (JSON.parse(l) as { id: number }).id)
      const release = new AbortController()
      const hold = holdSourceAfter(100, release.signal)
      let heldAt = -1
      void hold.reached.then(at => (heldAt = at.rows))
      // Committed at each checkpoint completed while the source is held.
      const whileHeld: number[] = []
      const session = new Session({
        println: () => undefined,
        faults: hold,
        onCheckpoint: () => {
          if (heldAt < 0 || release.signal.aborted) return
          whileHeld.push(ids().length)
          if (whileHeld.length === 3) release.abort()
        },
        options: { 'pipeline.name': 'held', 'state.checkpoints.dir': join(dir, 'checkpoints'), 'execution.checkpointing.interval': '5 ms',
          'execution.batch-size': '10' },
      })
      await session.executeSql(`
        CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000');
        CREATE TABLE out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
        INSERT INTO out SELECT id FROM gen`)
      const [metrics] = await session.awaitJobs()
      expect(heldAt).toBe(100)
      // The first may have been taken before the hold; the next ones (one checkpoint at a time) while held.
      expect(whileHeld.slice(1)).toEqual([100, 100])
      expect(metrics!.sourceRecordsRead).toBe(1000)
      expect(ids().sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('a SELECT', () => {
  it("runs its job with the session's hook too: its source's reads and end reach it, and a hold there holds the SELECT", async () => {
    const seen: string[] = []
    const faults: FaultInjector = {
      at(point, detail) {
        if (point === 'source-rows' || point === 'source-end') seen.push(`${point} ${(detail as { table: string }).table}`)
      },
    }
    const session = new Session({ println: () => undefined, faults, options: { 'execution.batch-size': '4' } })
    const [, result] = await session.executeSql(`
      CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');
      SELECT id FROM gen`)
    expect(result!.kind).toBe('rows')
    expect(seen).toEqual(['source-rows gen', 'source-rows gen', 'source-rows gen', 'source-rows gen', 'source-end gen'])
  })
})

describe('the weir command', () => {
  it('reads no fault-injection variable: WEIR_CRASH_AT in its environment crashes nothing', () => {
    const dir = fresh()
    try {
      writeFileSync(join(dir, 'job.sql'), `
        SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}';
        SET 'execution.checkpointing.interval' = '1 h';
        CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');
        CREATE TABLE out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');
        INSERT INTO out SELECT id FROM gen;`)
      // The final checkpoint reaches 'before-commit' once: a runtime that read the variable would kill itself there.
      const r = spawnSync(process.execPath, [join(process.cwd(), 'bin/weir.js'), 'run', 'job.sql'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, WEIR_CRASH_AT: 'before-commit:1' },
      })
      expect(r.signal).toBeNull()
      expect(r.status, r.stderr).toBe(0)
      expect(readdirSync(join(dir, 'out')).filter(f => !f.startsWith('.')).length).toBeGreaterThan(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
