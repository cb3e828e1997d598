// `weir savepoint FILE.sql`: asks the `weir run FILE.sql` running in this directory to take a
// savepoint and stop, waits until it has, and reports each job's savepoint once its metadata is
// there. The run is found through its run lock (run-lock.ts) and signalled only if its pid is still
// that process (same start time): a pid left behind by a kill -9 may belong to any process now.
import { readFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { jobConfigOf, parseSql, readCheckpointInfo, renderError, resetOption, setOption, WeirError, type S3Config } from '../../index.js'
import { processState } from '../../common/process-identity.js'
import { describeHolder } from '../../checkpoint/job-lock.js'
import { readFileClaims, type StoredClaim } from '../../checkpoint/storage/file-lock.js'
import type { LockClaim } from '../../checkpoint/storage/lock.js'
import type { CliArgs } from '../main.js'
import { readOutcome, RUN_LOCK_HELP, runLockDir, type JobOutcome } from './run-lock.js'

/** Sends SIGTERM to the `weir run` of these jobs, waits until it has stopped, and reports its savepoints. */
export async function savepoint(args: CliArgs): Promise<number> {
  try {
    return await takeSavepoint(args)
  } catch (e) {
    process.stderr.write(renderError(e) + '\n')
    return 1
  }
}

async function takeSavepoint(args: CliArgs): Promise<number> {
  const { jobNamePrefix, file } = args
  const dir = runLockDir(jobNamePrefix)
  const claims = await readFileClaims(dir, RUN_LOCK_HELP)
  const running = claims.find(c => c.held && c.claim !== undefined && processState(c.claim) === 'running')
  if (running === undefined) throw await notRunning(file, jobNamePrefix, claims)
  const run = running.claim!
  try {
    process.kill(run.pid, 'SIGTERM')
  } catch {
    throw WeirError.execution(`the run of '${file}' (pid ${run.pid}) stopped before it could be asked for a savepoint`)
  }
  process.stderr.write(`asked pid ${run.pid} for a savepoint; waiting for it to stop…\n`)
  while (processState(run) === 'running') await new Promise(r => setTimeout(r, 100))

  const outcome = await readOutcome(dir, run.ownerId)
  if (outcome === undefined) {
    throw WeirError.execution(`pid ${run.pid} stopped without reporting a savepoint`, {
      help: `it was killed, or failed before its jobs ended; see its output. 'weir run ${file}' resumes from the jobs' latest checkpoints`,
    })
  }
  if (outcome.jobs.length === 0) throw WeirError.execution(`pid ${run.pid} stopped; it had started no job, so there is no savepoint`)
  const s3 = await s3OptionsOf(file)
  let ok = true
  for (const job of outcome.jobs) ok = await report(job, s3) && ok
  if (!ok) return 1
  process.stderr.write(`stopped; 'weir run ${file}' resumes from the savepoint\n`)
  return 0
}

/** Why there is nothing to signal: no claim, or only claims whose process is gone (removed) or elsewhere. */
async function notRunning(file: string, prefix: string, claims: readonly StoredClaim[]): Promise<WeirError> {
  const elsewhere = claims.find(c => c.claim !== undefined && processState(c.claim) === 'elsewhere')
  if (elsewhere !== undefined) {
    return WeirError.execution(`the run of '${file}' in this directory is on another host or container: ${describeHolder(elsewhere.claim!)}`, {
      help: `run 'weir savepoint ${file}' where it runs`,
    })
  }
  const stale = claims.find(c => c.claim !== undefined)
  for (const c of claims) await rm(c.file, { force: true })
  if (stale === undefined) {
    return WeirError.execution(`no running job of '${prefix}.sql' in this directory`, {
      help: `start it with 'weir run ${prefix}.sql' from this directory first`,
    })
  }
  const claim: LockClaim = stale.claim!
  const pidNow = pidExists(claim.pid) ? `pid ${claim.pid} belongs to another process now, which was left alone` : `no process has pid ${claim.pid} now`
  return WeirError.execution(
    `the run of '${file}' that '${stale.file}' names is not running any more: ${describeHolder(claim)} ended without removing it (kill -9?); ${pidNow}`,
    {
      help: `there is no running job to take a savepoint of; 'weir run ${file}' resumes from the jobs' latest checkpoints`,
    },
  )
}

/** Prints one job's outcome; false when it has no savepoint to resume from. */
async function report(job: JobOutcome, s3: S3Config): Promise<boolean> {
  switch (job.status) {
    case 'savepoint': {
      try {
        const info = await readCheckpointInfo(job.savepoint!, s3)
        if (info.kind !== 'savepoint') throw WeirError.checkpoint(`'${job.savepoint}' holds a ${info.kind}, not a savepoint`)
      } catch (e) {
        process.stderr.write(
          renderError(WeirError.checkpoint(`job '${job.job}' reported savepoint '${job.savepoint}', but its metadata cannot be read: ${(e as Error).message}`, {
            help: 'the savepoint was not completed or was removed; the job resumes from its latest checkpoint',
          })) + '\n',
        )
        return false
      }
      process.stderr.write(`savepoint of job '${job.job}': ${job.savepoint}\n`)
      return true
    }
    case 'finished':
      process.stderr.write(`job '${job.job}' had finished; there is nothing to resume\n`)
      return true
    case 'stopped':
      process.stderr.write(renderError(WeirError.execution(`job '${job.job}' stopped without a savepoint`, {
        help: `a job without 'state.checkpoints.dir' has nowhere to write one; set it to take savepoints`,
      })) + '\n')
      return false
    case 'failed':
      process.stderr.write(renderError(WeirError.execution(`job '${job.job}' failed before its savepoint: ${job.error ?? 'unknown error'}`)) + '\n')
      return false
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The s3.* options the file SETs, to read a savepoint in a bucket: as the run read them, but a SET
 * it would refuse (the file changed since) is passed over. The defaults when the file cannot be
 * read or parsed any more.
 */
async function s3OptionsOf(file: string): Promise<S3Config> {
  const settings: Record<string, string> = {}
  try {
    for (const stmt of parseSql(readFileSync(file, 'utf8'))) {
      try {
        if (stmt.kind === 'SetOption' && stmt.key !== undefined) {
          const setting = setOption(stmt.key, stmt.value ?? '')
          if (setting.key !== undefined) settings[setting.key] = setting.value ?? ''
        } else if (stmt.kind === 'ResetOption') {
          const key = stmt.key === undefined ? undefined : resetOption(stmt.key)
          if (stmt.key === undefined) { for (const k of Object.keys(settings)) delete settings[k] }
          else if (key !== undefined) delete settings[key]
        }
      } catch {
        // The run refused this statement before it ran anything; it set nothing.
      }
    }
  } catch {
    // The savepoint is still checked; only one in a bucket needs the file's s3.* options.
  }
  return jobConfigOf(settings).s3
}
