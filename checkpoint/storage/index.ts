// Opening checkpoint storage from a URI ('state.checkpoints.dir', '--from-savepoint' …) and the
// 's3.*' options (Flink's keys) that say how to reach an S3-compatible server.
import { WeirError } from '../../common/errors.js'
import type { CheckpointStorage } from './api.js'
import { FileCheckpointStorage } from './file.js'
import { S3CheckpointStorage, type S3StorageConfig } from './s3.js'

export type { CheckpointStorage } from './api.js'
export { FileCheckpointStorage } from './file.js'
export { S3CheckpointStorage, type S3StorageConfig } from './s3.js'

/** Every option openCheckpointStorage reads, so the planner can reject a misspelt SET key. */
export const CHECKPOINT_STORAGE_OPTIONS: readonly string[] = [
  's3.endpoint',
  's3.region',
  's3.access-key',
  's3.secret-key',
  's3.path.style.access',
]

const SCHEMES_HELP = 'checkpoints go to a directory (file:///abs/dir, or a plain path) or to an S3 bucket (s3://bucket/folder)'

/**
 * The storage at `uri`: file:///abs/dir, a plain path (relative to the working directory), or
 * s3://bucket/prefix. Nothing is contacted or created until the first call.
 *
 * S3 options, all optional: 's3.endpoint' (an S3-compatible server, e.g. 'http://127.0.0.1:9000'),
 * 's3.region' (default 'us-east-1'), 's3.access-key' and 's3.secret-key' (default: the AWS SDK's
 * credential chain, e.g. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), 's3.path.style.access'
 * ('true' or 'false'; default 'true' when an endpoint is set).
 *
 * @example
 * openCheckpointStorage('s3://weir/checkpoints', { 's3.endpoint': 'http://127.0.0.1:9000', 's3.access-key': 'k', 's3.secret-key': 's' })
 * openCheckpointStorage('./checkpoints', {})   // → file:///current/dir/checkpoints
 */
export function openCheckpointStorage(uri: string, options: Readonly<Record<string, string>>): CheckpointStorage {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):\/\//.exec(uri)?.[1]?.toLowerCase() ?? (/^file:/i.test(uri) ? 'file' : undefined)
  switch (scheme) {
    case undefined: case 'file':
      return new FileCheckpointStorage(uri)
    case 's3':
      return new S3CheckpointStorage(uri, s3ConfigOf(options))
    default:
      throw WeirError.checkpoint(`checkpoint location '${uri}' has the unsupported scheme '${scheme}://'`, {
        help: scheme === 's3a' || scheme === 's3n' || scheme === 's3p' ? `write it as s3://…; ${SCHEMES_HELP}` : SCHEMES_HELP,
      })
  }
}

function s3ConfigOf(options: Readonly<Record<string, string>>): S3StorageConfig {
  const endpoint = optional(options, 's3.endpoint')
  if (endpoint !== undefined) checkEndpoint(endpoint)
  const accessKeyId = optional(options, 's3.access-key')
  const secretAccessKey = optional(options, 's3.secret-key')
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    const [given, missing] = accessKeyId === undefined ? ['s3.secret-key', 's3.access-key'] : ['s3.access-key', 's3.secret-key']
    throw WeirError.checkpoint(`'${given}' is set but '${missing}' is not`, {
      help: `set both, or neither to use the AWS credential chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY …)`,
    })
  }
  return {
    endpoint: endpoint?.replace(/\/+$/, ''),
    region: optional(options, 's3.region') ?? 'us-east-1',
    credentials: accessKeyId === undefined || secretAccessKey === undefined ? undefined : { accessKeyId, secretAccessKey },
    forcePathStyle: pathStyleOf(options, endpoint !== undefined),
  }
}

/** An option's value; an empty one counts as unset. */
function optional(options: Readonly<Record<string, string>>, key: string): string | undefined {
  const value = options[key]?.trim()
  return value === undefined || value === '' ? undefined : value
}

function checkEndpoint(endpoint: string): void {
  let url: URL | undefined
  try { url = new URL(endpoint) } catch { url = undefined }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
    throw WeirError.checkpoint(`'s3.endpoint' = '${endpoint}' is not an http:// or https:// URL`, {
      help: `give the server's URL, e.g. 'http://127.0.0.1:9000'`,
    })
  }
}

function pathStyleOf(options: Readonly<Record<string, string>>, byDefault: boolean): boolean {
  const value = optional(options, 's3.path.style.access')
  if (value === undefined) return byDefault
  switch (value.toLowerCase()) {
    case 'true': return true
    case 'false': return false
    default:
      throw WeirError.checkpoint(`'s3.path.style.access' = '${value}' is not 'true' or 'false'`, {
        help: `'true' addresses objects as http://endpoint/bucket/key (what most S3-compatible servers need), 'false' as http://bucket.endpoint/key`,
      })
  }
}
