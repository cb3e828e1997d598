// S3 checkpoint storage that loads the AWS SDK on its first request, not when Weir starts: the SDK
// took ~0.3–0.4 s to import, which every `weir` command and job paid, with or without S3. The URI is
// still checked when the storage is opened (when its job is planned), as before.
import type { CheckpointStorage } from './api.js'
import type { LockAttempt, LockClaim } from './lock.js'
import type { S3CheckpointStorage, S3StorageConfig } from './s3.js'
import { parseS3Uri } from './s3-uri.js'

/**
 * @example
 * const storage = new LazyS3Storage('s3://bucket/checkpoints', config) // nothing loaded or contacted yet
 * await storage.put('chk-1/_metadata', bytes)                          // loads the SDK, then writes
 */
export class LazyS3Storage implements CheckpointStorage {
  readonly uri: string
  private loaded: Promise<S3CheckpointStorage> | undefined

  constructor(uri: string, private readonly config: S3StorageConfig) {
    const { bucket, prefix } = parseS3Uri(uri)
    this.uri = prefix === '' ? `s3://${bucket}` : `s3://${bucket}/${prefix}`
  }

  private storage(): Promise<S3CheckpointStorage> {
    this.loaded ??= import('./s3.js').then(m => new m.S3CheckpointStorage(this.uri, this.config))
    return this.loaded
  }

  async put(path: string, data: Uint8Array): Promise<void> {
    return (await this.storage()).put(path, data)
  }

  async putFile(path: string, localFile: string): Promise<void> {
    return (await this.storage()).putFile(path, localFile)
  }

  async get(path: string): Promise<Buffer> {
    return (await this.storage()).get(path)
  }

  async getFile(path: string, localFile: string): Promise<void> {
    return (await this.storage()).getFile(path, localFile)
  }

  async exists(path: string): Promise<boolean> {
    return (await this.storage()).exists(path)
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.storage()).list(prefix)
  }

  async delete(paths: readonly string[]): Promise<void> {
    return (await this.storage()).delete(paths)
  }

  async deletePrefix(prefix: string): Promise<void> {
    return (await this.storage()).deletePrefix(prefix)
  }

  async lock(path: string, claim: LockClaim): Promise<LockAttempt> {
    return (await this.storage()).lock(path, claim)
  }
}
