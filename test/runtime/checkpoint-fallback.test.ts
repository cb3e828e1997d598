// Falling back from a checkpoint that cannot be restored: past one whose output the sink never
// committed it goes on, exact; past one whose output is visible already it refuses (a replay from
// the older checkpoint would write those rows again), saying what happened and what to do; and
// once the damage is repaired the job resumes exactly. A savepoint in a separate savepoint folder
// is where a job resumes after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
import type { JobMetrics } from '../../runtime/executor.js'
import type { FaultInjector } from '../../runtime/faults.js'
import { holdsEnd } from '../support/restore-runs.js'
import { faultsOf, holdSourceAfter } from '../support/source-holds.js'

const ROWS = 30_000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-fallback-'))
  input = join(root, 'input.jsonl')
  const start = Date.UTC(2024, 0, 1)
  const lines = Array.from({ length: ROWS },
    (_, i) => JSON.stringify({ k: `k${i % 7}`, v: i, ts: new Date(start + i * 100).toISOString().replace('T', ' ').replace('Z', '') }))
  writeFileSync(input, lines.join('\n') + '\n')
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

/** Windows of `window`; one of a day fires only at the end of the input. */
function sql(out: string, window: string): string {
  return `
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
      WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (k STRING, ws TIMESTAMP(3), c BIGINT, s BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
    INSERT INTO out SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL ${window})) GROUP BY k, window_start, window_end;`
}

interface RunOptions {
  readonly window?: string
  readonly options?: Record<string, string>
  readonly signal?: AbortSignal
  readonly stopWithSavepoint?: AbortSignal
  readonly onCheckpoint?: (id: number) => void
  readonly log?: string[]
  readonly from?: string
  /** Its fault hook; by default the source's end held until the cancel or stop. */
  readonly faults?: FaultInjector
}

async function run(out: string, checkpoints: string, o: RunOptions = {}): Promise<JobMetrics> {
  const session = new Session({
    println: () => undefined,
    signal: o.signal,
    stopWithSavepoint: o.stopWithSavepoint,
    // The source's end held until the cancel or stop: the job still runs (its day-long windows unfired) at the checkpoint that triggers it.
    faults: o.faults ?? holdsEnd(o.signal ?? o.stopWithSavepoint),
    log: m => o.log?.push(m),
    recovery: { from: o.from },
    options: {
      'pipeline.name': 'fb',
      'state.backend': 'heap',
      'state.checkpoints.dir': checkpoints,
      'execution.checkpointing.interval': '5 ms',
      'execution.batch-size': '5',
      'state.checkpoints.num-retained': '3',
      ...o.options,
    },
    onCheckpoint: (_job, id) => o.onCheckpoint?.(id),
  })
  await session.executeSql(sql(out, o.window ?? `'10' SECOND`))
  const [metrics] = await session.awaitJobs()
  return metrics!
}

/**
 * A first run's hook and its cancel condition such that a checkpoint after another commits new rows
 * while the job still runs, however fast the host: the source is held after a third of its input
 * until a checkpoint has committed rows, then after two thirds until the cancel. (Without the holds
 * the whole input may pass before the first checkpoint, which then commits all there is before the end.)
 */
function committingLater(out: string, cancel: AbortController): { faults: FaultInjector; onCheckpoint: (id: number) => void; committing: () => number } {
  const committed = new AbortController()
  let seen = 0
  let committing = 0
  return {
    faults: faultsOf(holdSourceAfter(ROWS / 3, committed.signal), holdSourceAfter((2 * ROWS) / 3, cancel.signal)),
    // Cancel at a checkpoint (after the first) whose commit made new rows visible.
    onCheckpoint: id => {
      const now = visibleRows(out).length
      if (now > 0) committed.abort()
      if (id >= 2 && now > seen && committing === 0) {
        committing = id
        cancel.abort()
      }
      seen = now
    },
    committing: () => committing,
  }
}

function visibleRows(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).filter(f => !f.startsWith('.')).flatMap(f => readFileSync(join(dir, f), 'utf8').split('\n').filter(l => l !== '')).sort()
}

function completed(checkpoints: string): number[] {
  const job = join(checkpoints, 'fb')
  return readdirSync(job).filter(f => /^chk-\d+$/.test(f) && existsSync(join(job, f, '_metadata'))).map(f => Number(f.slice(4))).sort((a, b) => a - b)
}

/** Overwrites the window state of checkpoint `id`; returns how to put it back. */
function damage(checkpoints: string, id: number): () => void {
  const folder = join(checkpoints, 'fb', `chk-${id}`)
  const data = join(folder, readdirSync(folder).find(f => f.includes('window-aggregate'))!, 'data.bin.gz')
  const good = readFileSync(data)
  writeFileSync(data, 'garbage')
  return () => writeFileSync(data, good)
}

async function straight(window?: string): Promise<string[]> {
  const out = mkdtempSync(join(root, 'straight-'))
  await run(out, mkdtempSync(join(root, 'chk-')), { window, options: { 'execution.checkpointing.interval': '0' } })
  return visibleRows(out)
}

describe('falling back from a damaged checkpoint', () => {
  it('past a checkpoint whose output was never committed: goes on to the one before, and the output is exact', async () => {
    // Day-long windows fire only when the input ends: no checkpoint before that commits a row.
    const expected = await straight(`'1' DAY`)
    const out = mkdtempSync(join(root, 'out-'))
    const checkpoints = mkdtempSync(join(root, 'chk-'))
    // Midway: the source held after half its input until the cancel, at the third checkpoint completed
    // while held (one at a time: the last two were taken while held, so either resumes midway).
    const cancel = new AbortController()
    const hold = holdSourceAfter(ROWS / 2, cancel.signal)
    let held = false
    void hold.reached.then(() => (held = true))
    let whileHeld = 0
    await run(out, checkpoints, { window: `'1' DAY`, signal: cancel.signal, faults: faultsOf(hold, holdsEnd(cancel.signal)), onCheckpoint: id => {
      if (id >= 2 && held && ++whileHeld >= 3) cancel.abort()
    } })
    expect(visibleRows(out)).toEqual([])
    const latest = completed(checkpoints).at(-1)!
    damage(checkpoints, latest)
    const log: string[] = []
    await run(out, checkpoints, { window: `'1' DAY`, log })
    expect(log.join('\n')).toMatch(
      new RegExp(`cannot restore checkpoint ${latest}: checkpoint file '.*/chk-${latest}/\\d+-window-aggregate-0/data.bin.gz' is damaged`),
    )
    expect(log.join('\n')).toMatch(new RegExp(`resuming from checkpoint ${latest - 1}\\b`))
    expect(visibleRows(out)).toEqual(expected)
  })

  it('past a checkpoint whose output was committed: refuses, saying what and what to do, and writes nothing twice; repaired, it resumes exactly', async () => {
    const expected = await straight()
    const out = mkdtempSync(join(root, 'out-'))
    const checkpoints = mkdtempSync(join(root, 'chk-'))
    // Cancel at a checkpoint (after the first) whose commit made new rows visible.
    const cancel = new AbortController()
    const later = committingLater(out, cancel)
    await run(out, checkpoints, { signal: cancel.signal, faults: later.faults, onCheckpoint: later.onCheckpoint })
    const committing = later.committing()
    const before = visibleRows(out)
    expect(committing).toBeGreaterThan(1)
    expect(new Set(before).size).toBe(before.length)
    // That checkpoint, and any completed after it (one in flight at the cancel), cannot be restored.
    const repairs = completed(checkpoints).filter(id => id >= committing).map(id => damage(checkpoints, id))
    const log: string[] = []
    const e = await run(out, checkpoints, { log }).then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    const error = e as WeirError
    const target = completed(checkpoints).filter(id => id < committing).at(-1)!
    expect(error.message).toMatch(
      new RegExp(`^job 'fb' cannot resume from checkpoint ${target}: table 'out' already holds rows in \\d+ files? in '${out}' \\('part-fb-.*` +
        `committed by checkpoints? [\\d, and]+ after checkpoint ${target}, and a run from there would write them a second time$`),
    )
    expect(error.notes.join('\n')).toContain(`checkpoint ${committing} cannot be restored: checkpoint file`)
    expect(error.help).toContain('restore the damaged or missing checkpoint files and run again')
    expect(error.help).toContain(`--from-checkpoint 'file://${checkpoints}/fb/chk-${target}'`)
    // Nothing was written: what is visible is what was.
    expect(visibleRows(out)).toEqual(before)

    for (const repair of repairs) repair()
    await run(out, checkpoints)
    expect(visibleRows(out)).toEqual(expected)
  })

  it('with its only checkpoint damaged, does not start over from scratch across committed output', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const checkpoints = mkdtempSync(join(root, 'chk-'))
    const cancel = new AbortController()
    await run(out, checkpoints, { options: { 'state.checkpoints.num-retained': '1' }, signal: cancel.signal, onCheckpoint: () => {
      if (visibleRows(out).length > 0) cancel.abort()
    } })
    const before = visibleRows(out)
    expect(before.length).toBeGreaterThan(0)
    for (const id of completed(checkpoints)) damage(checkpoints, id)
    const e = await run(out, checkpoints, { options: { 'state.checkpoints.num-retained': '1' } }).then(() => undefined, (x: unknown) => x)
    expect((e as Error).message).toMatch(
      /^job 'fb' cannot start from scratch: table 'out' already holds rows in \d+ files? .* committed by checkpoints? [\d, and]+, and a run from there would write them a second time$/,
    )
    expect((e as WeirError).help).toMatch(/run with --fresh$/)
    expect(visibleRows(out)).toEqual(before)
  })

  it('from an older checkpoint the user names, runs and warns that committed rows are written again', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const checkpoints = mkdtempSync(join(root, 'chk-'))
    // Cancelled at a checkpoint after the first that committed new rows: the oldest one kept is older.
    const cancel = new AbortController()
    const later = committingLater(out, cancel)
    await run(out, checkpoints, { signal: cancel.signal, faults: later.faults, onCheckpoint: later.onCheckpoint })
    expect(later.committing()).toBeGreaterThan(1)
    const log: string[] = []
    const older = completed(checkpoints)[0]!
    await run(out, mkdtempSync(join(root, 'chk-')), { from: join(checkpoints, 'fb', `chk-${older}`), log })
    expect(log.join('\n')).toMatch(
      new RegExp(
        `warning: starting from checkpoint ${older}, but table 'out' already holds rows in \\d+ files? .* committed after it \\(by checkpoints? [\\d, and]+\\); they will be written a second time`,
      ),
    )
  })
})

describe('savepoints in their own folder', () => {
  it("a job resumes from its savepoint in 'state.savepoints.dir', not from an older checkpoint", async () => {
    const expected = await straight()
    const out = mkdtempSync(join(root, 'out-'))
    const checkpoints = mkdtempSync(join(root, 'chk-'))
    const savepoints = mkdtempSync(join(root, 'sp-'))
    const stop = new AbortController()
    const options = { 'state.savepoints.dir': savepoints }
    const first = await run(out, checkpoints, { options, stopWithSavepoint: stop.signal, onCheckpoint: id => {
      if (id >= 2) stop.abort()
    } })
    expect(first.savepoint, JSON.stringify(first)).toMatch(new RegExp(`^file://${savepoints}/fb/savepoint-\\d+$`))
    const log: string[] = []
    await run(out, checkpoints, { options, log })
    expect(log.join('\n')).toContain(`resuming from savepoint ${first.savepoint!.split('-').at(-1)} (${first.savepoint})`)
    expect(visibleRows(out)).toEqual(expected)
  })
})
