// Locks in checkpoint storage, in one process: many takers at the same moment (one wins), claims of
// dead or reused pids and of other hosts, a lease taken away from its holder, two sessions running
// one job, and file-system errors that name the lock's path.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PutObjectCommand } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { thisProcess } from '../../common/process-identity.js'
import { newClaim } from '../../checkpoint/job-lock.js'
import { claimFile, takeFileLock } from '../../checkpoint/storage/file-lock.js'
import { openCheckpointStorage } from '../../checkpoint/storage/index.js'
import type { LockAttempt, LockClaim } from '../../checkpoint/storage/lock.js'
import { takeS3Lease } from '../../checkpoint/storage/s3-lock.js'
import { Session } from '../../engine/session.js'
import { startS3Bucket, type S3Bucket } from '../support/s3-server.js'
import { jobConfigOf } from '../../common/config/index.js'

let root: string
let s3: S3Bucket
const BUCKET = 'weir-lock-unit'
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'weir-lock-'))
  s3 = await startS3Bucket(BUCKET)
}, 300_000)
afterAll(async () => {
  await s3?.stop()
  rmSync(root, { recursive: true, force: true })
})

let counter = 0
const HELP = 'the folder must be writable'
const fresh = (): string => join(root, `l${++counter}`)

function s3Storage(): ReturnType<typeof openCheckpointStorage> {
  return openCheckpointStorage(`s3://${BUCKET}/t${++counter}`, jobConfigOf(s3.options).s3)
}

async function releaseAll(attempts: readonly LockAttempt[]): Promise<void> {
  for (const a of attempts) if (a.kind === 'held') await a.lock.release()
}

describe.each([
  { name: 'a folder of claim files', taker: () => {
    const dir = fresh()
    return (claim: LockClaim) => takeFileLock(dir, claim, { help: HELP })
  } },
  { name: 'an S3 lease', taker: () => {
    const storage = s3Storage()
    return (claim: LockClaim) => storage.lock('_lock', claim)
  } },
])('$name', ({ taker }) => {
  it('of eight takers at the same moment, exactly one holds it; after its release the next one gets it', async () => {
    const take = taker()
    const attempts = await Promise.all(Array.from({ length: 8 }, (_, i) => take(newClaim(`taker ${i}`))))
    const held = attempts.flatMap(a => (a.kind === 'held' ? [a.lock] : []))
    expect(held).toHaveLength(1)
    for (const a of attempts) if (a.kind === 'refused') expect(a.where).toBe(held[0]!.where)
    expect((await take(newClaim('late'))).kind).toBe('refused')
    await releaseAll(attempts)
    const after = await take(newClaim('after'))
    expect(after.kind).toBe('held')
    await releaseAll([after])
  })
})

describe('a contender that steps back', () => {
  it('is never named as the holder: a taker waits it out and takes the lock', async () => {
    const dir = fresh()
    // A live rival that wrote its claim and is checking for others: it withdraws a moment later.
    const rival = newClaim('a contender')
    mkdirSync(dir, { recursive: true })
    writeFileSync(claimFile(dir, rival.ownerId), JSON.stringify({ ...rival, held: false }))
    setTimeout(() => rmSync(claimFile(dir, rival.ownerId), { force: true }), 60)
    const taken = await takeFileLock(dir, newClaim('here'), { help: HELP })
    expect(taken).toMatchObject({ kind: 'held', lock: { tookOver: [] } })
    // Won claims refuse at once, naming their holder.
    const late = await takeFileLock(dir, newClaim('late'), { help: HELP })
    expect(late).toMatchObject({ kind: 'refused', holder: { for: 'here' } })
    await releaseAll([taken])
  })
})

describe('stale claims', () => {
  /** A claim by this host whose pid and start time are given. */
  function claimOf(pid: number, startTime: string | undefined): LockClaim {
    return { ...newClaim('an old run'), pid, startTime }
  }

  async function exitedPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    await new Promise(r => child.on('exit', r))
    return child.pid!
  }

  it('a claim whose process died, or whose pid now belongs to another process, is taken over', async () => {
    for (const stale of [claimOf(await exitedPid(), undefined), claimOf(process.pid, '1')]) {
      const dir = fresh()
      const old = await takeFileLock(dir, stale, { help: HELP })
      expect(old.kind).toBe('held')
      // The old holder "was killed": its claim stays behind.
      const next = await takeFileLock(dir, newClaim('next'), { help: HELP })
      expect(next.kind).toBe('held')
      if (next.kind !== 'held') continue
      expect(next.lock.tookOver).toEqual([{ holder: stale, where: claimFile(dir, stale.ownerId), why: 'its process is no longer running' }])
      await next.lock.release()
    }
  })

  it("a live claim of this process's pid and start time holds (another session of this process)", async () => {
    const dir = fresh()
    const first = await takeFileLock(dir, newClaim('first'), { help: HELP })
    const second = await takeFileLock(dir, newClaim('second'), { help: HELP })
    expect(second).toMatchObject({ kind: 'refused', holder: { pid: process.pid, startTime: thisProcess().startTime, for: 'first' } })
    await releaseAll([first])
  })

  it("another host's claim holds while its holder touches it, and is stale once it has not for a lease's length", async () => {
    const dir = fresh()
    const foreign: LockClaim = { ...newClaim('elsewhere'), host: 'other-host', pidSpace: 'other-boot/pid:[1]', pid: 77 }
    const file = claimFile(dir, foreign.ownerId)
    const held = await takeFileLock(dir, foreign, { help: HELP })
    expect(held.kind).toBe('held')
    const refused = await takeFileLock(dir, newClaim('here'), { help: HELP })
    expect(refused).toMatchObject({ kind: 'refused', holder: { host: 'other-host', pid: 77 }, where: file })
    expect(refused.kind === 'refused' && refused.detail).toMatch(
      /^it is from another host or container \(its process cannot be checked from here\) and was renewed \d+ s ago/,
    )
    const minuteAgo = new Date(Date.now() - 60_000)
    utimesSync(file, minuteAgo, minuteAgo)
    const taken = await takeFileLock(dir, newClaim('here'), { help: HELP })
    expect(taken.kind === 'held' && taken.lock.tookOver[0]!.why).toMatch(/^it is from another host or container and was last renewed 60 s ago/)
    await releaseAll([taken])
  })
})

describe('an S3 lease lost by its holder', () => {
  it('aborts the holder when another run overwrote the lease, naming who holds it now', async () => {
    const key = `lost-${++counter}/_lock`
    const access = {
      client: s3.client,
      bucket: BUCKET,
      key,
      uri: `s3://${BUCKET}/${key}`,
      error: (e: unknown) => (e instanceof WeirError ? e : WeirError.checkpoint(String(e))),
    }
    const attempt = await takeS3Lease(access, newClaim('holder'), { ttlMs: 60_000, renewMs: 50 })
    expect(attempt.kind).toBe('held')
    if (attempt.kind !== 'held') return
    const lost = new Promise(r => attempt.lock.lost.addEventListener('abort', r))
    await s3.client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: key,
        Body: JSON.stringify({ ...newClaim('thief'), pid: 99, host: 'thief-host', renewedAt: Date.now(), ttlMs: 60_000 }) }),
    )
    await lost
    expect(attempt.lock.lostReason()?.message).toBe(`the lease 's3://${BUCKET}/${key}' was taken over: pid 99 on host 'thief-host' holds it now`)
    await attempt.lock.release()
  })
})

describe('a job in one process', () => {
  const sql = (dir: string): string => `
    CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000');
    CREATE TABLE out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');
    INSERT INTO out SELECT id FROM gen;`

  it('a second session running the same job is refused while the first runs; afterwards it runs', async () => {
    const dir = fresh()
    const options = { 'pipeline.name': 'twice', 'state.checkpoints.dir': join(dir, 'checkpoints'), 'execution.checkpointing.interval': '50 ms' }
    const stop = new AbortController()
    // A job takes its lock as it starts, after executeSql returns: the second session starts only once
    // the first holds it (a completed checkpoint says so), or it could be the one that wins the lock.
    let holding!: () => void
    const held = new Promise<void>(resolve => {
      holding = resolve
    })
    const first = new Session({ println: () => undefined, signal: stop.signal, options, onCheckpoint: () => holding() })
    await first.executeSql(sql(dir))
    await held
    const second = new Session({ println: () => undefined, options })
    await second.executeSql(sql(dir))
    const e = await second.awaitJobs().then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toMatch(
      new RegExp(
        `^job 'twice' is already running: pid ${process.pid} on host '[^']*' \\(.*\\) holds its lock '${join(dir, 'checkpoints', 'twice', '_lock')}/claim-`,
      ),
    )
    stop.abort()
    const [stopped] = await first.awaitJobs()
    expect(stopped!.cancelled).toBe(true)
    const stop2 = new AbortController()
    const third = new Session({ println: () => undefined, signal: stop2.signal, options, onCheckpoint: () => stop2.abort() })
    await third.executeSql(sql(dir))
    const [m] = await third.awaitJobs()
    expect(m!.cancelled).toBe(true)
  })

  it('a lock folder that cannot be made is an error naming its path', async () => {
    const dir = fresh()
    writeFileSync(dir, 'a file where the checkpoint folder should be')
    const session = new Session({ println: () => undefined,
      options: { 'pipeline.name': 'blocked', 'state.checkpoints.dir': dir, 'execution.checkpointing.interval': '1 s' } })
    await session.executeSql(sql(fresh()))
    const e = await session.awaitJobs().then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toBe(
      `cannot create the lock folder '${join(dir, 'blocked', '_lock')}': a part of the path is a file, not a folder (ENOTDIR)`,
    )
    expect((e as WeirError).help).toContain(`the checkpoint directory '${join(dir, 'blocked')}' must be writable`)
  })
})
