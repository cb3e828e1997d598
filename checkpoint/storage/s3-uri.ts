// s3://bucket/prefix URIs, checked without loading the AWS SDK (index.ts opens S3 storage lazily).
import { WeirError } from '../../common/errors.js'

/**
 * Splits s3://bucket/prefix; the prefix loses its outer slashes.
 *
 * @example parseS3Uri('s3://bucket/checkpoints/job-1/')  // { bucket: 'bucket', prefix: 'checkpoints/job-1' }
 */
export function parseS3Uri(uri: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/?#]*)\/*(.*)$/i.exec(uri)
  const help = 'write it as s3://bucket or s3://bucket/folder'
  if (m === null) throw WeirError.checkpoint(`'${uri}' is not an s3:// URI`, { help })
  const bucket = m[1]!
  const prefix = m[2]!.replace(/\/+$/, '')
  // S3's rules for bucket names: 3-63 lowercase letters, digits, '.' and '-', starting and ending with a letter or digit.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw WeirError.checkpoint(`'${bucket}' in '${uri}' is not a valid S3 bucket name`, {
      help: `${help}; a bucket name has 3 to 63 lowercase letters, digits, '.' and '-'`,
    })
  }
  if (prefix !== '') {
    if (/[?#]/.test(prefix) || prefix.split('/').some(name => name === '' || name === '.' || name === '..')) {
      throw WeirError.checkpoint(`'${uri}' has an unusable folder '${prefix}'`, { help: `${help}, with no empty, '.' or '..' folder names and no '?' or '#'` })
    }
  }
  return { bucket, prefix }
}
