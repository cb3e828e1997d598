// `weir run FILE.sql` holds the run lock of FILE in the directory it runs in: `.weir/run/<name>/`, a
// folder of claim files (pid, its start time, host; checkpoint/storage/file-lock.ts). A second run
// of the file there is refused; `weir savepoint FILE.sql` finds the run through it and checks that
// the pid is still that run, so a pid left behind by a kill -9 (which may belong to any process
// by now) is never signalled. Stopped by SIGTERM, the run leaves its outcome there — which job
// wrote which savepoint — for `weir savepoint` to report.
import { readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { WeirError, type JobMetrics } from '../../index.js'
import { describeHolder, newClaim } from '../../checkpoint/job-lock.js'
import { lockFsError, takeFileLock } from '../../checkpoint/storage/file-lock.js'
import type { HeldLock, LockClaim } from '../../checkpoint/storage/lock.js'
import { RUN_DIR } from './paths.js'

/** How one job of the run ended, as `weir savepoint` reports it. */
export interface JobOutcome {
  readonly job: string
  readonly status: 'savepoint' | 'stopped' | 'finished' | 'failed'
  /** Where its savepoint is (status 'savepoint'). */
  readonly savepoint?: string
  /** Why it failed (status 'failed'). */
  readonly error?: string
}

/** What a run stopped by SIGTERM leaves for `weir savepoint`. */
export interface RunOutcome {
  readonly ownerId: string
  readonly pid: number
  readonly jobs: readonly JobOutcome[]
}

export const RUN_LOCK_HELP = `'weir run' keeps a file naming its process under .weir/run in the directory it runs in; run it from a directory it can write to`

/** Outcome files of runs long gone are removed by the next run; younger ones may still be read. */
const OUTCOME_KEPT_MS = 10 * 60_000

/** The run lock folder of the files named `<prefix>.sql` in this directory. */
export function runLockDir(prefix: string): string {
  return join(RUN_DIR, prefix)
}

export function outcomeFile(dir: string, ownerId: string): string {
  return join(dir, `outcome-${ownerId}.json`)
}

/**
 * Takes the run lock of `file` (named `<prefix>.sql`) in this directory; throws a WeirError naming
 * the run that holds it.
 */
export async function takeRunLock(prefix: string, file: string): Promise<RunLock> {
  const dir = runLockDir(prefix)
  const claim = newClaim(`'${file}' in this directory`)
  const attempt = await takeFileLock(dir, claim, { help: RUN_LOCK_HELP })
  if (attempt.kind === 'refused') {
    throw WeirError.execution(`'${file}' is already running in this directory: ${describeHolder(attempt.holder)} holds '${attempt.where}'`, {
      notes: attempt.detail === undefined ? [] : [`${attempt.detail}; if that run is gone for good, delete '${attempt.where}'`],
      help: `wait for it to end, or stop it (Ctrl-C where it runs, or 'weir savepoint ${file}' here); its jobs would otherwise run twice`,
    })
  }
  await removeOldOutcomes(dir)
  return new RunLock(attempt.lock, claim, dir)
}

/** A started job as `weir run` sees it. */
export interface StartedJob {
  readonly name: string
  readonly done: Promise<JobMetrics>
}

export class RunLock {
  constructor(private readonly held: HeldLock, private readonly claim: LockClaim, private readonly dir: string) {}

  /**
   * Releases the lock; first, when the run was asked for a savepoint (`jobs` given), writes how
   * each job ended for `weir savepoint`, waiting for the jobs still stopping.
   */
  async release(jobs?: readonly StartedJob[]): Promise<void> {
    try {
      if (jobs !== undefined) await this.writeOutcome(jobs)
    } finally {
      await this.held.release()
    }
  }

  private async writeOutcome(jobs: readonly StartedJob[]): Promise<void> {
    const settled = await Promise.allSettled(jobs.map(j => j.done))
    const outcome: RunOutcome = {
      ownerId: this.claim.ownerId,
      pid: this.claim.pid,
      jobs: settled.map((r, i) => outcomeOf(jobs[i]!.name, r)),
    }
    const file = outcomeFile(this.dir, this.claim.ownerId)
    const tmp = `${file}.weir-tmp`
    try {
      await writeFile(tmp, JSON.stringify(outcome, null, 1) + '\n')
      await rename(tmp, file)
    } catch (e) {
      await rm(tmp, { force: true })
      throw lockFsError(e, 'write the outcome file', file, RUN_LOCK_HELP)
    }
  }
}

function outcomeOf(job: string, result: PromiseSettledResult<JobMetrics>): JobOutcome {
  if (result.status === 'rejected') return { job, status: 'failed', error: (result.reason as Error)?.message ?? String(result.reason) }
  const m = result.value
  if (m.savepoint !== undefined) return { job, status: 'savepoint', savepoint: m.savepoint }
  return { job, status: m.cancelled ? 'stopped' : 'finished' }
}

/** The outcome a run left, or undefined (it was killed, or it was not asked for a savepoint). */
export async function readOutcome(dir: string, ownerId: string): Promise<RunOutcome | undefined> {
  const file = outcomeFile(dir, ownerId)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw lockFsError(e, 'read the outcome file', file, RUN_LOCK_HELP)
  }
  await rm(file, { force: true })
  try {
    const outcome = JSON.parse(text) as RunOutcome
    return Array.isArray(outcome.jobs) ? outcome : undefined
  } catch {
    return undefined
  }
}

async function removeOldOutcomes(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[])
  for (const name of names.filter(n => /^outcome-.*\.json$/.test(n))) {
    const file = join(dir, name)
    const old = await stat(file).then(s => Date.now() - s.mtimeMs > OUTCOME_KEPT_MS, () => false)
    if (old) await rm(file, { force: true })
  }
}
