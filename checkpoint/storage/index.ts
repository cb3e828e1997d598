// Opening checkpoint storage from a URI ('state.checkpoints.dir', '--from-savepoint' …) and the
// 's3.*' options (Flink's keys, read into JobConfig.s3) that say how to reach an S3-compatible server.
import { WeirError } from '../../common/errors.js'
import { ALL_OPTIONS, type S3Config } from '../../common/config/index.js'
import type { CheckpointStorage } from './api.js'
import { FileCheckpointStorage } from './file.js'
import { LazyS3Storage } from './lazy-s3.js'
import type { S3StorageConfig } from './s3.js'

export type { CheckpointStorage } from './api.js'
export { FileCheckpointStorage } from './file.js'
export type { S3StorageConfig } from './s3.js'

/** The keys of the options openCheckpointStorage takes (JobConfig.s3). */
export const CHECKPOINT_STORAGE_OPTIONS: readonly string[] = ALL_OPTIONS.map(o => o.key).filter(k => k.startsWith('s3.'))

const SCHEMES_HELP = 'checkpoints go to a directory (file:///abs/dir, or a plain path) or to an S3 bucket (s3://bucket/folder)'

/**
 * The storage at `uri`: file:///abs/dir, a plain path (relative to the working directory), or
 * s3://bucket/prefix. Nothing is contacted or created until the first call.
 *
 * S3 options ('s3.*', read into JobConfig.s3): 'endpoint' (an S3-compatible server, e.g.
 * 'http://127.0.0.1:9000'), 'region', 'accessKey' and 'secretKey' (unset: the AWS SDK's credential
 * chain, e.g. AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), 'pathStyleAccess' (unset: true when an
 * endpoint is set). Checked here, as the storage is opened when its job is planned: an endpoint
 * that is no http(s) URL, a key without its secret.
 *
 * @example
 * openCheckpointStorage('s3://weir/checkpoints', jobConfigOf({ 's3.endpoint': 'http://127.0.0.1:9000', 's3.access-key': 'k', 's3.secret-key': 's' }).s3)
 * openCheckpointStorage('./checkpoints', DEFAULT_JOB_CONFIG.s3)   // → file:///current/dir/checkpoints
 */
export function openCheckpointStorage(uri: string, s3: S3Config): CheckpointStorage {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):\/\//.exec(uri)?.[1]?.toLowerCase() ?? (/^file:/i.test(uri) ? 'file' : undefined)
  switch (scheme) {
    case undefined:
    case 'file':
      return new FileCheckpointStorage(uri)
    case 's3':
      // The AWS SDK is loaded by the first request (lazy-s3.ts); the URI is checked now.
      return new LazyS3Storage(uri, s3StorageConfig(s3))
    default:
      throw WeirError.checkpoint(`checkpoint location '${uri}' has the unsupported scheme '${scheme}://'`, {
        help: scheme === 's3a' || scheme === 's3n' || scheme === 's3p' ? `write it as s3://…; ${SCHEMES_HELP}` : SCHEMES_HELP,
      })
  }
}

function s3StorageConfig({ endpoint, region, accessKey: accessKeyId, secretKey: secretAccessKey, pathStyleAccess }: S3Config): S3StorageConfig {
  if (endpoint !== undefined) checkEndpoint(endpoint)
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    const [given, missing] = accessKeyId === undefined ? ['s3.secret-key', 's3.access-key'] : ['s3.access-key', 's3.secret-key']
    throw WeirError.checkpoint(`'${given}' is set but '${missing}' is not`, {
      help: `set both, or neither to use the AWS credential chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY …)`,
    })
  }
  return {
    endpoint: endpoint?.replace(/\/+$/, ''),
    region,
    credentials: accessKeyId === undefined || secretAccessKey === undefined ? undefined : { accessKeyId, secretAccessKey },
    forcePathStyle: pathStyleAccess ?? endpoint !== undefined,
  }
}

function checkEndpoint(endpoint: string): void {
  let url: URL | undefined
  try {
    url = new URL(endpoint)
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
    throw WeirError.checkpoint(`'s3.endpoint' = '${endpoint}' is not an http:// or https:// URL`, {
      help: `give the server's URL, e.g. 'http://127.0.0.1:9000'`,
    })
  }
}
