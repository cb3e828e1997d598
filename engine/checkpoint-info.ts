// What a checkpoint or savepoint folder holds, read from its metadata: for programs that keep the
// savepoints their jobs stop with (`weir savepoint` checks the one each job reported before naming it).
import { openCheckpointAt } from '../runtime/checkpoint.js'
import { DEFAULT_JOB_CONFIG, type S3Config } from '../common/config/index.js'

/** A completed checkpoint or savepoint. */
export interface CheckpointInfo {
  readonly kind: 'checkpoint' | 'savepoint'
  readonly id: number
  /** The job it was taken of. */
  readonly job: string
  /** Taken when the job had finished: a job started from it only completes its sinks' commits. */
  readonly finished: boolean
  /** Where it is (a URI). */
  readonly location: string
}

/**
 * Reads the metadata of the checkpoint or savepoint at `location` (a folder path or a file:// or
 * s3:// URI); `s3` is how the job reaches S3 (its s3.* settings). Throws a checkpoint error when there is
 * no completed one there.
 *
 * @example (await readCheckpointInfo('.weir/checkpoints/clicks-1/savepoint-3')).kind // 'savepoint'
 */
export async function readCheckpointInfo(location: string, s3: S3Config = DEFAULT_JOB_CONFIG.s3): Promise<CheckpointInfo> {
  const { manifest, location: at } = await openCheckpointAt(location, s3)
  return { kind: manifest.kind, id: manifest.id, job: manifest.job, finished: manifest.finished, location: at }
}
