// SHOW JOBS and STOP JOB (Flink's SQL client statements): they act on the jobs running when they
// run, so they are steps of a script (script.ts), not results planned ahead like SHOW TABLES.
import { WeirError } from '../common/errors.js'
import type { StopJob } from '../grammar/ast.js'
import type { JobInfo, JobSet } from './jobs.js'

/** SHOW JOBS: the INSERT jobs of the session, oldest first, with their numbers now. */
export function showJobs(jobs: JobSet, now = Date.now()): { readonly kind: 'table'; readonly columns: readonly string[]; readonly rows: string[][] } {
  // The last checkpoint and its age share a column, so the table fits a terminal of 100 columns.
  const columns = ['job id', 'job name', 'status', 'uptime', 'rows in', 'rows out', 'last checkpoint']
  const rows = jobs.list('insert').map(j => {
    const s = j.sample
    const cp = s?.lastCheckpoint
    return [
      j.id,
      j.name,
      j.status,
      elapsed((j.endedAt ?? now) - j.startedAt),
      s === undefined ? '-' : s.rowsIn.toLocaleString('en-US'),
      s === undefined ? '-' : s.rowsOut.toLocaleString('en-US'),
      cp === undefined ? '-' : `${cp.id} (${elapsed(now - cp.at)} ago)`,
    ]
  })
  return { kind: 'table', columns, rows }
}

/**
 * STOP JOB: cancels the job, or stops it with a savepoint, and waits until it has ended; what it
 * did. An id the session does not have, or a job that has ended, is an error at the id.
 */
export async function stopJob(stmt: StopJob, jobs: JobSet): Promise<{ readonly kind: 'ok'; readonly message: string }> {
  const all = jobs.list('insert')
  const job = all.find(j => j.id === stmt.id)
  if (job === undefined) {
    const named = all.filter(j => j.name === stmt.id)
    throw WeirError.plan(`no job with id '${stmt.id}' in this session`, {
      span: stmt.idSpan,
      help: named.length > 0
        ? `'${stmt.id}' is a job's name; STOP JOB takes its id (${named.map(j => `'${j.id}'`).join(', ')}): SHOW JOBS lists both`
        : 'SHOW JOBS lists the jobs of this session and their ids',
    })
  }
  if (job.status !== 'RUNNING') {
    throw WeirError.plan(`job '${job.name}' (${job.id}) is not running: it is ${job.status}`, {
      span: stmt.idSpan,
      help: 'SHOW JOBS lists the jobs of this session and their status',
    })
  }
  if (stmt.withSavepoint && job.graph.config.checkpointing.dir === undefined) {
    throw WeirError.plan(`job '${job.name}' has no 'state.checkpoints.dir' to take a savepoint in`, {
      span: stmt.span,
      help: `stop it without one (STOP JOB '${job.id}'); SET 'state.checkpoints.dir' before starting a job to take savepoints of it`,
    })
  }
  const outcome = await jobs.stopById(job.id, stmt.withSavepoint)!
  const what = `job '${job.name}' (${job.id})`
  // A failure was told (SessionOptions.onJobFailed) when it happened.
  if (outcome.metrics === undefined) return { kind: 'ok', message: `${what} failed before it stopped` }
  const m = outcome.metrics
  if (m.savepoint !== undefined) return { kind: 'ok', message: `${what} stopped with a savepoint: ${m.savepoint}` }
  if (!m.cancelled) return { kind: 'ok', message: `${what} had finished before it could stop` }
  return { kind: 'ok', message: `${what} stopped` }
}

/** How long something has run: '42 s', '3 min 5 s', '2 h 10 min'. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

export type { JobInfo }
