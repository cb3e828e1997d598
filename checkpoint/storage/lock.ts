// What a lock in checkpoint storage is, whatever holds it: a claim naming the process that holds it,
// and the answer to taking one — held (with the stale claims it replaced), or refused (naming the
// live holder). file-lock.ts keeps claims as files in a folder; s3-lock.ts as a lease object.
import { WeirError } from '../../common/errors.js'
import { processState, type ProcessIdentity } from '../../common/process-identity.js'

/**
 * Who holds a lock, as stored in it.
 *
 * @example
 * { ownerId: '1b9d…', pid: 4242, startTime: '102761', host: 'vm', pidSpace: '…', for: "job 'clicks-1'",
 *   since: '2026-12-01T10:00:00.000Z', command: 'weir run clicks.sql', cwd: '/home/me' }
 */
export interface LockClaim extends ProcessIdentity {
  /** Unique per taking: tells two holders in one process apart (two sessions running one job). */
  readonly ownerId: string
  /** What the lock protects, for messages ("job 'clicks-1'"). */
  readonly for: string
  /** When it was taken (ISO 8601). */
  readonly since: string
  /** The command line that took it and where it ran, for messages. */
  readonly command: string
  readonly cwd: string
}

/** A stale claim that taking the lock replaced, and why it was stale. */
export interface TakenOver {
  readonly holder: LockClaim | undefined
  /** Where it was (a file or object URI). */
  readonly where: string
  /** e.g. 'its process is no longer running', 'its lease expired 41 s ago'. */
  readonly why: string
}

export interface HeldLock {
  /** The lock file or object (a path or URI), for messages. */
  readonly where: string
  readonly tookOver: readonly TakenOver[]
  /** Warnings for the user about how far the lock can be trusted. */
  readonly notes: readonly string[]
  /** Aborted when the lock is lost (its lease could not be renewed, or someone deleted it). */
  readonly lost: AbortSignal
  /** Why it was lost, once `lost` is aborted. */
  lostReason(): WeirError | undefined
  /** Gives the lock up; safe to call twice. */
  release(): Promise<void>
}

export type LockAttempt =
  | { readonly kind: 'held'; readonly lock: HeldLock }
  /** A live holder has it. `detail` says how liveness was judged when it could not be checked here. */
  | { readonly kind: 'refused'; readonly holder: LockClaim; readonly where: string; readonly detail?: string }

/** How a held lock tells that it was lost: a signal that aborts once, with the reason. */
export class LockLoss {
  private readonly controller = new AbortController()
  private reason: WeirError | undefined

  get signal(): AbortSignal {
    return this.controller.signal
  }
  get error(): WeirError | undefined {
    return this.reason
  }

  /** Marks the lock lost (once): the job holding it stops, then fails with `message`. */
  lose(message: string, help = 'another run may take the job over now; this run stops, so that two runs never write the same checkpoints and output'): void {
    if (this.reason !== undefined) return
    this.reason = WeirError.checkpoint(message, { help })
    this.controller.abort(this.reason)
  }
}

/** A lease's timing: a holder renews every `renewMs`; a claim not renewed for `ttlMs` is stale. */
export interface LeaseTiming {
  readonly ttlMs: number
  readonly renewMs: number
}

export const DEFAULT_LEASE: LeaseTiming = { ttlMs: 30_000, renewMs: 10_000 }

/**
 * Whether a claim's holder is alive: in this pid space by its pid and start time (a kill -9 is seen
 * at once); elsewhere (another host or container) by whether it was renewed within the lease.
 */
export function claimIsLive(claim: LockClaim, renewedAt: number, timing: LeaseTiming, now = Date.now()): { live: boolean; why: string } {
  switch (processState(claim)) {
    case 'running':
      return { live: true, why: 'its process is running' }
    case 'gone':
      return { live: false, why: 'its process is no longer running' }
    case 'elsewhere': {
      const age = now - renewedAt
      return age > timing.ttlMs
        ? { live: false, why: `it is from another host or container and was last renewed ${seconds(age)} ago (a lease lasts ${seconds(timing.ttlMs)})` }
        : { live: true,
          why: `it is from another host or container (its process cannot be checked from here) and was renewed ${seconds(Math.max(0, age))} ago; it expires ${
            seconds(timing.ttlMs - Math.max(0, age))
          } after its last renewal` }
    }
  }
}

/** Parses a stored claim; undefined when it is not one. */
export function parseClaim(text: string): LockClaim | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (value === null || typeof value !== 'object') return undefined
  const c = value as Record<string, unknown>
  const strings = ['ownerId', 'host', 'for', 'since', 'command', 'cwd'] as const
  if (typeof c['pid'] !== 'number' || strings.some(k => typeof c[k] !== 'string')) return undefined
  return value as LockClaim
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`
}
