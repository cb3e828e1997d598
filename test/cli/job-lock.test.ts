// Job locks, as a user meets them: two `weir run` of one job at the same time in one directory
// (the same file, or a copy under another name), with checkpoints in a directory and in a bucket of
// a real S3 server (moto). The second is refused with a message naming the first, and the sink
// holds every row exactly once; a run killed with -9 leaves a stale lock that the next run takes over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { S3_TEST_CREDENTIALS, startS3Bucket, type S3Bucket } from '../support/s3-server.js'

const WEIR = resolve('bin/weir.js')
const ROWS = 12_000
const BUCKET = 'weir-locks'

let s3: S3Bucket
let root: string
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'weir-locks-'))
  s3 = await startS3Bucket(BUCKET)
}, 300_000)
afterAll(async () => {
  await s3?.stop()
  rmSync(root, { recursive: true, force: true })
})

type Storage = 'file' | 's3'

/**
 * A job that writes ids 1, 2, 3 … each once, at 3,000 rows a second, checkpointing every 100 ms:
 * up to ROWS (about 4 s), or on until stopped.
 */
function jobSql(dir: string, storage: Storage, bounded: boolean): string {
  const checkpoints = storage === 'file' ? [`SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}';`] : [
    `SET 'state.checkpoints.dir' = 's3://${BUCKET}/${dir.split('/').pop()}';`,
    `SET 's3.endpoint' = '${s3.server.endpoint}';`,
    `SET 's3.access-key' = '${S3_TEST_CREDENTIALS['s3.access-key']}';`,
    `SET 's3.secret-key' = '${S3_TEST_CREDENTIALS['s3.secret-key']}';`,
  ]
  return [
    `SET 'pipeline.name' = 'ids';`,
    `SET 'execution.checkpointing.interval' = '100 ms';`,
    ...checkpoints,
    `SET 'state.dir' = '${join(dir, 'state')}';`,
    `CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '3000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${
      bounded ? ROWS : 1_000_000_000
    }');`,
    `CREATE TABLE out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');`,
    `INSERT INTO out SELECT id FROM gen;`,
  ].join('\n')
}

interface Run {
  readonly child: ChildProcess
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr(): string
}

function start(cwd: string, file: string): Run {
  const child = spawn(process.execPath, [WEIR, 'run', file], { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString()
  })
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(r => child.on('exit', (code, signal) => r({ code, signal })))
  return { child, exit, stderr: () => stderr }
}

/** Visible output ids, sorted. */
function ids(dir: string): number[] {
  const out = join(dir, 'out')
  if (!existsSync(out)) return []
  return readdirSync(out).filter(f => !f.startsWith('.'))
    .flatMap(f => readFileSync(join(out, f), 'utf8').split('\n').filter(l => l !== '').map(l => (JSON.parse(l) as { id: number }).id))
    .sort((a, b) => a - b)
}

const EVERY_ID_ONCE = Array.from({ length: ROWS }, (_, i) => i + 1)

/** A run stopped with Ctrl-C made a prefix of the ids visible: 1..n, each once. */
function expectEachIdOnce(dir: string): void {
  const got = ids(dir)
  expect(got.length).toBeGreaterThan(0)
  expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i + 1))
}

async function until(what: string, condition: () => boolean | Promise<boolean>, run?: Run): Promise<void> {
  for (let i = 0;; i++) {
    if (await condition()) return
    if (run?.child.exitCode !== null && run?.child.exitCode !== undefined) throw new Error(`the run ended before ${what}: ${run.stderr()}`)
    if (i > 1200) throw new Error(`timed out waiting until ${what}`)
    await new Promise(r => setTimeout(r, 25))
  }
}

function newDir(storage: Storage, bounded: boolean): string {
  const dir = mkdtempSync(join(root, `${storage}-`))
  writeFileSync(join(dir, 'job.sql'), jobSql(dir, storage, bounded))
  return dir
}

describe.each(['file', 's3'] as const)('job locks with checkpoints in %s storage', storage => {
  it('a second run of the file started while the first runs is refused, naming it; each row lands once', async () => {
    const dir = newDir(storage, false)
    const first = start(dir, 'job.sql')
    // The first run is under way: some of its output is committed.
    await until('the first run committed output', () => ids(dir).length > 0, first)
    const second = start(dir, 'job.sql')
    const refused = await second.exit
    expect(refused.code, second.stderr()).toBe(1)
    expect(second.stderr()).toContain('is already running')
    expect(second.stderr()).toContain(`pid ${first.child.pid} on host`)
    expect(second.stderr()).toMatch(/help: .*stop it/)
    expect(first.child.exitCode, 'the first run still runs').toBeNull()
    first.child.kill('SIGINT')
    expect((await first.exit).code, first.stderr()).toBe(130)
    expectEachIdOnce(dir)
  })

  it('of two runs of one job (a copy of the file) started at the same moment, one runs and one is refused', async () => {
    const dir = newDir(storage, false)
    writeFileSync(join(dir, 'copy.sql'), readFileSync(join(dir, 'job.sql')))
    const runs = [start(dir, 'job.sql'), start(dir, 'copy.sql')]
    // The loser ends by itself; the winner runs on until stopped.
    const first = await Promise.race(runs.map((r, i) => r.exit.then(e => ({ ...e, i }))))
    expect(first.code, runs.map(r => r.stderr()).join('\n----\n')).toBe(1)
    const loser = runs[first.i]!
    const winner = runs[1 - first.i]!
    await until('the winner committed output', () => ids(dir).length > 0, winner)
    winner.child.kill('SIGINT')
    expect((await winner.exit).code, winner.stderr()).toBe(130)
    expect(loser.stderr()).toContain(`job 'ids' is already running: pid ${winner.child.pid} on host`)
    expect(loser.stderr()).toContain(
      storage === 'file' ? `${join(dir, 'checkpoints', 'ids', '_lock')}/claim-` : `s3://${BUCKET}/${dir.split('/').pop()}/ids/_lock`,
    )
    expectEachIdOnce(dir)
  })

  it('a run killed with -9 leaves a stale lock that the next run takes over, saying so', async () => {
    const dir = newDir(storage, false)
    const killed = start(dir, 'job.sql')
    await until('the run committed output', () => ids(dir).length > 0, killed)
    killed.child.kill('SIGKILL')
    await killed.exit
    const before = ids(dir).length
    const next = start(dir, 'job.sql')
    await until('the next run committed more output', () => ids(dir).length > before, next)
    next.child.kill('SIGINT')
    expect((await next.exit).code, next.stderr()).toBe(130)
    expect(next.stderr()).toMatch(new RegExp(`job 'ids': took over the lock of pid ${killed.child.pid} on host .* its process is no longer running`))
    expectEachIdOnce(dir)
  })
})

describe('an S3 lease of another host', () => {
  /** Writes a lease held by a process on another host, renewed `ageMs` ago. */
  async function foreignLease(dir: string, ageMs: number): Promise<string> {
    const key = `${dir.split('/').pop()}/ids/_lock`
    await s3.client.send(new PutObjectCommand({
      Bucket: BUCKET,
      Key: key,
      Body: JSON.stringify({
        ownerId: 'f00d',
        pid: 4242,
        host: 'elsewhere',
        pidSpace: 'another-boot/pid:[1]',
        for: "job 'ids'",
        since: new Date(Date.now() - 3_600_000).toISOString(),
        command: 'weir run job.sql',
        cwd: '/srv/jobs',
        renewedAt: Date.now() - ageMs,
        ttlMs: 30_000,
      }),
    }))
    return key
  }

  it('refuses while it is fresh, naming the host, and is taken over once it expired', async () => {
    const dir = newDir('s3', true)
    const key = await foreignLease(dir, 1_000)
    const refused = start(dir, 'job.sql')
    expect((await refused.exit).code, refused.stderr()).toBe(1)
    expect(refused.stderr()).toContain(`job 'ids' is already running: pid 4242 on host 'elsewhere' ('weir run job.sql' in /srv/jobs`)
    expect(refused.stderr()).toMatch(/note: it is from another host or container .* renewed \d+ s ago; .* if that run is gone for good, delete 's3:\/\//)
    expect(ids(dir)).toEqual([])

    await foreignLease(dir, 45_000)
    const next = start(dir, 'job.sql')
    expect((await next.exit).code, next.stderr()).toBe(0)
    expect(next.stderr()).toMatch(/took over the lock of pid 4242 on host 'elsewhere'.* last renewed \d+ s ago \(a lease lasts 30 s\)/)
    expect(ids(dir)).toEqual(EVERY_ID_ONCE)
    // Released at the end: no lease is left behind.
    await expect(s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).rejects.toThrow(/does not exist|NoSuchKey/)
  })
})
