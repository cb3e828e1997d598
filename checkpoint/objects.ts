// Single objects in checkpoint storage: a value v8-serialized and gzip-compressed, stored with its
// size and SHA-1, and read back only if both still match. What the runtime's timers and the heap
// backend's entries are stored as; sinks' sealed output is stored with the same check, as its bytes.
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { gunzip, gzip } from 'node:zlib'
import { deserialize, serialize } from 'node:v8'
import { WeirError } from '../common/errors.js'
import type { CheckpointStorage } from './storage/api.js'

const gzipAsync = promisify(gzip)
const gunzipAsync = promisify(gunzip)

/** A stored object and how to check it. `path` is relative to the manifest's base (see CheckpointRef). */
export interface StoredObject {
  readonly path: string
  readonly bytes: number
  readonly sha1: string
}

/**
 * Serializes any state value (bigint, Map, typed arrays, undefined …) at once — later changes to
 * `value` are not in it — and compresses it in the background.
 */
export async function encodeObject(value: unknown): Promise<Buffer> {
  return gzipAsync(serialize(value), { level: 1 })
}

export async function putObject(storage: CheckpointStorage, path: string, data: Uint8Array): Promise<StoredObject> {
  await storage.put(path, data)
  return { path, bytes: data.length, sha1: sha1(data) }
}

/** Reads an object's bytes as stored, checked; a missing or damaged one is a checkpoint error naming it. */
export async function getBytes(storage: CheckpointStorage, object: StoredObject): Promise<Buffer> {
  const data = await storage.get(object.path)
  if (data.length !== object.bytes || sha1(data) !== object.sha1) {
    throw WeirError.checkpoint(`checkpoint file '${joinUri(storage.uri, object.path)}' is damaged: its size or checksum does not match the manifest`, {
      help: 'the file was changed or truncated after the checkpoint was written; restore from another checkpoint',
    })
  }
  return data
}

/** Reads, checks and decodes an object that encodeObject made; a missing or damaged one is a checkpoint error naming it. */
export async function getObject<T>(storage: CheckpointStorage, object: StoredObject): Promise<T> {
  const data = await getBytes(storage, object)
  try {
    return deserialize(await gunzipAsync(data)) as T
  } catch (e) {
    throw WeirError.checkpoint(`checkpoint file '${joinUri(storage.uri, object.path)}' cannot be decoded: ${(e as Error).message}`, {
      help: 'restore from another checkpoint',
      cause: e,
    })
  }
}

export function sha1(data: Uint8Array): string {
  return createHash('sha1').update(data).digest('hex')
}

/** Joins a storage URI (file:///…, s3://…, or a path) and a relative path. */
export function joinUri(uri: string, path: string): string {
  return uri.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '')
}
