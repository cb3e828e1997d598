// Checkpoint storage in an S3-compatible bucket (AWS S3, MinIO, moto …) at s3://bucket/prefix, on
// the AWS SDK v3. An object is stored whole by one PutObject, or by a multipart upload for a big
// file, so readers never see part of one. SDK errors become checkpoint errors that say what to check.
import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand,
  S3Client } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { WeirError } from '../../common/errors.js'
import type { CheckpointStorage } from './api.js'
import { checkPath, folderPrefix } from './file.js'
import type { LockAttempt, LockClaim } from './lock.js'
import { takeS3Lease } from './s3-lock.js'
import { parseS3Uri } from './s3-uri.js'

/** How to reach the bucket; index.ts builds it from the 's3.*' options. */
export interface S3StorageConfig {
  /** e.g. 'http://127.0.0.1:9000'; absent: AWS's own endpoint for the region. */
  readonly endpoint?: string
  readonly region: string
  /** Absent: the SDK's credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, ~/.aws, roles). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string }
  /** http://endpoint/bucket/key instead of http://bucket.endpoint/key; local servers need it. */
  readonly forcePathStyle: boolean
  /** Keys per ListObjectsV2 page (S3 gives at most 1000). Tests make this and the next small. */
  readonly listPageSize?: number
  /** Keys per DeleteObjects request (S3 takes at most 1000). */
  readonly deleteBatchSize?: number
  /** Files bigger than this go up as a multipart upload (default 64 MiB). */
  readonly multipartThreshold?: number
  /** Part size of a multipart upload (default 16 MiB; S3 wants at least 5 MiB). */
  readonly partSize?: number
}

const MIB = 1024 * 1024

/**
 * A bucket, or a folder ("prefix") in one.
 *
 * @example
 * const storage = new S3CheckpointStorage('s3://bucket/checkpoints/job-1', { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true })
 * await storage.put('chk-1/_metadata', bytes)   // → key 'checkpoints/job-1/chk-1/_metadata' in 'bucket'
 */
export class S3CheckpointStorage implements CheckpointStorage {
  readonly uri: string
  readonly bucket: string
  /** The key prefix every object's key starts with: '' or 'folder/'. */
  private readonly keyPrefix: string
  private readonly client: S3Client
  private readonly config: S3StorageConfig
  /** Whether a request has shown the bucket to exist (exists() cannot tell a missing bucket from a missing object). */
  private bucketSeen = false

  constructor(uri: string, config: S3StorageConfig) {
    const { bucket, prefix } = parseS3Uri(uri)
    this.bucket = bucket
    this.keyPrefix = prefix === '' ? '' : `${prefix}/`
    this.uri = prefix === '' ? `s3://${bucket}` : `s3://${bucket}/${prefix}`
    this.config = config
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
      // Checksums only where S3 demands them (DeleteObjects): with the default ('WHEN_SUPPORTED') a
      // streamed body goes out in aws-chunked framing, which S3-compatible servers may store as is.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      followRegionRedirects: true,
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 10_000 },
    })
  }

  async put(path: string, data: Uint8Array): Promise<void> {
    const key = this.keyOf(path)
    await this.send('write', path, () => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: data, ContentLength: data.byteLength })))
  }

  async putFile(path: string, localFile: string): Promise<void> {
    const key = this.keyOf(path)
    let size: number
    try {
      size = (await stat(localFile)).size
    } catch (e) {
      throw localFileError(e, 'read', localFile, this.uriOf(path))
    }
    await this.send('write', path, async () => {
      if (size <= (this.config.multipartThreshold ?? 64 * MIB)) {
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(localFile), ContentLength: size }))
        return
      }
      // Parts are read into memory: at most queueSize × partSize bytes at a time.
      const upload = new Upload({
        client: this.client,
        params: { Bucket: this.bucket, Key: key, Body: createReadStream(localFile) },
        partSize: this.config.partSize ?? 16 * MIB,
        queueSize: 4,
        leavePartsOnError: false,
      })
      await upload.done()
    })
  }

  async get(path: string): Promise<Buffer> {
    const key = this.keyOf(path)
    return this.send('read', path, async () => {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }))
      if (response.Body === undefined) return Buffer.alloc(0)
      const bytes = await response.Body.transformToByteArray()
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    })
  }

  async getFile(path: string, localFile: string): Promise<void> {
    const key = this.keyOf(path)
    const target = resolve(localFile)
    // The download lands under a temporary name first, so a failure never leaves half a file behind.
    const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.weir-tmp`)
    try {
      await mkdir(dirname(target), { recursive: true })
    } catch (e) {
      throw localFileError(e, 'write', target, this.uriOf(path))
    }
    try {
      await this.send('read', path, async () => {
        const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }))
        const body = response.Body as Readable | undefined ?? Readable.from([])
        await pipeline(body, createWriteStream(tmp, { flags: 'wx' })).catch(e => {
          throw (e as NodeJS.ErrnoException).path === tmp ? localFileError(e, 'write', target, this.uriOf(path)) : e
        })
      })
      await rename(tmp, target).catch(e => {
        throw localFileError(e, 'write', target, this.uriOf(path))
      })
    } catch (e) {
      await rm(tmp, { force: true })
      throw e
    }
  }

  async exists(path: string): Promise<boolean> {
    const key = this.keyOf(path)
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }))
      this.bucketSeen = true
      return true
    } catch (e) {
      if (errorName(e) !== 'NotFound') throw this.toWeirError(e, 'read', path)
    }
    // HEAD answers a bare 404 for a missing bucket too: ask about the bucket, once.
    if (!this.bucketSeen) {
      await this.send('read', path, () => this.client.send(new HeadBucketCommand({ Bucket: this.bucket })))
    }
    return false
  }

  async list(prefix: string): Promise<string[]> {
    const folder = folderPrefix(prefix, this.uri)
    const keys = await this.listKeys(folder)
    return keys.map(key => key.slice(this.keyPrefix.length)).sort()
  }

  async delete(paths: readonly string[]): Promise<void> {
    await this.deleteKeys(paths.map(path => this.keyOf(path)))
  }

  async deletePrefix(prefix: string): Promise<void> {
    const folder = folderPrefix(prefix, this.uri)
    // Lists everything first: deleting while paging would depend on how a server builds its tokens.
    await this.deleteKeys(await this.listKeys(folder))
  }

  /** A lease object at `path` (s3-lock.ts). */
  lock(path: string, claim: LockClaim): Promise<LockAttempt> {
    return takeS3Lease({
      client: this.client,
      bucket: this.bucket,
      key: this.keyOf(path),
      uri: this.uriOf(path),
      error: (e, verb) => this.toWeirError(e, verb, path),
    }, claim)
  }

  /** Every key under `folder` ('' = the whole root), as full keys. */
  private async listKeys(folder: string): Promise<string[]> {
    const prefix = folder === '' ? this.keyPrefix : `${this.keyPrefix}${folder}/`
    const keys: string[] = []
    let token: string | undefined
    do {
      const page = await this.send('list', folder, () =>
        this.client.send(new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          ContinuationToken: token,
          MaxKeys: this.config.listPageSize,
        })))
      for (const object of page.Contents ?? []) {
        // Keys ending in '/' are folder markers that consoles create, not objects.
        if (object.Key !== undefined && !object.Key.endsWith('/')) keys.push(object.Key)
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined
      if (page.IsTruncated === true && token === undefined) {
        throw WeirError.checkpoint(`cannot list '${this.uriOf(folder)}': the server said the listing goes on but gave no continuation token`, {
          help: `check that 's3.endpoint' points at an S3-compatible server that supports ListObjectsV2`,
        })
      }
    } while (token !== undefined)
    return keys
  }

  private async deleteKeys(keys: readonly string[]): Promise<void> {
    const size = this.config.deleteBatchSize ?? 1000
    for (let i = 0; i < keys.length; i += size) {
      const batch = keys.slice(i, i + size)
      const where = batch[0]!.slice(this.keyPrefix.length)
      const response = await this.send('delete', where, () =>
        this.client.send(new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map(Key => ({ Key })), Quiet: true },
        })))
      const failed = response.Errors ?? []
      if (failed.length > 0) {
        const first = failed[0]!
        const path = (first.Key ?? '').slice(this.keyPrefix.length)
        throw WeirError.checkpoint(
          `cannot delete '${this.uriOf(path)}'${failed.length > 1 ? ` and ${failed.length - 1} more` : ''}: ${first.Code ?? 'error'}: ${first.Message ?? ''}`,
          {
            help: first.Code === 'AccessDenied' ? ACCESS_HELP : `check the bucket's permissions and retention (object lock) settings`,
          },
        )
      }
    }
  }

  /** Runs one request; a failure becomes a checkpoint error about `path`. */
  private async send<T>(verb: Verb, path: string, request: () => Promise<T>): Promise<T> {
    try {
      const result = await request()
      this.bucketSeen = true
      return result
    } catch (e) {
      throw this.toWeirError(e, verb, path)
    }
  }

  private toWeirError(e: unknown, verb: Verb, path: string): WeirError {
    if (e instanceof WeirError) return e
    const where = this.uriOf(path)
    const name = errorName(e)
    const cause = { cause: e }
    switch (name) {
      case 'NoSuchKey':
        return WeirError.checkpoint(`checkpoint file '${where}' not found`, {
          help:
            'the checkpoint may be incomplete or deleted, or the checkpoint URI may be wrong; restore from another checkpoint, or start the job without one',
          ...cause,
        })
      case 'NoSuchBucket':
        return WeirError.checkpoint(`cannot ${verb} '${where}': the bucket '${this.bucket}' does not exist${this.endpointNote()}`, {
          help: `create the bucket, or fix the bucket name in the checkpoint URI; check that 's3.endpoint' points at the server that holds it`,
          ...cause,
        })
      case 'NotFound':
        // A bare 404 to HEAD bucket.
        return WeirError.checkpoint(`cannot ${verb} '${where}': the bucket '${this.bucket}' does not exist${this.endpointNote()}`, {
          help: `create the bucket, or fix the bucket name in the checkpoint URI; check that 's3.endpoint' points at the server that holds it`,
          ...cause,
        })
      case 'AccessDenied':
      case 'Forbidden':
      case 'InvalidAccessKeyId':
      case 'SignatureDoesNotMatch':
      case 'InvalidToken':
      case 'ExpiredToken':
      case 'AllAccessDisabled':
      case 'AccountProblem':
        return WeirError.checkpoint(`cannot ${verb} '${where}': access denied (${name})${this.endpointNote()}`, { help: ACCESS_HELP, ...cause })
      case 'CredentialsProviderError':
        return WeirError.checkpoint(`cannot ${verb} '${where}': no S3 credentials found`, {
          help: `set 's3.access-key' and 's3.secret-key', or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment`,
          ...cause,
        })
      case 'PermanentRedirect':
      case 'AuthorizationHeaderMalformed':
      case 'IllegalLocationConstraintException':
        return WeirError.checkpoint(`cannot ${verb} '${where}': the bucket is in another region than '${this.config.region}' (${name})`, {
          help: `set 's3.region' to the bucket's region`,
          ...cause,
        })
    }
    const network = networkProblem(e)
    if (network !== undefined) {
      return WeirError.checkpoint(
        `cannot ${verb} '${where}': cannot reach the S3 endpoint ${this.config.endpoint ?? `of AWS region '${this.config.region}'`} (${network})`,
        {
          help: `check 's3.endpoint' and that the S3 server is running and reachable from here`,
          ...cause,
        },
      )
    }
    const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
    return WeirError.checkpoint(`cannot ${verb} '${where}': ${name ?? 'error'}${status === undefined ? '' : ` (HTTP ${status})`}: ${(e as Error).message}`, {
      help: `check the checkpoint URI and the 's3.endpoint', 's3.region' and credential options`,
      ...cause,
    })
  }

  private endpointNote(): string {
    return this.config.endpoint === undefined ? '' : ` at ${this.config.endpoint}`
  }

  private keyOf(path: string): string {
    checkPath(path, this.uri)
    return this.keyPrefix + path
  }

  private uriOf(path: string): string {
    return path === '' ? this.uri : `${this.uri}/${path}`
  }
}

type Verb = 'read' | 'write' | 'list' | 'delete'

const ACCESS_HELP =
  `check 's3.access-key' and 's3.secret-key' (or the AWS credentials in the environment) and that they may read, write, list and delete in the bucket`

function errorName(e: unknown): string | undefined {
  return e instanceof Error ? e.name : undefined
}

/** A description of a failure to talk to the server at all, or undefined for any other error. */
function networkProblem(e: unknown): string | undefined {
  const codes = [(e as NodeJS.ErrnoException).code, ...((e as { errors?: unknown[] }).errors ?? []).map(x => (x as NodeJS.ErrnoException).code)]
  for (const code of codes) {
    switch (code) {
      case 'ECONNREFUSED':
        return 'connection refused'
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return 'host not found'
      case 'ECONNRESET':
      case 'EPIPE':
        return 'connection reset'
      case 'ETIMEDOUT':
        return 'timed out'
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return 'host unreachable'
    }
  }
  if (errorName(e) === 'TimeoutError') return 'timed out'
  return undefined
}

function localFileError(e: unknown, verb: 'read' | 'write', localFile: string, object: string): WeirError {
  const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (e as Error).message
  return WeirError.checkpoint(`cannot ${verb} local file '${localFile}' (checkpoint file '${object}'): ${reason}`, {
    help: 'check the local state directory and its permissions',
    cause: e,
  })
}
