// Where checkpoints and savepoints are stored: a directory (file://) or an S3-compatible bucket
// (s3://bucket/prefix). Paths are relative to the storage's root and use '/' separators.
import type { LockAttempt, LockClaim } from './lock.js'

/**
 * An object store for checkpoint files. Writes are atomic (a reader sees a whole object or none),
 * and an object, once written, is never rewritten in place.
 *
 * A path is relative and made of '/'-separated names, none of them empty, '.' or '..'
 * ('chk-3/_metadata'); any other path is an internal error. A prefix names a folder: '' is the
 * whole storage, and 'chk-1' (or 'chk-1/') covers 'chk-1/_metadata' but never 'chk-10/…'.
 * Failures (missing object, missing bucket, access denied, endpoint unreachable) are WeirErrors of
 * kind 'checkpoint' that name the URI and say what to check.
 *
 * @example
 * const storage = openCheckpointStorage('s3://bucket/checkpoints/job-1', jobConfigOf({ 's3.endpoint': 'http://127.0.0.1:9000' }).s3)
 * await storage.put('chk-3/_metadata', manifestBytes)
 * await storage.list('chk-3')   // ['chk-3/_metadata', 'chk-3/op-0/state']
 */
export interface CheckpointStorage {
  /** The root as the user gave it, normalized (file:///abs/dir or s3://bucket/prefix), for messages. */
  readonly uri: string
  /** Writes `data` to `path` (replacing an existing object). */
  put(path: string, data: Uint8Array): Promise<void>
  /** Streams a local file to `path` (replacing an existing object). */
  putFile(path: string, localFile: string): Promise<void>
  /** The object's bytes; a missing object is a WeirError (kind 'checkpoint') naming uri + path. */
  get(path: string): Promise<Buffer>
  /**
   * Streams the object to a local file, created or replaced (its folder is created as needed).
   * The file appears whole or not at all. Missing: as get().
   */
  getFile(path: string, localFile: string): Promise<void>
  /** Whether an object is stored at exactly `path` (a folder that only holds objects is not one). */
  exists(path: string): Promise<boolean>
  /** Paths (relative to the root, full, sorted) of every object under the folder `prefix` (recursive). */
  list(prefix: string): Promise<string[]>
  /** Deletes these objects; missing ones are ignored. */
  delete(paths: readonly string[]): Promise<void>
  /** Deletes every object under the folder `prefix` ('' empties the storage). */
  deletePrefix(prefix: string): Promise<void>
  /**
   * Takes the lock at `path` for `claim`, or names the live holder that has it (lock.ts): in a
   * directory a folder of claim files (file-lock.ts), in a bucket a lease object (s3-lock.ts).
   */
  lock(path: string, claim: LockClaim): Promise<LockAttempt>
}
