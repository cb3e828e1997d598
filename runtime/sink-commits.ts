// Sinks' commits in checkpoints. What a sink's prepareCommit(n) returns is stored in checkpoint n's
// manifest, except the bulk data of a CommitWithData (a Kafka sink's sealed messages): that is an
// object of the checkpoint's own in its folder (so it lives in the directory or on S3 with the rest,
// and retention removes it with the folder), and the manifest keeps only its path, size and SHA-1.
// A restore reads it back, checked, before the sink is created.
import { safeFileName } from '../common/names.js'
import { getBytes, putObject, type StoredObject } from '../checkpoint/objects.js'
import type { CheckpointStorage } from '../checkpoint/storage/api.js'
import { CommitWithData, type SinkContext } from '../connectors/api.js'
import type { CheckpointRef } from './checkpoint.js'

/** The sink commits of a checkpoint being taken, as its manifest will hold them. */
export interface SinkCommits {
  readonly sinks: Record<string, unknown>
  readonly sinkData: Record<string, StoredObject>
}

/**
 * Records what the sink `operatorId` sealed for the checkpoint whose objects go to `base` under
 * `prefix` ('chk-7/', or '' in a savepoint's own folder). Returns the upload of its data, if it has
 * any: the manifest is written only after it.
 */
export function recordSinkCommit(commits: SinkCommits, base: CheckpointStorage, prefix: string, operatorId: string, sealed: unknown):
  | Promise<void>
  | undefined
{
  if (!(sealed instanceof CommitWithData)) {
    commits.sinks[operatorId] = sealed
    return undefined
  }
  commits.sinks[operatorId] = sealed.commit
  return putObject(base, `${prefix}${safeFileName(operatorId)}-sink.bin`, sealed.data).then(object => {
    commits.sinkData[operatorId] = object
  })
}

/** What the sink `operatorId` sealed in the checkpoint being restored: its commit, and its data read back (a damaged object is a checkpoint error). */
export async function restoredSinkCommit(restore: CheckpointRef | undefined,
  operatorId: string): Promise<Pick<SinkContext, 'restoredCommit' | 'restoredData'>>
{
  if (restore === undefined) return {}
  const object = restore.manifest.sinkData?.[operatorId]
  const restoredCommit = restore.manifest.sinks[operatorId]
  return object === undefined ? { restoredCommit } : { restoredCommit, restoredData: await getBytes(restore.base, object) }
}
