// Moving RocksDB database files to and from checkpoint storage: gzip and SHA-1 of the raw bytes on
// the way up, gunzip and the check of size and SHA-1 on the way down.
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { rm, stat } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip, createGzip } from 'node:zlib'
import { WeirError } from '../../common/errors.js'
import { errnoCode, fsError } from '../../common/fs-errors.js'
import type { StoredDbFile } from './handle.js'
import type { CheckpointStorage } from '../../checkpoint/storage/api.js'

/**
 * Compresses `path` into a temporary file beside it (memory stays flat whatever the file's size),
 * hashing the raw bytes on the way, and stores that as `object`.
 */
export async function storeFile(storage: CheckpointStorage, path: string, object: string,
  level: number): Promise<{ size: number; storedSize: number; sha1: string }>
{
  const gz = `${path}.gz.tmp`
  const hash = createHash('sha1')
  let size = 0
  try {
    await pipeline(
      createReadStream(path, { highWaterMark: 1 << 20 }),
      async function*(source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          hash.update(chunk)
          size += chunk.length
          yield chunk
        }
      },
      createGzip({ level, chunkSize: 1 << 16 }),
      createWriteStream(gz),
    )
    const storedSize = (await stat(gz)).size
    await storage.putFile(object, gz)
    return { size, storedSize, sha1: hash.digest('hex') }
  } catch (e) {
    if (e instanceof WeirError) throw e
    if (errnoCode(e) !== undefined) {
      // Reading the database file, or writing its compressed copy beside it: both under 'state.dir'.
      const reading = (e as { path?: unknown }).path === path
      throw fsError(e, { kind: 'checkpoint', op: reading ? 'read' : 'write', path: reading ? path : gz,
        what: `RocksDB state on its way to checkpoint object '${object}'`, setting: "'state.dir'" })
    }
    throw WeirError.checkpoint(`cannot store '${path}' as '${object}' in ${storage.uri}: ${messageOf(e)}`, {
      help: 'check the checkpoint storage (free space, permissions, credentials)',
      cause: e,
    })
  } finally {
    await rm(gz, { force: true })
  }
}

/**
 * Downloads `file` into the local file `target`, decompressing it, and checks its size and SHA-1.
 * A missing object, or one that is not what the checkpoint recorded, is a checkpoint error naming
 * it. Returns the bytes downloaded.
 */
export async function fetchFile(storage: CheckpointStorage, file: StoredDbFile, target: string): Promise<number> {
  let data: Buffer
  try {
    data = await storage.get(file.object)
  } catch (e) {
    const exists = await storage.exists(file.object).catch(() => true)
    if (!exists) {
      throw WeirError.checkpoint(`checkpoint object '${file.object}' is missing from ${storage.uri}`, {
        notes: [`it holds RocksDB file ${file.name}`],
        help: 'the checkpoint is incomplete or its files were deleted: restore from another checkpoint or a savepoint',
        cause: e,
      })
    }
    if (e instanceof WeirError) throw e
    throw WeirError.checkpoint(`cannot read checkpoint object '${file.object}' from ${storage.uri}: ${messageOf(e)}`, {
      help: 'check the checkpoint storage (permissions, credentials, network)',
      cause: e,
    })
  }
  if (data.length !== file.storedSize) throw corrupt(storage, file, `it has ${data.length} bytes, the checkpoint recorded ${file.storedSize}`)
  const hash = createHash('sha1')
  let size = 0
  try {
    await pipeline(
      Readable.from([data]),
      createGunzip({ chunkSize: 1 << 16 }),
      async function*(source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          hash.update(chunk)
          size += chunk.length
          yield chunk
        }
      },
      createWriteStream(target),
    )
  } catch (e) {
    if (String((e as { code?: unknown }).code).startsWith('Z_')) throw corrupt(storage, file, `it does not decompress (${messageOf(e)})`, e)
    if (errnoCode(e) !== undefined) {
      throw fsError(e, { kind: 'checkpoint', op: 'write', path: target, what: `RocksDB state restored from checkpoint object '${file.object}'`,
        setting: "'state.dir'" })
    }
    throw WeirError.checkpoint(`cannot write restored file '${target}': ${messageOf(e)}`, {
      help: "check free space and permissions of 'state.dir'",
      cause: e,
    })
  }
  if (size !== file.size) throw corrupt(storage, file, `it decompresses to ${size} bytes, the checkpoint recorded ${file.size}`)
  const sha1 = hash.digest('hex')
  if (sha1 !== file.sha1) throw corrupt(storage, file, `its SHA-1 is ${sha1}, the checkpoint recorded ${file.sha1}`)
  return data.length
}

function corrupt(storage: CheckpointStorage, file: StoredDbFile, why: string, cause?: unknown): WeirError {
  return WeirError.checkpoint(`checkpoint object '${file.object}' in ${storage.uri} is corrupt: ${why}`, {
    notes: [`it holds RocksDB file ${file.name}`],
    help: 'the stored copy was damaged or replaced: restore from another checkpoint or a savepoint',
    cause,
  })
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

/** `prefix` + `name`, with one '/' between them. */
export function joinPath(prefix: string, name: string): string {
  if (prefix === '') return name
  return prefix.endsWith('/') ? prefix + name : `${prefix}/${name}`
}

/** Runs `fn` over `items`, at most `limit` at a time; the first failure rejects once the started calls settled. */
export async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0
  let failure: { readonly e: unknown } | null = null
  const worker = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const i = next++
      try {
        await fn(items[i]!, i)
      } catch (e) {
        failure ??= { e }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  if (failure !== null) throw (failure as { readonly e: unknown }).e
}
