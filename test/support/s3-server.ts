// A real S3-compatible server for tests: moto, run by scripts/s3-server.sh on 127.0.0.1 at a port the
// OS picks, installed into .weir-tools/venv on first use. Each call starts its own server.
import { spawn, type ChildProcess } from 'node:child_process'
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3'
import { request } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface S3Server {
  /** e.g. 'http://127.0.0.1:40519' */
  readonly endpoint: string
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>
}

/** Credentials the server accepts (moto takes any). Tests pass them explicitly, so that the SDK's
 *  credential chain never goes looking elsewhere (the instance metadata service, for one). */
export const S3_TEST_CREDENTIALS = { 's3.access-key': 'weir-test', 's3.secret-key': 'weir-test-secret' } as const

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const SCRIPT = join(ROOT, 'scripts', 's3-server.sh')
/** Covers a first-time install of the venv (about a minute) plus the server's start (under a second). */
const START_TIMEOUT_MS = 240_000
const READY_RE = /Running on (http:\/\/127\.0\.0\.1:\d+)/

/**
 * Starts moto's server and resolves once it answers HTTP.
 *
 * @example
 * const server = await startS3Server()
 * try { … openCheckpointStorage('s3://bucket/job', jobConfigOf({ 's3.endpoint': server.endpoint, ...S3_TEST_CREDENTIALS }).s3) … }
 * finally { await server.stop() }
 */
export async function startS3Server(): Promise<S3Server> {
  const child = spawn('bash', [SCRIPT, 'run', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  // A test process that dies without calling stop() must not leave a server behind.
  const killOnExit = (): void => {
    child.kill('SIGKILL')
  }
  process.once('exit', killOnExit)
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit)
    await stopChild(child)
  }
  try {
    const endpoint = await waitForReadyLine(child)
    await waitUntilAnswering(endpoint, Date.now() + 30_000)
    return { endpoint, stop }
  } catch (e) {
    await stop()
    throw e
  }
}

/** A server with one empty bucket, and a client of it (destroyed by stop). */
export interface S3Bucket {
  readonly server: S3Server
  readonly client: S3Client
  readonly bucket: string
  /** Options that point checkpoint storage at the server ('s3.endpoint' and the test credentials). */
  readonly options: Readonly<Record<string, string>>
  stop(): Promise<void>
}

/** Starts a server and creates `bucket` in it. */
export async function startS3Bucket(bucket: string): Promise<S3Bucket> {
  const server = await startS3Server()
  const client = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_TEST_CREDENTIALS['s3.access-key'], secretAccessKey: S3_TEST_CREDENTIALS['s3.secret-key'] },
  })
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }))
  } catch (e) {
    client.destroy()
    await server.stop()
    throw e
  }
  return {
    server,
    client,
    bucket,
    options: { 's3.endpoint': server.endpoint, ...S3_TEST_CREDENTIALS },
    async stop() {
      client.destroy()
      await server.stop()
    },
  }
}

function waitForReadyLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => fail(`did not start within ${START_TIMEOUT_MS / 1000}s`), START_TIMEOUT_MS)
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8')
      const m = READY_RE.exec(output)
      if (m === null) return
      cleanup()
      resolve(m[1]!)
    }
    const onExit = (code: number | null, signal: string | null): void => fail(`exited (${signal ?? `code ${code}`}) before it was ready`)
    const onError = (e: Error): void => fail(`could not be spawned: ${e.message}`)
    function fail(why: string): void {
      cleanup()
      reject(new Error(`S3 test server (${SCRIPT} run) ${why}; its output:\n${output.slice(-4000)}`))
    }
    function cleanup(): void {
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      child.stderr!.off('data', onData)
      child.off('exit', onExit)
      child.off('error', onError)
      // Keep draining the pipes so that a chatty server never blocks on a full one.
      child.stdout!.resume()
      child.stderr!.resume()
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', onExit)
    child.once('error', onError)
  })
}

async function waitUntilAnswering(endpoint: string, deadline: number): Promise<void> {
  for (;;) {
    const status = await new Promise<number | null>(resolve => {
      const req = request(endpoint, { method: 'GET', timeout: 2_000 }, res => {
        res.resume()
        resolve(res.statusCode ?? null)
      })
      req.on('error', () => resolve(null))
      req.on('timeout', () => {
        req.destroy()
        resolve(null)
      })
      req.end()
    })
    if (status === 200) return
    if (Date.now() > deadline) throw new Error(`S3 test server at ${endpoint} did not answer (last status: ${status ?? 'no connection'})`)
    await new Promise(r => setTimeout(r, 100))
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
  await exited
  clearTimeout(timer)
}
