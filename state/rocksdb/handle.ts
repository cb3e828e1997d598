// What a checkpoint manifest records about one subtask's RocksDB database: its files in checkpoint
// storage (plain JSON), which stored objects they are, and the checks a handle read back must pass.
import { WeirError } from '../../common/errors.js'
import type { KeyGroupRange } from '../backend.js'

export type { KeyGroupRange }

/**
 * Format 2: a list element's sequence number may be wide (8 bytes, codec.ts writeSeq) and the
 * database may hold the list counter (tables.ts, listSeq); an older Weir would misread both, so it
 * refuses the handle. Format 1 (every sequence number in 4 bytes, no counter) still restores.
 */
export const ROCKSDB_HANDLE_FORMAT = 'weir-rocksdb/2'
const READABLE_FORMATS: readonly string[] = ['weir-rocksdb/1', ROCKSDB_HANDLE_FORMAT]

/** One database file in checkpoint storage, gzip-compressed. */
export interface StoredDbFile {
  /** Its name in the database folder: `000012.sst`, `MANIFEST-000005`, `CURRENT`, `OPTIONS-000007`. */
  readonly name: string
  /** The object's path in checkpoint storage. */
  readonly object: string
  /** Under the shared prefix: later checkpoints of the same database may reference it too. */
  readonly shared: boolean
  /** Bytes of the file itself. */
  readonly size: number
  /** Bytes of the stored (compressed) object. */
  readonly storedSize: number
  /** SHA-1 (hex) of the file's own bytes, checked after download. */
  readonly sha1: string
}

/** An SST file an earlier checkpoint of the same database stored: the values of the `known` map. */
export type StoredSst = StoredDbFile

/**
 * One subtask's RocksDB state in a checkpoint: every file of its database as of the snapshot.
 *
 * @example
 * {
 *   "backend": "rocksdb", "format": "weir-rocksdb/2", "maxParallelism": 128, "keyGroups": { "start": 0, "end": 63 },
 *   "entries": 81234, "selfContained": false, "compression": "gzip",
 *   "files": [
 *     { "name": "000012.sst", "object": "shared/3f0c…-000012.sst.gz", "shared": true, "size": 8123456, "storedSize": 2974311, "sha1": "…" },
 *     { "name": "MANIFEST-000005", "object": "chk-7/op-1-0/rocksdb/MANIFEST-000005.gz", "shared": false, … }
 *   ],
 *   "uploaded": { "files": 3, "size": 8130012, "storedSize": 2976020, "millis": 412 }
 * }
 */
export interface RocksDbStateHandle {
  readonly backend: 'rocksdb'
  readonly format: typeof ROCKSDB_HANDLE_FORMAT | 'weir-rocksdb/1'
  readonly maxParallelism: number
  /** The key groups the database holds (its subtask's range when the snapshot was taken). */
  readonly keyGroups: KeyGroupRange
  /** Live entries as the backend counted them at the snapshot (approximate). */
  readonly entries: number
  /** A savepoint's: every file under its own prefix, nothing shared with other checkpoints. */
  readonly selfContained: boolean
  readonly compression: 'gzip'
  readonly files: readonly StoredDbFile[]
  /** What this checkpoint stored itself (the rest it referenced from earlier ones). */
  readonly uploaded: { readonly files: number; readonly size: number; readonly storedSize: number; readonly millis: number }
}

/**
 * The stored objects a handle needs. The coordinator deletes a shared object once no retained
 * manifest's handles reference it.
 *
 * @example const keep = new Set(retained.flatMap(m => handlesOf(m).flatMap(referencedObjects)))
 */
export function referencedObjects(handle: RocksDbStateHandle): string[] {
  return handle.files.map(f => f.object)
}

/** `handle` as read back from a manifest, checked; `where` names it in errors. */
export function checkHandle(handle: unknown, where: string): RocksDbStateHandle {
  const h = handle as Partial<RocksDbStateHandle> | null
  const bad = (what: string): WeirError =>
    WeirError.checkpoint(`${where} is not a Weir RocksDB state handle: ${what}`, {
      help: 'the checkpoint manifest is damaged or was written by another version of Weir: restore from another checkpoint or savepoint',
    })
  if (h === null || typeof h !== 'object') throw bad('not an object')
  if (h.backend !== 'rocksdb') throw bad(`backend '${String(h.backend)}'`)
  if (!READABLE_FORMATS.includes(h.format as string)) throw bad(`format '${String(h.format)}'`)
  if (!Number.isInteger(h.maxParallelism)) throw bad('no max-parallelism')
  const kg = h.keyGroups
  if (kg === undefined || !Number.isInteger(kg.start) || !Number.isInteger(kg.end) || kg.start > kg.end) throw bad('no key-group range')
  if (!Array.isArray(h.files) || !h.files.some(f => f?.name === 'CURRENT')) throw bad('no CURRENT file')
  for (const f of h.files) {
    if (typeof f?.name !== 'string' || typeof f.object !== 'string' || typeof f.sha1 !== 'string' || !Number.isInteger(f.size) ||
      !Number.isInteger(f.storedSize))
    {
      throw bad(`file entry ${JSON.stringify(f)}`)
    }
  }
  return h as RocksDbStateHandle
}
