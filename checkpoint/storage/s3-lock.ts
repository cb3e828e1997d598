// A lock in an S3 bucket: one lease object naming its holder, created with a conditional put
// (If-None-Match: *), so of two runs starting at the same moment exactly one creates it. The holder
// renews it every few seconds with If-Match on the version it wrote last; a run that finds it
// refuses while it is live, and replaces a stale one with If-Match on the stale version it read
// (two such runs: one wins). Live means, for a holder in this pid space, that its process runs (a
// kill -9 is seen at once); for a holder elsewhere, that it renewed the lease within its length
// (compared on the writers' clocks, which must agree to within a few seconds).
//
// What this does not give: a holder paused for longer than a lease (SIGSTOP, a frozen VM) may
// finish a checkpoint after another run took over, before its next renewal tells it to stop.
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { WeirError } from '../../common/errors.js'
import { claimIsLive, DEFAULT_LEASE, LockLoss, parseClaim, type HeldLock, type LeaseTiming, type LockAttempt, type LockClaim, type TakenOver } from './lock.js'

/** How s3.ts lets a lease reach its object. */
export interface S3LeaseAccess {
  readonly client: S3Client
  readonly bucket: string
  readonly key: string
  /** The object's URI, for messages. */
  readonly uri: string
  /** Turns an SDK failure into a checkpoint error about the object. */
  readonly error: (e: unknown, verb: 'read' | 'write' | 'delete') => WeirError
}

/** What the lease object holds: the claim, when it was last renewed and for how long. */
interface StoredLease extends LockClaim {
  readonly renewedAt: number
  readonly ttlMs: number
}

const ATTEMPTS = 5

/**
 * Takes the lease at `access.key` for `claim`, or says which live holder has it.
 *
 * @example
 * const attempt = await takeS3Lease({ client, bucket: 'b', key: 'checkpoints/clicks-1/_lock', uri: 's3://b/checkpoints/clicks-1/_lock', error }, claim)
 */
export async function takeS3Lease(access: S3LeaseAccess, claim: LockClaim, timing: LeaseTiming = DEFAULT_LEASE): Promise<LockAttempt> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const created = await conditionalPut(access, body(claim, timing), { IfNoneMatch: '*' })
    if (created !== undefined) {
      const notes = await honoursConditions(access, claim, timing) ? [] : [
        `the S3 server at '${access.uri}' ignores conditional writes (If-None-Match), so the job's lease cannot keep two runs of it apart; use a server that supports them (AWS S3, MinIO, …)`,
      ]
      return { kind: 'held', lock: new S3Lease(access, claim, timing, created, [], notes) }
    }
    const current = await readLease(access)
    if (current === undefined) continue
    const judged = current.lease === undefined
      ? { live: false, why: 'it cannot be read as a lease' }
      : claimIsLive(current.lease, current.lease.renewedAt, { ...timing, ttlMs: current.lease.ttlMs })
    if (judged.live) {
      return { kind: 'refused', holder: current.lease!, where: access.uri, detail: judged.why.startsWith('its process is running') ? undefined : judged.why }
    }
    const replaced = await conditionalPut(access, body(claim, timing), { IfMatch: current.etag })
    if (replaced !== undefined) {
      return { kind: 'held', lock: new S3Lease(access, claim, timing, replaced, [{ holder: current.lease, where: access.uri, why: judged.why }], []) }
    }
  }
  throw WeirError.checkpoint(`cannot take the lease '${access.uri}': it changed hands ${ATTEMPTS} times while this run tried to take it`, {
    help: 'several runs of this job are starting at once; start one',
  })
}

function body(claim: LockClaim, timing: LeaseTiming): string {
  const lease: StoredLease = { ...claim, renewedAt: Date.now(), ttlMs: timing.ttlMs }
  return JSON.stringify(lease, null, 1) + '\n'
}

/** Puts with a precondition; the new ETag, or undefined when the precondition failed. */
async function conditionalPut(access: S3LeaseAccess, text: string, condition: { IfNoneMatch?: string; IfMatch?: string }): Promise<string | undefined> {
  try {
    const response = await access.client.send(new PutObjectCommand({
      Bucket: access.bucket,
      Key: access.key,
      Body: text,
      ContentType: 'application/json',
      ...condition,
    }))
    return response.ETag ?? ''
  } catch (e) {
    if (preconditionFailed(e)) return undefined
    throw access.error(e, 'write')
  }
}

/** A second create of the object we just created must fail; on a server that ignores If-None-Match it does not. */
async function honoursConditions(access: S3LeaseAccess, claim: LockClaim, timing: LeaseTiming): Promise<boolean> {
  return (await conditionalPut(access, body(claim, timing), { IfNoneMatch: '*' })) === undefined
}

async function readLease(access: S3LeaseAccess): Promise<{ lease: StoredLease | undefined; etag: string } | undefined> {
  try {
    const response = await access.client.send(new GetObjectCommand({ Bucket: access.bucket, Key: access.key }))
    const text = response.Body === undefined ? '' : await response.Body.transformToString('utf8')
    const claim = parseClaim(text) as StoredLease | undefined
    const valid = claim !== undefined && typeof claim.renewedAt === 'number' && typeof claim.ttlMs === 'number'
    return { lease: valid ? claim : undefined, etag: response.ETag ?? '' }
  } catch (e) {
    if (errorName(e) === 'NoSuchKey' || status(e) === 404) return undefined
    throw access.error(e, 'read')
  }
}

/** 412 Precondition Failed; 409 ConditionalRequestConflict (a concurrent conditional write: retry). */
function preconditionFailed(e: unknown): boolean {
  const code = status(e)
  return code === 412 || code === 409 || errorName(e) === 'PreconditionFailed' || errorName(e) === 'ConditionalRequestConflict'
}

function status(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
}

function errorName(e: unknown): string | undefined {
  return e instanceof Error ? e.name : undefined
}

class S3Lease implements HeldLock {
  private readonly loss = new LockLoss()
  private readonly timer: NodeJS.Timeout
  private renewing: Promise<void> | undefined
  private released = false
  private lastRenewed = Date.now()

  constructor(
    private readonly access: S3LeaseAccess,
    private readonly claim: LockClaim,
    private readonly timing: LeaseTiming,
    private etag: string,
    readonly tookOver: readonly TakenOver[],
    readonly notes: readonly string[],
  ) {
    this.timer = setInterval(() => {
      this.renewing ??= this.renew().finally(() => {
        this.renewing = undefined
      })
    }, timing.renewMs)
    this.timer.unref()
  }

  get where(): string {
    return this.access.uri
  }
  get lost(): AbortSignal {
    return this.loss.signal
  }
  lostReason(): WeirError | undefined {
    return this.loss.error
  }

  private async renew(): Promise<void> {
    if (this.released || this.loss.error !== undefined) return
    try {
      const etag = await conditionalPut(this.access, body(this.claim, this.timing), { IfMatch: this.etag })
      if (etag !== undefined) {
        this.etag = etag
        this.lastRenewed = Date.now()
        return
      }
      const now = await readLease(this.access).catch(() => undefined)
      const holder = now?.lease === undefined ? 'it was deleted' : `pid ${now.lease.pid} on host '${now.lease.host}' holds it now`
      if (!this.released) this.loss.lose(`the lease '${this.access.uri}' was taken over: ${holder}`)
    } catch (e) {
      // A failed renewal is retried at the next tick, until the lease would have run out.
      if (!this.released && Date.now() - this.lastRenewed >= this.timing.ttlMs - this.timing.renewMs) {
        this.loss.lose(
          `the lease '${this.access.uri}' could not be renewed for ${Math.round((Date.now() - this.lastRenewed) / 1000)} s: ${(e as Error).message}`,
        )
      }
    }
  }

  async release(): Promise<void> {
    if (this.released) return
    this.released = true
    clearInterval(this.timer)
    await this.renewing
    if (this.loss.error !== undefined) return
    try {
      // Only the version this run wrote: a lease another run took over stays.
      await this.access.client.send(new DeleteObjectCommand({ Bucket: this.access.bucket, Key: this.access.key, IfMatch: this.etag }))
    } catch (e) {
      if (preconditionFailed(e) || errorName(e) === 'NoSuchKey' || status(e) === 404) return
      // A server without conditional deletes: delete it if it is still ours.
      const current = await readLease(this.access)
      if (current?.lease?.ownerId !== this.claim.ownerId) return
      await this.access.client.send(new DeleteObjectCommand({ Bucket: this.access.bucket, Key: this.access.key }))
        .catch(e2 => {
          throw this.access.error(e2, 'delete')
        })
    }
  }
}
