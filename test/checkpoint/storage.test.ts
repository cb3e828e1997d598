// Checkpoint storage: one contract run against a temporary directory (file://) and against a real
// S3-compatible server (moto, started here, with a fresh bucket per run); then what each kind adds —
// URI forms, paging, multipart uploads, and the errors for a missing bucket or a dead endpoint.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import type { CheckpointStorage } from '../../checkpoint/storage/api.js'
import { CHECKPOINT_STORAGE_OPTIONS, FileCheckpointStorage, openCheckpointStorage, type S3StorageConfig } from '../../checkpoint/storage/index.js'
import { S3CheckpointStorage } from '../../checkpoint/storage/s3.js'
import { S3_TEST_CREDENTIALS, startS3Server, type S3Server } from '../support/s3-server.js'
import { jobConfigOf, type S3Config } from '../../common/config/index.js'

/** What the s3.* options `settings` say, as a job planned with them reads them. */
const s3 = (settings: Readonly<Record<string, string>> = {}): S3Config => jobConfigOf(settings).s3

const MIB = 1024 * 1024

/** A fresh, empty storage for one test, and how its messages spell a path's full location. */
interface Fresh {
  readonly storage: CheckpointStorage
  locationOf(path: string): string
}

interface Backend {
  fresh(): Fresh
}

// ------------------------------------------------------------------ helpers

let local: string
beforeAll(() => {
  local = mkdtempSync(join(tmpdir(), 'weir-storage-local-'))
})
afterAll(() => rmSync(local, { recursive: true, force: true }))

let localCounter = 0
/** A fresh local folder for files a test uploads or downloads. */
function localDir(): string {
  const dir = join(local, `l${++localCounter}`)
  mkdirSync(dir, { recursive: true })
  return dir
}

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}

/** Every byte value, then random bytes: catches text decoding and truncation alike. */
function binary(size: number): Buffer {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i))
  return Buffer.concat([all, randomBytes(size - all.length)])
}

/** The WeirError `promise` rejects with (failing if it resolves or rejects with something else). */
async function rejection(promise: Promise<unknown>): Promise<WeirError> {
  const e = await promise.then(() => undefined, (e: unknown) => e)
  expect(e).toBeInstanceOf(WeirError)
  return e as WeirError
}

function thrown(fn: () => unknown): WeirError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(WeirError)
    return e as WeirError
  }
  throw new Error('expected a WeirError, but nothing was thrown')
}

/** Runs `fn` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await fn(items[next++]!)
  }))
}

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as { port: number }).port
  await new Promise<void>(r => server.close(() => r()))
  return port
}

// ------------------------------------------------------------------ the contract

function contract(backend: Backend): void {
  it('put and get round-trip binary data, and an empty object', async () => {
    const { storage } = backend.fresh()
    const data = binary(100_000)
    await storage.put('chk-1/op-0/state', data)
    await storage.put('chk-1/empty', new Uint8Array(0))
    const got = await storage.get('chk-1/op-0/state')
    expect(Buffer.isBuffer(got)).toBe(true)
    expect(got.length).toBe(100_000)
    expect(sha256(got)).toBe(sha256(data))
    expect(got.subarray(0, 4)).toEqual(Buffer.from([0, 1, 2, 3]))
    expect((await storage.get('chk-1/empty')).length).toBe(0)
  })

  it('putFile and getFile move a 5 MB file byte for byte', async () => {
    const { storage } = backend.fresh()
    const dir = localDir()
    const data = binary(5 * MIB)
    writeFileSync(join(dir, 'upload.sst'), data)
    await storage.putFile('shared/000001.sst', join(dir, 'upload.sst'))

    const got = await storage.get('shared/000001.sst')
    expect(got.length).toBe(5 * MIB)
    expect(sha256(got)).toBe(sha256(data))

    // getFile creates the folders, and replaces a file that is already there.
    const target = join(dir, 'restore', 'db', '000001.sst')
    await storage.getFile('shared/000001.sst', target)
    expect(sha256(readFileSync(target))).toBe(sha256(data))
    writeFileSync(target, 'stale')
    await storage.getFile('shared/000001.sst', target)
    expect(sha256(readFileSync(target))).toBe(sha256(data))
    expect(readdirSync(join(dir, 'restore', 'db'))).toEqual(['000001.sst'])
  })

  it('put and putFile replace an existing object', async () => {
    const { storage } = backend.fresh()
    await storage.put('chk-1/_metadata', Buffer.from('the first, longer version'))
    await storage.put('chk-1/_metadata', Buffer.from('v2'))
    expect((await storage.get('chk-1/_metadata')).toString()).toBe('v2')

    const file = join(localDir(), 'v3')
    writeFileSync(file, 'v3 from a file')
    await storage.putFile('chk-1/_metadata', file)
    expect((await storage.get('chk-1/_metadata')).toString()).toBe('v3 from a file')
    expect(await storage.list('')).toEqual(['chk-1/_metadata'])
  })

  it('exists is true only for a stored object', async () => {
    const { storage } = backend.fresh()
    expect(await storage.exists('chk-1/_metadata')).toBe(false)
    await storage.put('chk-1/_metadata', Buffer.from('m'))
    expect(await storage.exists('chk-1/_metadata')).toBe(true)
    expect(await storage.exists('chk-1')).toBe(false)
    expect(await storage.exists('chk-1/_metadata/below')).toBe(false)
    expect(await storage.exists('chk-1/_meta')).toBe(false)
    await storage.delete(['chk-1/_metadata'])
    expect(await storage.exists('chk-1/_metadata')).toBe(false)
  })

  it('list gives sorted full paths under a folder, recursively, and never a sibling with a longer name', async () => {
    const { storage } = backend.fresh()
    const paths = ['top', 'chk-1/_metadata', 'chk-1/op-0/state', 'chk-1/op-0/rocksdb/MANIFEST-000005', 'chk-1-old', 'chk-10/_metadata', 'chk-2x',
      'shared/a.sst']
    for (const path of paths) await storage.put(path, Buffer.from(path))

    // Sorted as whole strings: 'chk-1-old' before 'chk-1/…' ('-' < '/'), which a folder-by-folder walk gets wrong.
    expect(await storage.list('')).toEqual([
      'chk-1-old',
      'chk-1/_metadata',
      'chk-1/op-0/rocksdb/MANIFEST-000005',
      'chk-1/op-0/state',
      'chk-10/_metadata',
      'chk-2x',
      'shared/a.sst',
      'top',
    ])
    expect(await storage.list('chk-1')).toEqual(['chk-1/_metadata', 'chk-1/op-0/rocksdb/MANIFEST-000005', 'chk-1/op-0/state'])
    expect(await storage.list('chk-1/')).toEqual(['chk-1/_metadata', 'chk-1/op-0/rocksdb/MANIFEST-000005', 'chk-1/op-0/state'])
    expect(await storage.list('chk-1/op-0/rocksdb')).toEqual(['chk-1/op-0/rocksdb/MANIFEST-000005'])
    expect(await storage.list('chk-2')).toEqual([])
    expect(await storage.list('top')).toEqual([])
    expect(await storage.list('nothing/here')).toEqual([])
    expect((await storage.get('chk-1/op-0/state')).toString()).toBe('chk-1/op-0/state')
  })

  it('list and deletePrefix go beyond one page of 1000', async () => {
    const { storage } = backend.fresh()
    const many = Array.from({ length: 1005 }, (_, i) => `many/k-${String(i).padStart(4, '0')}`)
    await inParallel(many, 16, path => storage.put(path, Buffer.from(path)))
    await storage.put('other', Buffer.from('o'))

    expect(await storage.list('many')).toEqual(many)
    expect(await storage.list('')).toEqual([...many, 'other'])
    await storage.deletePrefix('many')
    expect(await storage.list('')).toEqual(['other'])
  })

  it('delete ignores missing objects; deletePrefix removes one folder and nothing beside it', async () => {
    const { storage } = backend.fresh()
    for (const path of ['a', 'b', 'chk-1/_metadata', 'chk-1/op-0/state', 'chk-10/_metadata']) await storage.put(path, Buffer.from(path))

    await storage.delete([])
    await storage.delete(['a', 'missing', 'chk-1/op-0/state', 'nowhere/at/all'])
    expect(await storage.list('')).toEqual(['b', 'chk-1/_metadata', 'chk-10/_metadata'])

    await storage.deletePrefix('chk-1')
    expect(await storage.list('')).toEqual(['b', 'chk-10/_metadata'])
    await storage.deletePrefix('b') // an object, not a folder: nothing is under it
    expect(await storage.list('')).toEqual(['b', 'chk-10/_metadata'])
    await storage.deletePrefix('missing')
    await storage.deletePrefix('')
    expect(await storage.list('')).toEqual([])
  })

  it('a missing object is a checkpoint error naming its full location', async () => {
    const { storage, locationOf } = backend.fresh()
    await storage.put('chk-1/_metadata', Buffer.from('m'))

    const e = await rejection(storage.get('chk-9/_metadata'))
    expect(e.kind).toBe('checkpoint')
    expect(e.message).toBe(`checkpoint file '${locationOf('chk-9/_metadata')}' not found`)
    expect(e.help).toMatch(/restore from another checkpoint/)

    const target = join(localDir(), 'restored')
    const f = await rejection(storage.getFile('chk-1/nothing', target))
    expect(f.message).toBe(`checkpoint file '${locationOf('chk-1/nothing')}' not found`)
    expect(readdirSync(join(target, '..'))).toEqual([])
  })

  it('refuses a path that is not relative and clean, as an internal error', async () => {
    const { storage } = backend.fresh()
    for (const bad of ['../escape', '/abs', 'a//b', 'a/./b', '', 'x.weir-tmp']) {
      const e = await rejection(storage.put(bad, Buffer.from('x')))
      expect(e.kind).toBe('internal')
      expect(e.message).toContain(`invalid checkpoint storage path '${bad}'`)
    }
    expect(await storage.list('')).toEqual([])
  })
}

// ------------------------------------------------------------------ file://

describe('file:// checkpoint storage', () => {
  let root: string
  let n = 0
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'weir-storage-file-'))
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  contract({
    fresh() {
      const dir = join(root, `t${++n}`)
      return { storage: openCheckpointStorage(pathToFileURL(dir).href, s3()), locationOf: path => join(dir, ...path.split('/')) }
    },
  })

  it('takes file:///abs/dir and plain paths, relative ones against the working directory', () => {
    const abs = join(root, 'uri-forms')
    expect(openCheckpointStorage(`file://${abs}/`, s3()).uri).toBe(pathToFileURL(abs).href)
    expect(openCheckpointStorage(abs, s3()).uri).toBe(pathToFileURL(abs).href)
    expect(openCheckpointStorage('checkpoints/job-1', s3()).uri).toBe(pathToFileURL(resolve(process.cwd(), 'checkpoints/job-1')).href)
    expect((openCheckpointStorage('file:///tmp/with%20space', s3()) as FileCheckpointStorage).dir).toBe('/tmp/with space')
    expect(openCheckpointStorage('file://localhost/tmp/x', s3()).uri).toBe('file:///tmp/x')

    const e = thrown(() => openCheckpointStorage('file://server/share/x', s3()))
    expect(e.message).toBe(`'file://server/share/x' is not a usable file URI: it names the host 'server'`)
    expect(e.help).toMatch(/file:\/\/\/abs\/dir/)
  })

  it('writes through a temporary file that list() never shows and that never stays behind', async () => {
    const dir = join(root, 'atomic')
    const storage = openCheckpointStorage(dir, s3())
    await storage.put('chk-1/_metadata', Buffer.from('m'))
    const file = join(localDir(), 'f')
    writeFileSync(file, 'f')
    await storage.putFile('chk-1/f', file)
    expect(readdirSync(join(dir, 'chk-1')).sort()).toEqual(['_metadata', 'f'])

    // What a crash mid-write leaves: a temporary file beside the object.
    writeFileSync(join(dir, 'chk-1', '._metadata.0123456789ab.weir-tmp'), 'half')
    expect(await storage.list('')).toEqual(['chk-1/_metadata', 'chk-1/f'])
  })

  it('names the local file when putFile has nothing to upload', async () => {
    const storage = openCheckpointStorage(join(root, 'no-local'), s3())
    const missing = join(localDir(), 'missing.sst')
    const e = await rejection(storage.putFile('shared/x.sst', missing))
    expect(e.message).toBe(
      `cannot read '${missing}' (local state, to be stored as checkpoint file '${join(root, 'no-local', 'shared', 'x.sst')}'): no such file or folder (ENOENT)`,
    )
    expect(e.help).toBe(`'${missing}' does not exist: check 'state.dir'`)
    expect(await storage.list('')).toEqual([])
  })
})

// ------------------------------------------------------------------ s3://

describe('s3:// checkpoint storage', () => {
  let server: S3Server
  let options: Record<string, string>
  const bucket = `weir-test-${randomBytes(4).toString('hex')}`
  let n = 0

  beforeAll(async () => {
    server = await startS3Server()
    options = { 's3.endpoint': server.endpoint, ...S3_TEST_CREDENTIALS }
    const client = adminClient()
    await client.send(new CreateBucketCommand({ Bucket: bucket }))
    client.destroy()
  }, 300_000)
  afterAll(async () => {
    await server?.stop()
  })

  function adminClient(): S3Client {
    return new S3Client({
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: S3_TEST_CREDENTIALS['s3.access-key'], secretAccessKey: S3_TEST_CREDENTIALS['s3.secret-key'] },
    })
  }

  function tuned(prefix: string, tuning: Partial<S3StorageConfig>): S3CheckpointStorage {
    return new S3CheckpointStorage(`s3://${bucket}/${prefix}`, {
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: S3_TEST_CREDENTIALS['s3.access-key'], secretAccessKey: S3_TEST_CREDENTIALS['s3.secret-key'] },
      ...tuning,
    })
  }

  contract({
    fresh() {
      const uri = `s3://${bucket}/jobs/t${++n}`
      return { storage: openCheckpointStorage(uri, s3(options)), locationOf: path => `${uri}/${path}` }
    },
  })

  it('normalizes s3://bucket/prefix and refuses a bad bucket name', () => {
    expect(openCheckpointStorage(`s3://${bucket}/a/b/`, s3(options)).uri).toBe(`s3://${bucket}/a/b`)
    expect(openCheckpointStorage(`s3://${bucket}`, s3(options)).uri).toBe(`s3://${bucket}`)
    const e = thrown(() => openCheckpointStorage('s3://Bad_Bucket/x', s3(options)))
    expect(e.kind).toBe('checkpoint')
    expect(e.message).toBe(`'Bad_Bucket' in 's3://Bad_Bucket/x' is not a valid S3 bucket name`)
    expect(thrown(() => openCheckpointStorage('s3://', s3(options))).message).toBe(`'' in 's3://' is not a valid S3 bucket name`)
  })

  it('keeps objects under the URI prefix, as plain keys', async () => {
    const storage = openCheckpointStorage(`s3://${bucket}/layout/job-1`, s3(options))
    await storage.put('chk-1/_metadata', Buffer.from('m'))
    const client = adminClient()
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'layout/job-1/chk-1/_metadata' }))
    client.destroy()
    expect(head.ContentLength).toBe(1)
    expect(await openCheckpointStorage(`s3://${bucket}/layout`, s3(options)).list('')).toEqual(['job-1/chk-1/_metadata'])
  })

  it('pages through small ListObjectsV2 pages and deletes in small batches', async () => {
    const storage = tuned('small-pages', { listPageSize: 7, deleteBatchSize: 4 })
    const paths = Array.from({ length: 30 }, (_, i) => `p/${String(i).padStart(2, '0')}`)
    await inParallel(paths, 8, path => storage.put(path, Buffer.from(path)))
    expect(await storage.list('p')).toEqual(paths)
    await storage.delete(paths.slice(0, 10))
    expect(await storage.list('')).toEqual(paths.slice(10))
    await storage.deletePrefix('')
    expect(await storage.list('')).toEqual([])
  })

  it('uploads a file above the multipart threshold in parts, byte for byte', async () => {
    const storage = tuned('multipart', { multipartThreshold: 5 * MIB, partSize: 5 * MIB })
    const data = binary(11 * MIB)
    const file = join(localDir(), 'big.sst')
    writeFileSync(file, data)
    await storage.putFile('shared/big.sst', file)

    const client = adminClient()
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'multipart/shared/big.sst' }))
    client.destroy()
    expect(head.ContentLength).toBe(11 * MIB)
    expect(head.ETag).toMatch(/-3"$/) // a multipart ETag ends with the number of parts
    expect(sha256(await storage.get('shared/big.sst'))).toBe(sha256(data))
  })

  it('a bucket that does not exist is a checkpoint error for every call', async () => {
    const missing = `weir-missing-${randomBytes(4).toString('hex')}`
    const storage = openCheckpointStorage(`s3://${missing}/job`, s3(options))
    const reason = `the bucket '${missing}' does not exist at ${server.endpoint}`

    const put = await rejection(storage.put('chk-1/_metadata', Buffer.from('m')))
    expect(put.kind).toBe('checkpoint')
    expect(put.message).toBe(`cannot write 's3://${missing}/job/chk-1/_metadata': ${reason}`)
    expect(put.help).toBe(`create the bucket, or fix the bucket name in the checkpoint URI; check that 's3.endpoint' points at the server that holds it`)
    expect((await rejection(storage.get('chk-1/_metadata'))).message).toBe(`cannot read 's3://${missing}/job/chk-1/_metadata': ${reason}`)
    expect((await rejection(storage.exists('chk-1/_metadata'))).message).toBe(`cannot read 's3://${missing}/job/chk-1/_metadata': ${reason}`)
    expect((await rejection(storage.list('chk-1'))).message).toBe(`cannot list 's3://${missing}/job/chk-1': ${reason}`)
    expect((await rejection(storage.deletePrefix(''))).message).toBe(`cannot list 's3://${missing}/job': ${reason}`)
  })

  it('an endpoint where nothing listens is a checkpoint error that points at s3.endpoint', async () => {
    const endpoint = `http://127.0.0.1:${await deadPort()}`
    const storage = openCheckpointStorage(`s3://${bucket}/job`, s3({ ...options, 's3.endpoint': endpoint }))
    const e = await rejection(storage.put('chk-1/_metadata', Buffer.from('m')))
    expect(e.kind).toBe('checkpoint')
    expect(e.message).toBe(`cannot write 's3://${bucket}/job/chk-1/_metadata': cannot reach the S3 endpoint ${endpoint} (connection refused)`)
    expect(e.help).toBe(`check 's3.endpoint' and that the S3 server is running and reachable from here`)
    expect((await rejection(storage.list(''))).message).toBe(`cannot list 's3://${bucket}/job': cannot reach the S3 endpoint ${endpoint} (connection refused)`)
  })
})

// ------------------------------------------------------------------ opening

describe('openCheckpointStorage', () => {
  it('refuses a scheme it does not know, naming the ones it does', () => {
    const e = thrown(() => openCheckpointStorage('hdfs://namenode/checkpoints', s3()))
    expect(e.kind).toBe('checkpoint')
    expect(e.message).toBe(`checkpoint location 'hdfs://namenode/checkpoints' has the unsupported scheme 'hdfs://'`)
    expect(e.help).toBe('checkpoints go to a directory (file:///abs/dir, or a plain path) or to an S3 bucket (s3://bucket/folder)')
    expect(thrown(() => openCheckpointStorage('s3a://bucket/x', s3())).help).toMatch(/^write it as s3:\/\/…; /)
  })

  it('checks the s3.* options', () => {
    expect(thrown(() => openCheckpointStorage('s3://bucket/x', s3({ 's3.access-key': 'k' }))).message).toBe(`'s3.access-key' is set but 's3.secret-key' is not`)
    // A path style other than 'true' or 'false' is refused as the options are read (at SET), before any storage opens.
    expect(thrown(() => openCheckpointStorage('s3://bucket/x', s3({ 's3.path.style.access': 'yes' }))).message)
      .toBe(`invalid value 'yes' for option 's3.path.style.access': expected one of 'true', 'false'`)
    expect(thrown(() => openCheckpointStorage('s3://bucket/x', s3({ 's3.endpoint': 'localhost:9000' }))).message).toBe(
      `'s3.endpoint' = 'localhost:9000' is not an http:// or https:// URL`,
    )
    expect(
      openCheckpointStorage('s3://bucket/x', s3({ 's3.endpoint': 'http://127.0.0.1:9000/', 's3.region': 'eu-west-1', 's3.path.style.access': 'FALSE' })).uri,
    ).toBe('s3://bucket/x')
  })

  it('lists the option keys it reads', () => {
    expect(CHECKPOINT_STORAGE_OPTIONS).toEqual(['s3.endpoint', 's3.region', 's3.access-key', 's3.secret-key', 's3.path.style.access'])
  })
})
