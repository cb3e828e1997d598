// A job's lock: while a job runs from its checkpoint folder (and its savepoint folder, if that is
// another), no other run — another process, or another session in this one — may run it from
// there, or both would resume from the same checkpoints and commit the same output twice.
import { randomUUID } from 'node:crypto'
import { basename } from 'node:path'
import { WeirError } from '../common/errors.js'
import { thisProcess } from '../common/process-identity.js'
import type { CheckpointStorage } from './storage/api.js'
import type { HeldLock, LockClaim, TakenOver } from './storage/lock.js'

/** Where a job's lock lives in its checkpoint folder. */
export const JOB_LOCK_PATH = '_lock'

/** A new claim by this process on `what` ("job 'clicks-1'"). */
export function newClaim(what: string): LockClaim {
  const script = process.argv[1] === undefined ? 'node' : basename(process.argv[1]).replace(/\.js$/, '')
  return {
    ...thisProcess(),
    ownerId: randomUUID(),
    for: what,
    since: new Date().toISOString(),
    command: [script, ...process.argv.slice(2)].join(' '),
    cwd: process.cwd(),
  }
}

/**
 * Runs `run` while holding the lock of job `job` in each of `storages` (duplicates by URI count
 * once). A second run is refused with an error naming the first; a stale lock (its process died) is
 * taken over, and `log` says so. The lock goes when `run` settles, however it ends. If the lock is
 * lost meanwhile (a lease that could not be renewed), the signal given to `run` aborts and the
 * result is that error.
 *
 * @example
 * await withJobLock([storage], 'clicks-1', log, userSignal, signal => executeJob(graph, { …, signal }))
 */
export async function withJobLock<T>(
  storages: readonly CheckpointStorage[],
  job: string,
  log: (line: string) => void,
  signal: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const held: HeldLock[] = []
  try {
    const seen = new Set<string>()
    const claim = newClaim(`job '${job}'`)
    for (const storage of storages) {
      if (seen.has(storage.uri)) continue
      seen.add(storage.uri)
      const attempt = await storage.lock(JOB_LOCK_PATH, claim)
      if (attempt.kind === 'refused') throw refusedError(job, attempt.holder, attempt.where, attempt.detail)
      held.push(attempt.lock)
      for (const t of attempt.lock.tookOver) log(tookOverMessage(t))
      for (const note of attempt.lock.notes) log(`warning: ${note}`)
    }
    const lost = held.map(l => l.lost)
    const combined = AbortSignal.any(signal === undefined ? lost : [signal, ...lost])
    const lostReason = (): WeirError | undefined => held.map(l => l.lostReason()).find(r => r !== undefined)
    let result: T
    try {
      result = await run(combined)
    } catch (e) {
      throw lostReason() ?? e
    }
    const reason = lostReason()
    if (reason !== undefined) throw reason
    return result
  } finally {
    for (const lock of held.reverse()) await lock.release().catch(() => undefined)
  }
}

/** How a holder is named in messages: pid, host, what it runs, since when. */
export function describeHolder(holder: LockClaim): string {
  return `pid ${holder.pid} on host '${holder.host}' ('${holder.command}' in ${holder.cwd}, since ${formatSince(holder.since)})`
}

function refusedError(job: string, holder: LockClaim, where: string, detail: string | undefined): WeirError {
  const notes = detail === undefined ? [] : [
    `${detail}; if that run is gone for good, delete '${where}'`,
  ]
  return WeirError.execution(`job '${job}' is already running: ${describeHolder(holder)} holds its lock '${where}'`, {
    notes,
    help: `two runs of one job would resume from the same checkpoints and commit the same output twice; wait for that run to end or stop it ` +
      `(Ctrl-C where it runs, or 'weir savepoint FILE.sql' in its directory); to run another copy at the same time, give it its own 'pipeline.name' or 'state.checkpoints.dir'`,
  })
}

function tookOverMessage(t: TakenOver): string {
  const whose = t.holder === undefined ? 'an unreadable lock' : `the lock of ${describeHolder(t.holder)}`
  return `took over ${whose} at '${t.where}': ${t.why}`
}

function formatSince(iso: string): string {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')
}
