// What the runtime knows of a keyed-state backend, whichever it is: a factory makes each subtask's
// backend (restoring it from the state handles a checkpoint holds), and the backend snapshots itself
// into checkpoint storage, handing back the handle the manifest records. The registry
// (state/backends.ts) picks the factory by 'state.backend'; the runtime never names a backend.
import { mkdir, mkdtemp } from 'node:fs/promises'
import { join } from 'node:path'
import type { CheckpointStorage } from '../checkpoint/storage/api.js'
import { fsError, operationOf } from '../common/fs-errors.js'
import type { KeyedStateBackend } from '../core/keyed-state.js'

/** A range of key groups, inclusive. */
export interface KeyGroupRange {
  readonly start: number
  readonly end: number
}

/** What a manifest records of one subtask's state: its backend says how to read the rest. */
export interface BackendHandle {
  readonly backend: string
}

/** What a subtask's backend is made from. */
export interface SubtaskStateOptions {
  readonly jobName: string
  readonly operatorId: string
  /** The subtask's index, and how many subtasks its operator has. */
  readonly subtask: number
  readonly parallelism: number
  readonly maxParallelism: number
  /** The key groups the subtask owns. */
  readonly keyGroupRange: KeyGroupRange
  /** The job's folder under 'state.dir' (absolute; nothing is created there unless a backend keeps files). */
  readonly jobDir: string
  /** Budget of a disk backend's in-memory cache, bytes ('state.cache.size'). */
  readonly cacheBytes: number
  /** Memtable size of an LSM backend, bytes (undefined: its own default). */
  readonly writeBufferBytes: number | undefined
  /** A folder in jobDir for staging files (made on the first call, removed when the job ends). */
  readonly tmpDir: () => Promise<string>
}

/** Where a subtask's backend restores from: the handles of every old subtask whose key groups overlap its own. */
export interface StateRestore<H extends BackendHandle> {
  /** One handle when the parallelism is unchanged; several (each with part of the range) when it changed. */
  readonly handles: readonly H[]
  /** The storage the handles' paths are relative to. */
  readonly storage: CheckpointStorage
}

/**
 * Makes the keyed-state backends of one kind.
 *
 * @example
 * const backend = await factory.create(options, restore && { handles: overlapping.map(s => s.state), storage: restore.base })
 */
export interface StateBackendFactory<H extends BackendHandle> {
  /** Its 'state.backend' value, and the `backend` of the handles its backends write. */
  readonly name: H['backend']
  /** A subtask's backend: empty, or holding the state of `restore`'s key groups that the subtask owns (each key exactly once). */
  create(options: SubtaskStateOptions, restore?: StateRestore<H>): Promise<SubtaskStateBackend<H>>
  /** The stored objects a handle needs: retention deletes a shared object once no retained manifest's handles name it. */
  referencedObjects(handle: H): readonly string[]
}

/** Where and how a backend stores one snapshot. */
export interface StateSnapshotOptions {
  readonly storage: CheckpointStorage
  /** A folder only this snapshot writes to ('chk-7/2-group-aggregate-0/'). */
  readonly ownPrefix: string
  /** Where objects that later checkpoints may reference again go ('shared/'). */
  readonly sharedPrefix: string
  /** A savepoint: every object under ownPrefix, nothing shared with other checkpoints. */
  readonly selfContained: boolean
  readonly checkpointId: number
  /** A folder beside the working state for local copies (made on the first call). */
  readonly tmpDir: () => Promise<string>
}

/** A snapshot whose synchronous part is done: the state may change again while `upload` stores it. */
export interface PendingStateSnapshot<H extends BackendHandle> {
  /** Resolves to the handle for the manifest once everything is stored; rejects if storing failed. */
  readonly upload: Promise<H>
}

/** What a subtask's working state took on disk at the end of a job. */
export interface StateStorageStats {
  readonly diskBytes: number
  /** Entries stored, expired ones not yet swept included (only when asked for: a scan of all state). */
  readonly storedEntries?: number
}

/** A subtask's keyed-state backend as the runtime drives it: the operator's state, and its checkpoints. */
export interface SubtaskStateBackend<H extends BackendHandle = BackendHandle> extends KeyedStateBackend {
  /**
   * Snapshots the state for checkpoint (or savepoint) `checkpointId`, before the barrier is forwarded.
   * What the returned promise waits for is what processing waits for (the heap serializes its
   * entries, RocksDB writes back and links its files); the slow part runs in `upload`.
   */
  checkpoint(options: StateSnapshotOptions): Promise<PendingStateSnapshot<H>>
  /**
   * Backends that keep working state on disk: the bytes of its files now, without writing first
   * (what the cache holds unwritten is not in it); the live metrics sample it.
   */
  diskBytes?(): Promise<number>
  /**
   * Backends that keep working state on disk, at the job's end: the bytes its files take (what the
   * cache holds unwritten is left so: the folder is deleted next), and with `countStored` what they
   * hold written first and the entries stored counted (JobMetrics).
   */
  storageStats?(countStored: boolean): Promise<StateStorageStats>
  /** Backends that keep working state on disk: closes and deletes it (a job's working state never outlives it; checkpoints do). */
  destroy?(): Promise<void>
}

/** A fresh folder in `jobDir` (a job's folder in 'state.dir') where the backends of one run stage files (SubtaskStateOptions.tmpDir). */
export async function makeStagingDir(jobDir: string): Promise<string> {
  try {
    await mkdir(jobDir, { recursive: true })
    return await mkdtemp(join(jobDir, '_snapshots-'))
  } catch (e) {
    throw fsError(e, { kind: 'checkpoint', op: operationOf(e, 'create'), path: jobDir, what: 'a staging folder for snapshots of state, beside it',
      setting: "'state.dir'" })
  }
}
