// Chaos (shared by chaos-file.test.ts and chaos-s3.test.ts): `weir run` of a job with a filesystem source and the exactly-once filesystem sink is killed
// with SIGKILL again and again — at random moments, and at the worst ones on purpose (while a
// snapshot uploads, after the uploads but before the manifest, between a checkpoint's completion
// and the sink's commit) — and restarted each time. Its output must equal the uninterrupted run's
// exactly: no row lost, none doubled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3'
import { S3_TEST_CREDENTIALS, startS3Server, type S3Server } from '../support/s3-server.js'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const WEIR = resolve('bin/weir.js')
/** `weir` with a fault hook that kills it at a checkpoint's worst points (test/support/weir-with-faults.ts, built to dist/). */
const WEIR_WITH_FAULTS = resolve('dist/test/support/weir-with-faults.js')
const ROWS = 300_000
const KILLS = 20

function writeInput(path: string): void {
  let seed = 7
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const start = Date.UTC(2024, 0, 1)
  const lines: string[] = []
  for (let i = 0; i < ROWS; i++) {
    const ts = new Date(start + i * 20 - Math.floor(rnd() * 900)).toISOString().replace('T', ' ').replace('Z', '')
    lines.push(`{"k":"k${Math.floor(rnd() * 300)}","v":${Math.floor(rnd() * 1000)},"ts":"${ts}"}`)
  }
  writeFileSync(path, lines.join('\n') + '\n')
}

/** Where checkpoints go: a directory, or a bucket on the S3 server the test started. */
type Storage = (dir: string) => string

function jobSql(dir: string, input: string, out: string, storage: Storage): string {
  return `
    SET 'pipeline.name' = 'chaos';
    SET 'execution.checkpointing.interval' = '40 ms';
${storage(dir)}
    SET 'state.dir' = '${join(dir, 'state')}';
    SET 'state.cache.size' = '1 mb';
    SET 'execution.batch-size' = '64';
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (k STRING, ws TIMESTAMP(3), c BIGINT, s BIGINT, mx INT)
      WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
    INSERT INTO out
      SELECT k, window_start, COUNT(*), SUM(v), MAX(v)
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND))
      WHERE v % 7 <> 3
      GROUP BY k, window_start, window_end;`
}

interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stderr: string
}

/** Runs `weir run FILE`; with `crashAt` ('<point>:<n>') it kills itself the n-th time a checkpoint reaches that point. */
function runWeir(cwd: string, file: string, crashAt: string | undefined, killAfterMs?: number): Promise<Exit> {
  return new Promise((resolvePromise, reject) => {
    const argv = crashAt === undefined ? [WEIR, 'run', file] : [WEIR_WITH_FAULTS, '--crash-at', crashAt, 'run', file]
    const child = spawn(process.execPath, argv, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({ code, signal, stderr })
    })
  })
}

function visibleRows(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter(f => !f.startsWith('.'))
    .flatMap(f => readFileSync(join(dir, f), 'utf8').split('\n').filter(l => l !== ''))
    .sort()
}

let server: S3Server | undefined
const BUCKET = 'weir-chaos'

const STORAGES: readonly { key: 'file' | 's3'; name: string; storage: Storage }[] = [
  { key: 'file', name: 'file://', storage: dir => `    SET 'state.checkpoints.dir' = 'file://${join(dir, 'checkpoints')}';` },
  {
    key: 's3',
    name: 's3:// (a local S3 server)',
    storage: dir =>
      [
        `    SET 'state.checkpoints.dir' = 's3://${BUCKET}/${dir.split('/').pop()}';`,
        `    SET 's3.endpoint' = '${server!.endpoint}';`,
        `    SET 's3.access-key' = '${S3_TEST_CREDENTIALS['s3.access-key']}';`,
        `    SET 's3.secret-key' = '${S3_TEST_CREDENTIALS['s3.secret-key']}';`,
      ].join('\n'),
  },
]

/** The chaos test with checkpoints in a directory or in a bucket of a local S3 server (one file each, so they run in parallel). */
export function chaosSuite(key: 'file' | 's3'): void {
  const { name, storage } = STORAGES.find(s => s.key === key)!
  if (key === 's3') {
    beforeAll(startBucket, 300_000)
    afterAll(async () => {
      await server?.stop()
    })
  }
  describe(`chaos: SIGKILL at random and at the worst moments, checkpoints to ${name}`, () => {
    chaosTest(storage)
  })
}

async function startBucket(): Promise<void> {
  server = await startS3Server()
  const client = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_TEST_CREDENTIALS['s3.access-key'], secretAccessKey: S3_TEST_CREDENTIALS['s3.secret-key'] },
  })
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }))
  client.destroy()
}

function chaosTest(storage: Storage): void {
  it(`the output after ${KILLS}+ kills and restarts equals the uninterrupted run`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'weir-chaos-'))
    try {
      const input = join(root, 'input.jsonl')
      writeInput(input)
      // The reference: one uninterrupted run (with the same checkpointing).
      const refDir = join(root, 'ref')
      mkdirSync(refDir)
      writeFileSync(join(refDir, 'job.sql'), jobSql(refDir, input, join(refDir, 'out'), storage))
      const ref = await runWeir(refDir, 'job.sql', undefined)
      expect(ref.code, ref.stderr).toBe(0)
      const expected = visibleRows(join(refDir, 'out'))
      expect(expected.length).toBeGreaterThan(1000)

      const dir = join(root, 'chaos')
      mkdirSync(dir)
      writeFileSync(join(dir, 'job.sql'), jobSql(dir, input, join(dir, 'out'), storage))
      // Deterministic seeds for the kill schedule, so a failure can be replayed.
      let seed = 99
      const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
      const points = ['upload', 'before-manifest', 'before-commit']
      let kills = 0
      let runs = 0
      const seen: string[] = []
      for (;;) {
        runs++
        expect(runs, `runs so far: ${seen.join(', ')}`).toBeLessThan(80)
        const mode = kills >= KILLS ? 'none' : runs % 2 === 1 ? 'random' : points[Math.floor(rnd() * points.length)]!
        const crashAt = mode === 'random' || mode === 'none' ? undefined : `${mode}:${1 + Math.floor(rnd() * 3)}`
        const exit = await runWeir(dir, 'job.sql', crashAt, mode === 'random' ? 300 + Math.floor(rnd() * 900) : undefined)
        if (exit.signal === 'SIGKILL') {
          kills++
          seen.push(crashAt ?? 'random')
          // Nothing visible may ever be more than the uninterrupted run has.
          const now = visibleRows(join(dir, 'out'))
          expect(now.length).toBeLessThanOrEqual(expected.length)
          continue
        }
        expect(exit.code, exit.stderr).toBe(0)
        seen.push(`finished (${mode})`)
        if (kills >= KILLS) break
        // The job ended before the kill budget was spent: it was too short for this machine.
        throw new Error(`the job finished after only ${kills} kills (${seen.join(', ')}); make the input longer`)
      }
      expect(kills).toBeGreaterThanOrEqual(KILLS)
      expect(seen.filter(s => s.startsWith('before-commit')).length).toBeGreaterThan(0)
      expect(seen.filter(s => s.startsWith('upload')).length).toBeGreaterThan(0)
      const got = visibleRows(join(dir, 'out'))
      expect(got.length).toBe(expected.length)
      expect(got).toEqual(expected)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 600_000)
}
